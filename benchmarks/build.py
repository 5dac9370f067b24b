"""Building a transcript from Python values: what construction checks cost.

    python benchmarks/build.py [--quick]

A backend builds messages in Python, field by field. Each peer here gets the
same plain values (the seeded corpus, read as dicts) and calls its own
constructors with keywords, nested values first:

- convtypes: every field checked and normalised as it is built;
- convtypes before: the same, as of the commit before this release
  (``_baseline.py``), to show what this release's checks cost;
- bare-msgspec: the same wire types as plain msgspec Structs, no checks;
- pydantic-v2: models that validate on construction;
- dataclasses: plain dataclasses, no checks.

All run in one process, taking turns within each round; a ratio is the
median of the per-round ratios against convtypes, with the range.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402

Build = Callable[[list[dict[str, Any]]], list[Any]]


def _blocks_by_type(module: Any, names: dict[str, str]) -> dict[str, Any]:
    return {tag: getattr(module, name) for tag, name in names.items()}


_BLOCK_NAMES = {
    "text": "TextBlock",
    "image_base64": "ImageBase64Block",
    "image_url": "ImageUrlBlock",
    "video_path": "VideoPathBlock",
    "video_url": "VideoUrlBlock",
    "video_base64": "VideoBase64Block",
    "audio_path": "AudioPathBlock",
    "audio_url": "AudioUrlBlock",
    "audio_base64": "AudioBase64Block",
}


def _builder(blocks: dict[str, Any], roles: dict[str, Any], call: Any, thinking: Any) -> Build:
    """A transcript builder over one peer's classes (keyword construction)."""

    def block(raw: dict[str, Any]) -> Any:
        fields = dict(raw)
        return blocks[fields.pop("type")](**fields)

    def message(raw: dict[str, Any]) -> Any:
        fields = dict(raw)
        role = fields.pop("role")
        if role == "user_multimodal":
            fields["content"] = [block(b) for b in fields["content"]]
        elif role == "assistant":
            fields["tool_calls"] = [call(**c) for c in fields.get("tool_calls", ())]
            fields["thinking"] = [thinking(**t) for t in fields.get("thinking", ())]
        return roles[role](**fields)

    def build(raw_messages: list[dict[str, Any]]) -> list[Any]:
        return [message(raw) for raw in raw_messages]

    return build


def convtypes_builder(package: str = "convtypes") -> Build:
    import importlib

    ct: Any = importlib.import_module(package)
    roles = {
        "system": ct.SystemMessage,
        "user": ct.UserMessage,
        "user_multimodal": ct.UserMultimodalMessage,
        "assistant": ct.AssistantMessage,
        "tool_result": ct.ToolResultMessage,
        "provider_output_items": ct.ProviderOutputItemsMessage,
    }
    return _builder(_blocks_by_type(ct, _BLOCK_NAMES), roles, ct.ToolCall, ct.ThinkingBlock)


def bare_builder() -> Build:
    import bare

    blocks = {
        "text": bare.Text,
        "image_base64": bare.ImageB64,
        "image_url": bare.ImageUrl,
        "video_path": bare.VideoPath,
        "video_url": bare.VideoUrl,
        "video_base64": bare.VideoB64,
        "audio_path": bare.AudioPath,
        "audio_url": bare.AudioUrl,
        "audio_base64": bare.AudioB64,
    }
    roles = {
        "system": bare.System,
        "user": bare.User,
        "user_multimodal": bare.UserMM,
        "assistant": bare.Assistant,
        "tool_result": bare.ToolResult,
        "provider_output_items": bare.Items,
    }
    return _builder(blocks, roles, bare.Call, bare.Thinking)


def pydantic_builder() -> Build:
    from pydantic import BaseModel, Field

    u32 = Field(default=None, ge=0, le=2**32 - 1)

    class Text(BaseModel):
        text: str

    class ImageB64(BaseModel):
        data: str
        media_type: str

    class ImageUrl(BaseModel):
        url: str
        detail: str = "auto"

    class VideoPath(BaseModel):
        path: str
        fps: float | None = None
        max_frames: int | None = u32

    class VideoUrl(BaseModel):
        url: str
        fps: float | None = None
        max_frames: int | None = u32

    class VideoB64(BaseModel):
        data: str
        media_type: str
        fps: float | None = None
        max_frames: int | None = u32

    class AudioPath(BaseModel):
        path: str
        sample_rate: int | None = u32

    class AudioUrl(BaseModel):
        url: str
        sample_rate: int | None = u32

    class AudioB64(BaseModel):
        data: str
        media_type: str
        sample_rate: int | None = u32

    Block = Any  # the builder makes the right class; validate it as given

    class Call(BaseModel):
        id: str | None = None
        name: str
        arguments: dict[str, Any]

    class Thinking(BaseModel):
        text: str = ""
        signature: str | None = None
        redacted_data: str | None = None

    class System(BaseModel):
        content: str

    class User(BaseModel):
        content: str

    class UserMM(BaseModel):
        content: list[Block]

    class Assistant(BaseModel):
        content: str = ""
        tool_calls: list[Call] = []
        thinking: list[Thinking] = []

    class ToolResult(BaseModel):
        tool_use_id: str
        content: str
        provenance: Literal["internal", "external"] = "internal"

    class Items(BaseModel):
        protocol: str
        items: list[Any]

    blocks = {
        "text": Text,
        "image_base64": ImageB64,
        "image_url": ImageUrl,
        "video_path": VideoPath,
        "video_url": VideoUrl,
        "video_base64": VideoB64,
        "audio_path": AudioPath,
        "audio_url": AudioUrl,
        "audio_base64": AudioB64,
    }
    roles = {
        "system": System,
        "user": User,
        "user_multimodal": UserMM,
        "assistant": Assistant,
        "tool_result": ToolResult,
        "provider_output_items": Items,
    }
    return _builder(blocks, roles, Call, Thinking)


def dataclasses_builder() -> Build:
    def make(class_name: str, /, **annotations: Any) -> Any:
        from dataclasses import make_dataclass

        fields = []
        for key, default in annotations.items():
            if default is _REQUIRED:
                fields.append((key, Any))
            elif isinstance(default, list):
                fields.append((key, Any, field(default_factory=list)))
            else:
                fields.append((key, Any, field(default=default)))
        return make_dataclass(class_name, fields, frozen=True, kw_only=True, slots=True)

    blocks = {
        "text": make("Text", text=_REQUIRED),
        "image_base64": make("ImageB64", data=_REQUIRED, media_type=_REQUIRED),
        "image_url": make("ImageUrl", url=_REQUIRED, detail="auto"),
        "video_path": make("VideoPath", path=_REQUIRED, fps=None, max_frames=None),
        "video_url": make("VideoUrl", url=_REQUIRED, fps=None, max_frames=None),
        "video_base64": make(
            "VideoB64", data=_REQUIRED, media_type=_REQUIRED, fps=None, max_frames=None
        ),
        "audio_path": make("AudioPath", path=_REQUIRED, sample_rate=None),
        "audio_url": make("AudioUrl", url=_REQUIRED, sample_rate=None),
        "audio_base64": make("AudioB64", data=_REQUIRED, media_type=_REQUIRED, sample_rate=None),
    }
    roles = {
        "system": make("System", content=_REQUIRED),
        "user": make("User", content=_REQUIRED),
        "user_multimodal": make("UserMM", content=_REQUIRED),
        "assistant": make("Assistant", content="", tool_calls=[], thinking=[]),
        "tool_result": make(
            "ToolResult", tool_use_id=_REQUIRED, content=_REQUIRED, provenance="internal"
        ),
        "provider_output_items": make("Items", protocol=_REQUIRED, items=_REQUIRED),
    }
    call = make("Call", id=None, name=_REQUIRED, arguments=_REQUIRED)
    thinking = make("Thinking", text="", signature=None, redacted_data=None)
    return _builder(blocks, roles, call, thinking)


_REQUIRED = object()


def before_builder() -> Build:
    """convtypes as it was before this release (see _baseline.py)."""
    import _baseline

    if _baseline.load() is None:
        raise ImportError("no git history here")
    return convtypes_builder("convtypes_before")


PEERS: dict[str, Callable[[], Build]] = {
    "convtypes": convtypes_builder,
    "convtypes before": before_builder,
    "bare-msgspec": bare_builder,
    "pydantic-v2": pydantic_builder,
    "dataclasses": dataclasses_builder,
}


@dataclass
class Result:
    messages: int
    seconds: dict[str, list[float]]


def measure(raw: list[dict[str, Any]], rounds: int, repeats: int) -> Result:
    builders = {}
    for name, make in PEERS.items():
        try:
            builders[name] = make()
        except ImportError:
            continue
    seconds: dict[str, list[float]] = {name: [] for name in builders}
    for _ in range(rounds):
        for name, build in builders.items():
            best = float("inf")
            for _ in range(repeats):
                start = time.perf_counter()
                build(raw)
                best = min(best, time.perf_counter() - start)
            seconds[name].append(best)
    return Result(len(raw), seconds)


def table(result: Result) -> str:
    base = result.seconds["convtypes"]
    lines = [
        f"Building {result.messages:,} messages from Python values "
        f"(median of {len(base)} interleaved rounds):",
        "",
        "| peer | µs per message | time vs convtypes |",
        "| --- | ---: | ---: |",
    ]
    for name, times in result.seconds.items():
        ratios = [t / b for t, b in zip(times, base, strict=True)]
        per = statistics.median(times) / result.messages * 1e6
        spread = f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}\N{EN DASH}{max(ratios):.2f})"
        lines.append(f"| {name} | {per:.2f} | {spread} |")
    return "\n".join(lines)


def run(quick: bool) -> str:
    """The build table for the oplog corpus, as markdown."""
    import msgspec

    with tempfile.TemporaryDirectory() as tmp:
        paths = corpus.write(Path(tmp), {}, 2_000 if quick else 20_000)
        raw = [msgspec.json.decode(line) for line in paths["oplog"].read_bytes().splitlines()]
    return table(measure(raw, rounds=1 if quick else 7, repeats=1 if quick else 3))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a small corpus, one round")
    print(run(parser.parse_args().quick))


if __name__ == "__main__":
    main()
