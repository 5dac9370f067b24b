"""Every kind Cohere's v2 chat API names, and what this dialect reads it as.

Blocks are the content items of a reply message, and its tool calls (by
``type``); events the v2 stream events. What is not a convtypes type is
:data:`KEPT`: the message is kept as a ``cohere`` item and goes back as it
came. tests/test_keepup.py holds this table to the installed ``cohere`` SDK
(see convtypes.dialects._kinds).
"""

from __future__ import annotations

from typing import Final

from .._kinds import KEPT, Table

__all__ = ["KINDS"]

KINDS: Final[dict[str, Table]] = {
    "block": {
        "text": "AssistantMessage.content",
        "thinking": KEPT,
        "function": "ToolCall",
    },
    "event": {
        "message-start": "Reply (id)",
        "content-start": "the content item it opens",
        "content-delta": "TextDelta",
        "content-end": "the content item it closes",
        "tool-plan-delta": "TextDelta",
        "tool-call-start": "ToolCallStart",
        "tool-call-delta": "ToolCallDelta",
        "tool-call-end": "the call it closes",
        "citation-start": KEPT,
        "citation-end": "the citation it closes",
        "message-end": "Reply (stop reason, usage)",
        # Not read: the prompt as the API rendered it, for debugging; it is
        # no part of the reply, and the Accumulator says so in its docstring.
        "debug": "nothing (the rendered prompt, for debugging)",
    },
    "delta": {},
    "stop_reason": {
        "COMPLETE": "end_turn",
        "TOOL_CALL": "tool_use",
        "MAX_TOKENS": "max_tokens",
        "STOP_SEQUENCE": "stop_sequence",
        "ERROR": "other",
        "TIMEOUT": "other",
    },
    "role": {
        "system": "SystemMessage",
        "user": "UserMessage",
        "assistant": "AssistantMessage",
        "tool": "ToolResultMessage",
    },
}
