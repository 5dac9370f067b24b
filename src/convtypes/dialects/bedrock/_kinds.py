"""Every kind the Converse API names, and what this dialect reads it as.

Blocks are ``ContentBlock`` members; events ``ConverseStreamOutput``
members; deltas the members of ``ContentBlockStart``, ``ContentBlockDelta``
and ``ReasoningContentBlockDelta`` (``start:``, ``delta:``, ``reasoning:``).
What is not a convtypes type is :data:`KEPT`: the reply's content is kept as
a ``bedrock-converse`` item and goes back as it came. tests/test_keepup.py
holds this table to botocore's service model for ``bedrock-runtime``.
"""

from __future__ import annotations

from typing import Final

from .._kinds import ERROR, KEPT, Table

__all__ = ["KINDS"]

KINDS: Final[dict[str, Table]] = {
    "block": {
        "text": "AssistantMessage.content",
        "citationsContent": "AssistantMessage.content",
        "reasoningContent": "ThinkingBlock",
        "toolUse": "ToolCall",
        # Kept, and left out of a request (left_out says so): cache= places them.
        "cachePoint": KEPT,
        "image": KEPT,
        "document": KEPT,
        "video": KEPT,
        "audio": KEPT,
        "toolResult": KEPT,
        "guardContent": KEPT,
        "searchResult": KEPT,
        "toolAddition": KEPT,
        "toolRemoval": KEPT,
    },
    "event": {
        "messageStart": "Accumulator (the role)",
        "contentBlockStart": "the block it opens",
        "contentBlockDelta": "the delta it carries",
        "contentBlockStop": "the block it closes",
        "messageStop": "Reply (stop reason)",
        "metadata": "Reply (usage)",
        "internalServerException": ERROR,
        "modelStreamErrorException": ERROR,
        "validationException": ERROR,
        "throttlingException": ERROR,
        "serviceUnavailableException": ERROR,
    },
    "delta": {
        "start:toolUse": "ToolCallStart",
        "start:toolResult": KEPT,
        "start:image": KEPT,
        "delta:text": "TextDelta",
        "delta:toolUse": "ToolCallDelta",
        "delta:toolResult": KEPT,
        "delta:reasoningContent": "ThinkingDelta",
        "delta:citation": KEPT,
        "delta:image": KEPT,
        "reasoning:text": "ThinkingDelta",
        "reasoning:redactedContent": "ThinkingBlock.redacted_data",
        "reasoning:signature": "ThinkingBlock.signature",
    },
    "stop_reason": {
        "end_turn": "end_turn",
        "tool_use": "tool_use",
        "max_tokens": "max_tokens",
        "model_context_window_exceeded": "max_tokens",
        "stop_sequence": "stop_sequence",
        "guardrail_intervened": "content_filter",
        "content_filtered": "content_filter",
        "malformed_model_output": "other",
        "malformed_tool_use": "other",
    },
    "role": {
        "user": "UserMessage, ToolResultMessage",
        "assistant": "AssistantMessage",
        "system": "SystemMessage",
    },
}
