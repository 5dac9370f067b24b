"""A ConverseStream stream to messages: the ``Accumulator``."""

from __future__ import annotations

import base64
from typing import Any, Final

from ..._messages import Message
from .._block_stream import BlockStream, blocks_read
from .._errors import StreamError, label, short
from .._json import jsonable, parse_arguments, plain
from .._partial_json import read_partial_object
from .._reply import Delta, Reply, ThinkingDelta, ToolCallDelta, ToolCallStart
from ._reply import _read, _reply, _routed
from ._request import _b64
from ._wire import _CUT, _SERVER_CALL, _member

_EVENTS: Final = frozenset(
    {
        "messageStart",
        "contentBlockStart",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
    }
)


def _raw(data: object) -> bytes:
    """A blob from an event: boto3's bytes, or the REST JSON's base64 text."""
    if isinstance(data, (bytes, bytearray)):
        return bytes(data)
    if isinstance(data, str):
        return _b64(data)
    raise ValueError(f"expected bytes, got {short(data)}")


class _Block:
    """A content block as it streams: its kind, its start, and what came since.

    Converse starts only tool uses, tool results and images with a
    ``contentBlockStart``; text and reasoning begin with their first delta.
    ``pieces`` are the text, the reasoning text or the input JSON;
    ``signature`` and ``redacted`` the reasoning's signature and redacted
    bytes; ``citations`` a text's citations (``None`` until one comes);
    ``results`` a tool result's content; ``media`` an image's source or
    error. ``call`` is a client call's position among the reply's calls
    (-1 for any other block), ``input`` the input parsed when it stopped.
    """

    __slots__ = (
        "call",
        "citations",
        "input",
        "kind",
        "media",
        "pieces",
        "redacted",
        "results",
        "signature",
        "start",
        "started",
        "stopped",
    )

    def __init__(self, kind: str, start: dict[str, Any], started: int) -> None:
        self.kind = kind
        self.start = start
        self.started = started
        self.pieces: list[str] = []
        self.signature: list[str] = []
        self.redacted: list[bytes] = []
        self.citations: list[Any] | None = None
        self.results: list[Any] = []
        self.media: dict[str, Any] = {}
        self.input: Any = None
        self.call = -1
        self.stopped = False

    def whole(self, at: int, final: bool) -> dict[str, Any]:
        """The block as a whole response would hold it, so far (base64 as text)."""
        kind = self.kind
        if kind == "text":
            text = "".join(self.pieces)
            if self.citations is None:
                return {"text": text}
            cited = {"content": [{"text": text}], "citations": list(self.citations)}
            return {"citationsContent": cited}
        if kind == "reasoning":
            if self.redacted:
                data = base64.b64encode(b"".join(self.redacted)).decode("ascii")
                return {"reasoningContent": {"redactedContent": data}}
            reasoning = {"text": "".join(self.pieces)}
            if self.signature:
                reasoning["signature"] = "".join(self.signature)
            return {"reasoningContent": {"reasoningText": reasoning}}
        if kind == "toolUse":
            use = {
                "toolUseId": self.start["toolUseId"],
                "name": self.start["name"],
                "input": self._input(at, final),
            }
            use.update((k, v) for k, v in self.start.items() if k not in use)
            return {"toolUse": use}
        if kind == "toolResult":
            return {"toolResult": {**self.start, "content": list(self.results)}}
        return {kind: {**self.start, **self.media}}

    def _input(self, at: int, final: bool) -> Any:
        if self.input is not None:
            return self.input
        text = "".join(self.pieces)
        if not text.strip():
            return {}
        # Never stopped: cut off, read as far as it came, as the SDKs read it.
        try:
            return read_partial_object(text)
        except ValueError as err:
            if final:
                raise StreamError(
                    f"content block {at} (started in event {self.started}): its input was "
                    f"cut off where it cannot be read: {err}",
                    self.started,
                    None,
                ) from None
            return {}


class Accumulator(BlockStream):
    """Builds the messages of a ConverseStream reply.

    ``feed`` every event of ``converse_stream(...)["stream"]``: a dict keyed
    by the event's name (``{"contentBlockDelta": {...}}``), with bytes as
    boto3 gives them or base64 text. ``result()`` then equals
    ``from_response`` of the same reply unstreamed, and ``reply()`` adds the
    stop reason (``messageStop``) and the usage (``metadata``, after it).
    ``feed`` returns the event's deltas: text and reasoning as they arrive
    (with the blank line that separates texts other blocks come between),
    and for each client ``toolUse`` a start and the pieces of its input
    JSON. An exception event (``throttlingException``,
    ``modelStreamErrorException``...) raises a ``StreamError`` saying the
    provider reported an error, in its words; event types newer than this
    version are skipped.
    """

    _noun = "event"
    _end = "messageStop"

    def __init__(self) -> None:
        super().__init__()
        self._blocks: dict[int, _Block] = {}
        self._usage: object = None

    def _take(self, number: int, event: object) -> list[Delta]:
        data: dict[str, Any] = event if type(event) is dict else plain(event, "an event")
        if len(data) != 1:
            raise StreamError(
                f"event {number}: expected one event keyed by its name, as boto3 yields "
                f"them, got {short(data)}",
                number,
                event,
            )
        kind, body = next(iter(data.items()))
        if kind == "contentBlockDelta" and self._started and not self._finished:
            return self._delta(number, event, body)
        if kind not in _EVENTS:
            if kind == "Error" or (isinstance(kind, str) and kind.endswith("Exception")):
                # An exception event, as sent or as botocore reads it.
                raise self._fail(
                    number, event, kind, f"the provider reported an error: {short(body, 200)}"
                )
            return []  # an event type newer than this version
        if not isinstance(body, dict):
            raise self._fail(number, event, kind, f"is not an object: {short(body)}")
        if kind == "messageStart":
            if self._started:
                raise self._fail(number, event, kind, "a second messageStart")
            self._started = True
            return []
        if not self._started:
            raise self._fail(number, event, kind, "came before messageStart")
        if kind == "metadata":
            self._metadata(number, event, body)
            return []
        if self._finished:
            raise self._fail(number, event, kind, "the stream already ended with messageStop")
        if kind == "messageStop":
            self._stop_message(number, event, body)
            return []
        at = body.get("contentBlockIndex")
        if type(at) is not int or at < 0:
            raise self._fail(number, event, kind, "has no contentBlockIndex")
        if kind == "contentBlockStart":
            return self._start(number, event, at, body)
        return self._stop(number, event, at)  # contentBlockStop

    def _metadata(self, number: int, event: object, body: dict[str, Any]) -> None:
        usage = body.get("usage")
        if usage is not None:
            if not isinstance(usage, dict):
                raise self._fail(number, event, "metadata", "the usage is not an object")
            self._usage = usage
        model = _routed(body.get("trace"))
        if model is not None:
            self._model = model

    def _stop_message(self, number: int, event: object, body: dict[str, Any]) -> None:
        reason = body.get("stopReason")
        if not isinstance(reason, str):
            raise self._fail(number, event, "messageStop", f"has no stopReason: {short(reason)}")
        self._reason = reason
        open_blocks = sorted(at for at, block in self._blocks.items() if not block.stopped)
        # Cut at the token limit, a stream may end inside its last block.
        if open_blocks and not (reason in _CUT and open_blocks == [max(self._blocks)]):
            raise self._fail(
                number, event, "messageStop", f"content block {open_blocks[0]} was never stopped"
            )
        self._finished = True

    def _new(self, number: int, at: int, kind: str, start: dict[str, Any]) -> _Block:
        block = self._blocks[at] = _Block(kind, start, number)
        if kind != "text" and self._said:
            self._gap = True
        return block

    def _start(self, number: int, event: object, at: int, body: dict[str, Any]) -> list[Delta]:
        kind = "contentBlockStart"
        if at in self._blocks:
            raise self._fail(number, event, kind, f"content block {at} was already started")
        start = body.get("start")
        if not isinstance(start, dict) or len(start) != 1:
            raise self._fail(number, event, kind, "has no start holding one member")
        member, value = next(iter(start.items()))
        if not isinstance(value, dict):
            raise self._fail(number, event, kind, f"its {label(member)} is not an object")
        if member == "toolUse":
            call_id, name = value.get("toolUseId"), value.get("name")
            if not (isinstance(call_id, str) and isinstance(name, str)):
                # Refused before it is kept, so that partial() can go on without it.
                raise self._fail(number, event, kind, "a toolUse without a toolUseId and a name")
            block = self._new(number, at, "toolUse", dict(value))
            if value.get("type") == _SERVER_CALL:
                return []
            block.call = self._calls
            self._calls += 1
            return [ToolCallStart(block.call, call_id, name)]
        self._new(number, at, label(member), jsonable(value))
        return []

    def _stop(self, number: int, event: object, at: int) -> list[Delta]:
        kind = "contentBlockStop"
        block = self._blocks.get(at)
        if block is None:
            raise self._fail(number, event, kind, f"names content block {at}, which never began")
        if block.stopped:
            raise self._fail(number, event, kind, f"content block {at} was already stopped")
        if block.kind == "toolUse":
            try:
                block.input = parse_arguments("".join(block.pieces))
            except ValueError as err:
                # Left open: partial() shows no call whose input does not parse.
                raise self._fail(
                    number, event, kind, f"the tool input of block {at} does not parse: {err}"
                ) from None
        block.stopped = True
        return []

    def _delta(self, number: int, event: object, body: object) -> list[Delta]:
        kind = "contentBlockDelta"
        if not isinstance(body, dict):
            raise self._fail(number, event, kind, f"is not an object: {short(body)}")
        at = body.get("contentBlockIndex")
        if type(at) is not int or at < 0:
            raise self._fail(number, event, kind, "has no contentBlockIndex")
        delta = body.get("delta")
        if not isinstance(delta, dict) or len(delta) != 1:
            raise self._fail(number, event, kind, "has no delta holding one member")
        member, value = next(iter(delta.items()))
        block = self._blocks.get(at)
        if block is not None and block.stopped:
            raise self._fail(number, event, kind, f"content block {at} was already stopped")
        if member == "text":
            if not isinstance(value, str):
                raise self._fail(number, event, kind, f"the text is not text: {short(value)}")
            block = self._own(number, event, at, block, "text")
            block.pieces.append(value)
            return [self._text(value)] if value else []
        if member == "reasoningContent":
            return self._reasoning(number, event, at, block, value)
        if member == "citation":
            if not isinstance(value, dict):
                raise self._fail(number, event, kind, "the citation is not an object")
            block = self._own(number, event, at, block, "text")
            if block.citations is None:
                block.citations = []
            block.citations.append(jsonable(value))
            return []
        if member not in ("toolUse", "toolResult", "image"):
            return []  # a delta type newer than this version
        if block is None:
            raise self._fail(number, event, kind, f"names content block {at}, which never began")
        if block.kind != member:
            raise self._fail(
                number,
                event,
                kind,
                f"a {label(member)} delta cannot apply to a {label(block.kind)} block",
            )
        if member == "toolUse":
            piece = value.get("input") if isinstance(value, dict) else None
            if not isinstance(piece, str):
                raise self._fail(number, event, kind, "the toolUse delta has no input text")
            block.pieces.append(piece)
            if piece and block.call >= 0:
                return [ToolCallDelta(block.call, piece)]
            return []
        if member == "toolResult":
            if not isinstance(value, list):
                raise self._fail(number, event, kind, "the toolResult delta is not a list")
            for part in jsonable(value):
                previous = block.results[-1] if block.results else None
                if (
                    isinstance(part, dict)
                    and _member(part) == "text"
                    and isinstance(previous, dict)
                    and _member(previous) == "text"
                    and isinstance(part["text"], str)
                    and isinstance(previous["text"], str)
                ):
                    block.results[-1] = {"text": previous["text"] + part["text"]}
                else:
                    block.results.append(part)
            return []
        if not isinstance(value, dict):
            raise self._fail(number, event, kind, "the image delta is not an object")
        block.media.update(jsonable(value))
        return []

    def _own(self, number: int, event: object, at: int, block: _Block | None, kind: str) -> _Block:
        """Block ``at``, begun as a ``kind`` block by this delta if it is new."""
        if block is None:
            return self._new(number, at, kind, {})
        if block.kind != kind:
            raise self._fail(
                number,
                event,
                "contentBlockDelta",
                f"a {kind} delta cannot apply to a {label(block.kind)} block",
            )
        return block

    def _reasoning(
        self, number: int, event: object, at: int, block: _Block | None, value: object
    ) -> list[Delta]:
        kind = "contentBlockDelta"
        if not isinstance(value, dict) or len(value) != 1:
            raise self._fail(number, event, kind, "the reasoningContent delta holds no one member")
        block = self._own(number, event, at, block, "reasoning")
        member, piece = next(iter(value.items()))
        if member == "text":
            if not isinstance(piece, str) or block.redacted:
                raise self._fail(number, event, kind, "reasoning text that cannot be kept")
            block.pieces.append(piece)
            return [ThinkingDelta(piece)] if piece else []
        if member == "signature":
            if not isinstance(piece, str):
                raise self._fail(number, event, kind, f"the signature is not text: {short(piece)}")
            block.signature.append(piece)
            return []
        if member == "redactedContent":
            if block.pieces or block.signature:
                raise self._fail(number, event, kind, "redacted content after reasoning text")
            try:
                block.redacted.append(_raw(piece))
            except ValueError as err:
                raise self._fail(number, event, kind, f"the redacted content: {err}") from None
            return []
        return []  # a member newer than this version

    def _messages(self, final: bool) -> list[Message]:
        blocks, incomplete = blocks_read(self._blocks, self._reason, _CUT, final)
        return _read(blocks, incomplete, "stream")

    def _reply(self, messages: list[Message]) -> Reply:
        return _reply(messages, self._reason, self._usage, self._model, None)
