"""Every kind the Mistral chat API names, and what this dialect reads it as.

Blocks are the content chunks of a reply message (``ContentChunk``), and
its tool calls; deltas the chunks a stream's ``DeltaMessage`` carries.
What is not a convtypes type is :data:`KEPT`: the message is kept as a
``mistral`` item and goes back as it came. tests/test_keepup.py holds this
table to the installed ``mistralai`` SDK (see convtypes.dialects._kinds).
"""

from __future__ import annotations

from typing import Final

from .._kinds import KEPT, Table

__all__ = ["KINDS"]

KINDS: Final[dict[str, Table]] = {
    "block": {
        "text": "AssistantMessage.content",
        "tool_call": "ToolCall",
        "thinking": "ThinkingBlock",
        "image_url": KEPT,
        "document_url": KEPT,
        "reference": KEPT,
        "file": KEPT,
        "input_audio": KEPT,
        "resource": KEPT,
        "resource_link": KEPT,
    },
    "event": {},
    "delta": {
        "text": "TextDelta",
        "thinking": "ThinkingDelta",
        "image_url": KEPT,
        "document_url": KEPT,
        "reference": KEPT,
        "file": KEPT,
        "input_audio": KEPT,
        "resource": KEPT,
        "resource_link": KEPT,
    },
    "stop_reason": {
        "stop": "end_turn",
        "tool_calls": "tool_use",
        "length": "max_tokens",
        "model_length": "max_tokens",
        "error": "other",
    },
    "role": {
        "system": "SystemMessage",
        "user": "UserMessage",
        "assistant": "AssistantMessage",
        "tool": "ToolResultMessage",
    },
}
