"""Every kind the Chat Completions API names, and what this dialect reads it as.

Blocks are the entries of a reply message's ``tool_calls`` (by ``type``)
and ``annotations``; deltas the streamed ``tool_calls`` entries. What is
not a convtypes type is :data:`KEPT`: the message is kept as an
``openai-chat`` item and goes back as it came, less what the API takes no
input for (``left_out`` names it). tests/test_keepup.py holds this table to
the installed ``openai`` SDK (see convtypes.dialects._kinds).
"""

from __future__ import annotations

from typing import Final

from .._kinds import KEPT, Table

__all__ = ["KINDS"]

KINDS: Final[dict[str, Table]] = {
    "block": {
        "function": "ToolCall",
        "custom": "ToolCall (arguments {'input': the text}), kept as it came",
        "url_citation": KEPT,
    },
    "event": {},
    "delta": {
        "function": "ToolCallStart, ToolCallDelta",
    },
    "stop_reason": {
        "stop": "end_turn",
        "tool_calls": "tool_use",
        "function_call": "tool_use",
        "length": "max_tokens",
        "content_filter": "content_filter",
    },
    "role": {
        "system": "SystemMessage",
        "user": "UserMessage",
        "assistant": "AssistantMessage",
        "tool": "ToolResultMessage",
        # Not written: a system message goes as "system", a result as "tool".
        "developer": "SystemMessage (sent as system)",
        "function": "ToolResultMessage (sent as tool)",
    },
}
