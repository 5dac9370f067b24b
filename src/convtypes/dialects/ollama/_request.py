"""The Ollama request: a transcript walked into ``messages``, and what that leaves out."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Any

from ..._content import ImageBase64Block, ImageUrlBlock, TextBlock
from ..._conversation import positional_call_id
from ..._messages import (
    AssistantMessage,
    Message,
    ProviderOutputItemsMessage,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    UserMultimodalMessage,
)
from ..._unknown import UnknownBlock, UnknownMessage
from .._chat_request import ChatWalk
from .._copy import copy_json, owned
from .._errors import (
    Unsupported,
    check_unsupported,
    note_text,
    unknown_block,
    unsupported_block,
)
from .._ids import CallIds
from .._left_out import LeftOut, in_item, media_kind
from .._media import image_type, parse_data_url
from .._newer import Unknown, check_unknown
from .._send import tool_result_text, transcript_of
from ._assistant import _Kept, _thought, _turn
from ._left_out import _kept_thinking_left_out, _thinking_left_out
from ._wire import DIALECT, IMAGE_TYPES, PROTOCOL


def _usable_id(call_id: str) -> bool:
    # Ollama takes any text as an id; only an empty one says nothing.
    return call_id != ""


def _user_parts(
    index: int, blocks: Iterable[object], unsupported: Unsupported, report: list[LeftOut] | None
) -> tuple[str, list[str]]:
    """A user message's text, joined, and its images as base64."""
    texts: list[str] = []
    images: list[str] = []
    for position, block in enumerate(blocks):
        if isinstance(block, TextBlock):
            if block.text:
                texts.append(block.text)
            elif report is not None:
                report.append(
                    LeftOut(index, "text", f"block {position}: empty text, which adds nothing")
                )
            continue
        if isinstance(block, ImageBase64Block):
            if image_type(block.media_type) in IMAGE_TYPES:
                images.append(block.data)
                continue
            why = f"takes no {block.media_type!r} image (only JPEG, PNG and WebP)"
        elif isinstance(block, ImageUrlBlock):
            inline = parse_data_url(block.url)
            if inline is not None and inline.media_type in IMAGE_TYPES:
                images.append(inline.data)
                if report is not None and block.detail != "auto":
                    report.append(
                        LeftOut(
                            index,
                            "detail",
                            f"block {position}: Ollama has no field for an image's detail",
                        )
                    )
                continue
            why = (
                "fetches no image by URL (a base64 image or a data: URL goes inline)"
                if inline is None
                else f"takes no {inline.media_type!r} image (only JPEG, PNG and WebP)"
            )
        elif isinstance(block, UnknownBlock):
            raise unknown_block(DIALECT, index, position, block)
        elif block.is_audio():  # type: ignore[attr-defined]
            why = "has no field for audio"
        else:
            why = "has no field for video"
        if unsupported == "note":
            texts.append(note_text(DIALECT, block))
            if report is not None:
                report.append(
                    LeftOut(
                        index,
                        media_kind(block),
                        f"block {position}: Ollama {why}; a note stands in its place",
                    )
                )
        else:
            raise unsupported_block(DIALECT, index, position, block, why)
    return "\n\n".join(texts), images


def to_request(
    messages: Iterable[Message | UnknownMessage],
    *,
    fence_external: bool = True,
    unsupported: Unsupported = "raise",
    thinking: bool = True,
    unknown: Unknown = "raise",
) -> dict[str, Any]:
    """The conversation part of an ``/api/chat`` request body: ``{"messages": [...]}``.

    The caller adds ``model`` and the rest (``tools_to_request`` gives the
    ``tools`` field). External tool results are fenced unless
    ``fence_external`` is False. ``thinking=False`` leaves earlier thinking
    out, from assistant messages and from replayed items alike. An
    assistant message with nothing to send (no text, no calls, no thinking
    that goes) sends no turn. A message of a role this version does not
    know raises ``UnsupportedContent``, or with ``unknown="skip"`` is left
    out. The request shares no dict or list with the transcript: change it
    as you like.
    """
    check_unsupported(unsupported)
    if type(thinking) is not bool:
        raise TypeError(f"thinking= must be True or False, not {thinking!r:.80}")
    check_unknown(unknown)
    transcript = transcript_of(messages, "to_request")
    return {"messages": _build(transcript, fence_external, unsupported, thinking, None, unknown)}


def left_out(
    messages: Iterable[Message | UnknownMessage],
    *,
    unsupported: Unsupported = "raise",
    thinking: bool = True,
) -> list[LeftOut]:
    """What :func:`to_request` of ``messages`` does not send, one piece at a time, in order.

    Reported, each with the index of its message: a thinking block's
    signature (``"signature"``) and redacted thinking
    (``"redacted-thinking"``), which Ollama has no field for; with
    ``thinking=False`` all thinking (``"thinking"``), kept items' included;
    items of other protocols, and items that are no message object
    (``"items"``); an empty text block of a multimodal message (``"text"``);
    an image's ``detail`` (``"detail"``); and with ``unsupported="note"``
    each media block a note stands in for (``"image"``, ``"audio"``,
    ``"video"``); and what a newer writer made (``"unknown"``): messages of
    a role this version does not know, which ``unknown="skip"`` leaves out,
    and fields no request sends. It walks the transcript as
    :func:`to_request` does, so it raises what :func:`to_request` raises,
    but never for an unknown message.
    """
    check_unsupported(unsupported)
    if type(thinking) is not bool:
        raise TypeError(f"thinking= must be True or False, not {thinking!r:.80}")
    report: list[LeftOut] = []
    _build(transcript_of(messages, "left_out"), True, unsupported, thinking, report, "skip")
    return report


def _build(
    transcript: list[Any],
    fence_external: bool,
    unsupported: Unsupported,
    thinking: bool,
    report: list[LeftOut] | None,
    unknown: Unknown,
) -> list[dict[str, Any]]:
    """The request's messages (see :func:`to_request`); ``report`` gets what it leaves out."""
    ids = CallIds(transcript, _usable_id, DIALECT)
    return _Walk(ids, fence_external, unsupported, report, thinking, unknown).walk(transcript)


class _Walk(ChatWalk):
    """The walk to Ollama's chat: one message each, results in the order of their calls."""

    protocol = PROTOCOL
    __slots__ = ("placed", "ran", "run")

    def __init__(self, *walk: Any) -> None:
        super().__init__(*walk)
        # Results go in the order of their calls: ``run`` is where the current
        # run of tool messages begins in ``out``, ``placed`` their calls' order,
        # ``ran`` the length of ``out`` after its last result (anything sent
        # after it ends the run).
        self.run = -1
        self.placed: list[int] = []
        self.ran = -1

    def result(self, index: int, message: ToolResultMessage, previous: Any) -> Any:
        answered = self.ids.result(index, message)
        result: dict[str, Any] = {
            "role": "tool",
            "content": tool_result_text(message, self.fence_external),
            "tool_name": answered.name,
        }
        if answered.send_id:
            result["tool_call_id"] = answered.out_id
        out = self.out
        if len(out) != self.ran:
            self.run, self.placed = len(out), []
        placed = self.placed
        order = answered.order
        if placed and order < placed[-1]:  # a result ahead of an earlier call's
            place = bisect.bisect(placed, order)
            placed.insert(place, order)
            out.insert(self.run + place, result)
        else:  # as usual, in the calls' order: it goes last
            placed.append(order)
            out.append(result)
        self.ran = len(out)

    def assistant(self, index: int, message: AssistantMessage, previous: Any) -> Any:
        ids, report, thinking = self.ids, self.notes, self.thinking
        ids.assistant()
        text = message.content
        calls: Iterable[tuple[int, ToolCall]] = enumerate(message.tool_calls)
        thoughts: tuple[ThinkingBlock, ...] = message.thinking if thinking else ()
        if previous is not None:
            # The turn read from the kept message: send only what it adds.
            if text == previous.text:
                text = ""
            calls = [(at, call) for at, call in calls if not previous.holds(at, call)]
            if report is not None and message.thinking:
                _kept_thinking_left_out(index, message.thinking, previous, thinking, report)
            thoughts = ()
            if not text and not calls:
                return None
        elif report is not None and message.thinking:
            _thinking_left_out(index, message.thinking, thinking, report)
        copy, make_call = copy_json, ids.call
        sent: list[dict[str, Any]] = []
        for at, call in calls:
            # A call without an id goes without one, and is answered by position.
            out_id = make_call(index, at, call, call.id is not None)
            function = {"name": call.name, "arguments": copy(call.arguments)}
            sent.append(
                {"function": function} if call.id is None else {"id": out_id, "function": function}
            )
        thought = _thought(thoughts) if thoughts else ""
        if text or sent or thought:
            self.out.append(_turn(text, sent, thought))
        # else nothing to say: no turn
        return None

    def user_blocks(self, index: int, message: UserMultimodalMessage, previous: Any) -> Any:
        self.ids.user(index)
        text, images = _user_parts(index, message.content, self.unsupported, self.notes)
        user: dict[str, Any] = {"role": "user", "content": text}
        if images:
            user["images"] = images
        self.out.append(user)

    def foreign(self, index: int, message: ProviderOutputItemsMessage, previous: Any) -> Any:
        if self.notes is not None and message.items:
            self.notes.append(
                LeftOut(
                    index,
                    "items",
                    f"{len(message.items)} item(s) of protocol "
                    f"{message.protocol!r:.40}, which Ollama does not read",
                )
            )
        # Another provider's state has no place here: as if it were not
        # there, so it parts no kept message from the turn read from it.
        return previous

    def not_an_object(self, place: int) -> str:
        return f"item {place}: not a message object"

    def item(self, index: int, place: int, item: dict[str, Any]) -> Any:
        kept = _Kept(item)
        ids = self.ids
        for at, (call_id, name, _) in enumerate(kept.calls):
            key = call_id if call_id is not None else positional_call_id(at)
            ids.carried(index, key, key, name, send_id=call_id is not None)
        item = owned(item)
        if not self.thinking and "thinking" in item:
            del item["thinking"]
            if self.notes is not None:
                self.notes.append(
                    LeftOut(
                        index,
                        "thinking",
                        f"{in_item(place, 'thinking')}: thinking=False leaves it out",
                    )
                )
        self.out.append(item)
        return kept
