"""Amazon Bedrock's Converse and ConverseStream APIs, in the shapes boto3 speaks.

``to_request`` builds the ``messages`` and ``system`` of a ``converse`` (or
``converse_stream``) call and ``tools_to_request`` its ``toolConfig``, as
the Python values boto3's ``bedrock-runtime`` client takes: media and
redacted reasoning as ``bytes``. The caller adds ``modelId``,
``inferenceConfig``, and what only some models read
(``additionalModelRequestFields``: a reasoning budget, ``top_k``), which
never goes into the messages. ``from_response``, ``read_reply`` and
:class:`Accumulator` read what the client returns: the ``converse``
response dict, or the events of ``converse_stream``'s ``stream``, each a
dict keyed by the event's name. The REST JSON reads the same, its base64
text standing where boto3 gives bytes.

What a reply becomes: an ``AssistantMessage`` with the text, the reasoning
(``reasoningText`` with its ``signature``, or ``redactedContent`` as base64
text in ``redacted_data``) and the client tool calls (``toolUse``). When
the content holds more than that message can say, so that replaying the
message would send something else than what came, the blocks as sent are
kept first, as a ``ProviderOutputItemsMessage`` of protocol
``bedrock-converse``: a server tool's ``toolUse`` and its ``toolResult``,
``citationsContent``, images, blocks in an order the flat message cannot
keep, and block types this version does not know. Bytes in a block are kept
as base64 text, as the REST JSON spells them. Text blocks next to each
other join with nothing between them (a cited passage is part of the
text); texts that other blocks separate join with a blank line. A
``toolUse`` cut off at the token limit (the last block of a reply that
stopped at ``max_tokens`` or ``model_context_window_exceeded``) is not a
``ToolCall``: it stays in the items and does not go back.

Stop reasons by meaning: ``end_turn``, ``tool_use``, ``max_tokens`` and
``stop_sequence`` are themselves; ``model_context_window_exceeded`` is
``"max_tokens"``; ``guardrail_intervened`` and ``content_filtered`` are
``"content_filter"``; anything else (``malformed_tool_use``...) is
``"other"``. Usage: Bedrock's ``inputTokens`` counts only the prompt tokens
neither read from nor written to the cache, so ``Usage.input_tokens`` is
``inputTokens + cacheReadInputTokens + cacheWriteInputTokens``; the last two
are ``cache_read_tokens`` and ``cache_write_tokens``. ``model`` is the model
a prompt router chose (``trace.promptRouter.invokedModelId``), and ``id``
the request id boto3 puts in ``ResponseMetadata``; a stream's events carry
neither id nor model name.

What changes on the way out:

- Each system message before the first turn is a ``system`` text block;
  one after it is a system-role message where it stands; blank ones are
  left out.
- Turns alternate: consecutive user messages and tool results become one
  user turn, results first; consecutive assistant messages (and
  ``bedrock-converse`` items) one assistant turn, its reasoning first. The
  first turn must be a user turn, and a transcript with no turn at all is
  refused: ``DialectError``.
- ``bedrock-converse`` items go back verbatim, in place and once, their
  base64 text as bytes, and the ``AssistantMessage`` right after them sends
  only what they do not carry. Left out of them: blank text, reasoning
  without a signature, a ``cachePoint`` an older version kept, a block boto3
  could not read (``SDK_UNKNOWN_MEMBER``), a client ``toolUse`` the
  ``AssistantMessage`` after them does not hold (one cut off), and a server
  tool's ``toolUse`` whose ``toolResult`` never came. Items of other
  protocols are dropped.
- Reasoning goes back verbatim: signed as ``reasoningText``, redacted as
  ``redactedContent``. Reasoning without a signature (another provider's,
  DeepSeek's) is left out, as the API refuses it; so is an assistant turn
  that would hold nothing but reasoning, which newer models refuse.
- Blank text is left out, in every turn; a turn left with nothing is
  dropped. A tool result goes as ``[{"text": ...}]`` without a ``status``.
- Tool-call ids are made unique and fit ``[A-Za-z0-9_.:-]{1,64}``; a tool
  name the API refuses is spelled with ``_`` for each character it refuses,
  cut to 64. A call without its result by the next user message raises
  ``UnansweredCall``; calls open at the end are sent.
- Images (JPEG, PNG, GIF, WebP), video and audio go as bytes (base64
  decoded, a ``data:`` URL too) or as an ``s3Location`` (an ``s3://`` URL,
  its format read from the name); the API fetches no other URL. An image's
  ``detail``, a video's ``fps`` and ``max_frames`` and an audio block's
  ``sample_rate`` have no field. What cannot go raises
  ``UnsupportedContent`` (or becomes a note with ``unsupported="note"``).

:func:`left_out` names what a request leaves out of a transcript.
"""

from __future__ import annotations

# In the order the reference shows them (its members_order is the source's). The
# names imported "as" themselves are not in __all__; they import as they did.
# ruff: noqa: I001
from ._wire import DIALECT as DIALECT
from ._wire import PROTOCOL
from ._request import to_request
from ._left_out import left_out
from ._tools import tools_to_request
from ._reply import from_response
from ._reply import read_reply
from ._stream import Accumulator

__all__ = [
    "PROTOCOL",
    "Accumulator",
    "from_response",
    "left_out",
    "read_reply",
    "to_request",
    "tools_to_request",
]
