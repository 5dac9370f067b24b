"""What a Mistral request leaves out of a transcript, and why: the notes ``left_out`` gives."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from ..._content import AudioBase64Block, ImageBase64Block, ImageUrlBlock, TextBlock
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
from .._errors import (
    Unsupported,
    check_unsupported,
    not_a_message,
)
from .._left_out import LeftOut, in_item
from .._media import image_type
from .._send import transcript_of
from ._assistant import _Kept, _runnable
from ._request import to_request
from ._wire import _INPUT_KEYS, AUDIO_TYPES, DETAILS, DIALECT, IMAGE_TYPES, PROTOCOL


def left_out(
    messages: Iterable[Message | UnknownMessage], *, unsupported: Unsupported = "raise"
) -> list[LeftOut]:
    """What :func:`to_request` of ``messages`` does not send, message by message.

    Named: another provider's items (``"items"``), and the fields of a kept
    message that an assistant message takes no input for; a kept call cut
    off at the token limit (``"call"``); redacted thinking
    (``"redacted-thinking"``) and the signatures of thinking sent as text
    (``"signature"``); thinking beside a kept message that the message does
    not hold (``"thinking"``); images, audio and video Mistral has no chunk
    for (with ``unsupported="note"`` a note stands in their place); an
    image ``detail`` Mistral does not know, and audio's ``sample_rate``
    (``"sample-rate"``), which ``input_audio`` has no field for. Each
    ``why`` starts with the piece's place in its message (see
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
    for index, message in enumerate(transcript):
        previous, kept = kept, None
        if isinstance(message, AssistantMessage):
            _left_out_thinking(index, message, previous, out)
        elif isinstance(message, ProviderOutputItemsMessage):
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
                kept = _Kept(item)
        elif isinstance(message, SystemMessage):
            kept = previous
        elif isinstance(message, UserMultimodalMessage):
            _left_out_media(index, message, out)
        elif not isinstance(message, (UserMessage, ToolResultMessage, UnknownMessage)):
            raise not_a_message(index, message)
    return out


_NOT_A_MESSAGE: Final = "an item that is not a message object has no place in the request"

_NO_FIELD: Final = "an assistant message takes no such input field"

_CUT_CALL: Final = "a call cut off at the token limit is not sent: no result answers it"

_REDACTED: Final = f"{DIALECT} cannot read redacted thinking"

_UNSIGNED: Final = f"the thinking goes as a {DIALECT} thinking chunk, without its signature"

_NO_SIGNATURE: Final = f"{DIALECT} has no place for a thinking signature"

_EDITED_THINKING: Final = (
    "the kept message before this turn is sent in its place, with its own thinking"
)


def _left_out_item(index: int, place: int, item: dict[str, Any], out: list[LeftOut]) -> None:
    """What of a kept message its replay does not send: fields with no input, cut calls."""
    for key in item:
        if key not in _INPUT_KEYS:
            out.append(LeftOut(index, "items", f"{in_item(place, key)}: {_NO_FIELD}"))
    calls = item.get("tool_calls")
    for position, call in enumerate(calls if isinstance(calls, list) else ()):
        if isinstance(call, dict) and not _runnable(call):
            out.append(
                LeftOut(index, "call", f"{in_item(place, 'tool_calls', position)}: {_CUT_CALL}")
            )


def _left_out_thinking(
    index: int, message: AssistantMessage, kept: _Kept | None, out: list[LeftOut]
) -> None:
    """The thinking of ``message`` that does not go: redacted blocks and signatures, and,
    after a kept message (which goes in its place), each block whose text it does not hold."""
    held = list(kept.thoughts) if kept is not None else None
    for position, block in enumerate(message.thinking):
        where = f"thinking block {position}"
        if block.redacted_data is not None:
            out.append(LeftOut(index, "redacted-thinking", f"{where}: {_REDACTED}"))
            continue
        if held is not None and block.text:
            if block.text not in held:
                out.append(LeftOut(index, "thinking", f"{where}: {_EDITED_THINKING}"))
                continue
            held.remove(block.text)
        if block.signature:
            why = _UNSIGNED if kept is None and block.text else _NO_SIGNATURE
            out.append(LeftOut(index, "signature", f"{where}: {why}"))


def _left_out_media(index: int, message: UserMultimodalMessage, out: list[LeftOut]) -> None:
    for position, block in enumerate(message.content):
        where = f"block {position}"
        if isinstance(block, TextBlock):
            continue
        if isinstance(block, ImageUrlBlock):
            if block.detail not in DETAILS:
                why = f"{DIALECT} knows no image detail {block.detail!r:.40}"
                out.append(LeftOut(index, "detail", f"{where}: {why}"))
        elif isinstance(block, ImageBase64Block):
            if image_type(block.media_type) not in IMAGE_TYPES:
                why = f"{DIALECT} takes no {block.media_type!r:.40} image"
                out.append(LeftOut(index, "image", f"{where}: {why}"))
        elif isinstance(block, AudioBase64Block):
            if block.media_type.lower() not in AUDIO_TYPES:
                why = f"{DIALECT} takes no {block.media_type!r:.40} audio"
                out.append(LeftOut(index, "audio", f"{where}: {why}"))
            elif block.sample_rate is not None:
                why = "input_audio has no field for a sample rate"
                out.append(LeftOut(index, "sample-rate", f"{where}: {why}"))
        elif isinstance(block, UnknownBlock):
            continue  # refused by to_request, never sent
        elif block.is_audio():
            why = f"{DIALECT} takes audio only inline, as WAV or MP3"
            out.append(LeftOut(index, "audio", f"{where}: {why}"))
        else:
            out.append(LeftOut(index, "video", f"{where}: {DIALECT} has no chunk for video"))
