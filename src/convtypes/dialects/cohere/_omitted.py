"""What a Cohere request leaves out of a transcript, and why: the notes ``left_out`` gives."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from ..._content import ImageBase64Block, ImageUrlBlock, TextBlock
from ..._messages import (
    AssistantMessage,
    Message,
    ProviderOutputItemsMessage,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from ..._unknown import UnknownBlock, UnknownMessage
from .._chat_kept import is_text_part
from .._errors import (
    Unsupported,
    check_unsupported,
    not_a_message,
)
from .._left_out import LeftOut, in_item
from .._media import image_type
from .._send import transcript_of
from ._assistant import _Kept, _runnable, _said
from ._request import to_request
from ._wire import _INPUT_KEYS, DETAILS, DIALECT, IMAGE_TYPES, PROTOCOL


def left_out(
    messages: Iterable[Message | UnknownMessage], *, unsupported: Unsupported = "raise"
) -> list[LeftOut]:
    """What :func:`to_request` of ``messages`` does not send, message by message.

    Named: another provider's items (``"items"``), and the fields of a kept
    message an assistant message takes no input for; a kept call cut off at
    the token limit (``"call"``); thinking that did not come in a kept
    Cohere reply (``"thinking"``, ``"redacted-thinking"``), or that did but
    whose turn has neither text nor calls, so that it is not sent (with
    the rest its kept replies hold); images Cohere cannot read,
    audio and video (with ``unsupported="note"`` a note stands in their
    place); an image ``detail`` it does not know. Each ``why`` starts with
    the piece's place in its message (see
    :class:`~convtypes.dialects.LeftOut`). It takes ``unsupported`` as
    ``to_request`` does, and names those media under either value. Raises
    what ``to_request`` raises for a transcript it cannot send at all (a
    message or block a newer writer made, a call without its result).
    """
    check_unsupported(unsupported)
    transcript = transcript_of(messages, "left_out")
    to_request(transcript, unsupported="note")  # raises what it raises, media aside
    out: list[LeftOut] = []
    kept: _Kept | None = None
    # The turn so far: whether it says anything (text or calls), and what its items
    # lose if it does not, for then it is not sent at all.
    said = False
    unsaid: list[LeftOut] = []
    for index, message in enumerate(transcript):
        previous, kept = kept, None
        if isinstance(message, AssistantMessage):
            _left_out_thinking(index, message, previous, out)
            said = said or _adds(message, previous)
            continue
        if isinstance(message, ProviderOutputItemsMessage):
            if message.protocol != PROTOCOL:
                if message.items:
                    why = (
                        f"{message.protocol!r:.40} items belong to another provider; "
                        f"{DIALECT} is sent the assistant message beside them"
                    )
                    out.append(LeftOut(index, "items", why))
                continue
            for place, item in enumerate(message.items):
                if not isinstance(item, dict):
                    out.append(LeftOut(index, "items", f"{in_item(place)}: {_NOT_A_MESSAGE}"))
                    continue
                _left_out_item(index, place, item, out)
                said = said or _says(item)
                unsaid += _unsaid(index, place, item)
                kept = _Kept(item)
            continue
        if not said:
            out += unsaid
        said, unsaid = False, []
        if isinstance(message, UserMultimodalMessage):
            _left_out_media(index, message, out)
        elif not isinstance(
            message, (UserMessage, SystemMessage, ToolResultMessage, UnknownMessage)
        ):
            raise not_a_message(index, message)
    if not said:
        out += unsaid
    out.sort(key=lambda piece: piece.index)  # a turn's items come before what followed them
    return out


_NOT_A_MESSAGE: Final = "an item that is not a message object has no place in the request"

_NO_FIELD: Final = "an assistant message takes no such input field"

_CUT_CALL: Final = "a call cut off at the token limit is not sent: no result answers it"

_NO_TURN: Final = (
    "its turn has neither text nor calls, so none of it is sent: "
    f"{DIALECT} takes an assistant message only with text or calls"
)

_REDACTED: Final = f"{DIALECT} cannot read redacted thinking"

_FOREIGN_THINKING: Final = f"{DIALECT} takes thinking only as its own replies hold it"

_EDITED_THINKING: Final = (
    "the kept reply before this turn is sent in its place, with its own thinking"
)

_NO_SIGNATURE: Final = f"{DIALECT} has no place for a thinking signature"


def _left_out_item(index: int, place: int, item: dict[str, Any], out: list[LeftOut]) -> None:
    """What of a kept message its replay does not send: fields with no input, cut calls."""
    for key in item:
        if key not in _INPUT_KEYS:
            out.append(LeftOut(index, "items", f"{in_item(place, key)}: {_NO_FIELD}"))
    calls = item.get("tool_calls")
    for position, call in enumerate(calls if isinstance(calls, list) else ()):
        if isinstance(call, dict) and not _runnable(call):
            where = in_item(place, "tool_calls", position)
            out.append(LeftOut(index, "call", f"{where}: {_CUT_CALL}"))


def _says(item: dict[str, Any]) -> bool:
    """Whether a kept message gives its turn text or a call, so that the turn is sent."""
    calls = item.get("tool_calls")
    runnable = any(
        not isinstance(call, dict) or _runnable(call)
        for call in (calls if isinstance(calls, list) else ())
    )
    return runnable or bool(_said(item))


def _adds(message: AssistantMessage, kept: _Kept | None) -> bool:
    """Whether ``message`` gives its turn text or a call (after ``kept``, what it lacks)."""
    if kept is None:
        return bool(message.content or message.tool_calls)
    return bool(message.content and message.content != kept.text) or any(
        not kept.holds(position, call) for position, call in enumerate(message.tool_calls)
    )


def _unsaid(index: int, place: int, item: dict[str, Any]) -> list[LeftOut]:
    """What a kept message loses when its turn says nothing and is not sent: its thinking,
    its other content but text (which would have said something), its citations."""
    out: list[LeftOut] = []
    content = item.get("content")
    for position, part in enumerate(content if isinstance(content, list) else ()):
        if is_text_part(part):
            continue
        where = f"{in_item(place, 'content', position)}: {_NO_TURN}"
        if isinstance(part, dict) and part.get("type") == "thinking":
            if part.get("thinking"):
                out.append(LeftOut(index, "thinking", where))
        else:
            out.append(LeftOut(index, "items", where))
    if item.get("citations"):
        out.append(LeftOut(index, "annotations", f"{in_item(place, 'citations')}: {_NO_TURN}"))
    return out


def _left_out_thinking(
    index: int, message: AssistantMessage, kept: _Kept | None, out: list[LeftOut]
) -> None:
    """The thinking of ``message`` that does not go: all of it, unless a kept reply goes in
    its place; then each block whose text that reply does not hold, and signatures."""
    held = list(kept.thoughts) if kept is not None else None
    for position, block in enumerate(message.thinking):
        where = f"thinking block {position}"
        if block.redacted_data is not None:
            out.append(LeftOut(index, "redacted-thinking", f"{where}: {_REDACTED}"))
        elif held is None:
            if block.text or block.signature:
                out.append(LeftOut(index, "thinking", f"{where}: {_FOREIGN_THINKING}"))
        elif block.text and block.text not in held:
            out.append(LeftOut(index, "thinking", f"{where}: {_EDITED_THINKING}"))
        else:
            if block.text:
                held.remove(block.text)
            if block.signature:
                out.append(LeftOut(index, "signature", f"{where}: {_NO_SIGNATURE}"))


def _left_out_media(index: int, message: UserMultimodalMessage, out: list[LeftOut]) -> None:
    for position, block in enumerate(message.content):
        where = f"block {position}"
        if isinstance(block, (TextBlock, UnknownBlock)):
            continue
        if isinstance(block, ImageUrlBlock):
            if block.detail not in DETAILS:
                why = f"{DIALECT} knows no image detail {block.detail!r:.40}"
                out.append(LeftOut(index, "detail", f"{where}: {why}"))
        elif isinstance(block, ImageBase64Block):
            if image_type(block.media_type) not in IMAGE_TYPES:
                why = f"{DIALECT} takes no {block.media_type!r:.40} image"
                out.append(LeftOut(index, "image", f"{where}: {why}"))
        elif block.is_audio():
            why = f"{DIALECT} has no content item for audio"
            out.append(LeftOut(index, "audio", f"{where}: {why}"))
        else:
            why = f"{DIALECT} has no content item for video"
            out.append(LeftOut(index, "video", f"{where}: {why}"))
