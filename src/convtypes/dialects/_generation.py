"""Reading a local model's raw generation back into an ``AssistantMessage``.

A model run in-process returns text, written in its family's own way (a
:class:`~._output_style.Style`). One reader serves both the whole text and
a stream of chunks: ``parse_output`` feeds the text as a single chunk. The
style reads through a :class:`~._output_cursor.Cursor`, whose every answer
waits until the text seen so far settles it, so any split of the same text
gives the same message, or the same error at the same offset.

This module drives the style's reading: it feeds it chunks, says when the
text ends, keeps the first error for good, and hands out the deltas.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal

from .._messages import AssistantMessage
from ._output_cursor import Cursor, Reading
from ._output_style import Style, foreign_markup, get_style
from ._reply import Delta
from ._template_errors import OutputError
from ._tools import ToolSpec

OnError = Literal["raise", "text"]
"""What a call that cannot be read becomes: an ``OutputError``, or text of the answer."""

ON_ERRORS: Final = ("raise", "text")


def offered_tools(tools: object) -> dict[str, dict[str, Any]] | None:
    """The tools a generation may call, by name, with their arguments' schemas."""
    if tools is None:
        return None
    if isinstance(tools, (str, bytes, Mapping, ToolSpec)) or not isinstance(tools, Iterable):
        raise TypeError(f"tools= must be a list of ToolSpec, not {type(tools).__name__}")
    found: dict[str, dict[str, Any]] = {}
    for position, tool in enumerate(tools):
        if isinstance(tool, ToolSpec):
            found[tool.name] = tool.parameters
            continue
        function = tool.get("function", tool) if isinstance(tool, Mapping) else None
        name = function.get("name") if isinstance(function, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(name, str):
            raise TypeError(
                f"tools[{position}] is not a ToolSpec or a tool in the Hugging Face form "
                '({"type": "function", "function": {"name", "parameters"}})'
            )
        parameters = function.get("parameters")
        found[name] = parameters if isinstance(parameters, dict) else {}
    return found


def _whole(style: Style, cur: Cursor) -> Reading:
    yield from style.reading(cur)
    yield from cur.rest_as_text()


class GenerationReader:
    """The reader behind ``parse_output`` and ``OutputStream`` (see the module's doc)."""

    __slots__ = ("_cur", "_failure", "_finished", "_reading", "_style")

    def __init__(
        self,
        style: object,
        in_thinking: bool,
        tools: object = None,
        on_error: object = "raise",
        *,
        emit: bool = True,
    ) -> None:
        self._style = get_style(style)
        if type(in_thinking) is not bool:
            raise TypeError(f"in_thinking= must be True or False, not {in_thinking!r:.80}")
        if type(on_error) is not str or on_error not in ON_ERRORS:
            raise ValueError(f'on_error= must be "raise" or "text", not {on_error!r:.80}')
        self._cur = Cursor(
            self._style.ends,
            in_thinking,
            offered_tools(tools),
            text_errors=on_error == "text",
            emit=emit,
            foreign=foreign_markup(self._style),
        )
        self._reading: Reading | None = _whole(self._style, self._cur)
        self._finished = False
        self._failure: OutputError | None = None

    def feed(self, chunk: str) -> list[Delta]:
        if type(chunk) is not str:
            raise TypeError(f"a chunk of generated text must be a str, not {type(chunk).__name__}")
        if self._failure is not None:
            raise self._failure
        if self._finished:
            raise ValueError("the generation was already finished; start a new reader")
        self._cur._append(chunk)
        return self._run(final=False)

    def finish(self) -> list[Delta]:
        if self._finished:
            if self._failure is not None:
                raise self._failure
            return []
        self._cur._end()
        out = self._run(final=True)
        self._finished = True
        return out

    def message(self) -> AssistantMessage:
        """The message read so far (complete calls only), or the whole one once finished."""
        return self._cur._message()

    @property
    def finished(self) -> bool:
        return self._finished

    def _run(self, final: bool) -> list[Delta]:
        reading = self._reading
        try:
            if reading is not None:
                next(reading)
                if final:
                    # Every wait decides at the end of the text: one that waits
                    # again is a style that can never finish.
                    name = self._style.name
                    raise RuntimeError(f"the style {name!r} waited for text after the end")
        except StopIteration:
            self._reading = None
        except OutputError as err:
            self._failure = err
            self._finished = True
            self._reading = None
            raise
        return self._cur._deltas()
