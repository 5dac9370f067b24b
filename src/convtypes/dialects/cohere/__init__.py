"""Cohere's v2 chat, as the ``cohere`` SDK sends and reads it.

``to_request`` builds ``{"messages": [...]}`` for ``ClientV2.chat`` and
``chat_stream``; ``tools_to_request`` the ``tools`` and ``tool_choice``
arguments; ``from_response``, ``read_reply`` and :class:`Accumulator` turn
a ``V2ChatResponse``, or its stream of v2 events, into messages;
``left_out`` names what a request leaves out of a transcript.

What a reply becomes: one ``AssistantMessage`` whose text is the reply's
text, or its ``tool_plan`` (what the model says it will do with its tools)
in a turn of calls; its function calls; and the thinking of Cohere's
reasoning models (``thinking`` content) as unsigned thinking blocks. When the
message holds more than that turn can say, so that replaying the turn
would send something else than what came (citations, thinking, argument
text spelled otherwise than convtypes' compact JSON, content types this
version does not know, a call cut off at the token limit), the message as
sent is kept first, as a ``ProviderOutputItemsMessage`` of protocol
``cohere`` holding one item, the message object. This dialect replays that
item in place of the turn; the others drop it and send the
``AssistantMessage``.

What changes on the way out, so that Cohere's rules hold:

- The assistant messages and provider items of one turn go as one
  assistant message, its calls answered by the ``tool`` messages after it.
- An assistant message with calls carries no text: Cohere refuses text
  beside calls, and takes it as the ``tool_plan`` instead. Text without
  calls goes as a text content item.
- Thinking is sent only as it came, in a kept reply: Cohere reads thinking
  content from a model that thinks, and refuses it otherwise.
- Results go as ``tool`` messages with the call's id, their text as a
  string; ids are made unique and fit ``[A-Za-z0-9_-]``, at most 64 long.
- Images go as ``image_url`` items (base64 as ``data:`` URLs); audio and
  video raise ``UnsupportedContent``.
"""

from __future__ import annotations

from ._left_out import left_out
from ._reply import from_response, read_reply
from ._request import to_request
from ._stream import Accumulator
from ._tools import tools_to_request
from ._wire import DETAILS as DETAILS
from ._wire import DIALECT as DIALECT
from ._wire import IMAGE_TYPES as IMAGE_TYPES
from ._wire import PLAN_JOIN as PLAN_JOIN
from ._wire import PROTOCOL

__all__ = [
    "PROTOCOL",
    "Accumulator",
    "from_response",
    "left_out",
    "read_reply",
    "to_request",
    "tools_to_request",
]
