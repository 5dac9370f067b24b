"""The Cohere request: a transcript walked into ``messages``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

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
from .._errors import (
    Unsupported,
    check_unsupported,
    not_a_message,
    note_text,
    unknown_block,
    unknown_message,
    unsupported_block,
)
from .._ids import CallIds
from .._media import image_type
from .._send import data_url, tool_result_text, transcript_of
from ._assistant import _Kept, _Turn, _usable_id
from ._wire import DETAILS, DIALECT, IMAGE_TYPES, PROTOCOL


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
        elif isinstance(block, UnknownBlock):
            raise unknown_block(DIALECT, index, position, block)
        elif block.is_audio():  # type: ignore[attr-defined]
            why = "has no content item for audio"
        else:
            why = "has no content item for video"
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
    """The conversation part of a v2 chat request: ``{"messages": [...]}``.

    Pass it to ``ClientV2.chat(model=..., **body)`` with the fields of
    ``tools_to_request``, or POST it as JSON. External tool results are
    fenced unless ``fence_external`` is False. See the module for how the
    transcript is shaped to Cohere's rules. The request shares no mutable
    value with the transcript.
    """
    check_unsupported(unsupported)
    transcript = transcript_of(messages, "to_request")
    ids = CallIds(transcript, _usable_id, DIALECT)
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
                    "content": tool_result_text(message, fence_external),
                }
            )
        elif isinstance(message, UserMessage):
            ids.user(index)
            out.append({"role": "user", "content": message.content})
        elif isinstance(message, UserMultimodalMessage):
            ids.user(index)
            out.append({"role": "user", "content": _parts(index, message.content, unsupported)})
        elif isinstance(message, SystemMessage):
            out.append({"role": "system", "content": message.content})
        elif isinstance(message, UnknownMessage):
            raise unknown_message(index, message)
        else:
            raise not_a_message(index, message)
    if turn is not None:
        said = turn.message()
        if said is not None:
            out.append(said)
    return {"messages": out}
