"""Reading a local model's raw generation back into an ``AssistantMessage``.

A model run in-process returns text. Its reasoning sits in ``<think>...</think>``
at the start (or, when the prompt opened the block, everything up to
``</think>``), and its tool calls are written in its family's own syntax:

- ``"hermes"`` (Hermes, Qwen, Granite):
  ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``;
- ``"llama3"``: ``{"name": ..., "parameters": {...}}`` (or ``"arguments"``), as
  the whole answer or after ``<|python_tag|>``, several separated by ``;``;
- ``"mistral"``: ``[TOOL_CALLS][{"name", "arguments", "id"}, ...]``, or
  ``[TOOL_CALLS]name[ARGS]{...}`` with an optional ``[CALL_ID]id`` before
  ``[ARGS]``; its reasoning models think in ``[THINK]...[/THINK]``.

One reader serves both the whole text and a stream of chunks: ``parse_output``
feeds the text as a single chunk. Every decision waits until the text seen so
far settles it (a chunk may end inside a tag, inside a JSON string, between a
backslash and what it escapes), so any split of the same text gives the same
message, or the same error at the same offset.

What the message holds:

- the reasoning as one unsigned :class:`ThinkingBlock`, without the white
  space around it (none when there is no reasoning text);
- the answer's text, outside thinking and calls, each run of it trimmed of
  the white space around it and runs joined by a blank line;
- the calls in order, with their names, ids (Mistral's) and arguments as the
  model wrote them: key order and integers of any size kept.

An end-of-turn token at the very end (``<|im_end|>``, ``<|eot_id|>``,
``</s>``...), which a decode that keeps special tokens leaves there, is not
part of the answer and is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final, Literal

from .._messages import AssistantMessage, ThinkingBlock, ToolCall
from . import _call_json as call_json
from ._json import arguments_json, parse_arguments
from ._json_span import JsonSpan
from ._reply import Delta, TextDelta, ThinkingDelta, ToolCallDelta, ToolCallStart
from ._template_errors import OutputError

Style = Literal["hermes", "llama3", "mistral"]
"""How a model family writes tool calls (see the module's doc)."""

STYLES: Final = ("hermes", "llama3", "mistral")

JOIN: Final = "\n\n"

_THINK: Final = {"<think>": "</think>"}
_MISTRAL_THINK: Final = {"[THINK]": "[/THINK]", "<think>": "</think>"}

_MARKERS: Final[dict[str, tuple[str, ...]]] = {
    "hermes": ("<tool_call>", "</tool_call>"),
    "llama3": ("<|python_tag|>",),
    "mistral": ("[TOOL_CALLS]",),
}
_ENDS: Final[dict[str, tuple[str, ...]]] = {
    "hermes": ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|end_of_text|>"),
    "llama3": ("<|eot_id|>", "<|eom_id|>", "<|end_of_text|>"),
    "mistral": ("</s>",),
}
_MISTRAL_TAGS: Final = ("[ARGS]", "[CALL_ID]", "[TOOL_CALLS]")

# A Llama answer that opens like a call object is held to be one: if it is
# cut off or malformed, that is an error rather than text.
_CALL_LIKE: Final = re.compile(r'\{\s*"(?:name|type)"\s*:')

# The states of the reader.
_START = "start"
_THINKING = "thinking"
_BODY = "body"
_HERMES_OPEN = "hermes-open"  # after <tool_call>: the call's JSON object is next
_HERMES_CLOSE = "hermes-close"  # after the object: </tool_call> is next
_SCAN = "scan"  # inside a JSON value, looking for its end
_LLAMA_NEXT = "llama-next"  # after a Llama call: ';' and another, or the end
_LLAMA_OBJECT = "llama-object"  # a Llama call object is next
_MISTRAL_OPEN = "mistral-open"  # after [TOOL_CALLS]: a name, or a JSON array
_MISTRAL_NAME = "mistral-name"
_MISTRAL_ID = "mistral-id"
_MISTRAL_ARGS = "mistral-args"  # after [ARGS]: the arguments object is next
_DONE = "done"


class _Tags:
    """Tags to find in text as it streams, with what makes the search cheap."""

    __slots__ = ("firsts", "lasts", "longest", "tags")

    def __init__(self, tags: tuple[str, ...]) -> None:
        self.tags = tags
        self.longest = max(len(tag) for tag in tags)
        self.firsts = "".join(sorted({tag[0] for tag in tags}))
        self.lasts = "".join(sorted({tag[-1] for tag in tags}))

    def absent(self, buf: str) -> bool:
        """Whether no tag, not even the start of one, can be in ``buf``."""
        return not any(first in buf for first in self.firsts)

    def partial(self, buf: str) -> int:
        """The length of the longest end of ``buf`` that one of the tags could grow from."""
        start = max(0, len(buf) - self.longest + 1)
        found = [at for at in (buf.find(first, start) for first in self.firsts) if at != -1]
        if not found:
            return 0
        for at in range(min(found), len(buf)):
            if buf[at] in self.firsts:
                rest = buf[at:]
                if any(tag.startswith(rest) and tag != rest for tag in self.tags):
                    return len(buf) - at
        return 0

    def run_at_end(self, buf: str) -> int:
        """Where a run of these tags (and white space) that ends ``buf`` starts.

        ``len(buf)`` when ``buf`` does not end with one of them.
        """
        start = len(buf)
        while True:
            trimmed = buf[:start].rstrip()
            if not trimmed or trimmed[-1] not in self.lasts:
                return start
            token = next((token for token in self.tags if trimmed.endswith(token)), None)
            if token is None:
                return start
            start = len(trimmed) - len(token)


def _first(buf: str, tags: tuple[str, ...]) -> tuple[int, str]:
    """The earliest complete tag in ``buf`` and where it is; ``(-1, "")`` for none."""
    best, found = -1, ""
    for tag in tags:
        at = buf.find(tag)
        if at != -1 and (best == -1 or at < best or (at == best and len(tag) > len(found))):
            best, found = at, tag
    return best, found


class GenerationReader:
    """The reader behind ``parse_output`` and ``OutputStream`` (see the module's doc)."""

    def __init__(self, style: str, in_thinking: bool) -> None:
        if type(style) is not str or style not in STYLES:
            raise ValueError(f'style= must be "hermes", "llama3" or "mistral", not {style!r:.80}')
        if type(in_thinking) is not bool:
            raise TypeError(f"in_thinking= must be True or False, not {in_thinking!r:.80}")
        self._style = style
        self._openers = _MISTRAL_THINK if style == "mistral" else _THINK
        self._closers: tuple[str, ...] = ()
        self._markers = _MARKERS[style]
        self._ends = _ENDS[style]
        self._end_tags = _Tags(self._ends)
        self._body_tags = _Tags(self._markers + self._ends)
        self._thinking_tags = self._body_tags  # set when thinking begins
        self._in_thinking = in_thinking
        self._state = _START
        self._buf = ""
        self._at = 0  # offset of _buf[0] in the whole generation
        self._finished = False
        self._failure: OutputError | None = None
        # What has been shown: thinking, text, calls.
        self._thinking: list[str] = []
        self._thinking_space = ""
        self._content: list[str] = []
        self._text_space = ""
        self._in_run = False  # the current run of text has shown something
        self._body_fresh = True  # nothing of the answer read yet (Llama's bare call)
        self._calls: list[ToolCall] = []
        # The call being read.
        self._call_at = 0
        self._name = ""
        self._call_id: str | None = None
        self._span: JsonSpan | None = None
        self._scanned = 0
        self._scan_kind = ""
        self._after_semicolon = False

    # --- the public face -------------------------------------------------------

    def feed(self, chunk: str) -> list[Delta]:
        if type(chunk) is not str:
            raise TypeError(f"a chunk of generated text must be a str, not {type(chunk).__name__}")
        if self._failure is not None:
            raise self._failure
        if self._finished:
            raise ValueError("the generation was already finished; start a new reader")
        return self._run(chunk, final=False)

    def finish(self) -> list[Delta]:
        if self._finished:
            if self._failure is not None:
                raise self._failure
            return []
        out = self._run("", final=True)
        self._finished = True
        return out

    def message(self) -> AssistantMessage:
        """The message read so far (complete calls only), or the whole one once finished."""
        thinking = "".join(self._thinking)
        return AssistantMessage(
            content="".join(self._content),
            tool_calls=tuple(self._calls),
            thinking=(ThinkingBlock(text=thinking),) if thinking else (),
        )

    @property
    def finished(self) -> bool:
        return self._finished

    # --- the machine -------------------------------------------------------------

    def _run(self, chunk: str, final: bool) -> list[Delta]:
        if self._failure is not None:
            raise self._failure
        self._buf += chunk
        out: list[Delta] = []
        try:
            while self._step(out, final):
                pass
        except OutputError as err:
            self._failure = err
            self._finished = True
            raise
        return out

    def _consume(self, count: int) -> None:
        self._buf = self._buf[count:]
        self._at += count

    def _skip_space(self) -> None:
        kept = self._buf.lstrip()
        self._consume(len(self._buf) - len(kept))

    def _fail(self, text: str, offset: int) -> OutputError:
        return OutputError(text, offset)

    def _step(self, out: list[Delta], final: bool) -> bool:
        """One move; False when the text so far settles nothing more."""
        state = self._state
        if state == _BODY:
            return self._body(out, final)
        if state == _SCAN:
            return self._scan(out, final)
        if state == _THINKING:
            return self._thinking_step(out, final)
        if state == _START:
            return self._start(final)
        if state == _DONE:
            return False
        if state == _HERMES_OPEN:
            return self._hermes_open(final)
        if state == _HERMES_CLOSE:
            return self._hermes_close(final)
        if state == _LLAMA_NEXT:
            return self._llama_next(final)
        if state == _LLAMA_OBJECT:
            return self._llama_object(final)
        if state == _MISTRAL_OPEN:
            return self._mistral_open(final)
        if state in (_MISTRAL_NAME, _MISTRAL_ID):
            return self._mistral_word(final)
        if state == _MISTRAL_ARGS:
            return self._mistral_args(out, final)
        raise AssertionError(state)  # pragma: no cover

    # --- thinking ------------------------------------------------------------------

    def _start(self, final: bool) -> bool:
        self._skip_space()
        buf = self._buf
        if not buf and not final:
            return False
        for opener, closer in self._openers.items():
            if buf.startswith(opener):
                self._consume(len(opener))
                self._closers = (closer,)
                self._thinking_tags = _Tags(self._closers + self._ends)
                self._state = _THINKING
                return True
        if not final and any(opener.startswith(buf) for opener in self._openers):
            return False
        if self._in_thinking:
            self._closers = tuple(self._openers.values())
            self._thinking_tags = _Tags(self._closers + self._ends)
            self._state = _THINKING
        else:
            self._state = _BODY
        return True

    def _thinking_step(self, out: list[Delta], final: bool) -> bool:
        buf = self._buf
        if buf and self._thinking_tags.absent(buf):
            self._show_thinking(buf, out)
            self._consume(len(buf))
            return True
        at, tag = _first(buf, self._closers)
        if at != -1:
            self._show_thinking(buf[:at], out)
            self._consume(at + len(tag))
            self._state = _BODY
            return True
        return self._show_settled(buf, final, self._thinking_tags, self._show_thinking, out)

    def _show_settled(
        self,
        buf: str,
        final: bool,
        tags: _Tags,
        show: Callable[[str, list[Delta]], None],
        out: list[Delta],
    ) -> bool:
        """Show what no later chunk can change; at the end, all but a closing end token.

        Holds back what could still begin one of ``tags``, and a run of end
        tokens at the edge (dropped only when it is the very end). Returns
        whether anything was taken.
        """
        if final:
            show(buf[: self._end_tags.run_at_end(buf)], out)
            self._consume(len(buf))
            self._state = _DONE
            return True
        safe = len(buf) - tags.partial(buf)
        safe = min(safe, self._end_tags.run_at_end(buf[:safe]))
        if safe <= 0:
            return False
        show(buf[:safe], out)
        self._consume(safe)
        return True

    def _show_thinking(self, piece: str, out: list[Delta]) -> None:
        if not self._thinking:
            piece = piece.lstrip()
        core = piece.rstrip()
        if core:
            text = self._thinking_space + core
            self._thinking.append(text)
            out.append(ThinkingDelta(text=text))
            self._thinking_space = piece[len(core) :]
        else:
            self._thinking_space += piece

    # --- the answer ----------------------------------------------------------------

    def _show_text(self, piece: str, out: list[Delta]) -> None:
        if not piece:
            return
        if not self._in_run:
            piece = piece.lstrip()
            if not piece:
                return
            self._in_run = True
            self._text_space = JOIN if self._content else ""
        self._body_fresh = False
        core = piece.rstrip()
        if core:
            text = self._text_space + core
            self._content.append(text)
            out.append(TextDelta(text=text))
            self._text_space = piece[len(core) :]
        else:
            self._text_space += piece

    def _end_run_of_text(self) -> None:
        self._in_run = False
        self._text_space = ""

    def _body(self, out: list[Delta], final: bool) -> bool:
        if self._body_fresh and self._style == "llama3":
            # A Llama answer may be its calls, bare, with no tag before them.
            self._skip_space()
            if not self._buf:
                if final:
                    self._state = _DONE
                    return True
                return False
            self._body_fresh = False
            if self._buf.startswith("{"):
                self._begin_scan("llama-bare", self._at)
                return True
        buf = self._buf
        if not buf:
            if final:
                self._state = _DONE
                return True
            return False
        if self._body_tags.absent(buf):
            # The usual chunk of prose: no tag can start in it.
            self._show_text(buf, out)
            self._consume(len(buf))
            return True
        at, tag = _first(buf, self._markers)
        if at != -1:
            self._show_text(buf[:at], out)
            self._consume(at)
            self._end_run_of_text()
            self._call_at = self._at
            self._consume(len(tag))
            return self._marker(tag)
        return self._show_settled(buf, final, self._body_tags, self._show_text, out)

    def _marker(self, tag: str) -> bool:
        if tag == "<tool_call>":
            self._state = _HERMES_OPEN
        elif tag == "</tool_call>":
            raise self._fail("a </tool_call> with no <tool_call> before it", self._call_at)
        elif tag == "<|python_tag|>":
            self._after_semicolon = False
            self._state = _LLAMA_OBJECT
        else:  # [TOOL_CALLS]
            self._state = _MISTRAL_OPEN
        return True

    # --- JSON values -----------------------------------------------------------------

    def _begin_scan(self, kind: str, call_at: int) -> None:
        self._span = JsonSpan()
        self._scanned = 0
        self._scan_kind = kind
        self._call_at = call_at
        self._state = _SCAN

    def _scan(self, out: list[Delta], final: bool) -> bool:
        assert self._span is not None
        buf = self._buf
        fresh = buf[self._scanned :]
        end = self._span.feed(fresh) if fresh else None
        streaming = self._scan_kind == "mistral-args"
        if end is None:
            if fresh:
                if streaming:
                    out.append(ToolCallDelta(index=len(self._calls), arguments=fresh))
                self._scanned = len(buf)
            if final:
                self._cut_off(out)
                return True
            return bool(fresh)
        if streaming:
            out.append(ToolCallDelta(index=len(self._calls), arguments=fresh[:end]))
        stop = self._scanned + end
        raw = buf[:stop]
        self._consume(stop)
        self._span = None
        self._scanned = 0
        self._value(raw, out)
        return True

    def _cut_off(self, out: list[Delta]) -> None:
        """The text ended inside a JSON value."""
        if self._scan_kind == "llama-bare" and _CALL_LIKE.match(self._buf) is None:
            # Not a call after all: a Llama answer that opens with a brace.
            self._span = None
            self._state = _BODY
            return
        raise self._fail("the tool call is cut off: its JSON never closes", self._call_at)

    def _value(self, raw: str, out: list[Delta]) -> None:
        kind = self._scan_kind
        at = self._call_at
        if kind == "hermes":
            self._add_call(call_json.to_call(call_json.decode(raw, at), at, "arguments"), out)
            self._state = _HERMES_CLOSE
        elif kind == "llama":
            value = call_json.decode(raw, at)
            self._add_call(call_json.to_call(value, at, "parameters", ("arguments",)), out)
            self._state = _LLAMA_NEXT
        elif kind == "llama-bare":
            if _CALL_LIKE.match(raw) is None:
                value = call_json.decode_quietly(raw)
            else:
                value = call_json.decode(raw, at)  # opens as a call: it must be one
            if call_json.is_llama_call(value):
                self._add_call(call_json.to_call(value, at, "parameters", ("arguments",)), out)
                self._state = _LLAMA_NEXT
            else:
                # JSON (or braces) that is not a call: it is the answer's text.
                self._show_text(raw, out)
                self._state = _BODY
        elif kind == "mistral-array":
            value = call_json.decode(raw, at, levels=3)
            if not isinstance(value, list) or not value:
                raise self._fail("[TOOL_CALLS] is followed by JSON that is not a list of calls", at)
            for item in value:
                self._add_call(call_json.to_call(item, at, "arguments"), out)
            self._state = _BODY
        else:  # mistral-args, already streamed
            try:
                arguments = parse_arguments(raw)
            except ValueError as err:
                raise self._fail(f"the call's arguments cannot be read: {err}", at) from None
            self._calls.append(call_json.build(self._call_id, self._name, arguments, at))
            self._state = _BODY

    def _add_call(self, call: ToolCall, out: list[Delta]) -> None:
        index = len(self._calls)
        self._calls.append(call)
        out.append(ToolCallStart(index=index, id=call.id, name=call.name))
        out.append(ToolCallDelta(index=index, arguments=arguments_json(call.arguments)))

    # --- hermes -----------------------------------------------------------------------

    def _hermes_open(self, final: bool) -> bool:
        self._skip_space()
        if not self._buf:
            if final:
                raise self._fail("a <tool_call> with nothing after it", self._call_at)
            return False
        if not self._buf.startswith("{"):
            raise self._fail("a <tool_call> that does not hold a JSON object", self._call_at)
        self._begin_scan("hermes", self._call_at)
        return True

    def _hermes_close(self, final: bool) -> bool:
        self._skip_space()
        buf = self._buf
        if buf.startswith("</tool_call>"):
            self._consume(len("</tool_call>"))
            self._state = _BODY
            return True
        if not buf:
            if final:
                self._state = _DONE  # the last call, left open by a stop sequence
                return True
            return False
        tags = ("</tool_call>", *self._ends)
        if not final and any(tag.startswith(buf) for tag in tags):
            return False
        if any(buf.startswith(token) for token in self._ends):
            self._state = _BODY  # the turn ended with the call still open
            return True
        raise self._fail(
            "a tool call's JSON is followed by something other than </tool_call>",
            self._at,
        )

    # --- llama3 -----------------------------------------------------------------------

    def _llama_object(self, final: bool) -> bool:
        self._skip_space()
        if not self._buf:
            if final:
                if self._after_semicolon:
                    self._state = _DONE  # a ';' after the last call
                    return True
                raise self._fail("<|python_tag|> with no tool call after it", self._call_at)
            return False
        if not self._buf.startswith("{"):
            where = "after ';'" if self._after_semicolon else "after <|python_tag|>"
            raise self._fail(f"expected a JSON tool call {where}", self._at)
        self._begin_scan("llama", self._at)
        return True

    def _llama_next(self, final: bool) -> bool:
        self._skip_space()
        if not self._buf:
            if final:
                self._state = _DONE
                return True
            return False
        if self._buf.startswith(";"):
            self._consume(1)
            self._after_semicolon = True
            self._state = _LLAMA_OBJECT
            return True
        self._state = _BODY
        return True

    # --- mistral ----------------------------------------------------------------------

    def _mistral_open(self, final: bool) -> bool:
        self._skip_space()
        buf = self._buf
        if not buf:
            if final:
                raise self._fail("[TOOL_CALLS] with no call after it", self._call_at)
            return False
        if buf.startswith("["):
            if not final and any(tag.startswith(buf) and tag != buf for tag in _MISTRAL_TAGS):
                return False
            if any(buf.startswith(tag) for tag in _MISTRAL_TAGS):
                raise self._fail("a tool call with no name", self._call_at)
            self._begin_scan("mistral-array", self._call_at)
            return True
        self._call_id = None
        self._state = _MISTRAL_NAME
        return True

    def _mistral_word(self, final: bool) -> bool:
        """The call's name (up to ``[CALL_ID]`` or ``[ARGS]``) or its id (up to ``[ARGS]``)."""
        naming = self._state == _MISTRAL_NAME
        buf = self._buf
        at = buf.find("[")
        if at == -1:
            if final:
                raise self._fail("a tool call with no [ARGS]", self._call_at)
            return False
        word = buf[:at].strip()
        what = "name" if naming else "id"
        if not word:
            raise self._fail(f"a tool call with an empty {what}", self._call_at)
        if any(c.isspace() for c in word):
            raise self._fail(
                f"a tool call whose {what} holds white space: {word!r:.60}", self._call_at
            )
        rest = buf[at:]
        tags = ("[ARGS]", "[CALL_ID]") if naming else ("[ARGS]",)
        for tag in tags:
            if rest.startswith(tag):
                if naming:
                    self._name = word
                else:
                    self._call_id = word
                self._consume(at + len(tag))
                self._state = _MISTRAL_ID if tag == "[CALL_ID]" else _MISTRAL_ARGS
                return True
        if not final and any(tag.startswith(rest) for tag in tags):
            return False
        expected = "[ARGS] or [CALL_ID]" if naming else "[ARGS]"
        raise self._fail(
            f"an unknown tag after the call's {what} (expected {expected})", self._at + at
        )

    def _mistral_args(self, out: list[Delta], final: bool) -> bool:
        self._skip_space()
        if not self._buf:
            if final:
                raise self._fail("the tool call is cut off after [ARGS]", self._call_at)
            return False
        if not self._buf.startswith("{"):
            raise self._fail("[ARGS] is not followed by a JSON object", self._at)
        out.append(ToolCallStart(index=len(self._calls), id=self._call_id, name=self._name))
        self._begin_scan("mistral-args", self._call_at)
        return True
