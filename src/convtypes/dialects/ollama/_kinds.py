"""Every kind Ollama's chat API names, and what this dialect reads it as.

The ``ollama`` package types a message's role and a reply's
``done_reason`` as plain strings, so the kinds it names are the fields of a
reply's ``Message``. What is not a convtypes type is :data:`KEPT`: the
message is kept as an ``ollama`` item and goes back as it came.
tests/test_keepup.py holds this table to the installed ``ollama`` package
(see convtypes.dialects._kinds).
"""

from __future__ import annotations

from typing import Final

from .._kinds import KEPT, Table

__all__ = ["KINDS"]

KINDS: Final[dict[str, Table]] = {
    "block": {
        "content": "AssistantMessage.content",
        "thinking": "ThinkingBlock",
        "tool_calls": "ToolCall",
        "images": KEPT,
        "tool_name": KEPT,
    },
    "event": {},
    "delta": {},
    "stop_reason": {
        "stop": "end_turn",
        "length": "max_tokens",
    },
    "role": {
        "system": "SystemMessage",
        "user": "UserMessage",
        "assistant": "AssistantMessage",
        "tool": "ToolResultMessage",
    },
}
