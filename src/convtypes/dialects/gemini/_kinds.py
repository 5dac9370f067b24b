"""Every kind the Gemini API names, and what this dialect reads it as.

Blocks are the fields of a ``Part`` (a part is one of them, with the
flags ``thought`` and ``thought_signature`` beside it); stop reasons the
``FinishReason`` members. What is not a convtypes type is :data:`KEPT`: the
reply's parts are kept as a ``gemini`` item and go back as they came. The
SDK types ``Content.role`` as a plain string, so it names no role; the two
the API uses are listed all the same. tests/test_keepup.py holds this table
to the installed ``google-genai`` SDK (see convtypes.dialects._kinds).
"""

from __future__ import annotations

from typing import Final

from .._kinds import KEPT, Table

__all__ = ["KINDS"]

KINDS: Final[dict[str, Table]] = {
    "block": {
        "text": "AssistantMessage.content",
        "thought": "ThinkingBlock",
        "thought_signature": "ThinkingBlock.signature, ToolCall.signature",
        "function_call": "ToolCall",
        "function_response": KEPT,
        "inline_data": KEPT,
        "file_data": KEPT,
        "executable_code": KEPT,
        "code_execution_result": KEPT,
        "tool_call": KEPT,
        "tool_response": KEPT,
        "video_metadata": KEPT,
        "media_resolution": KEPT,
        "part_metadata": KEPT,
        "audio_transcription": KEPT,
        "media_processing": KEPT,
        "speech_metadata": KEPT,
        "document_metadata": KEPT,
        "spreadsheet_metadata": KEPT,
        "audio_metadata": KEPT,
    },
    "event": {},
    "delta": {},
    "stop_reason": {
        "STOP": "end_turn",
        "MAX_TOKENS": "max_tokens",
        "SAFETY": "content_filter",
        "RECITATION": "content_filter",
        "BLOCKLIST": "content_filter",
        "PROHIBITED_CONTENT": "content_filter",
        "SPII": "content_filter",
        "IMAGE_SAFETY": "content_filter",
        "IMAGE_PROHIBITED_CONTENT": "content_filter",
        "IMAGE_RECITATION": "content_filter",
        "MODEL_ARMOR": "content_filter",
        "FINISH_REASON_UNSPECIFIED": "other",
        "LANGUAGE": "other",
        "OTHER": "other",
        "MALFORMED_FUNCTION_CALL": "other",
        "UNEXPECTED_TOOL_CALL": "other",
        "TOO_MANY_TOOL_CALLS": "other",
        "MISSING_THOUGHT_SIGNATURE": "other",
        "MALFORMED_RESPONSE": "other",
        "IMAGE_OTHER": "other",
        "NO_IMAGE": "other",
        "ESCALATION": "other",
        "PUP_LIMITED_DISABLED": "other",
        "CONTINUATION": "other",
    },
    "role": {
        "user": "UserMessage, ToolResultMessage",
        "model": "AssistantMessage",
    },
}
