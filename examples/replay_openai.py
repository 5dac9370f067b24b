"""Build an OpenAI Responses API ``input`` list from a convtypes transcript.

Provider output items (reasoning with encrypted content, web search calls...)
are re-emitted verbatim, in place, which is what keeps provider-side state
across turns. The tests check the output against the official ``openai``
SDK's request types.

    python examples/replay_openai.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import convtypes as ct

PROTOCOL = "openai-responses"


def _user_content(blocks: tuple[ct.ContentBlock, ...]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for block in blocks:
        match block:
            case ct.TextBlock(text=text):
                out.append({"type": "input_text", "text": text})
            case ct.ImageBase64Block(data=data, media_type=media_type):
                url = f"data:{media_type};base64,{data}"
                out.append({"type": "input_image", "image_url": url, "detail": "auto"})
            case ct.ImageUrlBlock(url=url, detail=detail):
                level = detail if detail in ("low", "high", "auto") else "auto"
                out.append({"type": "input_image", "image_url": url, "detail": level})
            case _:
                kind = "video" if block.is_video() else "audio"
                out.append({"type": "input_text", "text": f"[{kind} attachment not supported]"})
    return out


def build_input(messages: list[ct.Message]) -> list[dict[str, Any]]:
    """The ``input`` list of a ``POST /v1/responses`` call replaying ``messages``."""
    items: list[dict[str, Any]] = []
    for message in messages:
        match message:
            case ct.SystemMessage(content=text):
                items.append({"role": "system", "content": text})
            case ct.UserMessage(content=text):
                items.append({"role": "user", "content": text})
            case ct.UserMultimodalMessage(content=blocks):
                items.append({"role": "user", "content": _user_content(blocks)})
            case ct.AssistantMessage(content=text, tool_calls=calls):
                if text:
                    items.append({"role": "assistant", "content": text})
                for position, call in enumerate(calls):
                    items.append(
                        {
                            "type": "function_call",
                            "call_id": call.id or ct.positional_call_id(position),
                            "name": call.name,
                            "arguments": json.dumps(call.arguments, ensure_ascii=False),
                        }
                    )
            case ct.ToolResultMessage(tool_use_id=call_id, content=text, provenance=provenance):
                if provenance.is_external():
                    text = ct.fence_external(text)
                items.append({"type": "function_call_output", "call_id": call_id, "output": text})
            case ct.ProviderOutputItemsMessage(protocol=protocol, items=opaque):
                if protocol == PROTOCOL:
                    items.extend(opaque)  # verbatim: the provider checks them
    return items


if __name__ == "__main__":
    path = Path(__file__).parent / "transcripts" / "agent-session.json"
    transcript = ct.decode_messages(path.read_bytes())
    json.dump(build_input(transcript), sys.stdout, indent=2, ensure_ascii=False)
    print()
