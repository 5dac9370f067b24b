"""Build an Anthropic Messages API request body from a convtypes transcript.

The conversion is ``convtypes.dialects.anthropic.to_request``; a backend adds
the model, the token limit and its tools. The session's audio attachment has
no place in the Messages API: by default that raises ``UnsupportedContent``,
and here ``unsupported="note"`` sends a short note in its place instead.
Run it to print the body for ``transcripts/agent-session.json``:

    python examples/replay_anthropic.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import convtypes as ct
from convtypes.dialects import anthropic


def build_request(
    messages: list[ct.Message], model: str = "claude-sonnet-4-6", max_tokens: int = 1024
) -> dict[str, Any]:
    """The JSON body of a ``POST /v1/messages`` call replaying ``messages``."""
    conversation = anthropic.to_request(messages, unsupported="note")
    return {"model": model, "max_tokens": max_tokens, **conversation}


if __name__ == "__main__":
    path = Path(__file__).parent / "transcripts" / "agent-session.json"
    transcript = ct.decode_messages(path.read_bytes())
    json.dump(build_request(transcript), sys.stdout, indent=2, ensure_ascii=False)
    print()
