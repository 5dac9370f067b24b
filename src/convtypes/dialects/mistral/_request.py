"""The Mistral request: a transcript walked into ``messages``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

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
    note_text,
    unknown_block,
    unknown_message,
    unsupported_block,
)
from .._ids import Alnum9Ids, usable_alnum9
from .._media import image_type
from .._send import data_url, tool_result_text, transcript_of
from .._tools import spelled_name
from ._assistant import _Kept, _Turn
from ._wire import AUDIO_TYPES, BRIDGE, DETAILS, DIALECT, IMAGE_TYPES, PROTOCOL, SYSTEM_JOIN


def _parts(index: int, blocks: Iterable[object], unsupported: Unsupported) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        if isinstance(block, TextBlock):
            out.append({"type": "text", "text": block.text})
            continue
        if isinstance(block, ImageUrlBlock):
            image: dict[str, Any] = {"url": block.url}
            if block.detail in DETAILS:
                image["detail"] = block.detail
            out.append({"type": "image_url", "image_url": image})
            continue
        if isinstance(block, ImageBase64Block):
            media_type = image_type(block.media_type)
            if media_type in IMAGE_TYPES:
                url = data_url(media_type, block.data)
                out.append({"type": "image_url", "image_url": {"url": url}})
                continue
            why = f"takes no {block.media_type!r} image (only JPEG, PNG, GIF and WebP)"
        elif isinstance(block, AudioBase64Block):
            if block.media_type.lower() in AUDIO_TYPES:
                out.append({"type": "input_audio", "input_audio": block.data})
                continue
            why = f"takes audio only as base64 WAV or MP3, not {block.media_type!r}"
        elif isinstance(block, UnknownBlock):
            raise unknown_block(DIALECT, index, position, block)
        elif block.is_audio():  # type: ignore[attr-defined]
            why = "takes audio only inline, as base64 WAV or MP3"
        else:
            why = "has no chunk for video"
        if unsupported == "note":
            out.append({"type": "text", "text": note_text(DIALECT, block)})
        else:
            raise unsupported_block(DIALECT, index, position, block, why)
    return out


def to_request(
    messages: Iterable[Message | UnknownMessage],
    *,
    fence_external: bool = True,
    unsupported: Unsupported = "raise",
) -> dict[str, Any]:
    """The conversation part of a chat completions request body: ``{"messages": [...]}``.

    The caller adds ``model`` and the rest (``tools_to_request`` gives the
    tool fields). External tool results are fenced unless
    ``fence_external`` is False. See the module for how the transcript is
    shaped to Mistral's rules. The request shares no mutable value with the
    transcript.
    """
    check_unsupported(unsupported)
    transcript = transcript_of(messages, "to_request")
    ids = Alnum9Ids(transcript, usable_alnum9, DIALECT)
    system: list[str] = []
    out: list[dict[str, Any]] = []
    turn: _Turn | None = None
    kept: _Kept | None = None
    for index, message in enumerate(transcript):
        previous, kept = kept, None
        if isinstance(message, AssistantMessage):
            ids.assistant()
            turn = turn or _Turn()
            if previous is None:
                turn.flat(index, message, ids)
            else:
                turn.after_kept(index, message, previous, ids)
            continue
        if isinstance(message, ProviderOutputItemsMessage):
            if message.protocol != PROTOCOL:
                continue  # another provider's state has no place here
            for item in message.items:
                if isinstance(item, dict):
                    ids.assistant()
                    turn = turn or _Turn()
                    turn.item(index, item, ids)
                    kept = _Kept(item)
            continue
        if isinstance(message, SystemMessage):
            system.append(message.content)
            kept = previous  # it goes first, so the turn around it goes on
            continue
        if turn is not None:
            said = turn.message()
            if said is not None:
                out.append(said)
            turn = None
        if isinstance(message, ToolResultMessage):
            call = ids.result(index, message)
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": call.out_id,
                    "name": spelled_name(call.name),  # as its call goes
                    "content": tool_result_text(message, fence_external),
                }
            )
        elif isinstance(message, (UserMessage, UserMultimodalMessage)):
            ids.user(index)
            if out and out[-1]["role"] == "tool":
                out.append({"role": "assistant", "content": BRIDGE})
            if isinstance(message, UserMessage):
                out.append({"role": "user", "content": message.content})
            else:
                out.append({"role": "user", "content": _parts(index, message.content, unsupported)})
        elif isinstance(message, UnknownMessage):
            raise unknown_message(index, message)
        else:
            raise not_a_message(index, message)
    if turn is not None:
        said = turn.message()
        if said is not None:
            out.append(said)
    if out and out[-1]["role"] == "assistant" and "tool_calls" not in out[-1]:
        out[-1]["prefix"] = True
    if system:
        out.insert(0, {"role": "system", "content": SYSTEM_JOIN.join(system)})
    return {"messages": out}
