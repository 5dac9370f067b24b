"""Build an Anthropic Messages API request body from a convtypes transcript.

An example of what a backend does with the types; the tests check its output
against the official ``anthropic`` SDK's request types. Run it to print the
body for ``transcripts/agent-session.json``:

    python examples/replay_anthropic.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import convtypes as ct


# The image types the Messages API takes inline.
IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})


def _content_block(block: ct.ContentBlock) -> dict[str, Any]:
    match block:
        case ct.TextBlock(text=text):
            return {"type": "text", "text": text}
        case ct.ImageBase64Block(data=data, media_type=media_type) if media_type in IMAGE_TYPES:
            source = {"type": "base64", "media_type": media_type, "data": data}
            return {"type": "image", "source": source}
        case ct.ImageBase64Block(media_type=media_type):
            return {"type": "text", "text": f"[{media_type or 'unknown'} image not supported]"}
        case ct.ImageUrlBlock(url=url):
            return {"type": "image", "source": {"type": "url", "url": url}}
        case _:
            # Video and audio have no Messages API block: say so in words
            # rather than drop the user's input silently.
            kind = "video" if block.is_video() else "audio"
            return {"type": "text", "text": f"[{kind} attachment not supported by this provider]"}


def _assistant_blocks(message: ct.AssistantMessage) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    # Thinking goes back first and exactly as it came, or the API refuses it.
    for thought in message.thinking:
        if thought.redacted_data is not None:
            blocks.append({"type": "redacted_thinking", "data": thought.redacted_data})
        else:
            blocks.append(
                {"type": "thinking", "thinking": thought.text, "signature": thought.signature or ""}
            )
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    for position, call in enumerate(message.tool_calls):
        blocks.append(
            {
                "type": "tool_use",
                "id": call.id or ct.positional_call_id(position),
                "name": call.name,
                "input": call.arguments,
            }
        )
    return blocks


def build_request(
    messages: list[ct.Message], model: str = "claude-sonnet-4-5", max_tokens: int = 1024
) -> dict[str, Any]:
    """The JSON body of a ``POST /v1/messages`` call replaying ``messages``."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        # The API wants user and assistant turns to alternate: merge runs.
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})

    for message in messages:
        match message:
            case ct.SystemMessage(content=text):
                system.append(text)
            case ct.UserMessage(content=text):
                add("user", [{"type": "text", "text": text}])
            case ct.UserMultimodalMessage(content=blocks):
                add("user", [_content_block(block) for block in blocks])
            case ct.AssistantMessage():
                add("assistant", _assistant_blocks(message))
            case ct.ToolResultMessage(tool_use_id=call_id, content=text, provenance=provenance):
                if provenance.is_external():
                    text = ct.fence_external(text)
                add("user", [{"type": "tool_result", "tool_use_id": call_id, "content": text}])
            case ct.ProviderOutputItemsMessage():
                pass  # another provider's opaque state: nothing to send here
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens, "messages": turns}
    if system:
        body["system"] = "\n\n".join(system)
    return body


if __name__ == "__main__":
    path = Path(__file__).parent / "transcripts" / "agent-session.json"
    transcript = ct.decode_messages(path.read_bytes())
    json.dump(build_request(transcript), sys.stdout, indent=2, ensure_ascii=False)
    print()
