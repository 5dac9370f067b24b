"""A ``ChatCompletionChunk`` stream read into messages, and the quick reads of the SDK's chunk
objects.
"""

from __future__ import annotations

from typing import Any, Final

from ..._messages import (
    Message,
)
from .._chat_stream import ChoicesStream, calls_so_far, whole_object
from .._errors import (
    reported_error,
    short,
)
from .._json import plain
from .._objects import PLAIN, declared, dumps_as_declared, fields, flat, given
from .._reply import (
    Delta,
    Reply,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStart,
)
from ._reply import _read_message, _reply
from ._wire import _REASONING_KEYS

# What a chunk is read for from the SDK's object's fields, without its dump
# (see Accumulator._object_chunk).
_FACTS: Final = frozenset({"id", "model"})

_TEXT_OR_NONE: Final = frozenset({str, type(None)})

_MISSING: Final = object()

_INDEX_AND_FUNCTION: Final = frozenset({"index", "function"})

_CHUNK_KEYS: Final = frozenset({"choices", "usage", "type"})

_CHOICE_KEYS: Final = frozenset({"index", "delta", "finish_reason"})

_FUNCTION_OR_NONE: Final = (None, "function")

# The calls a reader makes a ``ToolCall`` of, by type, and the field whose
# pieces ``ToolCallDelta`` gives: a function's argument text, a custom
# tool's free input.
_TEXT_KEYS: Final = {"function": "arguments", "custom": "input"}


# The openai SDK's ``chat.completions.stream()`` wraps each chunk in a
# ``chunk`` event and adds events that repeat what the chunks said.
_HELPER_EVENTS: Final = frozenset(
    {
        "content.delta",
        "content.done",
        "refusal.delta",
        "refusal.done",
        "tool_calls.function.arguments.delta",
        "tool_calls.function.arguments.done",
        "logprobs.content.delta",
        "logprobs.content.done",
        "logprobs.refusal.delta",
        "logprobs.refusal.done",
    }
)


class _Call:
    """A streamed call: its id, its type's object as it grows, and the chunk that began it.

    A function call's ``arguments`` text and a custom call's ``input`` come
    in pieces; for a call type this version does not know, every text field
    but the name is joined the same way, so it is kept whole all the same.
    """

    __slots__ = ("call_id", "inner", "kind", "pieces", "position", "started")

    def __init__(self, call_id: str | None, kind: str, position: int, started: int) -> None:
        self.call_id = call_id
        self.kind = kind
        self.inner: dict[str, Any] = {}
        self.pieces: dict[str, list[str]] = {}
        self.position = position
        self.started = started

    def grow(self, inner: dict[str, Any]) -> str:
        """Take a delta's object; returns the new piece of its arguments (or custom input) text."""
        added = ""
        for key, value in inner.items():
            if value is None:
                continue
            if key != "name" and isinstance(value, str):
                self.pieces.setdefault(key, []).append(value)
                if key == _TEXT_KEYS.get(self.kind):
                    added = value
            else:
                self.inner[key] = value
        return added

    def grow_arguments(self, piece: str) -> None:
        """Take a delta whose function object holds only a piece of arguments text."""
        self.pieces.setdefault("arguments", []).append(piece)

    def arguments(self) -> str:
        return "".join(self.pieces.get("arguments", ()))

    def whole(self) -> bool:
        """Whether its arguments are complete: a function's whose text is a whole object."""
        return self.kind == "function" and whole_object(self.arguments())

    def unchecked(self) -> str | None:
        """A function's argument text, to check at the end; other calls have none."""
        return self.arguments() if self.kind == "function" else None

    def raw(self) -> dict[str, Any]:
        """The call as the non-streamed message would hold it (no ``id`` if none came)."""
        inner = dict(self.inner)
        for key, pieces in self.pieces.items():
            inner[key] = "".join(pieces)
        if self.call_id is None:
            return {"type": self.kind, self.kind: inner}
        return {"id": self.call_id, "type": self.kind, self.kind: inner}


_CHUNKS: Final[set[type]] = set()


def _chunk_fields(event: object) -> dict[str, Any] | None:
    """The fields of an SDK object that is a chunk, if they read as its dump does.

    A class with a ``type`` of its own is one of the helper's events, which
    ``_take`` tells apart by it; any other whose fields read as its dump
    does is noted in ``_CHUNKS``, so that the next object of it is not asked
    again.
    """
    found = fields(event)
    cls = type(event)
    if found is None or "type" in declared(cls) or getattr(cls, "type", None) is not None:
        return None
    _CHUNKS.add(type(event))
    return found


class Accumulator(ChoicesStream):
    """Builds the messages of a streamed Chat Completion.

    ``feed`` every ``ChatCompletionChunk`` (dict or SDK object), or every
    event of the SDK's ``chat.completions.stream()`` helper; ``result()``
    then equals ``from_response`` of the whole completion, and ``reply()``
    adds the finish reason and the usage (sent in a last chunk when the
    request asks for ``stream_options={"include_usage": True}``). Tool calls
    arrive keyed by ``index``: the first delta of an index brings its id and
    name, later ones more argument text. A choice without a delta (Azure's
    content-filter annotations), or with an empty one after the
    ``finish_reason``, adds nothing.
    """

    _cut_reasons = frozenset({"length"})

    def __init__(self) -> None:
        super().__init__()
        self._refusal: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[int, _Call] = {}
        self._extra: dict[str, Any] = {}  # other message fields, as sent (audio, annotations)

    def _unwrap(self, event: object) -> tuple[dict[str, Any], object] | list[Delta]:
        kind = event.get("type") if isinstance(event, dict) else getattr(event, "type", None)
        if kind == "chunk":
            event = event["chunk"] if isinstance(event, dict) else getattr(event, "chunk", None)
            if type(event) is not dict:
                read = self._object_chunk(event)  # the chunk of the helper's event
                if read is not None:
                    return read
        elif kind in _HELPER_EVENTS:
            return []
        return plain(event, "a chunk"), event

    def _error(self, data: dict[str, Any]) -> str | None:
        return reported_error(data, "choices")

    def _adds_nothing(self, delta: dict[str, Any]) -> bool:
        """Whether a delta holds nothing but its role and empty or null fields."""
        return all(key == "role" or value is None or value == "" for key, value in delta.items())

    def _object_chunk(self, event: object) -> list[Delta] | None:
        """A chunk read from the fields of the SDK's object, as ``_take`` reads its dump.

        The chunks of every stream: its first (the id, the model, the role
        and maybe empty text), the pieces of text, refusal, reasoning and a
        call's arguments that come by the thousand, the one with the finish
        reason, and the last with the usage alone. ``None`` for any other,
        or where reading the fields might not give what the dump gives (see
        ``_objects``): it is then read from its dump. Nothing is taken until
        the whole chunk is known to read alike.
        """
        outer: Any = event.__dict__ if type(event) in _CHUNKS else _chunk_fields(event)
        try:
            choices = outer["choices"]
            usage = outer["usage"]
        except (KeyError, TypeError):  # not there, or not what it should be
            return None
        told = event.__pydantic_fields_set__  # type: ignore[attr-defined]
        # An extra field of a name read is what the dump holds there; a type
        # names a helper's event, read as _take reads those.
        extra = event.__pydantic_extra__  # type: ignore[attr-defined]
        if (
            "choices" not in told
            or type(choices) is not list
            or (extra and not _CHUNK_KEYS.isdisjoint(extra))
        ):
            return None
        facts = self._facts
        if facts and usage is None and len(choices) == 1 and not self._finished:
            piece = self._object_piece(choices[0])
            if piece is not None:
                return piece
        if not facts:
            found = given(event, _FACTS)
            if found is None or not all(type(value) in _TEXT_OR_NONE for value in found.values()):
                return None
            facts = {"id": found.get("id"), "model": found.get("model")}
        kept = None
        if usage is not None and "usage" in told:
            if fields(usage) is None or not dumps_as_declared(event, "usage", usage):
                return None
            kept = flat(usage)
            if kept is None:
                kept = plain(usage, "the usage")
        if not choices:
            deltas: list[Delta] = []
        elif len(choices) != 1 or self._finished:
            return None
        else:
            read = self._object_choice(choices[0])
            if read is None:
                return None
            deltas = read
        self._facts = facts
        if kept is not None:
            self._usage = kept
        return deltas

    _read_object = _object_chunk

    def _object_piece(self, choice: object) -> list[Delta] | None:
        """The chunks that come by the thousand, read the quickest way: ``None`` for any other.

        A choice, the first, whose delta was given only a piece of text or
        refusal, or of the arguments of a call already begun, and no finish
        reason.
        """
        first: Any = choice.__dict__ if type(choice) in PLAIN else fields(choice)
        try:
            index, delta, reason = first["index"], first["delta"], first["finish_reason"]
            inner = delta.__dict__ if type(delta) in PLAIN else fields(delta)
            given_to = delta.__pydantic_fields_set__
        except (AttributeError, KeyError, TypeError):
            return None
        if (
            index != 0
            or reason is not None
            or inner is None
            or choice.__pydantic_extra__  # type: ignore[attr-defined]
            or delta.__pydantic_extra__
            or "delta" not in choice.__pydantic_fields_set__  # type: ignore[attr-defined]
            or len(given_to) != 1
        ):
            return None
        if "content" in given_to or "refusal" in given_to:
            key = "content" if "content" in given_to else "refusal"
            text = inner.get(key)
            if type(text) is not str:
                return None
            (self._texts if key == "content" else self._refusal).append(text)
            return [TextDelta(text)] if text else []
        calls = inner.get("tool_calls")
        if "tool_calls" not in given_to or type(calls) is not list or len(calls) != 1:
            return None
        found = self._object_arguments(calls[0])
        if found is None:
            return None
        known, piece = found
        known.grow_arguments(piece)
        return [ToolCallDelta(known.position, piece)] if piece else []

    def _object_choice(self, choice: object) -> list[Delta] | None:
        """The deltas of a chunk's one choice, read from the SDK's object; ``None`` as above."""
        first: Any = choice.__dict__ if type(choice) in PLAIN else fields(choice)
        try:
            index, delta, reason = first["index"], first["delta"], first["finish_reason"]
        except (KeyError, TypeError):
            return None
        told = choice.__pydantic_fields_set__  # type: ignore[attr-defined]
        extra = choice.__pydantic_extra__  # type: ignore[attr-defined]
        if (extra and not _CHOICE_KEYS.isdisjoint(extra)) or type(index) is not int:
            return None
        if index != 0:
            # Another choice's piece: from_response reads the first only.
            return [] if "index" in told else None
        if "finish_reason" not in told:
            reason = None
        elif type(reason) not in _TEXT_OR_NONE:
            return None
        steps: list[tuple[str, Any]] = []
        if "delta" in told and delta is not None:
            found = self._object_steps(delta, steps)
            if not found:
                return None
        deltas: list[Delta] = []
        for key, value in steps:
            if key == "content" or key == "refusal":
                (self._texts if key == "content" else self._refusal).append(value)
                if value:
                    deltas.append(TextDelta(value))
            elif key == "reasoning":
                self._reasoning.append(value)
                if value:
                    deltas.append(ThinkingDelta(value))
            elif key == "start":
                # A new function call, as ``_call`` begins one; the chunk's
                # number is the one ``feed`` is taking.
                at, call_id, name, piece = value
                position = sum(1 for other in self._calls.values() if other.kind in _TEXT_KEYS)
                begun = self._calls[at] = _Call(call_id, "function", position, self._count - 1)
                begun.inner["name"] = name
                deltas.append(ToolCallStart(position, call_id, name))
                if piece is not None:
                    begun.grow_arguments(piece)
                    if piece:
                        deltas.append(ToolCallDelta(position, piece))
            else:
                known, piece = value
                known.grow_arguments(piece)
                if piece:
                    deltas.append(ToolCallDelta(known.position, piece))
        if reason is not None:
            self._reason = reason
            self._finished = True
        return deltas

    def _object_steps(self, delta: object, steps: list[tuple[str, Any]]) -> bool:
        """What a choice's delta adds, in the order of its dump, into ``steps``; whether it can.

        Text, refusal and reasoning pieces, and a piece of the arguments of
        a call already begun; a role is passed over and a null adds nothing,
        as ``_delta`` reads them. False for anything else.
        """
        inner = delta.__dict__ if type(delta) in PLAIN else fields(delta)
        if inner is None:
            return False
        told = delta.__pydantic_fields_set__  # type: ignore[attr-defined]
        for key in declared(type(delta)):
            if key not in told:
                continue
            value = inner.get(key, _MISSING)
            if value is None or key == "role":
                continue
            if (key == "content" or key == "refusal") and type(value) is str:
                steps.append((key, value))
            elif key == "tool_calls" and type(value) is list and len(value) == 1:
                piece = self._object_arguments(value[0])
                if piece is not None:
                    steps.append((key, piece))
                    continue
                start = self._object_start(value[0])
                if start is None:
                    return False
                steps.append(("start", start))
            else:
                return False
        extra = delta.__pydantic_extra__  # type: ignore[attr-defined]
        if extra:
            for key, value in extra.items():
                if value is None:
                    continue
                if key not in _REASONING_KEYS or type(value) is not str:
                    return False
                steps.append(("reasoning", value))
        return True

    def _object_arguments(self, call: object) -> tuple[_Call, str] | None:
        """A piece of the arguments of a call already begun, read from the SDK's object."""
        try:
            found: Any = call.__dict__ if type(call) in PLAIN else fields(call)
            at, function, call_id, kind = (
                found["index"],
                found["function"],
                found["id"],
                found["type"],
            )
            inner: Any = function.__dict__ if type(function) in PLAIN else fields(function)
            piece, name = inner["arguments"], inner["name"]
            known = self._calls[at] if type(at) is int else None
        except (KeyError, TypeError):  # not there, or not what it should be
            return None
        if (
            known is None
            or known.kind != "function"
            or type(piece) is not str
            or name is not None
            or call_id is not None
            or kind not in _FUNCTION_OR_NONE
            or call.__pydantic_extra__  # type: ignore[attr-defined]
            or function.__pydantic_extra__
            or not _INDEX_AND_FUNCTION <= call.__pydantic_fields_set__  # type: ignore[attr-defined]
            or "arguments" not in function.__pydantic_fields_set__
        ):
            return None
        return known, piece

    def _object_start(self, call: object) -> tuple[int, str | None, str, str | None] | None:
        """A new function call read from the SDK's object: its index, id, name and arguments.

        What ``_call`` takes from the dump of a call not yet begun: the
        fields it was given, the id text or none, the name text, the
        arguments text or none (none adds no arguments at all), the type
        ``"function"`` or none. ``None`` for anything else.
        """
        try:
            found: Any = call.__dict__ if type(call) in PLAIN else fields(call)
            at, function = found["index"], found["function"]
            inner: Any = function.__dict__ if type(function) in PLAIN else fields(function)
            told = call.__pydantic_fields_set__  # type: ignore[attr-defined]
            named = function.__pydantic_fields_set__
            name = inner["name"] if "name" in named else None
            piece = inner["arguments"] if "arguments" in named else None
        except (AttributeError, KeyError, TypeError):  # not there, or not what it should be
            return None
        call_id = found.get("id") if "id" in told else None
        if (
            type(at) is not int
            or at in self._calls
            or not _INDEX_AND_FUNCTION <= told
            or type(name) is not str
            or (piece is not None and type(piece) is not str)
            or (call_id is not None and type(call_id) is not str)
            or ("type" in told and found.get("type") not in _FUNCTION_OR_NONE)
            or call.__pydantic_extra__  # type: ignore[attr-defined]
            or function.__pydantic_extra__
        ):
            return None
        return at, call_id, name, piece

    def _delta(self, delta: dict[str, Any], number: int, fail: Any, deltas: list[Delta]) -> None:
        for key, value in delta.items():
            if value is None or key == "role":
                continue
            if key == "content" or key == "refusal":
                if not isinstance(value, str):
                    raise fail(f"the delta's {key!r} is not text: {short(value)}")
                (self._texts if key == "content" else self._refusal).append(value)
                if value:
                    deltas.append(TextDelta(value))
            elif key in _REASONING_KEYS:
                if not isinstance(value, str):
                    raise fail(f"the delta's {key!r} is not text: {short(value)}")
                self._reasoning.append(value)
                if value:
                    deltas.append(ThinkingDelta(value))
            elif key == "tool_calls":
                if not isinstance(value, list):
                    raise fail(f"the delta's tool_calls is not a list: {short(value)}")
                for call in value:
                    self._call(call, number, fail, deltas)
            elif key == "audio":
                if not isinstance(value, dict):
                    raise fail(f"the delta's audio is not an object: {short(value)}")
                self._audio(value)
            elif key == "annotations":
                if not isinstance(value, list):
                    raise fail(f"the delta's annotations is not a list: {short(value)}")
                self._extra.setdefault("annotations", []).extend(value)
            else:
                self._extra[key] = value  # a field this version does not know: kept as sent

    def _audio(self, piece: dict[str, Any]) -> None:
        """Output audio arrives in pieces: base64 data and transcript grow, the rest is set."""
        audio = self._extra.setdefault("audio", {})
        for key, value in piece.items():
            if key in ("data", "transcript") and isinstance(value, str):
                audio[key] = audio.get(key, "") + value
            elif value is not None:
                audio[key] = value

    def _call(self, call: object, number: int, fail: Any, deltas: list[Delta]) -> None:
        if not isinstance(call, dict) or type(call.get("index")) is not int:
            raise fail(f"a tool-call delta without an integer index: {short(call)}")
        at: int = call["index"]
        known = self._calls.get(at)
        kind = call.get("type") or (known.kind if known is not None else "function")
        if not isinstance(kind, str):
            raise fail(f"tool call {at}: the type is not text: {short(kind)}")
        inner = call.get(kind)
        if inner is None:
            inner = {}
        elif not isinstance(inner, dict):
            raise fail(f"tool call {at}: {kind!r} is not an object: {short(inner)}")
        name = inner.get("name")
        if name is not None and not isinstance(name, str):
            raise fail(f"tool call {at}: the name is not text: {short(name)}")
        if kind == "function" and not isinstance(inner.get("arguments", ""), (str, type(None))):
            raise fail(f"tool call {at}: the arguments are not text: {short(inner['arguments'])}")
        call_id = call.get("id")
        if call_id is not None and not isinstance(call_id, str):
            raise fail(f"tool call {at}: the id is not text: {short(call_id)}")
        if known is None:
            # Some compatible servers send a call without an id: it has none.
            if not isinstance(name, str):
                raise fail(f"tool call {at} starts without a name")
            position = sum(1 for other in self._calls.values() if other.kind in _TEXT_KEYS)
            known = self._calls[at] = _Call(call_id, kind, position, number)
            if kind in _TEXT_KEYS:
                deltas.append(ToolCallStart(position, call_id, name))
        elif call_id is not None and known.call_id is None:
            known.call_id = call_id  # the id came after the name
        elif call_id is not None and call_id != known.call_id:
            raise fail(f"tool call {at} changes its id")
        elif kind != known.kind:
            raise fail(f"tool call {at} changes its type")
        piece = known.grow(inner)
        if piece:
            deltas.append(ToolCallDelta(known.position, piece))

    def _message(self, final: bool) -> dict[str, Any]:
        """The message so far, as a non-streamed response would hold it."""
        message: dict[str, Any] = {"role": "assistant"}
        # A field no delta spelled out stays null, as in the whole message.
        message["content"] = "".join(self._texts) if self._texts else None
        if self._refusal:
            message["refusal"] = "".join(self._refusal)
        calls = calls_so_far([self._calls[at] for at in sorted(self._calls)], final)
        if calls:
            message["tool_calls"] = [call.raw() for call in calls]
        reasoning = "".join(self._reasoning)
        if reasoning:
            message["reasoning_content"] = reasoning
        message.update(self._extra)
        return message

    _read_message = staticmethod(_read_message)

    def _numbered_calls(self) -> list[tuple[int, _Call]]:
        return [(at, self._calls[at]) for at in sorted(self._calls)]

    def _reply(self, messages: list[Message]) -> Reply:
        return _reply(messages, self._reason, self._usage, self._facts)
