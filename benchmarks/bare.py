"""The bare engine: convtypes' wire types as plain msgspec Structs, no checks.

Same options and the same bytes out; what is missing is every check of
convtypes: no __post_init__ (u32 and f32 ranges, JSON value depth and
finiteness), no Meta constraints, no error translation. The gap between this
and convtypes is what the checks cost.
"""

from typing import Any, Union

import msgspec
from msgspec import Struct
from msgspec import field as sfield

opts: dict[str, Any] = {"frozen": True, "kw_only": True, "gc": False, "omit_defaults": True}


def empty_text() -> str:
    return ""


def no_calls() -> tuple[Any, ...]:
    return ()


class Block(Struct, tag_field="type", **opts):
    pass


class Text(Block, tag="text", **opts):
    text: str


class ImageB64(Block, tag="image_base64", **opts):
    data: str
    media_type: str


class ImageUrl(Block, tag="image_url", frozen=True, kw_only=True, gc=False):
    url: str
    detail: str = "auto"


class VideoPath(Block, tag="video_path", **opts):
    path: str
    fps: float | None = None
    max_frames: int | None = None


class VideoUrl(Block, tag="video_url", **opts):
    url: str
    fps: float | None = None
    max_frames: int | None = None


class VideoB64(Block, tag="video_base64", **opts):
    data: str
    media_type: str
    fps: float | None = None
    max_frames: int | None = None


class AudioPath(Block, tag="audio_path", **opts):
    path: str
    sample_rate: int | None = None


class AudioUrl(Block, tag="audio_url", **opts):
    url: str
    sample_rate: int | None = None


class AudioB64(Block, tag="audio_base64", **opts):
    data: str
    media_type: str
    sample_rate: int | None = None


AnyBlock = Union[
    Text, ImageB64, ImageUrl, VideoPath, VideoUrl, VideoB64, AudioPath, AudioUrl, AudioB64
]


class Call(Struct, **opts):
    id: str | None = None
    name: str
    arguments: dict[str, Any]


class Thinking(Struct, **opts):
    text: str = sfield(default_factory=empty_text)
    signature: str | None = None
    redacted_data: str | None = None


class Msg(Struct, tag_field="role", **opts):
    pass


class System(Msg, tag="system", **opts):
    content: str


class User(Msg, tag="user", **opts):
    content: str


class UserMM(Msg, tag="user_multimodal", **opts):
    content: tuple[AnyBlock, ...]


class Assistant(Msg, tag="assistant", **opts):
    content: str = sfield(default_factory=empty_text)
    tool_calls: tuple[Call, ...] = sfield(default_factory=no_calls)
    thinking: tuple[Thinking, ...] = ()


class ToolResult(Msg, tag="tool_result", **opts):
    tool_use_id: str
    content: str
    provenance: str = "internal"


class Items(Msg, tag="provider_output_items", **opts):
    protocol: str
    items: tuple[Any, ...]


One = Union[System, User, UserMM, Assistant, ToolResult, Items]
_list_decoder = msgspec.json.Decoder(list[One])
_one_decoder = msgspec.json.Decoder(One)
_encoder = msgspec.json.Encoder()
decode_list = _list_decoder.decode
decode_one = _one_decoder.decode
encode = _encoder.encode
