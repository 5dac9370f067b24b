"""A Messages API stream to messages: the ``Accumulator`` and its reads of SDK events."""

from __future__ import annotations

from typing import Any, Final

import msgspec

from ..._messages import Message
from .._block_stream import BlockStream, blocks_read
from .._block_text import GAP
from .._errors import StreamError, short
from .._json import arguments_json, parse_arguments, plain
from .._objects import PLAIN, dumps_as_declared, fields, flat, given
from .._partial_json import read_partial_object
from .._reply import Delta, Reply, TextDelta, ThinkingDelta, ToolCallDelta, ToolCallStart
from ._reply import DETAIL_KEYS, _read, _reply, reply_details
from ._wire import _CUT

# Events whose helper form carries the whole block or message snapshot:
# read as an SDK object, only their type and index are taken.
_BARE_EVENTS: Final = frozenset({"message_stop", "content_block_stop", "ping"})
# The events and deltas of the Messages stream this version reads. Any other
# type is skipped, not refused: the SDK's ``messages.stream()`` helper adds
# events of its own (``text``, ``input_json``, ``citation``...) that repeat
# what the raw deltas say, and Anthropic may add event and delta types, which
# it asks clients to let pass (as the SDK does).
_EVENTS: Final = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
        "error",
    }
)
_DELTAS: Final = frozenset(
    {
        "text_delta",
        "input_json_delta",
        "thinking_delta",
        "signature_delta",
        "citations_delta",
        "compaction_delta",
    }
)
_NOT_TOOLS: Final = frozenset({"text", "thinking", "redacted_thinking"})
# The deltas that come by the thousand, and the key of their piece of text:
# read from the SDK's object without its dump where that gives the same (see
# _objects).
_PIECES: Final = {
    "text_delta": "text",
    "input_json_delta": "partial_json",
    "thinking_delta": "thinking",
}
_DELTA_EVENT: Final = frozenset({"type", "index", "delta"})
_PIECE_FIELDS: Final = {kind: (key, frozenset({"type", key})) for kind, key in _PIECES.items()}


# What a message_start or message_delta is read for, from an SDK object's fields.
_START_EVENT: Final = frozenset({"type", "message"})
_BLOCK_START_EVENT: Final = frozenset({"type", "index", "content_block"})
_START_MESSAGE: Final = frozenset({"id", "model", "usage", "content"})
_DELTA_MESSAGE_EVENT: Final = frozenset({"type", "delta", "usage"})
_STOP_REASON: Final = frozenset({"stop_reason"})
_DETAILS: Final = frozenset(DETAIL_KEYS)
_TEXT_OR_NONE: Final = frozenset({str, type(None)})


def _says_more(holder: object) -> bool:
    """Whether an SDK object was given a detail of :data:`DETAIL_KEYS` (or can't tell): its dump
    is then read, which keeps them."""
    found = given(holder, _DETAILS)
    return found is None or any(value is not None for value in found.values())


def _object_usage(holder: object, read: dict[str, Any]) -> tuple[bool, dict[str, Any] | None]:
    """Whether the ``usage`` among the fields ``read`` of an SDK object can be read; its dump.

    The dump is ``None`` where the holder's has none (or ``null``). Not
    readable where only the holder's own dump can tell what it holds there.
    """
    usage = read.get("usage")
    if usage is None:
        return True, None
    if fields(usage) is None or not dumps_as_declared(holder, "usage", usage):
        return False, None
    dump = flat(usage)
    return True, plain(usage, "the usage") if dump is None else dump


class _Block:
    """A content block as it streams: the start as sent, and the pieces since.

    ``pieces`` are the text of a text block, the thinking of a thinking
    block, or the input JSON of a tool-like block (one whose start has an
    ``input``); ``signature`` the signature pieces; ``citations`` those
    added by deltas; ``extra`` the fields a ``compaction_delta`` set.
    ``call`` is a client call's position among the reply's calls (-1 for
    any other block); ``input`` the input parsed when the block stopped
    (``None``: the start's, no JSON came).
    """

    __slots__ = (
        "call",
        "citations",
        "extra",
        "input",
        "kind",
        "pieces",
        "signature",
        "start",
        "started",
        "stopped",
        "tool_like",
    )

    def __init__(self, start: dict[str, Any], started: int) -> None:
        self.start = start
        self.kind = start.get("type")
        self.tool_like = self.kind not in _NOT_TOOLS and "input" in start
        self.pieces: list[str] = []
        self.signature: list[str] = []
        self.citations: list[Any] | None = None
        self.extra: dict[str, Any] | None = None
        self.input: Any = None
        self.call = -1
        self.started = started
        self.stopped = False

    def whole(self, at: int, final: bool) -> dict[str, Any]:
        """The block as a whole response would hold it, so far.

        The input of a tool-like block that never stopped is read from its
        JSON text so far, as the SDK reads it; where that text cannot be
        read, ``final`` raises and a partial view keeps the start's input.
        """
        block = dict(self.start)
        if self.pieces:
            if self.kind == "text":
                block["text"] = block.get("text", "") + "".join(self.pieces)
            elif self.kind == "thinking":
                block["thinking"] = block.get("thinking", "") + "".join(self.pieces)
        if self.signature:
            block["signature"] = block.get("signature", "") + "".join(self.signature)
        if self.citations:
            before = block.get("citations")
            block["citations"] = [*(before if isinstance(before, list) else ()), *self.citations]
        if self.extra:
            block.update(self.extra)
        if self.tool_like:
            if self.input is not None:
                block["input"] = self.input
            elif not self.stopped:
                text = "".join(self.pieces)
                if text.strip():
                    try:
                        block["input"] = read_partial_object(text)
                    except ValueError as err:
                        if final:
                            raise StreamError(
                                f"content block {at} (started in event {self.started}): its "
                                f"input was cut off where it cannot be read: {err}",
                                self.started,
                                None,
                            ) from None
        return block


class Accumulator(BlockStream):
    """Builds the messages of a streamed Messages API response.

    ``feed`` every raw event (a dict or the SDK's event object), or every
    event of the SDK's ``messages.stream()`` helper (whose own ``text``,
    ``input_json`` and like events are skipped: the raw events they repeat
    come too). Event and delta types this version does not know are
    skipped as well, as Anthropic asks of clients. ``result()`` then equals
    ``from_response`` of the final message, and ``reply()`` adds the stop
    reason and usage from ``message_delta``. ``feed`` returns the event's
    deltas: text and thinking as they arrive (with the blank line that
    separates texts other blocks come between), and for each client
    ``tool_use`` a start and the pieces of its input JSON. A stream cut at
    the token limit may end with a block that never stopped; it is read as
    the SDK reads it.
    """

    _noun = "event"
    _end = "message_stop"

    def __init__(self) -> None:
        super().__init__()
        self._blocks: dict[int, _Block] = {}
        self._usage: dict[str, Any] | None = None
        self._id: object = None
        self._details: dict[str, Any] = {}  # what the message says of itself (DETAIL_KEYS)

    def _take(self, number: int, event: object) -> list[Delta]:
        made = type(event)
        if made is dict:
            data: dict[str, Any] = event  # type: ignore[assignment]
            kind = data.get("type")
        else:
            # An SDK object: a piece of text, thinking or input JSON is read
            # from its fields where that gives what its dump gives (see
            # _objects); any other event, from the dump, which also says
            # what is wrong with it.
            outer = event.__dict__ if made in PLAIN else fields(event)
            if outer is not None:
                told = outer.get("type")
                if told == "content_block_delta":
                    grown = self._object_delta(number, event, outer)
                    if grown is not None:
                        return grown
                elif told == "content_block_start":
                    started = self._object_block(number, event)
                    if started is not None:
                        return started
                elif (told == "message_start" or told == "message_delta") and (
                    self._object_message(event, told)
                ):
                    return []
            kind = getattr(event, "type", None)
            if (
                isinstance(kind, str)
                and (kind in _BARE_EVENTS or kind not in _EVENTS)
                # A type the object was never given is not in its dump either.
                and "type" in getattr(event, "__pydantic_fields_set__", ("type",))
            ):
                at = outer.get("index") if outer is not None else getattr(event, "index", None)
                data = {"type": kind, "index": at}
            else:
                data = plain(event, "an event")
                kind = data.get("type")
        if type(kind) is not str:
            raise self._fail(number, event, kind, "has no type")
        if self._finished:
            raise self._fail(number, event, kind, "the stream already ended with message_stop")
        if kind == "content_block_delta" and self._started:
            return self._delta(number, event, data)
        if kind == "ping" or kind not in _EVENTS:
            return []  # the helper's own events, and types newer than this version
        if kind == "message_start":
            return self._message_start(number, event, data)
        if kind == "error":
            raise self._fail(
                number,
                event,
                kind,
                f"the provider reported an error: {short(data.get('error'), 200)}",
            )
        if not self._started:
            raise self._fail(number, event, kind, "came before message_start")
        if kind == "message_delta":
            self._message_delta(number, event, data)
            return []
        if kind == "message_stop":
            self._message_stop(number, event)
            return []
        at = data.get("index")
        if type(at) is not int:
            raise self._fail(number, event, kind, "has no integer index")
        if kind == "content_block_start":
            if at in self._blocks:
                raise self._fail(number, event, kind, f"content block {at} was already started")
            block = data.get("content_block")
            if not isinstance(block, dict):
                raise self._fail(number, event, kind, "has no content_block")
            return self._start(number, event, at, block)
        known = self._blocks.get(at)
        if known is None:
            raise self._fail(
                number, event, kind, f"names content block {at}, which was never started"
            )
        if known.stopped:
            raise self._fail(number, event, kind, f"content block {at} was already stopped")
        if kind == "content_block_stop":
            return self._stop(number, event, at, known)
        raise self._fail(number, event, kind, "is not an event of the Messages stream")

    def _message_start(self, number: int, event: object, data: dict[str, Any]) -> list[Delta]:
        kind = "message_start"
        if self._started:
            raise self._fail(number, event, kind, "a second message_start")
        self._started = True
        message = data.get("message")
        if not isinstance(message, dict):
            return []
        self._id = message.get("id")
        self._model = message.get("model")
        self._details.update(reply_details(message))
        usage = message.get("usage")
        if isinstance(usage, dict):
            self._usage = dict(usage)
        blocks = message.get("content")
        if blocks is not None and not isinstance(blocks, list):
            raise self._fail(number, event, kind, "the message's content is not a list")
        deltas: list[Delta] = []
        for position, block in enumerate(blocks or ()):
            if not isinstance(block, dict):
                raise self._fail(
                    number, event, kind, f"the message's content block {position} is not an object"
                )
            # A block the message starts with is whole: started and stopped.
            deltas += self._start(number, event, position, block)
            deltas += self._stop(number, event, position, self._blocks[position])
        return deltas

    def _message_delta(self, number: int, event: object, data: dict[str, Any]) -> None:
        kind = "message_delta"
        delta = data.get("delta")
        if delta is not None:
            if not isinstance(delta, dict):
                raise self._fail(number, event, kind, f"the delta is not an object: {short(delta)}")
            reason = delta.get("stop_reason")
            if reason is not None:
                if not isinstance(reason, str):
                    raise self._fail(
                        number, event, kind, f"the stop_reason is not text: {short(reason)}"
                    )
                self._reason = reason
            self._details.update(reply_details(delta))
        usage = data.get("usage")
        if usage is not None:
            if not isinstance(usage, dict):
                raise self._fail(number, event, kind, f"the usage is not an object: {short(usage)}")
            # Cumulative counts: a later value replaces an earlier one.
            merged = self._usage if self._usage is not None else {}
            merged.update((key, value) for key, value in usage.items() if value is not None)
            self._usage = merged

    def _message_stop(self, number: int, event: object) -> None:
        open_blocks = sorted(at for at, block in self._blocks.items() if not block.stopped)
        # Cut at the token limit, a stream may end inside its last block.
        if open_blocks and not (self._reason in _CUT and open_blocks == [max(self._blocks)]):
            raise self._fail(
                number, event, "message_stop", f"content block {open_blocks[0]} was never stopped"
            )
        self._finished = True

    def _start(self, number: int, event: object, at: int, block: dict[str, Any]) -> list[Delta]:
        kind = block.get("type")
        if kind == "tool_use" and not (
            isinstance(block.get("id"), str) and isinstance(block.get("name"), str)
        ):
            # Refused before it is kept, so that partial() can go on without it.
            raise self._fail(
                number, event, "content_block_start", "a tool_use block without an id and a name"
            )
        known = self._blocks[at] = _Block(block, number)
        if kind == "text":
            text = block.get("text")
            return [self._text(text)] if isinstance(text, str) and text else []
        if self._said:
            self._gap = True
        if kind == "thinking":
            thought = block.get("thinking")
            return [ThinkingDelta(text=thought)] if isinstance(thought, str) and thought else []
        if kind == "tool_use":
            known.call = self._calls
            self._calls += 1
            return [ToolCallStart(index=known.call, id=block["id"], name=block["name"])]
        if kind == "fallback":
            # The model that serves the rest of the reply is the one the
            # whole response names.
            target = block.get("to")
            if isinstance(target, dict) and isinstance(target.get("model"), str):
                self._model = target["model"]
        return []

    def _stop(self, number: int, event: object, at: int, block: _Block) -> list[Delta]:
        if not block.tool_like:
            block.stopped = True
            return []
        text = "".join(block.pieces)
        if text.strip():
            try:
                block.input = parse_arguments(text)
            except ValueError as err:
                # Left open: partial() shows no call whose input does not parse.
                raise self._fail(
                    number,
                    event,
                    "content_block_stop",
                    f"the tool input of block {at} does not parse: {err}",
                ) from None
            block.stopped = True
            return []
        block.stopped = True
        given = block.start.get("input")
        if block.call < 0 or not isinstance(given, dict) or not given:
            return []
        # A call whose input came whole, in its start: one piece with all of it.
        try:
            whole = arguments_json(given)
        except (msgspec.EncodeError, ValueError, TypeError, RecursionError):
            return []  # result() names what is wrong with it
        return [ToolCallDelta(index=block.call, arguments=whole)]

    def _delta(self, number: int, event: object, data: dict[str, Any]) -> list[Delta]:
        kind = "content_block_delta"
        at = data.get("index")
        if type(at) is not int:
            raise self._fail(number, event, kind, "has no integer index")
        block = self._blocks.get(at)
        if block is None:
            raise self._fail(
                number, event, kind, f"names content block {at}, which was never started"
            )
        if block.stopped:
            raise self._fail(number, event, kind, f"content block {at} was already stopped")
        delta = data.get("delta")
        if not isinstance(delta, dict):
            raise self._fail(number, event, kind, "has no delta")
        delta_type = delta.get("type")
        if delta_type not in _DELTAS:
            return []  # a delta type newer than this version: skipped, as the SDK does
        key = _PIECES.get(delta_type)
        if key is not None:
            grown = self._grow(number, event, at, block, delta_type, delta.get(key))
            if grown is not None:
                return grown
        if delta_type == "signature_delta" and block.kind == "thinking":
            signature = delta.get("signature")
            if not isinstance(signature, str):
                raise self._fail(number, event, kind, "the delta has no 'signature' text")
            if not block.signature:
                self._check_text(number, event, at, block, "signature")
            block.signature.append(signature)
            return []
        if delta_type == "citations_delta" and block.kind == "text":
            if "citation" not in delta:
                raise self._fail(number, event, kind, "the delta has no 'citation'")
            if block.citations is None:
                block.citations = []
            block.citations.append(delta["citation"])
            return []
        if delta_type == "compaction_delta" and block.kind == "compaction":
            # It sets the block's fields, as the SDK reads it.
            if block.extra is None:
                block.extra = {}
            block.extra.update((key, value) for key, value in delta.items() if key != "type")
            return []
        raise self._fail(
            number,
            event,
            kind,
            f"a {short(delta_type, 40)} delta cannot apply to a {short(block.kind, 40)} block",
        )

    def _object_block(self, number: int, event: object) -> list[Delta] | None:
        """A ``content_block_start`` taken from the SDK object's fields, as from its dump.

        For a block of plain values only (see ``_objects.flat``): text,
        thinking, a tool's use before its input. ``None`` for anything else,
        which is read from the event's dump.
        """
        outer = given(event, _BLOCK_START_EVENT)
        if outer is None or len(outer) != len(_BLOCK_START_EVENT):
            return None
        at, block = outer["index"], outer["content_block"]
        if (
            self._finished
            or not self._started
            or type(at) is not int
            or at in self._blocks
            or not dumps_as_declared(event, "content_block", block)
        ):
            return None
        start = flat(block)
        return None if start is None else self._start(number, event, at, start)

    def _object_message(self, event: object, kind: str) -> bool:
        """A ``message_start`` or ``message_delta`` taken from the SDK object's fields.

        Only what ``_message_start`` and ``_message_delta`` read of the dict:
        the message's id, model and usage when it starts with no content, the
        stop reason and the usage of a delta. A usage is kept as its own
        dump. False, with nothing taken, where the fields might not read as
        the event's dump does: the event is then read from that dump.
        """
        if self._finished:
            return False
        if kind == "message_start":
            outer = given(event, _START_EVENT)
            if outer is None or "type" not in outer or self._started:
                return False
            message = outer.get("message")
            inner = None if message is None else given(message, _START_MESSAGE)
            if inner is None or _says_more(message):
                return False
            content = inner.get("content", [])
            reply_id, model = inner.get("id"), inner.get("model")
            if (
                type(content) is not list
                or content
                or type(reply_id) not in _TEXT_OR_NONE
                or type(model) not in _TEXT_OR_NONE
            ):
                return False
            readable, usage = _object_usage(message, inner)
            if not readable:
                return False
            self._started = True
            self._id, self._model = reply_id, model
            if usage is not None:
                self._usage = usage
            return True
        outer = given(event, _DELTA_MESSAGE_EVENT)
        if outer is None or "type" not in outer or not self._started:
            return False
        delta = outer.get("delta")
        reason = None
        if delta is not None:
            inner = given(delta, _STOP_REASON)
            if inner is None or _says_more(delta):
                return False
            reason = inner.get("stop_reason")
            if type(reason) not in _TEXT_OR_NONE:
                return False
        readable, usage = _object_usage(event, outer)
        if not readable:
            return False
        if reason is not None:
            self._reason = reason
        if usage is not None:
            merged = self._usage if self._usage is not None else {}
            merged.update((key, value) for key, value in usage.items() if value is not None)
            self._usage = merged
        return True

    def _object_delta(
        self, number: int, event: object, outer: dict[str, Any]
    ) -> list[Delta] | None:
        """A ``content_block_delta`` read from the fields of the SDK's object.

        ``outer`` is the event's fields. A piece of text, thinking or input
        JSON is taken as ``_delta`` takes it from the event's dump; ``None``
        for any other delta, or where the fields might not read as the dump
        does: the event is then read from its dump, which also says what is
        wrong with it.
        """
        try:
            at = outer["index"]
            delta = outer["delta"]
            inner: Any = delta.__dict__ if type(delta) in PLAIN else fields(delta)
            kind = inner["type"]
            key, named = _PIECE_FIELDS[kind]
            piece = inner[key]
            block = self._blocks[at] if type(at) is int else None
        except (KeyError, TypeError):  # not there, or not what a dump can hold
            return None
        if (
            type(piece) is not str
            or block is None
            or block.stopped
            or self._finished
            or not _DELTA_EVENT <= event.__pydantic_fields_set__  # type: ignore[attr-defined]
            or not named <= delta.__pydantic_fields_set__
        ):
            return None
        # An extra field of a name read is what the dump holds there.
        outside = event.__pydantic_extra__  # type: ignore[attr-defined]
        inside = delta.__pydantic_extra__
        if (outside and not _DELTA_EVENT.isdisjoint(outside)) or (
            inside and not named.isdisjoint(inside)
        ):
            return None
        return self._grow(number, event, at, block, kind, piece)

    def _grow(
        self, number: int, event: object, at: int, block: _Block, delta_type: str, piece: object
    ) -> list[Delta] | None:
        """Add a piece of text, thinking or input JSON to its block; its deltas.

        ``None`` when the delta's type does not fit the block.
        """
        if delta_type == "text_delta":
            if block.kind != "text":
                return None
            if not isinstance(piece, str):
                raise self._fail(
                    number, event, "content_block_delta", "the delta has no 'text' text"
                )
            if not block.pieces:
                self._check_text(number, event, at, block, "text")
            block.pieces.append(piece)
            if not piece:
                return []
            if self._gap:  # as _text does: the blank line after other blocks
                self._gap = False
                piece = GAP + piece
            self._said = True
            return [TextDelta(piece)]
        if delta_type == "input_json_delta":
            if not block.tool_like:
                return None
            if not isinstance(piece, str):
                raise self._fail(
                    number, event, "content_block_delta", "the delta has no 'partial_json' text"
                )
            block.pieces.append(piece)
            return [ToolCallDelta(block.call, piece)] if piece and block.call >= 0 else []
        if block.kind != "thinking":
            return None
        if not isinstance(piece, str):
            raise self._fail(
                number, event, "content_block_delta", "the delta has no 'thinking' text"
            )
        if not block.pieces:
            self._check_text(number, event, at, block, "thinking")
        block.pieces.append(piece)
        return [ThinkingDelta(piece)] if piece else []

    def _check_text(self, number: int, event: object, at: int, block: _Block, key: str) -> None:
        """The block's own ``key``, which deltas add to, must be text if present."""
        before = block.start.get(key, "")
        if not isinstance(before, str):
            raise self._fail(
                number,
                event,
                "content_block_delta",
                f"content block {at} has a {key!r} that is not text: {short(before)}",
            )

    def _messages(self, final: bool) -> list[Message]:
        blocks, incomplete = blocks_read(self._blocks, self._reason, _CUT, final)
        return _read(blocks, incomplete, "stream")

    def _reply(self, messages: list[Message]) -> Reply:
        return _reply(
            messages, self._reason, self._usage, self._model, self._id, dict(self._details)
        )
