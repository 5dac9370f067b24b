"""The OpenAI Responses API.

``to_request`` builds ``{"input": [...]}`` (with ``store=False``, a
self-contained request for stateless use); ``left_out`` names what it does
not send; ``tools_to_request`` the ``tools`` and ``tool_choice`` fields;
``from_response``, ``read_reply`` and
:class:`Accumulator` turn a ``Response``, or its stream of events (raw, or
the SDK's ``responses.stream()`` helper events), into two messages: a
``ProviderOutputItemsMessage`` holding every output item as the API sent it,
then the ``AssistantMessage`` read from those items (its text, its function
and custom tool calls, its reasoning summaries and reasoning text as unsigned
thinking). A custom tool's call carries free text: its ``ToolCall`` has
``arguments={"input": <the text>}``, and a result answering it goes back as
``custom_tool_call_output``.

The items are the provider's state (ids, encrypted reasoning, server tool
calls, annotations): they go back verbatim and in place. The assistant
message is what every other dialect reads. The items are kept for every
reply, even one the assistant message alone could carry: an output item
always has an id and a status that the flat message has no place for, so a
reply is always these two messages. So that nothing goes out twice, an
assistant message right after ``openai-responses`` items sends only what the
items do not already carry: its text unless it is the text the items hold
(their output text, or their refusal when they have no output text), and
its calls whose ``call_id`` the items do not hold.

Reading:

- Fields the openai SDK adds to what the API sent (``parsed`` on the text
  parts and ``parsed_arguments`` on the function calls of a
  ``ParsedResponse``, from ``responses.parse()`` or
  ``stream().get_final_response()``) are left out of the items; the API
  refuses them as input. ``to_request`` leaves them out of items stored by
  an older version too.
- A function call that never completed (status ``incomplete``, or cut at
  the token limit with arguments that are not whole JSON) is no
  ``ToolCall``: it stays in the items only, and goes back with them.
- A ``failed`` response raises ``ResponseError`` with the provider's error.
- ``Reply.details`` holds the ``incomplete_details`` of an incomplete
  response and, from a stream, the output ``audio`` its
  ``response.audio.delta`` and ``response.audio.transcript.delta`` events
  brought (``{"data": <base64>, "transcript": <text>}``), which no item
  holds and no request sends back.

The facts of a reply (``read_reply``, ``Accumulator.reply``):

- ``stop_reason``: status ``completed`` is ``"tool_use"`` when the reply
  holds a call the caller must answer (a function call, or a custom, computer,
  shell, local shell or apply-patch call, an MCP approval request, or a tool
  search the client runs),
  ``"refusal"`` when a message holds a refusal part, else ``"end_turn"``.
  ``incomplete`` is ``"max_tokens"`` for ``max_output_tokens``,
  ``"content_filter"`` for ``content_filter``, ``"other"`` for any other
  reason. Any other status (``cancelled``, ``queued``, ``in_progress``) is
  ``"other"``.
- ``provider_stop_reason``: the ``incomplete_details.reason`` of an
  incomplete response (``"max_output_tokens"``, ``"content_filter"``), or
  ``"incomplete"`` when it gives none; otherwise the ``status``.
- ``usage``: the API's ``input_tokens`` already counts cached and
  cache-written tokens, and its ``output_tokens`` the reasoning tokens, so
  they are taken as they are; ``cache_read_tokens`` is
  ``input_tokens_details.cached_tokens``, ``cache_write_tokens``
  ``input_tokens_details.cache_write_tokens`` and ``reasoning_tokens``
  ``output_tokens_details.reasoning_tokens``.

What changes on the way out (``left_out`` names each piece):

- Thinking blocks are dropped (reasoning goes back as items); items of
  other protocols are dropped.
- A ``reasoning`` item goes only just before the item that followed it in
  the output (the API refuses it alone): one left by a cut stream or an
  incomplete reply stays in the items and is not sent. Nor is a function
  call that never completed, unless a result answers it.
- With ``store=False``, a ``reasoning`` item without ``encrypted_content``
  and an ``item_reference`` are not sent: the server kept nothing to
  resolve them by. Item ids go as they came, beside the encrypted content.
- The request shares no dict or list with the transcript: items are copied.
- Tool-call ids are made unique and fit ``[A-Za-z0-9_-]``, at most 64 long;
  ids carried by items are kept as they are.
- Images go as ``input_image`` (base64 as ``data:`` URLs, which the API
  reads; a ``detail`` the API does not know becomes ``auto``). Media types
  are read case-insensitively, ``image/jpg`` as JPEG. Video and audio raise
  ``UnsupportedContent``, and so do images other than JPEG, PNG, GIF and WebP.
"""

from __future__ import annotations

# In the order the reference shows them (its members_order is the source's). The
# names imported "as" themselves are not in __all__; they import as they did.
# ruff: noqa: I001
from ._wire import DIALECT as DIALECT
from ._wire import PROTOCOL
from ._request import IMAGE_TYPES as IMAGE_TYPES
from ._request import DETAILS as DETAILS
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
