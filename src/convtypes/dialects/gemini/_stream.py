"""A Gemini stream to messages: the ``Accumulator``."""

from __future__ import annotations

from typing import Any

from ..._messages import Message
from .._errors import ResponseError, StreamError
from .._json import arguments_json
from .._reply import Delta, Reply, TextDelta, ThinkingDelta, ToolCallDelta, ToolCallStart, Usage
from .._stream import StreamReader
from ._chunk import _Chunk, _dict_chunk, _object_chunk, _UsageOf
from ._reply import _IN_PIECES, _in_pieces, _is_text, _messages, _read_call, _reply, _usage


class Accumulator(StreamReader):
    """Builds the messages of a streamed ``generateContent`` call.

    ``feed`` every chunk (a ``GenerateContentResponse``, or its dict, REST or
    snake_case); each brings more parts of the first candidate. ``feed``
    returns what the chunk added: a :class:`TextDelta` or
    :class:`ThinkingDelta` for each piece of text, and for a function call
    (Gemini sends each whole) a :class:`ToolCallStart` and one
    :class:`ToolCallDelta` with its arguments as JSON text. ``result()``
    equals ``from_response`` of the response the chunks add up to (see the
    module), and raises if no chunk gave a finish reason; a chunk that says
    the prompt was blocked ends the stream too. ``reply()`` adds the finish
    reason and the last chunk's usage.
    """

    _noun = "chunk"
    _end = "a finish reason"

    def __init__(self) -> None:
        super().__init__()
        self._parts: list[dict[str, Any]] = []  # every part before the open one
        # The last part, while it is text a later chunk may continue: its first
        # piece as sent, and all its pieces, joined only when asked for (joining
        # on every chunk would copy the text so far each time).
        self._open: dict[str, Any] | None = None
        self._pieces: list[str] = []
        self._calls = 0
        self._reason: str | None = None
        self._block: str | None = None
        self._blocked = False
        self._usage: tuple[int, object] | None = None
        self._model: str | None = None
        self._id: str | None = None
        self._details: dict[str, Any] = {}  # the latest of each, as a chunk gives them

    def _take(self, number: int, event: object) -> list[Delta]:
        if self._finished:
            chunk = None
        elif type(event) is dict:
            chunk = _dict_chunk(event)
        else:
            chunk = _object_chunk(event)
        if chunk is None:
            try:
                chunk = _Chunk(event, f"chunk {number}")
            except ResponseError as err:
                raise StreamError(str(err), number, event) from None
        if chunk.usage is not None:
            self._usage = (number, chunk.usage)
        if chunk.details:
            self._details.update(chunk.details)
        if self._model is None:
            self._model = chunk.model
        if self._id is None:
            self._id = chunk.id
        if chunk.candidate is None:
            if chunk.block is not None:
                self._block = chunk.block
                self._blocked = True
                self._finished = True
                self._settle_usage()
            return []  # usage only, or another candidate's content
        if self._finished and (chunk.parts or (chunk.reason not in (None, self._reason))):
            raise StreamError(
                f"chunk {number}: more content after the finish reason", number, event
            )
        parts = chunk.parts
        if chunk.plain and self._open is not None and parts is not None and len(parts) == 1:
            # The chunk continues the open text part (what ``_add`` would find).
            part = parts[0]
            thought = part.get("thought")
            if "thought_signature" not in part and bool(self._open.get("thought")) == bool(thought):
                text = part["text"]
                self._pieces.append(text)
                if chunk.reason is not None:
                    self._reason = chunk.reason
                    self._finished = True
                    self._settle_usage()
                if not text:
                    return []
                return [ThinkingDelta(text=text) if thought else TextDelta(text=text)]
        deltas: list[Delta] = []
        for position, part in enumerate(parts or ()):
            self._add(part, position == 0)
            text = part.get("text")
            if "function_call" in part:
                self._call(part, number, event, deltas)
            elif isinstance(text, str) and text:
                deltas.append(
                    ThinkingDelta(text=text) if part.get("thought") else TextDelta(text=text)
                )
        if chunk.reason is not None:
            self._reason = chunk.reason
            self._finished = True
            self._settle_usage()
        return deltas

    def _settle_usage(self) -> None:
        """At the stream's end, the usage kept from an SDK object is dumped, as ``_Chunk`` would."""
        if self._usage is not None and isinstance(self._usage[1], _UsageOf):
            self._usage = (self._usage[0], self._usage[1].dumped())

    def _add(self, part: dict[str, Any], first: bool) -> None:
        """Add ``part``; a chunk's ``first`` part may continue the open text part.

        It does when both are text of the same kind (thought or not) and
        ``part`` brings no signature, which opens a part of its own.
        """
        text_only = _is_text(part)
        if (
            first
            and text_only
            and self._open is not None
            and "thought_signature" not in part
            and bool(self._open.get("thought")) == bool(part.get("thought"))
        ):
            self._pieces.append(part["text"])
            return
        if self._open is not None:
            self._parts.append(self._joined())
            self._open = None
        if text_only:
            self._open, self._pieces = part, [part["text"]]
        else:
            self._parts.append(part)

    def _joined(self) -> dict[str, Any]:
        """The open part with its pieces joined: a new dict, so earlier results stay."""
        assert self._open is not None
        if len(self._pieces) == 1:
            return self._open
        return {**self._open, "text": "".join(self._pieces)}

    def _call(self, part: dict[str, Any], number: int, event: object, deltas: list[Delta]) -> None:
        if _in_pieces(part["function_call"]):
            raise StreamError(f"chunk {number}: {_IN_PIECES}", number, event)
        try:
            call = _read_call(part, f"chunk {number}")
        except ResponseError:
            return  # refused at the end, naming the part's place in the reply
        index = self._calls
        self._calls += 1
        deltas.append(ToolCallStart(index=index, id=call.id, name=call.name))
        deltas.append(ToolCallDelta(index=index, arguments=arguments_json(call.arguments)))

    def _messages(self, final: bool) -> list[Message]:
        # Gemini sends each call whole: every call so far is complete.
        parts = self._parts if self._open is None else [*self._parts, self._joined()]
        return _messages(parts, final)

    def _reply(self, messages: list[Message]) -> Reply:
        usage = Usage()
        if self._usage is not None:
            number, raw = self._usage
            try:
                usage = _usage(raw, f"chunk {number}")
            except ResponseError as err:
                raise StreamError(str(err), number, None) from None
        return _reply(
            messages,
            self._reason,
            self._block,
            self._blocked,
            usage,
            self._model,
            self._id,
            dict(self._details),
        )
