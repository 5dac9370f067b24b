"""What a Messages API request leaves out of a transcript, and why."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from ..._content import (
    AudioBase64Block,
    AudioPathBlock,
    AudioUrlBlock,
    ImageBase64Block,
    ImageUrlBlock,
    TextBlock,
    VideoBase64Block,
    VideoPathBlock,
    VideoUrlBlock,
)
from ..._conversation import repeated
from ..._messages import (
    AssistantMessage,
    Message,
    ProviderOutputItemsMessage,
    SystemMessage,
    ThinkingBlock,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from ..._unknown import UnknownBlock, UnknownMessage
from .._errors import (
    Unsupported,
    check_unsupported,
    not_a_message,
    short,
    unknown_block,
)
from .._left_out import PAST_RESULTS, LeftOut, LeftOutKind, duplicate, in_item, waits_for_results
from .._newer import newer_notes
from .._send import transcript_of
from ._request import (
    _DROPPED,
    _THOUGHTS,
    _answered_calls,
    _dropped,
    _image,
    _Kept,
    _request,
    _thoughts,
    _unanswered_uses,
)
from ._wire import _MARKER, _NO_MEDIA, _SDK_ONLY, DIALECT, PROTOCOL, _has_text

_VIDEO: Final = (VideoUrlBlock, VideoPathBlock, VideoBase64Block)
_AUDIO: Final = (AudioUrlBlock, AudioPathBlock, AudioBase64Block)


def left_out(
    messages: Iterable[Message | UnknownMessage], *, unsupported: Unsupported = "raise"
) -> list[LeftOut]:
    """What :func:`to_request` of the same transcript does not send, piece by piece.

    One :class:`~convtypes.dialects.LeftOut` per piece, in transcript order,
    ``index`` the position of its message:

    - ``"text"``: a text block with nothing but white space in it (empty
      included), or a message's text of white space only (a system message's
      only after the first turn, where it goes in place; before, it joins the
      system prompt); a message with no text at all (``content=""``) leaves
      nothing out.
    - ``"thinking"``: a thinking block with neither a signature nor
      redacted data (another provider's, or one cut off), the text of a
      redacted block (only its data goes), and thinking of an
      ``AssistantMessage`` right after ``anthropic`` items that the items
      do not hold (the items stand for the reply); ``"redacted-thinking"``
      for such a block that is redacted.
    - ``"items"``: provider items of another protocol (one per message
      that holds any), an item of this protocol that is not a JSON object,
      and fields the SDK adds to a block (``parsed_output``).
      An assistant turn that would end in thinking (a reply cut after its
      thinking, before any text) is not sent, or its trailing thinking is
      not; the note names the message that opened the turn.
    - ``"call"``: a kept ``tool_use`` that the message after the items does
      not hold (cut off at the token limit), and a server tool's use whose
      result never came before a user turn.
    - ``"cache-control"``: the ``cache_control`` of a block in the items,
      which an edited request wrote there.
    - ``"image"``, ``"audio"``, ``"video"``: media the API has no block for
      (with ``unsupported="raise"``, to_request refuses the transcript
      instead; with ``"note"``, a short note goes in its place);
      ``"detail"``: an image's ``detail`` other than ``"auto"``, which the
      API has no field for.

    - ``"unknown"``: a message of a role this version does not know, which
      ``to_request(..., unknown="skip")`` leaves out, and each field a newer
      writer added to a known message, block or call, which no request
      sends.

    It walks the transcript on its own, so ``to_request`` pays nothing for
    it. It raises what ``to_request`` raises for a transcript it cannot
    send at all: a block of a kind this version does not know, a call
    without its result, a result without its call; never an unknown
    message.
    """
    check_unsupported(unsupported)
    transcript = transcript_of(messages, "left_out")
    # Raises what it raises, media and unknown messages aside.
    tails: list[tuple[int, list[dict[str, Any]]]] = []
    first = _request(transcript, True, "note", None, "skip", tails)[1]
    out: list[LeftOut] = []
    kept: ProviderOutputItemsMessage | None = None
    copies = repeated(transcript)
    for index, message in enumerate(transcript):
        if copies and index in copies:
            out.append(duplicate(index, copies[index]))
            continue  # walked past, as to_request does
        out += newer_notes(index, message)
        previous, kept = kept, None
        if isinstance(message, AssistantMessage):
            if previous is None:
                out += _thinking_left_out(index, message.thinking)
                text = message.content
            else:
                out += _uncarried_thinking(index, message.thinking, previous.items)
                text = "" if message.content == _Kept(previous.items).text else message.content
            if text.isspace():
                out.append(LeftOut(index, "text", _BLANK))
        elif isinstance(message, UserMessage):
            if message.content.isspace():
                out.append(LeftOut(index, "text", _BLANK))
        elif isinstance(message, UserMultimodalMessage):
            out += _blocks_left_out(index, message.content, unsupported)
        elif isinstance(message, ProviderOutputItemsMessage):
            if message.protocol != PROTOCOL:
                if message.items:
                    why = (
                        f"items of protocol {short(message.protocol, 40)} mean nothing to {DIALECT}"
                    )
                    out.append(LeftOut(index, "items", why))
                continue
            out += _items_left_out(index, message.items, transcript)
            kept = message
        elif isinstance(message, UnknownMessage):
            kept = previous  # walked past, as to_request(..., unknown="skip") does
        elif isinstance(message, SystemMessage):
            # One after the first turn goes in place, as a message of its own,
            # past the tool results it stands before.
            if 0 <= first < index:
                if message.content.isspace():
                    out.append(LeftOut(index, "text", _BLANK))
                elif message.content and waits_for_results(transcript, index, PROTOCOL):
                    out.append(LeftOut(index, "position", PAST_RESULTS))
        elif not isinstance(message, ToolResultMessage):
            raise not_a_message(index, message)
    for opened, cut in tails:
        out += _tail_left_out(transcript, opened, cut)
    out.sort(key=lambda note: note.index)  # stable: each message's notes stay in their order
    return out


def _tail_left_out(transcript: list[Any], opened: int, cut: list[dict[str, Any]]) -> list[LeftOut]:
    """Name each thinking block cut off the end of the turn that message ``opened`` began.

    The blocks are found where the turn took them from: a kept item, or a
    thinking block of an assistant message (one right after ``anthropic``
    items sends none of its own). They are matched by what identifies
    them (the signature, or the redacted data), the latest place first,
    as the turn's tail is its latest blocks.
    """
    places: list[tuple[int, str, dict[str, Any]]] = []  # message, where in it, block sent
    kept = False  # whether the message before was this protocol's items
    for index in range(opened, len(transcript)):
        message = transcript[index]
        if isinstance(message, AssistantMessage):
            if not kept:
                for position, thought in enumerate(message.thinking):
                    for block in _thoughts([thought]):
                        places.append((index, f"thinking block {position}", block))
            kept = False
        elif isinstance(message, ProviderOutputItemsMessage):
            kept = message.protocol == PROTOCOL
            if kept:
                for position, item in enumerate(message.items):
                    if isinstance(item, dict) and item.get("type") in _THOUGHTS:
                        places.append((index, in_item(position), item))
        elif not isinstance(message, UnknownMessage):
            break  # the turn ends where another role begins
    out: list[LeftOut] = []
    for block in cut:  # the last block first
        for at in range(len(places) - 1, -1, -1):
            index, where, sent = places[at]
            if _same_thought(sent, block):
                what: LeftOutKind = (
                    "redacted-thinking" if block.get("type") == "redacted_thinking" else "thinking"
                )
                out.append(LeftOut(index, what, f"{where}: {_THINKING_LAST}"))
                del places[at]
                break
        else:
            out.append(LeftOut(opened, "thinking", f"a thinking block: {_THINKING_LAST}"))
    out.reverse()
    return out


def _same_thought(sent: dict[str, Any], block: dict[str, Any]) -> bool:
    key = "data" if block.get("type") == "redacted_thinking" else "signature"
    return sent.get("type") == block.get("type") and sent.get(key) == block.get(key)


_THINKING_LAST: Final = (
    "it would end its assistant turn (a reply cut after its thinking), and the API refuses "
    "an assistant turn whose final block is thinking"
)


_BLANK: Final = "the API refuses text with nothing but white space in it"


def _thinking_left_out(index: int, thinking: Iterable[ThinkingBlock]) -> list[LeftOut]:
    out: list[LeftOut] = []
    for position, thought in enumerate(thinking):
        if thought.redacted_data is not None:
            if thought.text or thought.signature:
                why = "a redacted block goes back as its data alone, without its text"
                out.append(LeftOut(index, "thinking", f"thinking block {position}: {why}"))
        elif not thought.signature:
            why = (
                "thinking without a signature (another provider's, or cut off) is refused, "
                "and a signature cannot be made up"
            )
            out.append(LeftOut(index, "thinking", f"thinking block {position}: {why}"))
    return out


def _thought_key(text: str, signature: str | None, data: str | None) -> tuple[str, ...]:
    return ("redacted", data) if data is not None else ("signed", text, signature or "")


def _uncarried_thinking(
    index: int, thinking: Iterable[ThinkingBlock], items: Iterable[Any]
) -> list[LeftOut]:
    """The thinking of a message after items that the items do not hold."""
    held: set[tuple[str, ...]] = set()
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "thinking":
            text, signature = item.get("thinking"), item.get("signature")
            if isinstance(text, str) and isinstance(signature, (str, type(None))):
                held.add(_thought_key(text, signature, None))
        elif kind == "redacted_thinking":
            data = item.get("data")
            if isinstance(data, str):
                held.add(_thought_key("", None, data))
    why = "the items before this message stand for its reply, and do not hold this thinking"
    return [
        LeftOut(
            index,
            "redacted-thinking" if thought.redacted_data is not None else "thinking",
            f"thinking block {position}: {why}",
        )
        for position, thought in enumerate(thinking)
        if _thought_key(thought.text, thought.signature, thought.redacted_data) not in held
    ]


def _blocks_left_out(index: int, blocks: Iterable[object], unsupported: str) -> list[LeftOut]:
    out: list[LeftOut] = []
    instead = (
        "a short note goes in its place"
        if unsupported == "note"
        else 'to_request refuses it unless unsupported="note"'
    )
    for position, block in enumerate(blocks):
        where = f"block {position}"
        if isinstance(block, TextBlock):
            if not _has_text(block.text):
                out.append(LeftOut(index, "text", f"{where}: {_BLANK}"))
        elif isinstance(block, (ImageUrlBlock, ImageBase64Block)):
            image = _image(block)
            if isinstance(image, str):
                out.append(LeftOut(index, "image", f"{where}: {DIALECT} {image}; {instead}"))
            elif isinstance(block, ImageUrlBlock) and block.detail != "auto":
                why = f"{DIALECT} has no field for an image's detail ({short(block.detail, 20)})"
                out.append(LeftOut(index, "detail", f"{where}: {why}"))
        elif isinstance(block, _VIDEO):
            out.append(LeftOut(index, "video", f"{where}: {DIALECT} {_NO_MEDIA}; {instead}"))
        elif isinstance(block, _AUDIO):
            out.append(LeftOut(index, "audio", f"{where}: {DIALECT} {_NO_MEDIA}; {instead}"))
        elif isinstance(block, UnknownBlock):
            raise unknown_block(DIALECT, index, position, block)
    return out


def _items_left_out(index: int, items: tuple[Any, ...], transcript: list[Any]) -> list[LeftOut]:
    answered = _answered_calls(index, transcript)
    unanswered = _unanswered_uses(index, items, transcript, answered)
    out: list[LeftOut] = []
    for position, item in enumerate(items):
        dropped = _dropped(item, answered, unanswered)
        if dropped is not None:
            what, why = _DROPPED[dropped]
            out.append(LeftOut(index, what, f"{in_item(position)}: {why}"))
            continue
        for key in _SDK_ONLY.intersection(item):
            why = "a field the SDK adds to a block is not part of the API"
            out.append(LeftOut(index, "items", f"{in_item(position, key)}: {why}"))
        if _MARKER in item:
            why = "a cache marker in a transcript's items is not sent: cache= places them"
            out.append(LeftOut(index, "cache-control", f"{in_item(position, _MARKER)}: {why}"))
    return out
