"""Mistral chat completions, as the ``mistralai`` SDK sends and reads them.

``to_request`` builds ``{"messages": [...]}`` for ``chat.complete`` and
``chat.stream``; ``tools_to_request`` the ``tools`` and ``tool_choice``
fields; ``from_response``, ``read_reply`` and :class:`Accumulator` turn a
``ChatCompletionResponse``, or its stream of ``CompletionChunk`` events,
into messages (from the first choice); ``left_out`` names what a request
leaves out of a transcript.

What a reply becomes: one ``AssistantMessage`` with the text, the function
calls, and the reasoning of Mistral's reasoning models (``thinking`` chunks
in the content) as unsigned thinking blocks. When the message holds
more than that turn can say, so that replaying the turn would send
something else than what came (reference chunks and other content chunks,
a signed or interleaved thinking chunk, argument text spelled otherwise
than convtypes' compact JSON, which Mistral's usually is, a call cut off at
the token limit), the message as sent is kept first, as a
``ProviderOutputItemsMessage`` of protocol ``mistral`` holding one item,
the message object. This dialect replays that item in place of the turn;
the others drop it and send the ``AssistantMessage``.

What changes on the way out, so that Mistral's rules on a conversation
hold (the order of roles and the pairing of calls that the API checks):

- Every system message goes first, joined into one (Mistral refuses a
  system message after an assistant or tool message); ``left_out`` names
  each one so moved (``"position"``).
- The assistant messages and provider items of one turn go as one
  assistant message: the calls of a turn must all be answered before the
  next assistant message. Thinking goes as ``thinking`` chunks before the
  text; redacted thinking and signatures are left out.
- Tool-call ids are exactly nine letters and digits, as Mistral requires:
  a call whose id has another shape gets one made from its place, and its
  results follow it. Each result is a ``tool`` message naming its call's
  tool. A tool name Mistral refuses (another provider's, with a dot, say)
  goes with ``_`` for each character it refuses, cut to 64.
- A user message right after tool results gets an assistant message
  ``"OK"`` before it, since Mistral refuses a user message after a tool
  message (the workaround pydantic-ai uses).
- An assistant message last in the request, without calls, goes with
  ``"prefix": true``: Mistral continues it (and its reply repeats it).
- Images go as ``image_url`` chunks (base64 as ``data:`` URLs), base64 WAV
  or MP3 audio as ``input_audio``; video, other audio and other images
  raise ``UnsupportedContent``.
"""

from __future__ import annotations

from ._left_out import left_out
from ._reply import from_response, read_reply
from ._request import to_request
from ._stream import Accumulator
from ._tools import tools_to_request
from ._wire import AUDIO_TYPES as AUDIO_TYPES
from ._wire import BRIDGE as BRIDGE
from ._wire import DETAILS as DETAILS
from ._wire import DIALECT as DIALECT
from ._wire import IMAGE_TYPES as IMAGE_TYPES
from ._wire import PROTOCOL
from ._wire import SYSTEM_JOIN as SYSTEM_JOIN

__all__ = [
    "PROTOCOL",
    "Accumulator",
    "from_response",
    "left_out",
    "read_reply",
    "to_request",
    "tools_to_request",
]
