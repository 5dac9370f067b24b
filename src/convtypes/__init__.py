"""convtypes: the wire form of an LLM conversation.

Messages, content blocks, tool calls and thinking blocks as frozen msgspec
Structs that read and write the same JSON bytes as the reference crate and
are checked when built; the provenance mark for untrusted tool output and the
fence that shows it in a prompt; and one codec whose every failure is a
:class:`WireError` with a JSON path.
"""

from ._address import address, canonical
from ._calls import close_open_calls, open_calls
from ._codec import (
    LenientMessage,
    decode,
    decode_lenient_message,
    decode_lenient_messages,
    decode_message,
    decode_messages,
    enc_hook,
    encode,
    unknown_fields,
)
from ._content import (
    AudioBase64Block,
    AudioPathBlock,
    AudioUrlBlock,
    ContentBlock,
    ImageBase64Block,
    ImageUrlBlock,
    TextBlock,
    VideoBase64Block,
    VideoPathBlock,
    VideoUrlBlock,
)
from ._conversation import Problem, check_conversation, positional_call_id
from ._errors import MAX_DEPTH, TornLineError, WireError
from ._fence import EXTERNAL_CLOSE, EXTERNAL_OPEN, fence_external
from ._files import append_jsonl, iter_jsonl, load_transcript, repair_jsonl, save_transcript
from ._jsonvalue import JsonValue
from ._messages import (
    AssistantMessage,
    LenientContentBlock,
    Message,
    ProviderOutputItemsMessage,
    SystemMessage,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from ._pending import PendingCall
from ._provenance import LenientProvenance, Provenance, UnknownProvenance
from ._replace import replace
from ._trim import TrimError, estimate_tokens, trim
from ._unknown import UnknownBlock, UnknownMessage

__version__ = "0.2.0"

__all__ = [
    "EXTERNAL_CLOSE",
    "EXTERNAL_OPEN",
    "MAX_DEPTH",
    "AssistantMessage",
    "AudioBase64Block",
    "AudioPathBlock",
    "AudioUrlBlock",
    "ContentBlock",
    "ImageBase64Block",
    "ImageUrlBlock",
    "JsonValue",
    "LenientContentBlock",
    "LenientMessage",
    "LenientProvenance",
    "Message",
    "PendingCall",
    "Problem",
    "Provenance",
    "ProviderOutputItemsMessage",
    "SystemMessage",
    "TextBlock",
    "ThinkingBlock",
    "ToolCall",
    "ToolResultMessage",
    "TornLineError",
    "TrimError",
    "UnknownBlock",
    "UnknownMessage",
    "UnknownProvenance",
    "UserMessage",
    "UserMultimodalMessage",
    "VideoBase64Block",
    "VideoPathBlock",
    "VideoUrlBlock",
    "WireError",
    "address",
    "append_jsonl",
    "canonical",
    "check_conversation",
    "close_open_calls",
    "decode",
    "decode_lenient_message",
    "decode_lenient_messages",
    "decode_message",
    "decode_messages",
    "enc_hook",
    "encode",
    "estimate_tokens",
    "fence_external",
    "iter_jsonl",
    "load_transcript",
    "open_calls",
    "positional_call_id",
    "repair_jsonl",
    "replace",
    "save_transcript",
    "trim",
    "unknown_fields",
]
