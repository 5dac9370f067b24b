"""Ollama's own chat API (``POST /api/chat``), as the server and the ``ollama`` package speak it.

``to_request`` builds ``{"messages": [...]}``; ``tools_to_request`` the
``tools`` field (both the caller's: they share no dict or list with the
transcript or the tools); ``left_out`` names what ``to_request`` of the
same transcript does not send; ``from_response``, ``read_reply`` and
:class:`Accumulator` turn a chat response, or the NDJSON chunks of a
streamed one, into messages. A response may be the JSON as a dict or the
``ollama`` package's ``ChatResponse``.

What a reply becomes: one ``AssistantMessage`` with the text, the
``thinking`` as an unsigned ``ThinkingBlock``, and the tool calls, whose
arguments Ollama sends as JSON objects. When the message holds more than
that turn can say, so that replaying the turn would send something else
than what came (output ``images``, a field this version does not know,
arguments that are not an object, or a call spelled in a way the turn does
not keep), the message as sent is kept first, as a
``ProviderOutputItemsMessage`` of protocol ``ollama`` holding one item, the
message object. This dialect replays that item in place of the turn; the
others drop it and send the ``AssistantMessage``. A call whose arguments are
not an object is no call a backend could run: it stays in the item only.
Ollama parses tool calls on the server and sends each one whole, so a call
cut off at the token limit never arrives as a call (its start may arrive as
text).

What changes on the way out:

- Messages map one to one: ``system``, ``user``, ``assistant`` and
  ``tool``; an assistant message with nothing to send (a reply cancelled
  before its first token) sends no turn. A tool result is ``{"role":
  "tool", "content", "tool_name"}`` with the name of the call it
  answers. Ollama renders results in order, so the results that follow a
  turn go in the order of the calls they answer, whatever their order in
  the transcript.
- A call goes as ``{"function": {"name", "arguments": {...}}}``, its
  arguments an object with their key order and big integers kept. A call
  that has an id goes with it (``"id"``), and its result names it as
  ``tool_call_id``: servers since 0.12.10 give and take call ids, older
  ones ignore them. (The ``ollama`` package's types have no field for
  either yet, and its ``chat()`` drops them; POSTing the body keeps them.)
  A call without an id goes without one and is answered by position.
- Earlier thinking goes back in the assistant's ``thinking`` field, which
  Ollama's templates read (``thinking=False`` leaves it out). Redacted
  thinking has no text and is left out.
- A user message's text blocks join into ``content`` (a blank line
  between), and its images go as base64 in ``images``: JPEG, PNG and WebP,
  inline or as a ``data:`` URL. Ollama fetches no URL and takes no audio or
  video: those raise ``UnsupportedContent`` (or become a note under
  ``unsupported="note"``). Where an image stood among the text is lost.
- ``ollama`` items go back verbatim, in place, once; the assistant message
  right after them sends only what they do not already carry. Items of
  other protocols are dropped.

Reply facts: ``done_reason`` ``"stop"`` is ``end_turn``, or ``tool_use`` when
the reply calls tools; ``"length"`` is ``max_tokens``; anything else
(``"load"``, ``"unload"``, none at all) is ``other``. Ollama says ``stop`` for
a stop sequence too, and has no refusal or content filter. Usage:
``input_tokens`` is ``prompt_eval_count`` (the prompt tokens Ollama
reports evaluating) and ``output_tokens`` is ``eval_count`` (every token
generated, thinking included); Ollama reports no cache or reasoning counts,
so those are ``None``. ``raw`` holds the count and duration fields as sent.
A reply has a ``model`` and no id.
"""

from __future__ import annotations

from ._reply import from_response, read_reply
from ._request import left_out, to_request
from ._stream import Accumulator
from ._tools import tools_to_request
from ._wire import DIALECT as DIALECT
from ._wire import IMAGE_TYPES as IMAGE_TYPES
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
