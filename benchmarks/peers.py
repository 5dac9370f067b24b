"""The peers: each one decodes the same transcript bytes and encodes its result.

A peer is four functions, built by ``load(name)``: decode and encode a
transcript (a JSON array of messages), and decode and encode one message (a
line of an oplog). Each peer's imports happen inside its own
builder, so a worker process pays only for the peer it measures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Decode = Callable[[bytes], Any]
Encode = Callable[[Any], bytes]
Peer = tuple[Decode, Encode, Decode, Encode]


def _convtypes() -> Peer:
    import convtypes

    return convtypes.decode_messages, convtypes.encode, convtypes.decode_message, convtypes.encode


def _convtypes_lenient() -> Peer:
    import convtypes

    def decode(data: bytes) -> Any:
        return convtypes.decode_messages(data, lenient=True)

    def decode_one(data: bytes) -> Any:
        return convtypes.decode_message(data, lenient=True)

    return decode, convtypes.encode, decode_one, convtypes.encode


def _bare() -> Peer:
    import bare

    return bare.decode_list, bare.encode, bare.decode_one, bare.encode


def _pydantic() -> Peer:
    """Discriminated unions under a TypeAdapter, as pydantic-based stacks use."""
    from typing import Annotated, Literal, Union

    from pydantic import BaseModel, Field, TypeAdapter

    class Text(BaseModel):
        type: Literal["text"] = "text"
        text: str

    class ImageB64(BaseModel):
        type: Literal["image_base64"] = "image_base64"
        data: str
        media_type: str

    class ImageUrl(BaseModel):
        type: Literal["image_url"] = "image_url"
        url: str
        detail: str = "auto"

    class VideoPath(BaseModel):
        type: Literal["video_path"] = "video_path"
        path: str
        fps: float | None = None
        max_frames: int | None = Field(default=None, ge=0, le=2**32 - 1)

    class VideoUrl(BaseModel):
        type: Literal["video_url"] = "video_url"
        url: str
        fps: float | None = None
        max_frames: int | None = Field(default=None, ge=0, le=2**32 - 1)

    class VideoB64(BaseModel):
        type: Literal["video_base64"] = "video_base64"
        data: str
        media_type: str
        fps: float | None = None
        max_frames: int | None = Field(default=None, ge=0, le=2**32 - 1)

    class AudioPath(BaseModel):
        type: Literal["audio_path"] = "audio_path"
        path: str
        sample_rate: int | None = Field(default=None, ge=0, le=2**32 - 1)

    class AudioUrl(BaseModel):
        type: Literal["audio_url"] = "audio_url"
        url: str
        sample_rate: int | None = Field(default=None, ge=0, le=2**32 - 1)

    class AudioB64(BaseModel):
        type: Literal["audio_base64"] = "audio_base64"
        data: str
        media_type: str
        sample_rate: int | None = Field(default=None, ge=0, le=2**32 - 1)

    Block = Annotated[
        Union[
            Text, ImageB64, ImageUrl, VideoPath, VideoUrl, VideoB64, AudioPath, AudioUrl, AudioB64
        ],
        Field(discriminator="type"),
    ]

    class Call(BaseModel):
        id: str | None = None
        name: str
        arguments: dict[str, Any]

    class Thinking(BaseModel):
        text: str = ""
        signature: str | None = None
        redacted_data: str | None = None

    class System(BaseModel):
        role: Literal["system"] = "system"
        content: str

    class User(BaseModel):
        role: Literal["user"] = "user"
        content: str

    class UserMM(BaseModel):
        role: Literal["user_multimodal"] = "user_multimodal"
        content: list[Block]

    class Assistant(BaseModel):
        role: Literal["assistant"] = "assistant"
        content: str = ""
        tool_calls: list[Call] = []
        thinking: list[Thinking] = []

    class ToolResult(BaseModel):
        role: Literal["tool_result"] = "tool_result"
        tool_use_id: str
        content: str
        provenance: Literal["internal", "external"] = "internal"

    class Items(BaseModel):
        role: Literal["provider_output_items"] = "provider_output_items"
        protocol: str
        items: list[Any]

    Message = Annotated[
        Union[System, User, UserMM, Assistant, ToolResult, Items], Field(discriminator="role")
    ]
    adapter = TypeAdapter(list[Message])
    single = TypeAdapter(Message)

    def encode(value: Any) -> bytes:
        return adapter.dump_json(value, exclude_defaults=True)

    def encode_one(value: Any) -> bytes:
        return single.dump_json(value, exclude_defaults=True)

    return adapter.validate_json, encode, single.validate_json, encode_one


def _stdlib() -> Peer:
    """``json`` plus hand-written dataclasses with ``from_dict``/``to_dict``."""
    import json

    @dataclass
    class Block:
        fields: dict[str, Any]

        @classmethod
        def from_dict(cls, raw: dict[str, Any]) -> Block:
            kind = raw["type"]
            if kind not in _BLOCK_KINDS:
                raise ValueError(f"unknown block type {kind!r}")
            return cls(dict(raw))

        def to_dict(self) -> dict[str, Any]:
            return self.fields

    @dataclass
    class Call:
        name: str
        arguments: dict[str, Any]
        id: str | None = None

        @classmethod
        def from_dict(cls, raw: dict[str, Any]) -> Call:
            return cls(name=raw["name"], arguments=dict(raw["arguments"]), id=raw.get("id"))

        def to_dict(self) -> dict[str, Any]:
            out: dict[str, Any] = {} if self.id is None else {"id": self.id}
            out["name"] = self.name
            out["arguments"] = self.arguments
            return out

    @dataclass
    class Thinking:
        text: str = ""
        signature: str | None = None
        redacted_data: str | None = None

        @classmethod
        def from_dict(cls, raw: dict[str, Any]) -> Thinking:
            return cls(raw.get("text", ""), raw.get("signature"), raw.get("redacted_data"))

        def to_dict(self) -> dict[str, Any]:
            out: dict[str, Any] = {"text": self.text}
            if self.signature is not None:
                out["signature"] = self.signature
            if self.redacted_data is not None:
                out["redacted_data"] = self.redacted_data
            return out

    @dataclass
    class Message:
        role: str
        content: Any = ""
        tool_calls: list[Call] = field(default_factory=list)
        thinking: list[Thinking] = field(default_factory=list)
        tool_use_id: str | None = None
        provenance: str = "internal"
        protocol: str | None = None
        items: list[Any] | None = None

        @classmethod
        def from_dict(cls, raw: dict[str, Any]) -> Message:
            role = raw["role"]
            if role == "assistant":
                return cls(
                    role,
                    raw.get("content", ""),
                    [Call.from_dict(c) for c in raw.get("tool_calls", [])],
                    [Thinking.from_dict(t) for t in raw.get("thinking", [])],
                )
            if role == "user_multimodal":
                return cls(role, [Block.from_dict(b) for b in raw["content"]])
            if role == "tool_result":
                return cls(
                    role,
                    raw["content"],
                    tool_use_id=raw["tool_use_id"],
                    provenance=raw.get("provenance", "internal"),
                )
            if role == "provider_output_items":
                return cls(role, protocol=raw["protocol"], items=list(raw["items"]))
            if role in ("system", "user"):
                return cls(role, raw["content"])
            raise ValueError(f"unknown role {role!r}")

        def to_dict(self) -> dict[str, Any]:
            if self.role == "assistant":
                out: dict[str, Any] = {
                    "role": "assistant",
                    "content": self.content,
                    "tool_calls": [c.to_dict() for c in self.tool_calls],
                }
                if self.thinking:
                    out["thinking"] = [t.to_dict() for t in self.thinking]
                return out
            if self.role == "user_multimodal":
                return {"role": self.role, "content": [b.to_dict() for b in self.content]}
            if self.role == "tool_result":
                out = {"role": self.role, "tool_use_id": self.tool_use_id, "content": self.content}
                if self.provenance != "internal":
                    out["provenance"] = self.provenance
                return out
            if self.role == "provider_output_items":
                return {"role": self.role, "protocol": self.protocol, "items": self.items}
            return {"role": self.role, "content": self.content}

    def decode(data: bytes) -> list[Message]:
        return [Message.from_dict(raw) for raw in json.loads(data)]

    def encode(value: list[Message]) -> bytes:
        return json.dumps(
            [m.to_dict() for m in value], ensure_ascii=False, separators=(",", ":")
        ).encode()

    def decode_one(data: bytes) -> Message:
        return Message.from_dict(json.loads(data))

    def encode_one(value: Message) -> bytes:
        return json.dumps(value.to_dict(), ensure_ascii=False, separators=(",", ":")).encode()

    return decode, encode, decode_one, encode_one


_BLOCK_KINDS = frozenset(
    "text image_base64 image_url video_path video_url video_base64 "
    "audio_path audio_url audio_base64".split()
)


def _msgspec_dicts() -> Peer:
    import msgspec

    decoder = msgspec.json.Decoder()
    encoder = msgspec.json.Encoder()
    return decoder.decode, encoder.encode, decoder.decode, encoder.encode


def _orjson_dicts() -> Peer:
    import orjson

    return orjson.loads, orjson.dumps, orjson.loads, orjson.dumps


BUILDERS = {
    "convtypes": _convtypes,
    "convtypes-lenient": _convtypes_lenient,
    "bare-msgspec": _bare,
    "pydantic-v2": _pydantic,
    "stdlib-json": _stdlib,
    "msgspec-dicts": _msgspec_dicts,
    "orjson-dicts": _orjson_dicts,
}


def load(name: str) -> Peer:
    return BUILDERS[name]()
