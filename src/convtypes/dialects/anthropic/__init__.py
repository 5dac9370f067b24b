"""The Anthropic Messages API.

``to_request`` builds ``{"system": ..., "messages": [...]}`` (no ``system``
key when the transcript has none); ``tools_to_request`` the ``tools`` and
``tool_choice`` fields, each with ``cache=`` to mark Anthropic's prompt
caching breakpoints; ``left_out`` names what ``to_request`` of a transcript
does not send; ``from_response``, ``read_reply`` and :class:`Accumulator`
turn a ``Message`` response, or its stream of events (raw, or the SDK's
``messages.stream()`` helper events), into messages.

What a reply becomes: an ``AssistantMessage`` with the text, the thinking
(signed, or redacted) and the client tool calls (``tool_use``). When the
``content`` array holds more than that message can say, so that replaying
the message would send something else than what came, the array as sent is
kept first, as a ``ProviderOutputItemsMessage`` of protocol ``anthropic``
whose items are the content blocks: server tools and their results
(``server_tool_use``, ``web_search_tool_result``, ``mcp_tool_use``...),
``compaction``, ``fallback``, citations on text, ``caller`` on a
``tool_use``, blocks in an order the flat message cannot keep (text, a
call, more text), and block types this version has never seen. Whether to
keep them is decided by comparing: the content the flat message would send
back against the content that came. The fields the SDK adds
(``parsed_output``) and optional fields sent as ``null`` are left out (so a
block read whole and the same block streamed come out the same), and an SDK
object is read under its wire names (``from``, not ``from_``).

The flat message reads the blocks in order. Text blocks next to each other
(the API splits text where a citation starts or ends) join with nothing
between them; texts that other blocks separate (a call, a search) join with
a blank line, as pydantic-ai joins them, and a run of text with nothing in
it adds no blank line. A ``tool_use`` cut off at the token limit (the last
block of a reply that stopped at ``max_tokens`` or at the context window,
whole or not, as nothing tells the two apart) is not a ``ToolCall``: its
input may be half there, and a backend must not run it. It stays in the
items only, its input read as far as it came (as the SDK reads it), and
does not go back.

Stop reasons by meaning: ``end_turn``, ``tool_use``, ``max_tokens``,
``stop_sequence``, ``pause_turn`` and ``refusal`` are themselves;
``model_context_window_exceeded`` is ``"max_tokens"`` (the reply was cut at
a token limit); the beta's ``compaction`` is ``"pause_turn"`` (the API
stopped after compacting, and goes on when the conversation is sent back);
anything else is ``"other"``. Usage: Anthropic's
``input_tokens`` counts only the prompt tokens neither read from nor written
to the cache, so ``Usage.input_tokens`` is ``input_tokens +
cache_creation_input_tokens + cache_read_input_tokens``; ``cache_read_tokens``
and ``cache_write_tokens`` are the last two; ``reasoning_tokens`` is
``output_tokens_details.thinking_tokens`` where the API reports it. A stream
reports usage in ``message_start`` and again, cumulative, in each
``message_delta``; later values win, and ``raw`` is the merged object.
``Reply.details`` keeps ``stop_details`` (a refusal's category and
explanation), ``stop_sequence`` and ``container`` when the reply gives them.

What changes on the way out:

- System messages before the first turn are joined with a blank line into
  the top-level ``system``; one after it is a system-role message in
  ``messages``, where it stands.
- Turns alternate: consecutive user messages and tool results become one
  user turn, tool results first; consecutive assistant messages (and
  ``anthropic`` items) become one assistant turn. The first turn must be a
  user turn, and a transcript with no turn at all is refused:
  ``DialectError``.
- ``anthropic`` items go back verbatim, in place and once, as their
  assistant turn's content, and the ``AssistantMessage`` right after them
  sends only what they do not carry (its text if it differs from theirs, its
  calls whose ids they lack). Three kinds of block the API refuses as input
  are left out: text with nothing but white space in it, thinking without a
  signature, and a ``tool_use`` that the ``AssistantMessage`` after the
  items does not hold as a call (one cut off at the token limit: no result
  will ever answer it). Items of other protocols are dropped.
- The request is the caller's: arguments, items and schemas are copied into
  it, so a backend may change any of it (add its own ``cache_control``,
  say) without touching the transcript. The ``cache_control`` of a block
  in the items (an older version shared them with the request, and an
  edit wrote one there) is not sent: the breakpoints are ``cache=``'s to
  place, and the API refuses more than four.
- Thinking goes first in its turn and verbatim: signed blocks as
  ``thinking``, redacted ones as ``redacted_thinking``. When assistant
  messages merge into one turn, the thinking of all of them comes first, in
  order, then their text and calls. A block with neither a signature nor
  redacted data (another provider's, or a summary) is left out: the API
  refuses it, and a signature cannot be made up. A turn never ends in
  thinking, which the API refuses ("The final block in an assistant message
  cannot be `thinking`"): a reply cut after its thinking sends no turn, and
  ``left_out`` names it.
- Empty text, and text of white space only, is left out, in user and
  assistant turns alike (the API refuses such text blocks, and they say
  nothing to the model); a turn left with nothing is dropped.
- A tool call without its result by the next user message raises
  ``UnansweredCall``, as the API refuses it; calls open at the end are sent.
  A server tool's use (``server_tool_use``) is answered by the server, in
  the items, and needs no result; one still without its result when a user
  message or tool result follows (a stream cancelled between the two) is
  left out, as the API refuses it, unless a call that goes names it as its
  ``caller`` (code waiting for your tool's result).
- Images go inline as base64 (a ``data:`` URL too, which the API cannot
  fetch) or by URL; media types are read case-insensitively, ``image/jpg``
  as JPEG. Video and audio, and images other than JPEG, PNG, GIF and WebP,
  have no place: ``UnsupportedContent`` (or a text note with
  ``unsupported="note"``).
"""

from __future__ import annotations

# In the order the reference shows them (its members_order is the source's). The
# names imported "as" themselves are not in __all__; they import as they did.
# ruff: noqa: I001
from ._wire import DIALECT as DIALECT
from ._wire import PROTOCOL
from ._request import IMAGE_TYPES as IMAGE_TYPES
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
