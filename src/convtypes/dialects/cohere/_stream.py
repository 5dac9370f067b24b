"""A Cohere v2 event stream read into messages, and the quick reads of the SDK's objects."""

from __future__ import annotations

from typing import Any, Final

from ..._messages import (
    Message,
)
from .._chat_kept import whole_arguments
from .._chat_stream import ChatStream, calls_so_far
from .._errors import (
    StreamError,
    label,
    short,
)
from .._json import plain
from .._reply import (
    Delta,
    Reply,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStart,
)
from ._reply import _error, _read_message, _reply
from ._wire import _CUT_REASONS

_EVENTS: Final = frozenset(
    {
        "message-start",
        "content-start",
        "content-delta",
        "content-end",
        "tool-plan-delta",
        "tool-call-start",
        "tool-call-delta",
        "tool-call-end",
        "citation-start",
        "citation-end",
        "message-end",
    }
)


class _Call:
    """A streamed call: its id and name, its argument text as it grows, where it began.

    ``ended`` once its ``tool-call-end`` came: a call without arguments is
    whole then, though its text (``""``) is no object.
    """

    __slots__ = ("call_id", "ended", "kind", "name", "pieces", "position", "started")

    def __init__(
        self, call_id: str | None, name: str, position: int, started: int, kind: str | None
    ) -> None:
        self.call_id = call_id
        self.kind = kind  # the call's type as it came ("function"), if it came with one
        self.name = name
        self.pieces: list[str] = []
        self.position = position
        self.started = started
        self.ended = False

    def whole(self) -> bool:
        """Whether its arguments are complete: an object, or none once the call ended."""
        text = "".join(self.pieces)
        if text == "" or text.isspace():
            return self.ended
        return whole_arguments(text)

    def unchecked(self) -> str:
        return "".join(self.pieces)

    def raw(self) -> dict[str, Any]:
        """The call as the whole reply holds it: its id and type as they came, then its function."""
        call: dict[str, Any] = {} if self.call_id is None else {"id": self.call_id}
        if self.kind is not None:
            call["type"] = self.kind
        call["function"] = {"name": self.name, "arguments": "".join(self.pieces)}
        return call


# The events that come by the thousand, read from an SDK object's attributes.
_PIECE_EVENTS: Final = frozenset({"content-delta", "tool-plan-delta", "tool-call-delta"})

# The events that only close what an index names, and the fields they have.
_END_EVENTS: Final = frozenset({"content-end", "citation-end", "tool-call-end"})

_END_FIELDS: Final = frozenset({"type", "index"})


class Accumulator(ChatStream):
    """Builds the messages of a streamed v2 chat.

    ``feed`` every event of ``ClientV2.chat_stream`` (the SDK's objects or
    dicts), from ``message-start`` to ``message-end``: text and thinking
    in ``content-delta`` events, the tool plan in ``tool-plan-delta``, each
    call's arguments in ``tool-call-delta``, citations in ``citation-start``,
    the finish reason and usage in ``message-end``. ``result()`` then equals
    ``from_response`` of the whole reply. Events of a type this version does
    not know, and ``debug`` events, add nothing.
    """

    _noun = "event"
    _end = "message-end"
    _cut_reasons = _CUT_REASONS

    def __init__(self) -> None:
        super().__init__()
        self._content: dict[int, tuple[str, list[str]]] = {}  # index -> (type, pieces)
        self._plan: list[str] = []
        self._calls: dict[int, _Call] = {}
        self._citations: list[Any] = []
        self._usage: object = None
        self._id: object = None

    def _take(self, number: int, event: object) -> list[Delta]:
        if type(event) is dict:
            data = event
        else:
            fast = self._fast(event)
            if fast is not None:
                return fast
            data = plain(event, "an event")
        kind = data.get("type")

        def fail(reason: str) -> StreamError:
            return StreamError(f"event {number} ({label(kind)}): {reason}", number, event)

        if not isinstance(kind, str):
            error = _error(data)
            raise fail(error if error is not None else "has no type")
        if kind not in _EVENTS:
            return []  # debug events, and types newer than this version
        if self._finished:
            raise fail("came after message-end")
        message = _message_of(data, fail)
        if kind == "message-start":
            self._id = data.get("id")
            return []
        if kind == "tool-plan-delta":
            plan = message.get("tool_plan")
            if not isinstance(plan, str):
                raise fail(f"the tool plan is not text: {short(plan)}")
            self._plan.append(plan)
            return [TextDelta(plan)] if plan else []
        if kind == "message-end":
            return self._end_of(data, fail)
        if kind == "citation-start":
            citation = message.get("citations")
            if not isinstance(citation, dict):
                raise fail(f"the citation is not an object: {short(citation)}")
            self._citations.append(citation)
            return []
        if kind in ("citation-end", "content-end"):
            return []
        at = data.get("index")
        if kind == "tool-call-end":
            ended = self._calls.get(at) if type(at) is int else None
            if ended is not None:
                ended.ended = True
            return []
        if type(at) is not int:
            raise fail("has no integer index")
        if kind == "content-start" or kind == "content-delta":
            return self._content_of(kind, at, message, fail)
        return self._call_of(kind, at, number, message, fail)

    def _fast(self, event: object) -> list[Delta] | None:
        """The deltas of an SDK ``content-delta``, ``tool-plan-delta`` or ``tool-call-delta``.

        Those are most of a stream, and dumping each costs more than the
        rest of the work, so they are read from the object's attributes;
        anything else (``None``) goes through the dump.
        """
        try:
            outer = event.__dict__
            kind = outer["type"]
        except (AttributeError, KeyError):
            return None
        if self._finished or getattr(event, "__pydantic_extra__", None):
            return None
        if kind in _END_EVENTS:
            # Nothing but a type and an index, as the dict is read: no content.
            if outer.keys() - _END_FIELDS:
                return None
            if kind == "tool-call-end":
                at = outer.get("index")
                ended = self._calls.get(at) if type(at) is int else None
                if ended is not None:
                    ended.ended = True
            return []
        if kind == "message-start":
            return self._fast_start(outer)
        if kind == "content-start" or kind == "tool-call-start":
            return self._fast_open(kind, outer)
        if kind not in _PIECE_EVENTS:
            return None
        try:
            delta = outer["delta"]
            message = delta.__dict__["message"]
            inner = message.__dict__
            # An extra field bearing a read name is what the dump writes there.
            if delta.__pydantic_extra__ or message.__pydantic_extra__:
                return None
        except (AttributeError, KeyError):
            return None
        if kind == "tool-plan-delta":
            plan = inner.get("tool_plan")
            given = getattr(message, "__pydantic_fields_set__", ())
            if type(plan) is not str or "tool_plan" not in given:
                return None
            self._plan.append(plan)
            return [TextDelta(plan)] if plan else []
        at = outer.get("index")
        if type(at) is not int:
            return None
        if kind == "content-delta":
            known = self._content.get(at)
            content = inner.get("content")
            fields = getattr(content, "__pydantic_fields_set__", None)
            if known is None or fields is None or len(fields) != 1 or content.__pydantic_extra__:
                return None
            key = known[0]
            value = content.__dict__.get(key)
            if key not in fields or type(value) is not str:
                return None
            known[1].append(value)
            if not value:
                return []
            return [TextDelta(value)] if key == "text" else [ThinkingDelta(value)]
        call = self._calls.get(at)
        raw = inner.get("tool_calls")
        function = getattr(raw, "function", None)
        arguments = getattr(function, "arguments", None)
        if (
            call is None
            or type(arguments) is not str
            or getattr(raw, "__pydantic_extra__", True)
            or getattr(function, "__pydantic_extra__", True)
        ):
            return None
        call.pieces.append(arguments)
        return [ToolCallDelta(call.position, arguments)] if arguments else []

    def _fast_start(self, outer: dict[str, Any]) -> list[Delta] | None:
        """A ``message-start`` read from its fields: its id, where that is what its dump holds.

        The dump holds the id as it is when it is text or ``None``, and the
        delta and its message as objects when they are models; anything
        else goes to the dump, which also says what is wrong with it.
        """
        told = outer.get("id")
        delta = outer.get("delta")
        if told is not None and type(told) is not str:
            return None
        if delta is not None:
            if not hasattr(delta, "__pydantic_fields_set__") or delta.__pydantic_extra__:
                return None
            message = delta.__dict__.get("message")
            if message is not None and (
                not hasattr(message, "__pydantic_fields_set__") or message.__pydantic_extra__
            ):
                return None
        self._id = told
        return []

    def _fast_open(self, kind: str, outer: dict[str, Any]) -> list[Delta] | None:
        """A ``content-start`` or ``tool-call-start`` read from its fields, as from its dump.

        A field of a model that holds text or ``None`` reads as the dump's
        key does (the dump leaves out only what is ``None``); the opened
        part's type, the call's name and id must be text. Anything else goes
        to the dump, which also says what is wrong with it.
        """
        at = outer.get("index")
        message = _model_field(_model_field(outer.get("delta"), "message"), None)
        if type(at) is not int or message is None:
            return None
        if kind == "content-start":
            content = _model_field(message.get("content"), None)
            part = content.get("type") if content is not None else None
            if content is None or (part != "text" and part != "thinking") or at in self._content:
                return None
            value = content.get(part)
            if value is None:
                other = content.get("thinking" if part == "text" else "text")
                if other is not None:
                    return None
            elif type(value) is not str:
                return None
            self._content[at] = (part, [] if value is None else [value])
            if not value:
                return []
            return [TextDelta(value)] if part == "text" else [ThinkingDelta(value)]
        raw = _model_field(message.get("tool_calls"), None)
        function = _model_field(raw.get("function"), None) if raw is not None else None
        if raw is None or function is None or at in self._calls:
            return None
        call_id, name, arguments = raw.get("id"), function.get("name"), function.get("arguments")
        call_type = raw.get("type")
        if (
            (call_id is not None and type(call_id) is not str)
            or (call_type is not None and type(call_type) is not str)
            or type(name) is not str
            or not name
            or (arguments is not None and type(arguments) is not str)
        ):
            return None
        call = self._calls[at] = _Call(call_id, name, len(self._calls), self._count - 1, call_type)
        deltas: list[Delta] = [ToolCallStart(call.position, call_id, name)]
        if arguments:
            call.pieces.append(arguments)
            deltas.append(ToolCallDelta(call.position, arguments))
        return deltas

    def _content_of(self, kind: str, at: int, message: dict[str, Any], fail: Any) -> list[Delta]:
        content = message.get("content")
        if not isinstance(content, dict):
            raise fail(f"the content is not an object: {short(content)}")
        if kind == "content-start":
            if at in self._content:
                raise fail(f"content {at} was already started")
            part = content.get("type") or ("thinking" if "thinking" in content else "text")
            if part not in ("text", "thinking"):
                raise fail(f"content of a type this version does not know: {short(part)}")
            self._content[at] = (part, [])
        known = self._content.get(at)
        if known is None:
            raise fail(f"names content {at}, which was never started")
        part, pieces = known
        value = content.get(part)
        if value is None:
            other = "thinking" if part == "text" else "text"
            if content.get(other) is not None:
                raise fail(f"content {at} is {part}, and this piece is {other}")
            return []
        if not isinstance(value, str):
            raise fail(f"the content's {part!r} is not text: {short(value)}")
        pieces.append(value)
        if not value:
            return []
        return [TextDelta(value)] if part == "text" else [ThinkingDelta(value)]

    def _call_of(
        self, kind: str, at: int, number: int, message: dict[str, Any], fail: Any
    ) -> list[Delta]:
        raw = message.get("tool_calls")
        if not isinstance(raw, dict):
            raise fail(f"the tool call is not an object: {short(raw)}")
        function = raw.get("function")
        if function is None:
            function = {}
        elif not isinstance(function, dict):
            raise fail(f"the call's function is not an object: {short(function)}")
        arguments = function.get("arguments")
        if arguments is not None and not isinstance(arguments, str):
            raise fail(f"the call's arguments are not text: {short(arguments)}")
        deltas: list[Delta] = []
        if kind == "tool-call-start":
            if at in self._calls:
                raise fail(f"tool call {at} was already started")
            call_id = raw.get("id")
            name = function.get("name")
            call_type = raw.get("type")
            if call_id is not None and not isinstance(call_id, str):
                raise fail(f"the call's id is not text: {short(call_id)}")
            if call_type is not None and not isinstance(call_type, str):
                raise fail(f"the call's type is not text: {short(call_type)}")
            if not isinstance(name, str) or not name:
                raise fail("a tool call starts without a name")
            call = self._calls[at] = _Call(call_id, name, len(self._calls), number, call_type)
            deltas.append(ToolCallStart(call.position, call_id, name))
        else:
            known = self._calls.get(at)
            if known is None:
                raise fail(f"names tool call {at}, which was never started")
            call = known
        if arguments:
            call.pieces.append(arguments)
            deltas.append(ToolCallDelta(call.position, arguments))
        return deltas

    def _end_of(self, data: dict[str, Any], fail: Any) -> list[Delta]:
        delta = data.get("delta")
        if delta is None:
            delta = {}
        elif not isinstance(delta, dict):
            raise fail(f"the delta is not an object: {short(delta)}")
        error = delta.get("error")
        if error:
            raise fail(f"the provider reported an error: {short(error, 200)}")
        reason = delta.get("finish_reason")
        if reason is not None and not isinstance(reason, str):
            raise fail(f"the finish_reason is not text: {short(reason)}")
        self._reason = reason
        self._usage = delta.get("usage")
        self._finished = True
        return []

    def _message(self, final: bool) -> dict[str, Any]:
        """The message so far, as the whole reply holds it."""
        content = []
        for at in sorted(self._content):
            part, pieces = self._content[at]
            content.append({"type": part, part: "".join(pieces)})
        calls = calls_so_far([self._calls[at] for at in sorted(self._calls)], final)
        return {
            "role": "assistant",
            "content": content,
            "tool_plan": "".join(self._plan),
            "tool_calls": [call.raw() for call in calls],
            "citations": self._citations,
        }

    _read_message = staticmethod(_read_message)

    def _numbered_calls(self) -> list[tuple[int, _Call]]:
        return [(at, self._calls[at]) for at in sorted(self._calls)]

    def _reply(self, messages: list[Message]) -> Reply:
        return _reply(messages, self._reason, self._usage, self._id)


def _message_of(data: dict[str, Any], fail: Any) -> dict[str, Any]:
    """``delta.message`` of an event, or ``{}`` where the event has none."""
    delta = data.get("delta")
    if delta is None:
        return {}
    if not isinstance(delta, dict):
        raise fail(f"the delta is not an object: {short(delta)}")
    message = delta.get("message")
    if message is None:
        return {}
    if not isinstance(message, dict):
        raise fail(f"the delta's message is not an object: {short(message)}")
    return message


def _model_field(value: object, name: str | None) -> Any:
    """A model's fields (``name`` None), or its field ``name``; None where only the dump can tell.

    Only pydantic models without extra fields: a dict or anything else where
    a model belongs, or a model with extras, is read from the dump.
    """
    if value is None or getattr(value, "__pydantic_extra__", True):
        return None  # an extra field bearing a read name is what the dump writes there
    found = value.__dict__
    return found if name is None else found.get(name)
