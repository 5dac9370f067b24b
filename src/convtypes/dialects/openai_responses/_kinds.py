"""Every kind the Responses API names, and what this dialect reads it as.

Blocks are the output items of a response, and the content parts of its
``message`` item; events the stream events. Stop reasons are the
response's ``status``, and ``incomplete:<reason>`` for each
``incomplete_details.reason``. Every output item is :data:`KEPT`: the items
are kept as ``openai-responses`` items and go back as they came, and the
``AssistantMessage`` after them holds what convtypes types (the text, the
calls, the reasoning). tests/test_keepup.py holds this table to the
installed ``openai`` SDK (see convtypes.dialects._kinds).
"""

from __future__ import annotations

from typing import Final

from .._kinds import ERROR, KEPT, Table

__all__ = ["KINDS"]

_READ: Final = "Reply (its content reaches the reply with response.output_item.done)"

KINDS: Final[dict[str, Table]] = {
    "block": {
        "message": "AssistantMessage.content",
        "output_text": "AssistantMessage.content",
        "refusal": "AssistantMessage.content",
        "function_call": "ToolCall",
        "reasoning": "ThinkingBlock",
        "function_call_output": KEPT,
        "custom_tool_call": "ToolCall (arguments {'input': the text})",
        "custom_tool_call_output": KEPT,
        "file_search_call": KEPT,
        "web_search_call": KEPT,
        "computer_call": KEPT,
        "computer_call_output": KEPT,
        "program": KEPT,
        "program_output": KEPT,
        "tool_search_call": KEPT,
        "tool_search_output": KEPT,
        "additional_tools": KEPT,
        "compaction": KEPT,
        "image_generation_call": KEPT,
        "code_interpreter_call": KEPT,
        "local_shell_call": KEPT,
        "local_shell_call_output": KEPT,
        "shell_call": KEPT,
        "shell_call_output": KEPT,
        "apply_patch_call": KEPT,
        "apply_patch_call_output": KEPT,
        "mcp_call": KEPT,
        "mcp_list_tools": KEPT,
        "mcp_approval_request": KEPT,
        "mcp_approval_response": KEPT,
    },
    "event": {
        "response.created": "Reply (id, model)",
        "response.in_progress": _READ,
        "response.queued": _READ,
        "response.completed": "Reply (output, status, usage)",
        "response.audio.delta": "Reply.details['audio']['data']",
        "response.audio.done": _READ,
        "response.audio.transcript.delta": "Reply.details['audio']['transcript']",
        "response.audio.transcript.done": _READ,
        "response.incomplete": "Reply (output, incomplete_details, usage)",
        "response.failed": ERROR,
        "error": ERROR,
        "response.output_item.added": "the item it opens",
        "response.output_item.done": "the item, whole",
        "response.content_part.added": _READ,
        "response.content_part.done": _READ,
        "response.output_text.delta": "TextDelta",
        "response.output_text.done": _READ,
        "response.output_text.annotation.added": _READ,
        "response.refusal.delta": "TextDelta",
        "response.refusal.done": _READ,
        "response.function_call_arguments.delta": "ToolCallDelta",
        "response.function_call_arguments.done": _READ,
        "response.reasoning_summary_part.added": _READ,
        "response.reasoning_summary_part.done": _READ,
        "response.reasoning_summary_text.delta": "ThinkingDelta",
        "response.reasoning_summary_text.done": _READ,
        "response.reasoning_text.delta": "ThinkingDelta",
        "response.reasoning_text.done": _READ,
        "response.custom_tool_call_input.delta": "ToolCallDelta",
        "response.custom_tool_call_input.done": _READ,
        "response.code_interpreter_call.completed": _READ,
        "response.code_interpreter_call.in_progress": _READ,
        "response.code_interpreter_call.interpreting": _READ,
        "response.code_interpreter_call_code.delta": _READ,
        "response.code_interpreter_call_code.done": _READ,
        "response.compaction.compacting": _READ,
        "response.file_search_call.completed": _READ,
        "response.file_search_call.in_progress": _READ,
        "response.file_search_call.searching": _READ,
        "response.web_search_call.completed": _READ,
        "response.web_search_call.in_progress": _READ,
        "response.web_search_call.searching": _READ,
        "response.image_generation_call.completed": _READ,
        "response.image_generation_call.generating": _READ,
        "response.image_generation_call.in_progress": _READ,
        "response.image_generation_call.partial_image": _READ,
        "response.mcp_call.completed": _READ,
        "response.mcp_call.failed": _READ,
        "response.mcp_call.in_progress": _READ,
        "response.mcp_call_arguments.delta": _READ,
        "response.mcp_call_arguments.done": _READ,
        "response.mcp_list_tools.completed": _READ,
        "response.mcp_list_tools.failed": _READ,
        "response.mcp_list_tools.in_progress": _READ,
        "response.shell_call_command.added": _READ,
        "response.shell_call_command.delta": _READ,
        "response.shell_call_command.done": _READ,
        "response.shell_call_output_content.delta": _READ,
        "response.shell_call_output_content.done": _READ,
    },
    "delta": {},
    "stop_reason": {
        "completed": "end_turn",
        "incomplete": "other",
        "incomplete:max_output_tokens": "max_tokens",
        "incomplete:content_filter": "content_filter",
        "incomplete:max_messages": "other",
        "incomplete:steered": "other",
        "in_progress": "other",
        "queued": "other",
        "cancelled": "other",
        "failed": ERROR,
    },
    "role": {
        "user": "UserMessage",
        "assistant": "AssistantMessage",
        "system": "SystemMessage",
        "developer": "SystemMessage (sent as system)",
    },
}
