"""Every kind the Messages API names, and what this dialect reads it as.

Blocks are content blocks of a reply (GA and beta); events the raw stream
events, and deltas what a ``content_block_delta`` carries. What is not a
convtypes type is :data:`KEPT`: the reply's content array is kept as an
``anthropic`` item and goes back as it came. tests/test_keepup.py holds
this table to the installed ``anthropic`` SDK (see convtypes.dialects._kinds).
"""

from __future__ import annotations

from typing import Final

from .._kinds import KEPT, Table

__all__ = ["KINDS"]

KINDS: Final[dict[str, Table]] = {
    "block": {
        "text": "AssistantMessage.content",
        "thinking": "ThinkingBlock",
        "redacted_thinking": "ThinkingBlock",
        "tool_use": "ToolCall",
        "server_tool_use": KEPT,
        "web_search_tool_result": KEPT,
        "web_fetch_tool_result": KEPT,
        "advisor_tool_result": KEPT,
        "code_execution_tool_result": KEPT,
        "bash_code_execution_tool_result": KEPT,
        "text_editor_code_execution_tool_result": KEPT,
        "tool_search_tool_result": KEPT,
        "mcp_tool_use": KEPT,
        "mcp_tool_result": KEPT,
        "mcp_tool_listing": KEPT,
        "container_upload": KEPT,
        "compaction": KEPT,
        "fallback": KEPT,
    },
    "event": {
        "message_start": "Reply (id, model, usage)",
        "content_block_start": "the block it opens",
        "content_block_delta": "the delta it carries",
        "content_block_stop": "the block it closes",
        "message_delta": "Reply (stop reason, usage)",
        "message_stop": "Accumulator.finished",
    },
    "delta": {
        "text_delta": "TextDelta",
        "thinking_delta": "ThinkingDelta",
        "signature_delta": "ThinkingBlock.signature",
        "input_json_delta": "ToolCallDelta",
        "citations_delta": KEPT,
        "compaction_delta": KEPT,
    },
    "stop_reason": {
        "end_turn": "end_turn",
        "tool_use": "tool_use",
        "max_tokens": "max_tokens",
        "model_context_window_exceeded": "max_tokens",
        "stop_sequence": "stop_sequence",
        "pause_turn": "pause_turn",
        "refusal": "refusal",
        "compaction": "pause_turn",
    },
    "role": {
        "user": "UserMessage, ToolResultMessage",
        "assistant": "AssistantMessage",
        "system": "SystemMessage",
    },
}
