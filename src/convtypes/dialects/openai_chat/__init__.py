"""The OpenAI Chat Completions API, and the servers that speak it.

``to_request`` builds ``{"messages": [...]}``; ``left_out`` names what it
does not send; ``tools_to_request`` the ``tools`` and ``tool_choice``
fields; ``from_response``, ``read_reply`` and
:class:`Accumulator` turn a ``ChatCompletion``, or its ``ChatCompletionChunk``
stream, into messages (from the first choice).

What a reply becomes: one ``AssistantMessage`` with the text (or the
refusal's words, when the model refused), the function calls, the custom
tool calls (free text, as ``arguments={"input": <the text>}``, answered by a
``tool`` message like any call), and the
reasoning that OpenAI-compatible servers (vLLM, llama.cpp, DeepSeek, Groq)
send as ``reasoning_content`` or ``reasoning``, as an unsigned
``ThinkingBlock``. When the message holds more than that turn can say, so
that replaying the turn would send something else than what came (a
refusal, output audio, annotations, a custom tool call, a call cut off at
the token limit, argument text spelled differently from convtypes' compact
JSON), the message as sent is kept first, as a ``ProviderOutputItemsMessage``
of protocol ``openai-chat`` holding one item, the message object. This
dialect replays that item in place of the turn; the others drop it and send
the ``AssistantMessage``.

What changes on the way out (``left_out`` names each piece):

- Messages map one to one; tool calls ride on their assistant message with
  their arguments as JSON text, and each result is a ``tool`` message. An
  assistant message with nothing to send sends no turn.
- The request shares no dict or list with the transcript.
- Thinking is left out unless ``reasoning=`` names the field a server reads
  it from (OpenAI itself takes none); provider output items of other
  protocols are dropped.
- Tool-call ids are made unique and fit ``[A-Za-z0-9_-]``, at most 40 long.
- Images go as ``image_url`` parts (base64 as ``data:`` URLs); a ``detail``
  other than ``low``, ``high`` or ``auto`` is left out. Base64 WAV or MP3
  audio goes as ``input_audio``. Video, other audio, and images other than
  JPEG, PNG, GIF and WebP raise ``UnsupportedContent``.
- A kept message goes back with what the API takes as input: its content,
  refusal, tool calls and audio (by id). Annotations have no input field
  and are left out, and so is a call cut off at the token limit, which no
  result will answer.
"""

from __future__ import annotations

from ._reply import from_response, read_reply
from ._request import left_out, to_request
from ._stream import Accumulator
from ._tools import tools_to_request
from ._wire import AUDIO_FORMATS as AUDIO_FORMATS
from ._wire import DETAILS as DETAILS
from ._wire import DIALECT as DIALECT
from ._wire import IMAGE_TYPES as IMAGE_TYPES
from ._wire import PROTOCOL, Reasoning

__all__ = [
    "PROTOCOL",
    "Accumulator",
    "Reasoning",
    "from_response",
    "left_out",
    "read_reply",
    "to_request",
    "tools_to_request",
]
