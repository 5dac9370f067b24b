"""Provider dialects: a transcript to a request, a response or stream back to messages.

One module per provider API, each with the same names:

- ``to_request(messages, *, fence_external=True, unsupported="raise",
  unknown="raise")``: the conversation part of a request body, as plain
  JSON-ready dicts (``unknown="skip"`` leaves out the messages of a role this
  version does not know);
- ``tools_to_request(tools, *, choice="auto")``: the request fields that
  offer a list of :class:`ToolSpec` to the model, with the tool choice;
- ``from_response(response)``: the messages to append to the transcript, from
  the response as a dict (the REST JSON) or as the official SDK's object;
- ``read_reply(response)``: the same messages in a :class:`Reply`, with the
  stop reason, usage, model and id;
- ``Accumulator``: ``feed(event)`` for each streamed event, which returns the
  event's deltas (:class:`TextDelta`, :class:`ThinkingDelta`,
  :class:`ToolCallStart`, :class:`ToolCallDelta`); ``partial()`` at any
  point; then ``result()`` and ``reply()``, which equal ``from_response``
  and ``read_reply`` of the same response.

For bad input, ``from_response`` and ``read_reply`` raise only
``ResponseError``, and the ``Accumulator`` only ``StreamError``; an error no
check foresaw is wrapped in one, with the original as ``__cause__``.
``to_request`` raises ``DialectError`` subclasses for a transcript it cannot
send, and ``tools_to_request`` raises ``ToolSchemaError`` for a tool it
cannot offer.

:class:`Dialect` is that list as a type, which every dialect module
satisfies: annotate ``dialect: Dialect`` and pass the module.

The modules are :mod:`~convtypes.dialects.anthropic`,
:mod:`~convtypes.dialects.openai_chat`,
:mod:`~convtypes.dialects.openai_responses`,
:mod:`~convtypes.dialects.gemini`, :mod:`~convtypes.dialects.ollama`,
:mod:`~convtypes.dialects.bedrock`, :mod:`~convtypes.dialects.mistral` and
:mod:`~convtypes.dialects.cohere`.
They need nothing but convtypes and the standard library; ``import
convtypes`` does not import them.
"""

from ._cache import Cache
from ._errors import (
    DialectError,
    ResponseError,
    StreamError,
    UnansweredCall,
    UnmatchedResult,
    Unsupported,
    UnsupportedContent,
)
from ._left_out import LEFT_OUT_KINDS, LeftOut, LeftOutKind
from ._newer import Unknown
from ._protocol import Dialect, StreamAccumulator
from ._reply import (
    STOP_REASONS,
    Delta,
    PendingCall,
    Reply,
    StopReason,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStart,
    Usage,
)
from ._tools import ToolChoice, ToolSchemaError, ToolSpec

__all__ = [
    "LEFT_OUT_KINDS",
    "STOP_REASONS",
    "Cache",
    "Delta",
    "Dialect",
    "DialectError",
    "LeftOut",
    "LeftOutKind",
    "PendingCall",
    "Reply",
    "ResponseError",
    "StopReason",
    "StreamAccumulator",
    "StreamError",
    "TextDelta",
    "ThinkingDelta",
    "ToolCallDelta",
    "ToolCallStart",
    "ToolChoice",
    "ToolSchemaError",
    "ToolSpec",
    "UnansweredCall",
    "Unknown",
    "UnmatchedResult",
    "Unsupported",
    "UnsupportedContent",
    "Usage",
]
