"""A convtypes message, block or tool call as the parts of the GenAI conventions.

Each function returns plain dicts: the part types the conventions name
(``text``, ``blob``, ``uri``, ``reasoning``, ``tool_call``,
``tool_call_response``), with ``id`` and ``mime_type`` left out rather than
written as ``null`` when convtypes has none (so that the parts are valid
under the schemas that say plain ``string`` as well).
"""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import quote

from .._content import (
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
from .._conversation import positional_call_id
from .._errors import WireError
from .._messages import AssistantMessage, ThinkingBlock, ToolCall, ToolResultMessage
from ..dialects import LeftOut
from ._items import Found

__all__ = [
    "assistant_parts",
    "block_part",
    "call_part",
    "reasoning_parts",
    "result_part",
    "text_part",
]

Part = dict[str, Any]

_SIGNATURE: Final = (
    "a signature only proves to its provider who wrote the thinking; a reader learns nothing"
)
_REDACTED: Final = "redacted thinking is encrypted, and only its provider can read it"


def text_part(text: str) -> Part:
    """A ``text`` part."""
    return {"type": "text", "content": text}


def _data_url(url: str) -> tuple[str, str] | None:
    """The media type and base64 payload of a ``data:`` URL in base64, else ``None``."""
    if url[:5].lower() != "data:":
        return None
    head, comma, payload = url[5:].partition(",")
    if not comma:
        return None
    kind, _, encoding = head.rpartition(";")
    if encoding.strip().lower() != "base64":
        return None
    return kind.split(";", 1)[0].strip() or "text/plain", payload


_IN_PATH: Final = "/@!$&'()*+,;=~-._"  # what a URI's path keeps as it is, besides ":"


def _path_uri(path: str) -> str:
    """A local path as a URI: ``file://`` and the path, percent-encoded, when it is absolute.

    A Windows path from a drive (``C:\\clips\\a.mp4``) is absolute too,
    ``file:///C:/clips/a.mp4``. A relative path is a relative reference, its
    colons encoded, so that ``take:2.wav`` does not read as a URI of scheme
    ``take``.
    """
    if path.startswith("/"):
        return "file://" + quote(path, safe=_IN_PATH + ":")
    if path[:1].isascii() and path[:1].isalpha() and path[1:2] == ":" and path[2:3] in ("/", "\\"):
        return "file:///" + quote(path.replace("\\", "/"), safe=_IN_PATH + ":")
    return quote(path, safe=_IN_PATH)


def block_part(block: object, index: int, position: int) -> Part:
    """The part of one content block of a multimodal user message.

    Inline media (base64, or a base64 ``data:`` URL) is a ``blob`` with its
    ``modality`` and ``mime_type``; media by URL or local path is a ``uri``.
    The settings the conventions have no field for ride on the part, under
    convtypes' names: ``detail`` (when not ``"auto"``), ``fps``,
    ``max_frames`` and ``sample_rate`` (when set).
    """
    kind = type(block)
    if kind is TextBlock:
        assert isinstance(block, TextBlock)
        return text_part(block.text)
    part: Part
    if kind is ImageBase64Block:
        assert isinstance(block, ImageBase64Block)
        return {
            "type": "blob",
            "modality": "image",
            "mime_type": block.media_type,
            "content": block.data,
        }
    if kind is ImageUrlBlock:
        assert isinstance(block, ImageUrlBlock)
        inline = _data_url(block.url)
        if inline is not None:
            part = {
                "type": "blob",
                "modality": "image",
                "mime_type": inline[0],
                "content": inline[1],
            }
        else:
            part = {"type": "uri", "modality": "image", "uri": block.url}
        if block.detail != "auto":
            part["detail"] = block.detail
        return part
    if kind in (VideoBase64Block, AudioBase64Block):
        assert isinstance(block, (VideoBase64Block, AudioBase64Block))
        modality = "video" if kind is VideoBase64Block else "audio"
        part = {
            "type": "blob",
            "modality": modality,
            "mime_type": block.media_type,
            "content": block.data,
        }
    elif kind in (VideoUrlBlock, AudioUrlBlock):
        assert isinstance(block, (VideoUrlBlock, AudioUrlBlock))
        modality = "video" if kind is VideoUrlBlock else "audio"
        inline = _data_url(block.url)
        if inline is not None:  # inline media, as for an image: its payload is no URI
            part = {
                "type": "blob",
                "modality": modality,
                "mime_type": inline[0],
                "content": inline[1],
            }
        else:
            part = {"type": "uri", "modality": modality, "uri": block.url}
    elif kind in (VideoPathBlock, AudioPathBlock):
        assert isinstance(block, (VideoPathBlock, AudioPathBlock))
        modality = "video" if kind is VideoPathBlock else "audio"
        part = {"type": "uri", "modality": modality, "uri": _path_uri(block.path)}
    else:
        where = f"$[{index}].content[{position}]"
        tag = getattr(block, "type", None)
        if isinstance(tag, str):
            raise WireError(
                f"expected a content block this version knows, got {tag!r}", f"{where}.type"
            )
        raise WireError(f"expected a content block, got {type(block).__name__}", where)
    for name in ("fps", "max_frames", "sample_rate"):
        value = getattr(block, name, None)
        if value is not None:
            part[name] = value
    return part


def reasoning_parts(
    index: int, thinking: tuple[ThinkingBlock, ...], left: list[Found]
) -> list[Part]:
    """A ``reasoning`` part for each thinking block with text; what is opaque goes to ``left``."""
    parts: list[Part] = []
    for position, block in enumerate(thinking):
        if block.text:
            parts.append({"type": "reasoning", "content": block.text})
        if block.signature:
            left.append(LeftOut(index, "signature", f"thinking block {position}: {_SIGNATURE}"))
        if block.redacted_data is not None:
            left.append(
                LeftOut(index, "redacted-thinking", f"thinking block {position}: {_REDACTED}")
            )
    return parts


def call_part(position: int, call: ToolCall) -> Part:
    """A ``tool_call`` part; a call without an id gets the id its result answers by position."""
    return {
        "type": "tool_call",
        "id": call.id if call.id is not None else positional_call_id(position),
        "name": call.name,
        "arguments": call.arguments,
    }


def assistant_parts(
    index: int, message: AssistantMessage, extra: list[Part], left: list[Found]
) -> list[Part]:
    """An assistant message's parts: reasoning, ``extra`` (a reply's server tools), text, calls."""
    parts = reasoning_parts(index, message.thinking, left) if message.thinking else []
    parts += extra
    if message.content:
        parts.append(text_part(message.content))
    parts += [call_part(position, call) for position, call in enumerate(message.tool_calls)]
    return parts


def result_part(message: ToolResultMessage) -> Part:
    """A ``tool_call_response`` part, with ``provenance: "external"`` when it came from outside."""
    part: Part = {
        "type": "tool_call_response",
        "id": message.tool_use_id,
        "response": message.content,
    }
    if not message.provenance.is_internal():
        part["provenance"] = "external"
    return part
