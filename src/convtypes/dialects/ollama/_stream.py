"""An Ollama NDJSON chunk stream read into messages, and the quick reads of the SDK's objects."""

from __future__ import annotations

from typing import Any, Final

from ..._messages import (
    Message,
)
from .._errors import (
    ResponseError,
    StreamError,
    label,
    short,
)
from .._json import arguments_json, plain
from .._objects import PLAIN, fields
from .._reply import (
    Delta,
    Reply,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStart,
)
from .._stream import StreamReader
from ._assistant import _call_parts
from ._reply import _read_message, _reply


class _Malformed(Exception):
    """A chunk's fault, raised inside the Accumulator and named with the chunk at its edge."""


# The message of a streamed chunk of text or thinking, read from the SDK's
# object without its dump (see Accumulator._object_chunk): these fields only.
_FLAT_MESSAGE: Final = frozenset({"role", "content", "thinking"})


class Accumulator(StreamReader):
    """Builds the messages of a streamed ``/api/chat`` reply.

    ``feed`` every chunk (a dict of one NDJSON line, or the ``ChatResponse``
    the ``ollama`` package yields with ``stream=True``); ``result()`` then
    equals ``from_response`` of the whole reply, and ``reply()`` adds the
    stop reason, the usage and the model from the last chunk (``"done":
    true``). Text and thinking arrive in pieces; each tool call arrives
    whole, and gives a :class:`~convtypes.dialects.ToolCallStart` and one
    :class:`~convtypes.dialects.ToolCallDelta` with its arguments' JSON
    text. A field this version does not know is joined across chunks when
    it is text or a list, and otherwise taken from the last chunk.
    """

    _noun = "chunk"
    _end = "a last chunk (done: true)"

    def __init__(self) -> None:
        super().__init__()
        self._content: list[str] = []
        self._thinking: list[str] = []
        self._calls: list[object] = []  # every call as sent
        self._readable = 0  # how many of them are calls a backend can run
        self._extra: dict[str, Any] = {}  # other message fields (images, unknown ones)
        self._role: str | None = None
        self._reason: str | None = None
        self._last: dict[str, Any] = {}
        self._model: str | None = None

    def _take(self, number: int, event: object) -> list[Delta]:
        try:
            if type(event) is not dict and not self._finished:
                read = self._object_chunk(event)
                if read is not None:
                    return read
            return self._chunk(plain(event, "a chunk"))
        except _Malformed as err:
            raise StreamError(f"chunk {number}: {err}", number, event) from None

    def _object_chunk(self, event: object) -> list[Delta] | None:
        """A chunk of text or thinking read from the fields of the ``ChatResponse``.

        What ``_chunk`` reads from its dump, for the chunks that come by the
        thousand: not the last (``done`` false), no error, a message of role,
        text and thinking only. ``None`` for any other chunk, or where the
        fields might not read as the dump does (see ``_objects``): it is then
        read from its dump.
        """
        outer = event.__dict__ if type(event) in PLAIN else fields(event)
        if outer is None or event.__pydantic_extra__ or outer.get("error") is not None:  # type: ignore[attr-defined]
            return None
        given = event.__pydantic_fields_set__  # type: ignore[attr-defined]
        message = outer.get("message")
        if "message" not in given or (outer.get("done") is not False and "done" in given):
            return None
        inner = message.__dict__ if type(message) in PLAIN else fields(message)
        if inner is None or message.__pydantic_extra__:  # type: ignore[union-attr]
            return None
        said = message.__pydantic_fields_set__  # type: ignore[union-attr]
        if not said <= _FLAT_MESSAGE:
            return None
        role = inner.get("role") if "role" in said else None
        text = inner.get("content") if "content" in said else None
        thought = inner.get("thinking") if "thinking" in said else None
        if (
            (role is not None and type(role) is not str)
            or (text is not None and type(text) is not str)
            or (thought is not None and type(thought) is not str)
            or (text and thought)  # both: the dump's order says which comes first
        ):
            return None
        if self._model is None and "model" in given:
            model = outer.get("model")
            if isinstance(model, str):
                self._model = model
        # As _message reads them.
        if role is not None:
            self._role = role
        if text:
            self._content.append(text)
            return [TextDelta(text)]
        if thought:
            self._thinking.append(thought)
            return [ThinkingDelta(thought)]
        return []

    def _chunk(self, data: dict[str, Any]) -> list[Delta]:
        if self._finished:
            raise _Malformed("more after the last chunk (done: true)")
        error = data.get("error")
        if error is not None:
            raise _Malformed(f"the provider reported an error: {label(error, 200)}")
        done = data.get("done", False)
        if not isinstance(done, bool):
            raise _Malformed(f"'done' is not true or false: {short(done)}")
        if self._model is None:
            model = data.get("model")
            if isinstance(model, str):
                self._model = model
        deltas: list[Delta] = []
        message = data.get("message")
        if message is not None:
            if not isinstance(message, dict):
                raise _Malformed(f"the message is not an object: {short(message)}")
            self._message(message, deltas)
        if done:
            reason = data.get("done_reason")
            if reason is not None and not isinstance(reason, str):
                raise _Malformed(f"the done_reason is not text: {short(reason)}")
            self._reason = reason
            self._last = data
            self._finished = True
        return deltas

    def _message(self, message: dict[str, Any], deltas: list[Delta]) -> None:
        for key, value in message.items():
            if value is None:
                continue
            if key == "content":
                if not isinstance(value, str):
                    raise _Malformed(f"the message's content is not text: {short(value)}")
                if value:
                    self._content.append(value)
                    deltas.append(TextDelta(value))
            elif key == "thinking":
                if not isinstance(value, str):
                    raise _Malformed(f"the message's thinking is not text: {short(value)}")
                if value:
                    self._thinking.append(value)
                    deltas.append(ThinkingDelta(value))
            elif key == "role":
                if not isinstance(value, str):
                    raise _Malformed(f"the message's role is not text: {short(value)}")
                self._role = value
            elif key == "tool_calls":
                if not isinstance(value, list):
                    raise _Malformed(f"the message's tool_calls is not a list: {short(value)}")
                for call in value:
                    self._call(call, deltas)
            else:
                self._other(key, value)

    def _call(self, call: object, deltas: list[Delta] | None) -> None:
        """Take a call, whole; ``deltas`` gets its start and its arguments' JSON text."""
        position = len(self._calls)
        try:
            call_id, name, arguments = _call_parts(call, f"tool_calls[{position}]")
        except ResponseError as err:
            raise _Malformed(str(err)) from None
        self._calls.append(call)
        if arguments is None:
            return  # kept with the message, but no call to run
        at = self._readable
        self._readable += 1
        if deltas is not None:
            deltas.append(ToolCallStart(at, call_id, name))
            sent = call["function"].get("arguments")  # type: ignore[index]
            text = sent if isinstance(sent, str) else arguments_json(arguments)
            deltas.append(ToolCallDelta(at, text))

    def _other(self, key: str, value: Any) -> None:
        """A message field with no meaning here: text and lists grow, the rest is set."""
        known = self._extra.get(key)
        if isinstance(value, list):
            self._extra[key] = [*known, *value] if isinstance(known, list) else list(value)
        elif isinstance(value, str) and isinstance(known, str):
            self._extra[key] = known + value
        else:
            self._extra[key] = value

    def _messages(self, final: bool) -> list[Message]:
        # Calls arrive whole, so the messages so far hold every call so far.
        message: dict[str, Any] = {
            "role": self._role or "assistant",
            "content": "".join(self._content),
        }
        if self._thinking:
            message["thinking"] = "".join(self._thinking)
        if self._calls:
            message["tool_calls"] = list(self._calls)
        for key, value in self._extra.items():
            message.setdefault(key, value)
        return _read_message(message, "the streamed message")

    def _reply(self, messages: list[Message]) -> Reply:
        facts = dict(self._last)
        if not isinstance(facts.get("model"), str):
            facts["model"] = self._model
        return _reply(messages, self._reason, facts)
