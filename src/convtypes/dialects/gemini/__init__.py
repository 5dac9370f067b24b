"""The Gemini API (``generateContent``), in the field names of the google-genai SDK.

``to_request`` builds ``{"contents": [...], "system_instruction": {...}}``
(the REST body's conversation part), ``tools_to_request`` its ``tools`` and
``tool_config``, and ``to_sdk_request`` turns such a body into the keyword
arguments of google-genai's ``generate_content``, which takes the system
instruction and the tools only inside ``config``. What they return is the
caller's: it shares no dict or list with the transcript or the tools.
``left_out`` names what ``to_request`` of the same transcript does not
send. ``from_response``,
``read_reply`` and :class:`Accumulator` turn a ``GenerateContentResponse``,
or the chunks of a streamed one, into two messages: a
``ProviderOutputItemsMessage`` of protocol ``gemini`` holding the model
turn's parts as sent, then the ``AssistantMessage`` read from them.

Why keep the parts, always: Gemini hands out thought signatures on the part
they belong to (a text part, a function call, sometimes an empty text part
at the end of a stream), and it checks that each comes back on that same
part. A ``ThinkingBlock`` has no notion of "the part after the thoughts",
and a Gemini signature in one would be sent to Anthropic as if it were
Anthropic's. So the parts go back verbatim, in place, exactly once, as the
Responses dialect does with its items; the assistant message beside them is
for every other dialect, and this one sends from it only what the parts do
not already carry. Thought summaries become unsigned ``ThinkingBlock``\\ s,
for display; code execution, generated media and parts this version does
not know stay in the items only.

Parts are kept in snake_case (the SDK's names, which the REST API reads as
well), signatures as standard base64, and without ``null`` fields, so that
the REST JSON, the SDK's object and its ``model_dump()`` give equal
messages. An unstreamed response's parts are kept one for one. A stream
sends a part in pieces across chunks; the chunks add up to the response
whose parts are every chunk's parts in order, except that the first part
of a chunk joins the part before it when both are text of the same kind
(thought or not) and the later one brings no signature of its own (a
signature opens a new part). ``Accumulator.result()`` equals
``from_response`` of that response.

What a reply says beyond its parts (:func:`read_reply`):

- ``stop_reason``: ``STOP`` is ``"end_turn"``, or ``"tool_use"`` when the
  reply calls functions; ``MAX_TOKENS`` is ``"max_tokens"``; ``SAFETY``,
  ``RECITATION``, ``BLOCKLIST``, ``PROHIBITED_CONTENT``, ``SPII``,
  ``MODEL_ARMOR`` and the ``IMAGE_*`` safety reasons are
  ``"content_filter"``; anything else (``MALFORMED_FUNCTION_CALL``,
  ``LANGUAGE``, ``OTHER``...) is ``"other"``. Gemini ends a stop sequence
  with ``STOP`` too, so ``"stop_sequence"`` never comes.
- A candidate without content (a reply filtered before any part) reads as
  an empty reply, with its finish reason. A response without candidates is
  a blocked prompt: an empty reply, ``"content_filter"``, with the
  ``prompt_feedback.block_reason`` as ``provider_stop_reason``.
- ``usage``: ``input_tokens`` is ``prompt_token_count`` (cached tokens
  included) plus ``tool_use_prompt_token_count`` (what built-in tools such
  as Google Search added to the prompt, which Gemini bills as input);
  ``output_tokens`` is ``candidates_token_count`` plus
  ``thoughts_token_count``, so that the two add up to
  ``total_token_count``. Gemini leaves zero counts out of its JSON; an
  output with neither count is what the total says beyond the input.
  ``cache_read_tokens`` is ``cached_content_token_count``,
  ``reasoning_tokens`` is ``thoughts_token_count``; Gemini reports no cache
  writes. ``raw`` is ``usage_metadata`` in snake_case. In a stream each
  chunk's usage replaces the one before.
- ``model`` is ``model_version``, ``id`` is ``response_id``.

Only the first candidate (``index`` 0) is read: the others are alternatives
to it. Candidate metadata (grounding, citations, safety ratings, log
probabilities) is not part of the turn, and a request has no field for it;
``Reply.details`` keeps the candidate's ``safety_ratings``,
``finish_message``, ``citation_metadata``, ``grounding_metadata`` and
``url_context_metadata``, and the response's ``prompt_feedback``, in
snake_case (from a stream, the latest chunk's value of each).
A function call streamed in pieces (``partial_args``, from the Vertex
option ``stream_function_call_arguments``) is refused.

What changes on the way out:

- Turns alternate as ``user`` and ``model``: consecutive user messages and
  tool results become one user turn, function responses first.
- Tool calls go as ``function_call`` parts, results as ``function_response``
  parts named after their call, with ``{"output": text}`` as the response.
  Gemini pairs them by order, so the responses of a turn go in the order of
  the calls they answer, whatever their order in the transcript; an ``id``
  is sent only where Gemini gave one. A result's ``is_error`` has no field
  in the wire format, so none is sent.
- Thinking blocks are dropped (signatures travel in the parts); items of
  other protocols are dropped. A call another provider made goes without a
  signature; ``unsigned_calls="sentinel"`` gives the first call of each
  step of the current turn Google's placeholder (:data:`SENTINEL_SIGNATURE`)
  where it has none, for Gemini 3, which refuses such a step. Empty text
  is left out, and empty turns; so is a replayed part of empty text with
  no signature, which says nothing and which Gemini has refused as "an
  empty text parameter".
- Images (PNG, JPEG, WebP, HEIC, HEIF; media types read case-insensitively,
  ``image/jpg`` as JPEG), audio and video go inline (``inline_data``) or by
  URL (``file_data``, with a MIME type guessed from the URL's extension when
  it has a known one). A ``data:`` URL goes inline, since Gemini fetches no
  such URL. ``fps`` goes as ``video_metadata``; ``max_frames``,
  ``sample_rate`` and an image's ``detail`` have no field and are dropped.
  A local path raises ``UnsupportedContent``: the API cannot read this
  machine's files.
"""

from __future__ import annotations

# In the order the reference shows them (its members_order is the source's). The
# names imported "as" themselves are not in __all__; they import as they did.
# ruff: noqa: I001
from ._wire import DIALECT as DIALECT
from ._wire import PROTOCOL
from ._request import IMAGE_TYPES as IMAGE_TYPES
from ._request import UnsignedCalls
from ._request import SENTINEL_SIGNATURE
from ._request import to_request
from ._left_out import left_out
from ._tools import tools_to_request
from ._sdk_request import to_sdk_request
from ._reply import from_response
from ._reply import read_reply
from ._stream import Accumulator

__all__ = [
    "PROTOCOL",
    "SENTINEL_SIGNATURE",
    "Accumulator",
    "UnsignedCalls",
    "from_response",
    "left_out",
    "read_reply",
    "to_request",
    "to_sdk_request",
    "tools_to_request",
]
