"""A Responses API stream to messages: the ``Accumulator``."""

from __future__ import annotations

from typing import Any, Final

from ..._messages import Message
from .._errors import StreamError, label, reported_error, short
from .._json import field, parse_arguments, plain
from .._reply import Delta, Reply, TextDelta, ThinkingDelta, ToolCallDelta, ToolCallStart
from .._stream import StreamReader
from ._reply import _check_not_failed, _read, _reply
from ._request import _output_text

# Delta event: (the item's list of parts, the event's index into it, the
# part's text field, the delta to give).
_TextDelta = tuple[str, str, str, type[TextDelta] | type[ThinkingDelta]]
_TEXT_DELTAS: Final[dict[str, _TextDelta]] = {
    "response.output_text.delta": ("content", "content_index", "text", TextDelta),
    "response.refusal.delta": ("content", "content_index", "refusal", TextDelta),
    "response.reasoning_summary_text.delta": ("summary", "summary_index", "text", ThinkingDelta),
    "response.reasoning_text.delta": ("content", "content_index", "text", ThinkingDelta),
}
_PART_ADDED: Final = {
    "response.content_part.added": ("content", "content_index"),
    "response.reasoning_summary_part.added": ("summary", "summary_index"),
}
# The argument events of a call, and the field of the call item each grows.
_ARGUMENTS_DELTAS: Final = {
    "response.function_call_arguments.delta": "arguments",
    "response.custom_tool_call_input.delta": "input",
}
# The items that are calls a program answers, and their text field.
_CALL_TEXT: Final = {"function_call": "arguments", "custom_tool_call": "input"}
# Output audio (from an audio model) comes only in these events, no item: its pieces
# are kept, joined, in ``Reply.details["audio"]``.
_AUDIO: Final = {"response.audio.delta": "data", "response.audio.transcript.delta": "transcript"}
_ADDED: Final = "response.output_item.added"
_DONE: Final = "response.output_item.done"
_ENDS: Final = frozenset({"response.completed", "response.incomplete"})
_FAILURES: Final = frozenset({"error", "response.failed"})
_STARTS: Final = frozenset({"response.created", "response.queued", "response.in_progress"})
# Everything else (text done, part done, annotations, server tool progress,
# audio...) only repeats or reports what the items carry, and is skipped
# without being read: the SDK helper's events grow a ``snapshot`` of the
# whole text, which must not be copied on every event.


class _Item:
    """An output item as it streams: the item as added, and its text in pieces.

    Text and argument deltas are kept as lists of pieces and joined only
    when the item is read (``snapshot``), so a long reply costs one join,
    not a copy of the text so far on every event.
    """

    __slots__ = ("arguments", "call", "done", "item", "streamed", "texts")

    def __init__(self, item: dict[str, Any], call: int | None) -> None:
        self.item = item
        self.call = call  # the index of its ToolCallStart, for a function or custom call
        self.done = False
        self.streamed = False  # whether any delta came for it
        self.arguments: list[str] | None = None
        self.texts: dict[tuple[str, int, str], list[str]] = {}

    def snapshot(self) -> dict[str, Any]:
        """The item so far, as a response would hold it; never the added item itself."""
        if self.done:
            return self.item
        item = dict(self.item)
        if self.arguments is not None:
            item[_CALL_TEXT[item["type"]]] = "".join(self.arguments)
        for (key, position, text_key), pieces in self.texts.items():
            if item[key] is self.item[key]:
                item[key] = list(item[key])
            item[key][position] = {**item[key][position], text_key: "".join(pieces)}
        return item


def _copy(value: dict[str, Any]) -> dict[str, Any]:
    """A copy deep enough that parts added later never change the event they came in."""
    return {
        key: [dict(part) if isinstance(part, dict) else part for part in item]
        if isinstance(item, list)
        else item
        for key, item in value.items()
    }


def _whole(event: object, data: dict[str, Any] | None) -> dict[str, Any]:
    """The event as JSON: ``data`` if it was a dict, else the SDK object dumped."""
    return data if data is not None else plain(event, "an event")


def _whole_deltas(item: dict[str, Any], call: int | None) -> list[Delta]:
    """The deltas of an item that arrived whole, with no delta before it."""
    kind = item.get("type")
    out: list[Delta] = []
    if kind == "message":
        for part in item.get("content") or ():
            if isinstance(part, dict):
                text = part.get("text") if part.get("type") == "output_text" else None
                if part.get("type") == "refusal":
                    text = part.get("refusal")
                if isinstance(text, str) and text:
                    out.append(TextDelta(text=text))
    elif kind == "reasoning":
        for key in ("summary", "content"):
            for part in item.get(key) or ():
                text = part.get("text") if isinstance(part, dict) else None
                if isinstance(text, str) and text:
                    out.append(ThinkingDelta(text=text))
    elif call is not None and isinstance(kind, str) and kind in _CALL_TEXT:
        arguments = item.get(_CALL_TEXT[kind])
        if isinstance(arguments, str) and arguments:
            out.append(ToolCallDelta(index=call, arguments=arguments))
    return out


class Accumulator(StreamReader):
    """Builds the messages of a streamed Responses API call.

    ``feed`` every event, as a dict or the SDK's object, raw or from the
    SDK's ``responses.stream()`` helper; each call returns the event's
    deltas. ``result()`` then equals ``from_response`` of the final
    response, and ``reply()`` ``read_reply``. Each output item is built from
    its ``output_item.added`` event and the deltas that follow, and is then
    replaced by the whole item that ``output_item.done`` brings, which must
    agree with the deltas. The ``response.completed`` (or
    ``response.incomplete``) event ends the stream; when it lists the output
    items, as the API's does, the reply is read from them, as the SDK reads
    it; otherwise from the items built. Events that only report progress are
    skipped.

    ``partial()`` before the end gives the items that are done, and an
    assistant message with all the text and thinking so far and the calls
    whose arguments are whole.
    """

    _noun = "event"
    _end = "response.completed or response.incomplete"

    def __init__(self) -> None:
        super().__init__()
        self._items: dict[int, _Item] = {}
        self._calls = 0
        self._final: list[Any] | None = None
        self._response: dict[str, Any] = {}
        self._status: object = None
        self._facts: dict[str, str] = {}
        self._audio: dict[str, list[str]] = {}  # the audio's base64 data and transcript, in pieces

    def _fail(self, number: int, event: object, kind: object, reason: str) -> StreamError:
        return StreamError(f"event {number} ({label(kind)}): {reason}", number, event)

    def _take(self, number: int, event: object) -> list[Delta]:
        if isinstance(event, dict):
            data: dict[str, Any] | None = event
            kind = event.get("type")
        else:
            # An SDK object: peek at its type and read only what is needed.
            data = None
            kind = getattr(event, "type", None)
            if not isinstance(kind, str):
                data = plain(event, "an event")
                kind = data.get("type")
        if not isinstance(kind, str):
            error = reported_error(_whole(event, data), "type")  # an error body, bare
            raise self._fail(number, event, kind, error if error is not None else "has no type")
        if self._finished:
            raise self._fail(number, event, kind, "came after the response completed")
        text_delta = _TEXT_DELTAS.get(kind)
        if text_delta is not None:
            return self._text(number, event, kind, data, text_delta)
        if kind in _ARGUMENTS_DELTAS:
            return self._arguments(number, event, kind, data)
        if kind in _PART_ADDED:
            self._part(number, event, kind, _whole(event, data))
            return []
        if kind in _AUDIO:
            piece = getattr(event, "delta", None) if data is None else data.get("delta")
            if not isinstance(piece, str):
                raise self._fail(number, event, kind, f"the delta is not text: {short(piece)}")
            self._audio.setdefault(_AUDIO[kind], []).append(piece)
            return []
        if kind == _ADDED:
            return self._added(number, event, kind, _whole(event, data))
        if kind == _DONE:
            return self._done(number, event, kind, _whole(event, data))
        if kind in _ENDS:
            self._end_with(number, event, kind, _whole(event, data))
        elif kind in _FAILURES:
            data = _whole(event, data)
            what = short(data.get("error") or data, 200)
            raise self._fail(number, event, kind, f"the provider reported an error: {what}")
        elif kind in _STARTS:
            self._started(
                getattr(event, "response", None) if data is None else data.get("response")
            )
        return []

    def _open(self, number: int, event: object, kind: str, at: object) -> _Item:
        """The item an event names, which must be added and not done."""
        item = self._items.get(at) if type(at) is int else None
        if item is None:
            raise self._fail(
                number, event, kind, f"names output item {short(at, 40)}, which was never added"
            )
        if item.done:
            raise self._fail(number, event, kind, f"output item {at} is already done")
        return item

    def _text(
        self,
        number: int,
        event: object,
        kind: str,
        data: dict[str, Any] | None,
        spec: _TextDelta,
    ) -> list[Delta]:
        key, index_key, text_key, make = spec
        if data is not None:
            at, position, piece = data.get("output_index"), data.get(index_key), data.get("delta")
        else:
            at = getattr(event, "output_index", None)
            position = getattr(event, index_key, None)
            piece = getattr(event, "delta", None)
        item = self._open(number, event, kind, at)
        if type(position) is not int:
            raise self._fail(
                number,
                event,
                kind,
                f"{index_key} {short(position, 40)} names no part of output item {at}",
            )
        pieces = item.texts.get((key, position, text_key))
        if pieces is None:
            parts = item.item.get(key)
            if parts is not None and not isinstance(parts, list):
                raise self._fail(
                    number, event, kind, f"output item {at} has a {key!r} that is not a list"
                )
            if not 0 <= position < len(parts or ()):
                raise self._fail(
                    number,
                    event,
                    kind,
                    f"{index_key} {short(position, 40)} names no part of output item {at}",
                )
            part = parts[position]  # type: ignore[index]
            if not isinstance(part, dict):
                raise self._fail(
                    number, event, kind, f"part {position} of output item {at} is not an object"
                )
            before = part.get(text_key, "")
            if not isinstance(before, str):
                raise self._fail(
                    number,
                    event,
                    kind,
                    f"part {position} of output item {at} has a {text_key!r} not text",
                )
            pieces = item.texts[(key, position, text_key)] = [before]
        if not isinstance(piece, str):
            raise self._fail(number, event, kind, f"the delta is not text: {short(piece)}")
        pieces.append(piece)
        item.streamed = True
        return [make(text=piece)] if piece else []

    def _arguments(
        self, number: int, event: object, kind: str, data: dict[str, Any] | None
    ) -> list[Delta]:
        if data is not None:
            at, piece = data.get("output_index"), data.get("delta")
        else:
            at, piece = getattr(event, "output_index", None), getattr(event, "delta", None)
        item = self._open(number, event, kind, at)
        text_key = _ARGUMENTS_DELTAS[kind]
        if item.call is None or _CALL_TEXT[item.item["type"]] != text_key:
            what = "function call" if text_key == "arguments" else "custom tool call"
            raise self._fail(number, event, kind, f"output item {at} is not a {what}")
        if item.arguments is None:
            before = item.item.get(text_key, "")
            if not isinstance(before, str):
                said = "arguments that are" if text_key == "arguments" else "an input that is"
                raise self._fail(number, event, kind, f"output item {at} has {said} not text")
            item.arguments = [before]
        if not isinstance(piece, str):
            raise self._fail(number, event, kind, f"the delta is not text: {short(piece)}")
        item.arguments.append(piece)
        item.streamed = True
        return [ToolCallDelta(index=item.call, arguments=piece)] if piece else []

    def _part(self, number: int, event: object, kind: str, data: dict[str, Any]) -> None:
        key, index_key = _PART_ADDED[kind]
        item = self._open(number, event, kind, data.get("output_index"))
        parts = item.item.get(key)
        if parts is None:
            parts = item.item[key] = []
        elif not isinstance(parts, list):
            at = data.get("output_index")
            raise self._fail(
                number, event, kind, f"output item {at} has a {key!r} that is not a list"
            )
        position = data.get(index_key)
        if type(position) is not int or position != len(parts):
            raise self._fail(
                number, event, kind, f"{index_key} {short(position, 40)} is not the next part"
            )
        parts.append(dict(field(data, "part", dict, f"event {number}")))

    def _new(
        self, number: int, event: object, kind: str, at: object, item: dict[str, Any]
    ) -> _Item:
        """A new output item at index ``at``, its call numbered if it is a function or custom
        call."""
        if type(at) is not int or at in self._items:
            raise self._fail(
                number, event, kind, f"output index {short(at, 40)} is not a new integer index"
            )
        call: int | None = None
        kind_of = item.get("type")
        if isinstance(kind_of, str) and kind_of in _CALL_TEXT:
            if not isinstance(item.get("call_id"), str) or not isinstance(item.get("name"), str):
                what = "function" if item["type"] == "function_call" else "custom tool"
                raise self._fail(
                    number,
                    event,
                    kind,
                    f"output item {at}: a {what} call without call_id and name",
                )
            call = self._calls
            self._calls += 1
        built_item = self._items[at] = _Item(item, call)
        return built_item

    def _added(self, number: int, event: object, kind: str, data: dict[str, Any]) -> list[Delta]:
        raw = data.get("item")
        if raw is None and "item" in data:
            return []  # an empty placeholder, as the SDK allows: the index stays unused
        raw = field(data, "item", dict, f"event {number}")
        item = self._new(number, event, kind, data.get("output_index"), _copy(raw))
        if item.call is None:
            return []
        start: list[Delta] = [ToolCallStart(index=item.call, id=raw["call_id"], name=raw["name"])]
        arguments = raw.get(_CALL_TEXT[raw["type"]])
        if isinstance(arguments, str) and arguments:
            start.append(ToolCallDelta(index=item.call, arguments=arguments))
            item.streamed = True
        return start

    def _done(self, number: int, event: object, kind: str, data: dict[str, Any]) -> list[Delta]:
        at = data.get("output_index")
        final = field(data, "item", dict, f"event {number}")
        if type(at) is int and at not in self._items:
            # Done without being added: the item arrives whole.
            item = self._new(number, event, kind, at, final)
            item.done = True
            deltas = _whole_deltas(final, item.call)
            if item.call is not None:
                start = ToolCallStart(index=item.call, id=final["call_id"], name=final["name"])
                deltas.insert(0, start)
            self._check_arguments(number, event, kind, final)
            return deltas
        item = self._open(number, event, kind, at)
        self._check_done(number, event, kind, item, final)
        item.item = final
        item.done = True
        return [] if item.streamed else _whole_deltas(final, item.call)

    def _check_done(
        self, number: int, event: object, kind: str, item: _Item, final: dict[str, Any]
    ) -> None:
        if final.get("type") != item.item.get("type"):
            raise self._fail(
                number, event, kind, "the done item is of another type than the added one"
            )
        if item.call is not None:
            streamed = "".join(item.arguments or ())
            text_key = _CALL_TEXT[final["type"]]
            if streamed and streamed != final.get(text_key):
                said = "arguments differ" if text_key == "arguments" else "input differs"
                raise self._fail(
                    number, event, kind, f"the done item's {said} from the streamed deltas"
                )
            self._check_arguments(number, event, kind, final)
        elif final.get("type") == "message":
            streamed_text = "".join(_output_text(item.snapshot()))
            if streamed_text and streamed_text != "".join(_output_text(final)):
                raise self._fail(
                    number, event, kind, "the done item's text differs from the streamed deltas"
                )

    def _check_arguments(
        self, number: int, event: object, kind: str, final: dict[str, Any]
    ) -> None:
        """A done function call's arguments are whole JSON, unless the call is incomplete."""
        if final.get("type") != "function_call" or final.get("status") == "incomplete":
            return
        arguments = final.get("arguments")
        try:
            parse_arguments(arguments if isinstance(arguments, str) else "")
        except ValueError as err:
            raise self._fail(
                number, event, kind, f"the function call's arguments never complete: {err}"
            ) from None

    def _started(self, response: object) -> None:
        """Note the id and model a starting event gives, in case the end omits them."""
        for key in ("id", "model"):
            value = (
                response.get(key) if isinstance(response, dict) else getattr(response, key, None)
            )
            if isinstance(value, str):
                self._facts[key] = value

    def _end_with(self, number: int, event: object, kind: str, data: dict[str, Any]) -> None:
        response = data.get("response")
        if not isinstance(response, dict):
            response = {}
        _check_not_failed(response)
        status = response.get("status")
        if not isinstance(status, str):
            status = "completed" if kind == "response.completed" else "incomplete"
        output = response.get("output")
        if isinstance(output, list) and (output or not self._items):
            self._final = output
        elif status == "completed":
            missing = sorted(at for at, item in self._items.items() if not item.done)
            if missing:
                raise self._fail(number, event, kind, f"output item {missing[0]} was never done")
        self._response = response
        self._status = status
        self._finished = True

    def _messages(self, final: bool) -> list[Message]:
        if final and self._final is not None:
            return _read(self._final, "output", cut=self._status != "completed")
        order = sorted(self._items)
        items = [self._items[at].snapshot() for at in order]
        unfinished = frozenset(
            number for number, at in enumerate(order) if not self._items[at].done
        )
        cut = not final or self._status != "completed"
        return _read(items, "output", cut, unfinished, leave_unfinished=not final)

    def _reply(self, messages: list[Message]) -> Reply:
        response = dict(self._response)
        for key, value in self._facts.items():
            if not isinstance(response.get(key), str):
                response[key] = value
        audio = {key: "".join(pieces) for key, pieces in self._audio.items()}
        return _reply(messages, response, self._status, audio)
