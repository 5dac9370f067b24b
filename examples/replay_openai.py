"""Build an OpenAI Responses API ``input`` list from a convtypes transcript.

The conversion is ``convtypes.dialects.openai_responses.to_request``.
Provider output items (reasoning with encrypted content, web search
calls...) go back verbatim and in place, which keeps the provider's state
across turns. The session's audio attachment has no input part in the
Responses API; ``unsupported="note"`` sends a note in its place rather than
raising ``UnsupportedContent``.

    python examples/replay_openai.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import convtypes as ct
from convtypes.dialects import openai_responses


def build_input(messages: list[ct.Message]) -> list[dict[str, Any]]:
    """The ``input`` list of a ``POST /v1/responses`` call replaying ``messages``."""
    items: list[dict[str, Any]] = openai_responses.to_request(messages, unsupported="note")["input"]
    return items


if __name__ == "__main__":
    path = Path(__file__).parent / "transcripts" / "agent-session.json"
    transcript = ct.decode_messages(path.read_bytes())
    json.dump(build_input(transcript), sys.stdout, indent=2, ensure_ascii=False)
    print()
