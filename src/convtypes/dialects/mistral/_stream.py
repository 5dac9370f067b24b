"""A Mistral ``CompletionChunk`` stream read into messages, and the quick reads of the SDK's
objects.
"""

from __future__ import annotations

from typing import Any

from ..._messages import (
    Message,
)
from .._chat_stream import ChoicesStream, calls_so_far, whole_object
from .._errors import (
    short,
)
from .._json import arguments_json, plain
from .._objects import in_declared_order
from .._reply import (
    Delta,
    Reply,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStart,
)
from ._reply import _error, _read_message, _reply, _unwrapped
from ._wire import _CUT_REASONS


class _Call:
    """A streamed call: its id, name, argument text as it grows, and where it began.

    Mistral sends a call whole in one chunk; a server that streams its
    arguments in pieces sends the rest with the call's ``index`` and no id.
    Arguments sent as an object (not text) are kept as that object.
    """

    __slots__ = ("call_id", "kind", "name", "pieces", "position", "sent_whole", "started")

    def __init__(
        self, call_id: str | None, name: str, kind: str | None, position: int, started: int
    ) -> None:
        self.call_id = call_id
        self.name = name
        self.kind = kind
        self.pieces: list[str] = []
        self.sent_whole: dict[str, Any] | None = None
        self.position = position
        self.started = started

    def arguments(self) -> str:
        if self.sent_whole is not None:
            return arguments_json(self.sent_whole)
        return "".join(self.pieces)

    def whole(self) -> bool:
        """Whether its arguments are complete: an object, or text that is a whole object."""
        return self.sent_whole is not None or whole_object("".join(self.pieces))

    def unchecked(self) -> str | None:
        """The argument text to check at the end; none for arguments sent as an object."""
        return "".join(self.pieces) if self.sent_whole is None else None

    def raw(self) -> dict[str, Any]:
        """The call as the non-streamed message holds it."""
        arguments: Any = self.sent_whole if self.sent_whole is not None else "".join(self.pieces)
        call: dict[str, Any] = {"function": {"name": self.name, "arguments": arguments}}
        if self.call_id is not None:
            call["id"] = self.call_id
        if self.kind is not None:
            call["type"] = self.kind
        return call


class Accumulator(ChoicesStream):
    """Builds the messages of a streamed chat completion.

    ``feed`` every chunk of ``chat.stream``: the SDK's ``CompletionEvent``
    (or its ``data``, a ``CompletionChunk``), or the same as dicts.
    ``result()`` then equals ``from_response`` of the whole completion, and
    ``reply()`` adds the finish reason and the usage (in the last chunk).
    Content arrives as text, or as a list of chunks: reasoning models send
    ``thinking`` chunks first, then text. Tool calls usually arrive whole,
    one chunk each.
    """

    _cut_reasons = _CUT_REASONS

    def __init__(self) -> None:
        super().__init__()
        # ``_texts`` holds the content: text as str, other content chunks as dicts.
        self._calls: list[_Call] = []
        self._by_index: dict[int, _Call] = {}
        self._extra: dict[str, Any] = {}  # other message fields, as sent

    def _unwrap(self, event: object) -> tuple[dict[str, Any], object] | list[Delta]:
        if type(event) is dict:
            return _inside(event), event
        return _inside(plain(event, "a chunk")), event

    def _error(self, data: dict[str, Any]) -> str | None:
        return _error(data)

    def _adds_nothing(self, delta: dict[str, Any]) -> bool:
        """Whether a delta holds nothing but its role and empty or null fields."""
        return all(
            key in ("role", "index") or value is None or value == "" or value == []
            for key, value in delta.items()
        )

    def _fast(self, event: object) -> list[Delta] | None:
        """The deltas of an SDK chunk that only adds content, read from its attributes.

        Most chunks bring a piece of text, or of thinking, and nothing else;
        dumping each whole costs more than the rest of the work. Anything
        else (``None``) goes the common way, through the dump.
        """
        chunk = getattr(event, "data", event)
        choices = getattr(chunk, "choices", None)
        if (
            self._finished
            or type(choices) is not list
            or len(choices) != 1
            or getattr(chunk, "usage", None) is not None
            or (chunk is not event and "data" not in getattr(event, "__pydantic_fields_set__", ()))
        ):
            return None
        facts: dict[str, Any] | None = None
        if not self._facts:
            # The first chunk: its id and model, as the dump has them when
            # it was given them as text (as the SDK's validated chunk was).
            told = getattr(chunk, "__pydantic_fields_set__", ())
            facts = {"id": getattr(chunk, "id", None), "model": getattr(chunk, "model", None)}
            if (
                type(facts["id"]) is not str
                or type(facts["model"]) is not str
                or "id" not in told
                or "model" not in told
            ):
                return None
        choice = choices[0]
        delta = getattr(choice, "delta", None)
        if (
            getattr(choice, "index", None) != 0
            or getattr(choice, "finish_reason", None) is not None
            or not getattr(delta, "__pydantic_fields_set__", {"tool_calls"}) <= {"role", "content"}
        ):
            return None
        content = getattr(delta, "content", None)
        if type(content) is str:
            if facts is not None:
                self._facts = facts
            self._texts.append(content)
            return [TextDelta(content)] if content else []
        if type(content) is not list:
            return None
        pieces: list[Any] = []
        deltas: list[Delta] = []
        for part in content:
            kind = getattr(part, "type", None)
            fields = getattr(part, "__pydantic_fields_set__", None)
            if kind == "text" and fields is not None and fields <= {"type", "text"}:
                text = getattr(part, "text", None)
                if type(text) is not str:
                    return None
                pieces.append(text)
                if text:
                    deltas.append(TextDelta(text))
            elif kind == "thinking" and fields is not None and fields <= {"type", "thinking"}:
                inner = getattr(part, "thinking", None)
                if type(inner) is not list:
                    return None
                texts = []
                for piece in inner:
                    text = getattr(piece, "text", None)
                    piece_fields = getattr(piece, "__pydantic_fields_set__", None)
                    if (
                        getattr(piece, "type", None) != "text"
                        or type(text) is not str
                        or piece_fields is None
                        or not piece_fields <= {"type", "text"}
                    ):
                        return None
                    # In the order the dump writes them: the order declared.
                    texts.append(
                        {"text": text, "type": "text"}
                        if in_declared_order(type(piece), "text", "type")
                        else {"type": "text", "text": text}
                    )
                    if text:
                        deltas.append(ThinkingDelta(text))
                pieces.append(
                    {"thinking": texts, "type": "thinking"}
                    if in_declared_order(type(part), "thinking", "type")
                    else {"type": "thinking", "thinking": texts}
                )
            else:
                return None
        if facts is not None:
            self._facts = facts
        self._texts += pieces
        return deltas

    _read_object = _fast

    def _delta(self, delta: dict[str, Any], number: int, fail: Any, deltas: list[Delta]) -> None:
        for key, value in delta.items():
            if value is None or key == "role" or key == "index":
                continue
            if key == "content":
                if isinstance(value, str):
                    self._texts.append(value)
                    if value:
                        deltas.append(TextDelta(value))
                elif isinstance(value, list):
                    for chunk in value:
                        self._chunk(chunk, fail, deltas)
                else:
                    raise fail(f"the delta's content is neither text nor a list: {short(value)}")
            elif key == "tool_calls":
                if not isinstance(value, list):
                    raise fail(f"the delta's tool_calls is not a list: {short(value)}")
                for call in value:
                    self._call(call, number, fail, deltas)
            else:
                self._extra[key] = value  # a field this version does not know: kept as sent

    def _chunk(self, chunk: object, fail: Any, deltas: list[Delta]) -> None:
        chunk = _unwrapped(chunk)
        if not isinstance(chunk, dict):
            raise fail(f"a content chunk is not an object: {short(chunk)}")
        kind = chunk.get("type")
        if kind == "text":
            text = chunk.get("text")
            if not isinstance(text, str):
                raise fail(f"a text chunk without text: {short(chunk)}")
            self._texts.append(text)
            if text:
                deltas.append(TextDelta(text))
        elif kind == "thinking":
            inner = chunk.get("thinking")
            if not isinstance(inner, list):
                raise fail(f"a thinking chunk whose thinking is not a list: {short(inner)}")
            parts = []
            for part in inner:
                part = _unwrapped(part)
                if not isinstance(part, dict):
                    raise fail(f"a part of a thinking chunk is not an object: {short(part)}")
                if part.get("type") == "text":
                    text = part.get("text")
                    if not isinstance(text, str):
                        raise fail(f"a thinking text part without text: {short(part)}")
                    if text:
                        deltas.append(ThinkingDelta(text))
                parts.append(dict(part))
            self._texts.append({**chunk, "thinking": parts})
        elif isinstance(kind, str):
            self._texts.append(dict(chunk))
        else:
            raise fail(f"a content chunk without a type: {short(chunk)}")

    def _call(self, raw: object, number: int, fail: Any, deltas: list[Delta]) -> None:
        if not isinstance(raw, dict):
            raise fail(f"a tool-call delta is not an object: {short(raw)}")
        call_id = raw.get("id")
        index = raw.get("index")
        kind = raw.get("type")
        function = raw.get("function")
        if call_id is not None and not isinstance(call_id, str):
            raise fail(f"a tool call's id is not text: {short(call_id)}")
        if index is not None and type(index) is not int:
            raise fail(f"a tool call's index is not an integer: {short(index)}")
        if kind is not None and not isinstance(kind, str):
            raise fail(f"a tool call's type is not text: {short(kind)}")
        if function is None:
            function = {}
        elif not isinstance(function, dict):
            raise fail(f"a tool call's function is not an object: {short(function)}")
        name = function.get("name")
        if name is not None and not isinstance(name, str):
            raise fail(f"a tool call's name is not text: {short(name)}")
        arguments = function.get("arguments")
        if arguments is not None and not isinstance(arguments, (str, dict)):
            raise fail(
                f"a tool call's arguments are neither text nor an object: {short(arguments)}"
            )
        known = self._known(call_id, index, name)
        if known is None:
            if not name:
                raise fail("a tool call starts without a name")
            known = _Call(call_id, name, kind, len(self._calls), number)
            self._calls.append(known)
            if index is not None:
                self._by_index[index] = known
            deltas.append(ToolCallStart(known.position, call_id, name))
        elif name and not known.name:
            known.name = name
        if isinstance(arguments, dict):
            known.sent_whole = arguments
            deltas.append(ToolCallDelta(known.position, arguments_json(arguments)))
        elif arguments:
            if known.sent_whole is not None:
                raise fail(f"tool call {known.position} had whole arguments and gets more")
            known.pieces.append(arguments)
            deltas.append(ToolCallDelta(known.position, arguments))

    def _known(self, call_id: str | None, index: int | None, name: str | None) -> _Call | None:
        """The call a delta goes on, or ``None`` when it begins a new one.

        A delta with an id goes on the call of that id; one without an id on
        the call of its ``index``, or the last call. A delta that names a
        tool when that call already has a name begins a new call: a call
        sent whole without an id.
        """
        if call_id is not None:
            for call in reversed(self._calls):
                if call.call_id == call_id:
                    return call
            return None
        known = self._by_index.get(index) if index is not None else None
        if known is None and index is None and self._calls:
            known = self._calls[-1]
        if known is not None and name and known.name:
            return None
        return known

    def _content(self) -> Any:
        """The content so far as the whole message holds it: text, or a list of chunks.

        Pieces of text are joined, and so are the pieces of one thinking
        chunk; a list is used only when a chunk other than text came.
        """
        merged: list[Any] = []
        text: list[str] = []
        for piece in self._texts:
            if type(piece) is str:
                text.append(piece)
                continue
            if text:
                merged.append("".join(text))
                text = []
            last = merged[-1] if merged else None
            if (
                isinstance(last, dict)
                and last.get("type") == "thinking"
                and piece.get("type") == "thinking"
            ):
                merged[-1] = _joined_thinking(last, piece)
            else:
                merged.append(piece)
        if text:
            merged.append("".join(text))
        if all(type(piece) is str for piece in merged):
            return "".join(merged) if merged else None
        return [
            {"type": "text", "text": piece} if type(piece) is str else piece
            for piece in merged
            if piece != ""
        ]

    def _message(self, final: bool) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": self._content()}
        calls = calls_so_far(self._calls, final)
        if calls:
            message["tool_calls"] = [call.raw() for call in calls]
        message.update(self._extra)
        return message

    _read_message = staticmethod(_read_message)

    def _numbered_calls(self) -> list[tuple[int, _Call]]:
        return list(enumerate(self._calls))

    def _reply(self, messages: list[Message]) -> Reply:
        return _reply(messages, self._reason, self._usage, self._facts)


def _inside(data: dict[str, Any]) -> dict[str, Any]:
    """The chunk of an event: the SDK's ``CompletionEvent`` holds it as ``data``."""
    inner = data.get("data")
    return inner if "choices" not in data and isinstance(inner, dict) else data


def _joined_thinking(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Two pieces of one streamed thinking chunk as one: their text parts joined."""
    parts: list[Any] = list(first["thinking"])
    for part in second["thinking"]:
        last = parts[-1] if parts else None
        if (
            isinstance(last, dict)
            and last.keys() == {"type", "text"}
            and last["type"] == "text"
            and isinstance(part, dict)
            and part.keys() == {"type", "text"}
            and part["type"] == "text"
        ):
            parts[-1] = {"type": "text", "text": last["text"] + part["text"]}
        else:
            parts.append(part)
    return {**first, **second, "thinking": parts}
