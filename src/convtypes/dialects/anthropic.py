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
a token limit); anything else is ``"other"``. Usage: Anthropic's
``input_tokens`` counts only the prompt tokens neither read from nor written
to the cache, so ``Usage.input_tokens`` is ``input_tokens +
cache_creation_input_tokens + cache_read_input_tokens``; ``cache_read_tokens``
and ``cache_write_tokens`` are the last two; ``reasoning_tokens`` is
``output_tokens_details.thinking_tokens`` where the API reports it. A stream
reports usage in ``message_start`` and again, cumulative, in each
``message_delta``; later values win, and ``raw`` is the merged object.

What changes on the way out:

- System messages are joined with a blank line into the top-level ``system``.
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
  refuses it, and a signature cannot be made up.
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

from collections.abc import Collection, Iterable
from typing import Any, Final

import msgspec

from .._content import (
    AudioBase64Block,
    AudioPathBlock,
    AudioUrlBlock,
    ImageBase64Block,
    ImageUrlBlock,
    TextBlock,
    VideoBase64Block,
    VideoPathBlock,
    VideoUrlBlock,
)
from .._fence import fence_external as fence
from .._messages import (
    AssistantMessage,
    Message,
    ProviderOutputItemsMessage,
    SystemMessage,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from .._provenance import Provenance
from .._unknown import UnknownBlock, UnknownMessage
from ._cache import Cache, cache_ttl
from ._copy import copy_json
from ._errors import (
    LEAKS,
    DialectError,
    ResponseError,
    StreamError,
    Unsupported,
    check_unsupported,
    label,
    not_a_message,
    note_text,
    raise_response_failure,
    reported_error,
    short,
    unknown_block,
    unknown_message,
    unsupported_block,
)
from ._ids import CallIds, safe_id
from ._json import arguments_json, built, field, parse_arguments, plain, tool_call
from ._left_out import LeftOut, LeftOutKind, in_item
from ._media import image_type, parse_data_url
from ._objects import PLAIN, dumps_as_declared, fields, flat, given
from ._partial_json import read_partial_object
from ._reply import (
    Delta,
    Reply,
    StopReason,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStart,
    Usage,
    token_count,
)
from ._send import transcript_of
from ._stream import StreamReader
from ._tools import ToolSchemaError, ToolSpec, checked_tools, pointer

__all__ = [
    "PROTOCOL",
    "Accumulator",
    "from_response",
    "left_out",
    "read_reply",
    "to_request",
    "tools_to_request",
]

DIALECT: Final = "Anthropic"
PROTOCOL: Final = "anthropic"
"""The ``protocol`` of the provider output items this dialect writes and replays."""

IMAGE_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""The image media types the Messages API takes inline."""

# Fields the anthropic SDK's parse helpers add to a block; not part of the wire.
_SDK_ONLY: Final = frozenset({"parsed_output"})
# Stop reasons that cut the reply at a token limit, perhaps inside a block.
_CUT: Final = frozenset({"max_tokens", "model_context_window_exceeded"})
# Between texts that other blocks separate, in the flat message's content.
_GAP: Final = "\n\n"

_usable_id = safe_id(64)

_NO_MEDIA: Final = "has no block for video or audio"
# The key of a cache breakpoint on a block, which only a request may hold.
_MARKER: Final = "cache_control"
# Server tools' uses, which the server answers in the same assistant turn.
_SERVER_USES: Final = frozenset({"server_tool_use", "mcp_tool_use"})
# Messages that end an assistant turn with a user turn.
_ANSWERS: Final = (UserMessage, UserMultimodalMessage, ToolResultMessage)
_VIDEO: Final = (VideoUrlBlock, VideoPathBlock, VideoBase64Block)
_AUDIO: Final = (AudioUrlBlock, AudioPathBlock, AudioBase64Block)


def _has_text(text: str) -> bool:
    """Whether a text block may be sent: the API refuses empty and white-space text."""
    return text != "" and not text.isspace()


def _image(block: ImageUrlBlock | ImageBase64Block) -> dict[str, Any] | str:
    """The image block the API takes for ``block``, or why it takes none."""
    if isinstance(block, ImageUrlBlock):
        inline = parse_data_url(block.url)
        if inline is None:
            if block.url[:5].lower() != "data:":
                return {"type": "image", "source": {"type": "url", "url": block.url}}
            return "cannot fetch a data: URL, and takes one inline only in base64"
        if inline.media_type in IMAGE_TYPES:
            source = {"type": "base64", "media_type": inline.media_type, "data": inline.data}
            return {"type": "image", "source": source}
        return f"takes no {inline.media_type!r} image (only JPEG, PNG, GIF and WebP)"
    media_type = image_type(block.media_type)
    if media_type in IMAGE_TYPES:
        source = {"type": "base64", "media_type": media_type, "data": block.data}
        return {"type": "image", "source": source}
    return f"takes no {block.media_type!r} image (only JPEG, PNG, GIF and WebP)"


def _user_blocks(
    index: int, blocks: Iterable[object], unsupported: Unsupported
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        if isinstance(block, TextBlock):
            if _has_text(block.text):
                out.append({"type": "text", "text": block.text})
            continue
        if isinstance(block, (ImageUrlBlock, ImageBase64Block)):
            image = _image(block)
            if not isinstance(image, str):
                out.append(image)
                continue
            why = image
        elif isinstance(block, UnknownBlock):
            raise unknown_block(DIALECT, index, position, block)
        else:
            why = _NO_MEDIA
        if unsupported == "note":
            out.append({"type": "text", "text": note_text(DIALECT, block)})
        else:
            raise unsupported_block(DIALECT, index, position, block, why)
    return out


def _thoughts(thinking: Iterable[ThinkingBlock]) -> list[dict[str, Any]]:
    """The thinking blocks the API takes back: signed or redacted, never unsigned."""
    out: list[dict[str, Any]] = []
    for thought in thinking:
        if thought.redacted_data is not None:
            out.append({"type": "redacted_thinking", "data": thought.redacted_data})
        elif thought.signature:
            out.append(
                {"type": "thinking", "thinking": thought.text, "signature": thought.signature}
            )
        # else unsigned: the API refuses it back, and a signature cannot be made up
    return out


def _refused(item: dict[str, Any]) -> bool:
    """Whether the API refuses this kept block as input, wherever it stands.

    Text with nothing but white space in it, and thinking without a
    signature, are refused.
    """
    kind = item.get("type")
    if kind == "text":
        text = item.get("text")
        return not isinstance(text, str) or not _has_text(text)
    if kind == "thinking":
        signature = item.get("signature")
        return not isinstance(signature, str) or not signature
    return False


def _replayable(item: dict[str, Any]) -> dict[str, Any] | None:
    """A kept content block as it goes back, or ``None`` where the API refuses it.

    The SDK's own fields never belong to the wire. The block may share its
    values with ``item``: this is for comparing, not for a request.
    """
    if _refused(item):
        return None
    if _SDK_ONLY.isdisjoint(item):
        return item
    return {key: value for key, value in item.items() if key not in _SDK_ONLY}


def _sent_block(item: dict[str, Any]) -> dict[str, Any]:
    """A kept block as a request carries it: a copy of its own, as the API takes it.

    The SDK's fields are left out, and so is the block's ``cache_control``:
    a marker that an edited request wrote into the items, when an older
    version shared them with the request. Markers are the request's to
    place (``cache=``), and a transcript never holds one.
    """
    block: dict[str, Any] = copy_json(item)
    block.pop(_MARKER, None)
    if not _SDK_ONLY.isdisjoint(block):
        for key in _SDK_ONLY:
            block.pop(key, None)
    return block


class _Kept:
    """What kept ``anthropic`` items already say: their text and their call ids."""

    __slots__ = ("call_ids", "text")

    def __init__(self, items: Iterable[Any]) -> None:
        blocks = [item for item in items if isinstance(item, dict)]
        self.text = _joined_text(blocks)
        self.call_ids = {
            block["id"]
            for block in blocks
            if block.get("type") == "tool_use" and isinstance(block.get("id"), str)
        }


def _answered_calls(index: int, transcript: list[Any]) -> Collection[object]:
    """The ids of the calls that the ``AssistantMessage`` after the items at ``index`` holds."""
    after = transcript[index + 1] if index + 1 < len(transcript) else None
    return {call.id for call in after.tool_calls} if isinstance(after, AssistantMessage) else ()


def _unanswered_uses(
    index: int, items: Iterable[Any], transcript: list[Any], answered: Collection[object]
) -> set[str]:
    """The server tools' uses in the items at ``index`` that will never get their result.

    A server answers its own tool's use (``server_tool_use``, ``mcp_tool_use``)
    in the same assistant turn, with a block whose ``tool_use_id`` is the
    use's id; a reply paused there (``pause_turn``) gets it from the reply
    that goes on, whose items come later in the same turn. A use that is
    still unanswered when a user message or a tool result comes was cut off
    (a cancelled stream) or left unresolved beside a client call, and the
    API refuses it. Two kinds are sent all the same: a use that a call of
    the same reply names as its ``caller`` (code that waits for your
    tools' results, which the next turn brings; the call must be one that
    goes, among ``answered``), and a use with no user after it, since the
    request may be asking the server to go on.
    """
    uses: set[str] = set()
    results: set[str] = set()
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind in _SERVER_USES:
            use_id = item.get("id")
            if isinstance(use_id, str):
                uses.add(use_id)
        elif kind == "tool_use":
            # A call the code of a use made, which goes back: the use waits for its result.
            caller, call_id = item.get("caller"), item.get("id")
            if isinstance(caller, dict) and isinstance(call_id, str) and call_id in answered:
                tool_id = caller.get("tool_id")
                if isinstance(tool_id, str):
                    results.add(tool_id)
        answer = item.get("tool_use_id")
        if isinstance(answer, str):
            results.add(answer)
    uses -= results
    for at in range(index + 1, len(transcript)):
        if not uses:
            break
        later = transcript[at]
        if isinstance(later, _ANSWERS):
            return uses
        if isinstance(later, ProviderOutputItemsMessage) and later.protocol == PROTOCOL:
            uses -= _result_ids(later.items)
    return set()


def _result_ids(items: Iterable[Any]) -> set[str]:
    return {
        answer
        for item in items
        if isinstance(item, dict) and isinstance(answer := item.get("tool_use_id"), str)
    }


_DROPPED: Final[dict[str, tuple[LeftOutKind, str]]] = {
    "not-a-block": ("items", "an item that is not a JSON object is no content block"),
    "text": ("text", "the API refuses a text block with nothing but white space in it"),
    "thinking": ("thinking", "the API refuses a thinking block without its signature"),
    "call": (
        "call",
        "the reply's message does not hold this call (it was cut off at the token limit), "
        "so no result will answer it",
    ),
    "use": (
        "call",
        "the server tool's use never got its result (the reply was cut off first), and "
        "the API refuses it once a user turn follows",
    ),
}


def _dropped(item: object, answered: Collection[object], unanswered: set[str]) -> str | None:
    """Why a kept block does not go back (a key of ``_DROPPED``), or ``None`` if it does.

    :func:`left_out`'s reading of the rules :func:`_replayed` applies inline
    (there, the server uses are looked for only when one is met).
    """
    if not isinstance(item, dict):
        return "not-a-block"
    if _refused(item):
        return str(item.get("type"))
    kind = item.get("type")
    if kind == "tool_use":
        call_id = item.get("id")
        if not isinstance(call_id, str) or call_id not in answered:
            return "call"
    elif unanswered and kind in _SERVER_USES:
        use_id = item.get("id")
        if isinstance(use_id, str) and use_id in unanswered:
            return "use"
    return None


def _replayed(
    index: int, items: Iterable[Any], transcript: list[Any], ids: CallIds
) -> list[dict[str, Any]]:
    """The blocks of the ``anthropic`` items at ``index`` that go back, their calls entered.

    A ``tool_use`` goes back only if the ``AssistantMessage`` right after
    the items holds it as a call: one it lacks was cut off at the token
    limit, and no result will ever answer it, which the API refuses. A
    server tool's use goes back unless a user turn follows before its
    result came (:func:`_unanswered_uses`). Each block is a copy, without
    any old cache marker.
    """
    answered = _answered_calls(index, transcript)
    unanswered: set[str] | None = None  # looked for at the first server use
    blocks: list[dict[str, Any]] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "tool_use":
            call_id = item.get("id")
            if not isinstance(call_id, str) or call_id not in answered:
                continue
            name = item.get("name")
            ids.carried(index, call_id, call_id, name if isinstance(name, str) else "")
        elif kind in _SERVER_USES:
            if unanswered is None:
                unanswered = _unanswered_uses(index, items, transcript, answered)
            use_id = item.get("id")
            if unanswered and isinstance(use_id, str) and use_id in unanswered:
                continue
        elif _refused(item):
            continue
        blocks.append(_sent_block(item))
    return blocks


def _leading_thoughts(blocks: list[dict[str, Any]]) -> int:
    count = 0
    for block in blocks:
        if block.get("type") not in ("thinking", "redacted_thinking"):
            break
        count += 1
    return count


def to_request(
    messages: Iterable[Message | UnknownMessage],
    *,
    fence_external: bool = True,
    unsupported: Unsupported = "raise",
    cache: Cache = False,
) -> dict[str, Any]:
    """The conversation part of a Messages API request body.

    Returns ``{"system": str, "messages": [...]}``, without ``system`` when no
    system message is given. The caller adds ``model``, ``max_tokens``, the
    tool fields (``tools_to_request``) and the rest. External tool results
    are fenced unless ``fence_external`` is False. Tool-call ids are made
    unique and fit ``^[A-Za-z0-9_-]{1,64}$``; a result follows its call's new
    id. ``anthropic`` items go back as they came (see the module).

    ``cache`` (``True``, ``"5m"`` or ``"1h"``) marks the prompt for
    Anthropic's incremental caching: the system prompt becomes one text
    block, and it and the last block of each of the last two user turns get
    a ``cache_control``, at most three breakpoints. ``TypeError`` or
    ``ValueError`` for another value.

    The request is the caller's: no dict or list in it is shared with the
    transcript, so changing it in place changes nothing stored.
    """
    check_unsupported(unsupported)
    ttl = cache_ttl(cache)
    transcript = transcript_of(messages, "to_request")
    ids = CallIds(transcript, _usable_id, DIALECT)
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    role = ""  # the role of the last turn
    first_index = -1  # the message that opened the first turn
    thought_end = 0  # in an assistant turn, where its thinking ends
    # A merged user turn holds its tool results first without any sorting:
    # a user message closes the calls' scope, so no result can follow one
    # within a turn (it would be refused as unmatched).
    content: list[dict[str, Any]] = []
    kept: _Kept | None = None
    for index, message in enumerate(transcript):
        previous, kept = kept, None
        if isinstance(message, ToolResultMessage):
            # tool_result_text's rule, inline on the hot path: only an internal
            # result goes bare (an unknown provenance is never INTERNAL).
            output = message.content
            if fence_external and message.provenance is not Provenance.INTERNAL:
                output = fence(output)
            result = {
                "type": "tool_result",
                "tool_use_id": ids.result(index, message).out_id,
                "content": output,
            }
            if role != "user":
                content = []
                turns.append({"role": "user", "content": content})
                role = "user"
            content.append(result)
            continue
        if isinstance(message, AssistantMessage):
            ids.assistant()
            text = message.content
            calls: Iterable[tuple[int, ToolCall]] = enumerate(message.tool_calls)
            thoughts: list[dict[str, Any]] = []
            if previous is None:
                if message.thinking:
                    thoughts = _thoughts(message.thinking)
            else:
                # The message read from the items before it: only what they lack.
                if text == previous.text:
                    text = ""
                calls = [(at, call) for at, call in calls if call.id not in previous.call_ids]
            blocks: list[dict[str, Any]] = []
            if text and not text.isspace():  # what _has_text says, on the hot path
                blocks.append({"type": "text", "text": text})
            for position, call in calls:
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": ids.call(index, position, call),
                        "name": call.name,
                        "input": copy_json(call.arguments),
                    }
                )
            if thoughts or blocks:
                if role != "assistant":
                    content = []
                    turns.append({"role": "assistant", "content": content})
                    role = "assistant"
                    thought_end = 0
                    if first_index < 0:
                        first_index = index
                if thoughts:
                    # A merged turn keeps all its thinking first, in order: a later
                    # message's thinking goes after the earlier thinking, before
                    # the earlier text and calls.
                    content[thought_end:thought_end] = thoughts
                    thought_end += len(thoughts)
                content.extend(blocks)
            continue
        if isinstance(message, UserMessage):
            ids.user(index)
            user_text = message.content
            blocks = (
                [{"type": "text", "text": user_text}]
                if user_text and not user_text.isspace()
                else []
            )
        elif isinstance(message, UserMultimodalMessage):
            ids.user(index)
            blocks = _user_blocks(index, message.content, unsupported)
        elif isinstance(message, SystemMessage):
            system.append(message.content)
            continue
        elif isinstance(message, ProviderOutputItemsMessage):
            if message.protocol != PROTOCOL:
                continue  # another provider's state: it has no meaning here
            ids.assistant()
            blocks = _replayed(index, message.items, transcript, ids)
            kept = _Kept(message.items)
            if blocks:
                if role != "assistant":
                    content = []
                    turns.append({"role": "assistant", "content": content})
                    role = "assistant"
                    thought_end = 0
                    if first_index < 0:
                        first_index = index
                if thought_end == len(content):
                    thought_end += _leading_thoughts(blocks)
                content.extend(blocks)
            continue
        elif isinstance(message, UnknownMessage):
            raise unknown_message(index, message)
        else:
            raise not_a_message(index, message)
        if blocks:
            if role != "user":
                content = []
                turns.append({"role": "user", "content": content})
                role = "user"
                if first_index < 0:
                    first_index = index
            content.extend(blocks)
    if not turns:
        raise DialectError(
            "the transcript has no turn to send (once empty and white-space text is left "
            "out), and the Messages API needs at least one user message"
        )
    if turns[0]["role"] != "user":
        raise DialectError(
            f"message {first_index}: the Messages API needs the first turn to be a user turn, "
            "and this transcript (once empty and white-space text is left out) starts with "
            "the assistant",
            first_index,
        )
    if ttl is not None:
        _mark(turns, ttl)
    if not system:
        return {"messages": turns}
    prompt = "\n\n".join(system)
    if ttl is not None and _has_text(prompt):
        block = {"type": "text", "text": prompt, "cache_control": _marker(ttl)}
        return {"system": [block], "messages": turns}
    return {"system": prompt, "messages": turns}


# --- what a request leaves out ---------------------------------------------------------


def left_out(
    messages: Iterable[Message | UnknownMessage], *, unsupported: Unsupported = "raise"
) -> list[LeftOut]:
    """What :func:`to_request` of the same transcript does not send, piece by piece.

    One :class:`~convtypes.dialects.LeftOut` per piece, in transcript order,
    ``index`` the position of its message:

    - ``"text"``: a text block with nothing but white space in it (empty
      included), or a message's text of white space only; a message with no
      text at all (``content=""``) leaves nothing out.
    - ``"thinking"``: a thinking block with neither a signature nor
      redacted data (another provider's, or one cut off), the text of a
      redacted block (only its data goes), and thinking of an
      ``AssistantMessage`` right after ``anthropic`` items that the items
      do not hold (the items stand for the reply); ``"redacted-thinking"``
      for such a block that is redacted.
    - ``"items"``: provider items of another protocol (one per message
      that holds any), an item of this protocol that is not a JSON object,
      and fields the SDK adds to a block (``parsed_output``).
    - ``"call"``: a kept ``tool_use`` that the message after the items does
      not hold (cut off at the token limit), and a server tool's use whose
      result never came before a user turn.
    - ``"cache-control"``: the ``cache_control`` of a block in the items,
      which an edited request wrote there.
    - ``"image"``, ``"audio"``, ``"video"``: media the API has no block for
      (with ``unsupported="raise"``, to_request refuses the transcript
      instead; with ``"note"``, a short note goes in its place);
      ``"detail"``: an image's ``detail`` other than ``"auto"``, which the
      API has no field for.

    It walks the transcript on its own, so ``to_request`` pays nothing for
    it. It raises what ``to_request`` raises for a transcript it cannot
    send at all: a message or block of a kind this version does not know,
    a call without its result, a result without its call.
    """
    check_unsupported(unsupported)
    transcript = transcript_of(messages, "left_out")
    to_request(transcript, unsupported="note")  # raises what it raises, media aside
    out: list[LeftOut] = []
    kept: ProviderOutputItemsMessage | None = None
    for index, message in enumerate(transcript):
        previous, kept = kept, None
        if isinstance(message, AssistantMessage):
            if previous is None:
                out += _thinking_left_out(index, message.thinking)
                text = message.content
            else:
                out += _uncarried_thinking(index, message.thinking, previous.items)
                text = "" if message.content == _Kept(previous.items).text else message.content
            if text.isspace():
                out.append(LeftOut(index, "text", _BLANK))
        elif isinstance(message, UserMessage):
            if message.content.isspace():
                out.append(LeftOut(index, "text", _BLANK))
        elif isinstance(message, UserMultimodalMessage):
            out += _blocks_left_out(index, message.content, unsupported)
        elif isinstance(message, ProviderOutputItemsMessage):
            if message.protocol != PROTOCOL:
                if message.items:
                    why = (
                        f"items of protocol {short(message.protocol, 40)} mean nothing to {DIALECT}"
                    )
                    out.append(LeftOut(index, "items", why))
                continue
            out += _items_left_out(index, message.items, transcript)
            kept = message
        elif isinstance(message, UnknownMessage):
            raise unknown_message(index, message)
        elif not isinstance(message, (SystemMessage, ToolResultMessage)):
            raise not_a_message(index, message)
    return out


_BLANK: Final = "the API refuses text with nothing but white space in it"


def _thinking_left_out(index: int, thinking: Iterable[ThinkingBlock]) -> list[LeftOut]:
    out: list[LeftOut] = []
    for position, thought in enumerate(thinking):
        if thought.redacted_data is not None:
            if thought.text or thought.signature:
                why = "a redacted block goes back as its data alone, without its text"
                out.append(LeftOut(index, "thinking", f"thinking block {position}: {why}"))
        elif not thought.signature:
            why = (
                "thinking without a signature (another provider's, or cut off) is refused, "
                "and a signature cannot be made up"
            )
            out.append(LeftOut(index, "thinking", f"thinking block {position}: {why}"))
    return out


def _thought_key(text: str, signature: str | None, data: str | None) -> tuple[str, ...]:
    return ("redacted", data) if data is not None else ("signed", text, signature or "")


def _uncarried_thinking(
    index: int, thinking: Iterable[ThinkingBlock], items: Iterable[Any]
) -> list[LeftOut]:
    """The thinking of a message after items that the items do not hold."""
    held: set[tuple[str, ...]] = set()
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "thinking":
            text, signature = item.get("thinking"), item.get("signature")
            if isinstance(text, str) and isinstance(signature, (str, type(None))):
                held.add(_thought_key(text, signature, None))
        elif kind == "redacted_thinking":
            data = item.get("data")
            if isinstance(data, str):
                held.add(_thought_key("", None, data))
    why = "the items before this message stand for its reply, and do not hold this thinking"
    return [
        LeftOut(
            index,
            "redacted-thinking" if thought.redacted_data is not None else "thinking",
            f"thinking block {position}: {why}",
        )
        for position, thought in enumerate(thinking)
        if _thought_key(thought.text, thought.signature, thought.redacted_data) not in held
    ]


def _blocks_left_out(index: int, blocks: Iterable[object], unsupported: str) -> list[LeftOut]:
    out: list[LeftOut] = []
    instead = (
        "a short note goes in its place"
        if unsupported == "note"
        else 'to_request refuses it unless unsupported="note"'
    )
    for position, block in enumerate(blocks):
        where = f"block {position}"
        if isinstance(block, TextBlock):
            if not _has_text(block.text):
                out.append(LeftOut(index, "text", f"{where}: {_BLANK}"))
        elif isinstance(block, (ImageUrlBlock, ImageBase64Block)):
            image = _image(block)
            if isinstance(image, str):
                out.append(LeftOut(index, "image", f"{where}: {DIALECT} {image}; {instead}"))
            elif isinstance(block, ImageUrlBlock) and block.detail != "auto":
                why = f"{DIALECT} has no field for an image's detail ({short(block.detail, 20)})"
                out.append(LeftOut(index, "detail", f"{where}: {why}"))
        elif isinstance(block, _VIDEO):
            out.append(LeftOut(index, "video", f"{where}: {DIALECT} {_NO_MEDIA}; {instead}"))
        elif isinstance(block, _AUDIO):
            out.append(LeftOut(index, "audio", f"{where}: {DIALECT} {_NO_MEDIA}; {instead}"))
        elif isinstance(block, UnknownBlock):
            raise unknown_block(DIALECT, index, position, block)
    return out


def _items_left_out(index: int, items: tuple[Any, ...], transcript: list[Any]) -> list[LeftOut]:
    answered = _answered_calls(index, transcript)
    unanswered = _unanswered_uses(index, items, transcript, answered)
    out: list[LeftOut] = []
    for position, item in enumerate(items):
        dropped = _dropped(item, answered, unanswered)
        if dropped is not None:
            what, why = _DROPPED[dropped]
            out.append(LeftOut(index, what, f"{in_item(position)}: {why}"))
            continue
        for key in _SDK_ONLY.intersection(item):
            why = "a field the SDK adds to a block is not part of the API"
            out.append(LeftOut(index, "items", f"{in_item(position, key)}: {why}"))
        if _MARKER in item:
            why = "a cache marker in a transcript's items is not sent: cache= places them"
            out.append(LeftOut(index, "cache-control", f"{in_item(position, _MARKER)}: {why}"))
    return out


# --- caching ------------------------------------------------------------------

# Blocks the API refuses a cache breakpoint on, whatever they hold.
_UNMARKABLE: Final = frozenset({"thinking", "redacted_thinking"})
_MARKED_TURNS: Final = 2


def _marker(ttl: str) -> dict[str, Any]:
    """A new ``cache_control`` value: the default lifetime is left unsaid."""
    return {"type": "ephemeral"} if ttl == "5m" else {"type": "ephemeral", "ttl": ttl}


def _markable(block: dict[str, Any]) -> bool:
    """Whether the API takes a ``cache_control`` on this block.

    Thinking blocks never take one, and text with nothing in it is refused
    with one ("cache_control cannot be set for empty text blocks"). Tool
    results, images and text take one.
    """
    kind = block.get("type")
    if kind in _UNMARKABLE:
        return False
    if kind == "text":
        text = block.get("text")
        return isinstance(text, str) and _has_text(text)
    return True


def _mark(turns: list[dict[str, Any]], ttl: str) -> None:
    """Marks the last block of each of the last two user turns, for incremental caching.

    The last turn's marker writes the whole conversation to the cache; the
    one before it sits where the previous request put its last marker, so
    this request reads everything up to there from the cache. A turn whose
    last block takes no marker has it on its latest block that does.
    """
    marked = 0
    for turn in reversed(turns):
        if turn["role"] != "user":
            continue
        for block in reversed(turn["content"]):
            if _markable(block):
                block[_MARKER] = _marker(ttl)
                break
        marked += 1
        if marked == _MARKED_TURNS:
            return


# --- tools --------------------------------------------------------------------


def tools_to_request(
    tools: Iterable[ToolSpec], *, choice: str = "auto", cache: Cache = False
) -> dict[str, Any]:
    """The ``tools`` and ``tool_choice`` fields that offer ``tools`` to the model.

    Each tool goes as ``{"name", "description", "input_schema"}`` (no
    ``description`` when it is empty), its JSON Schema as it is: the API
    reads ``$ref``/``$defs``, ``anyOf`` and recursive schemas. Two changes
    that keep the schema's meaning, since a tool's input is always an
    object: a root that is only a ``$ref`` to one of its own ``$defs`` (what
    pydantic writes for a recursive model) becomes that definition, its
    ``$defs`` kept beside it; and a root without a ``type`` gets ``"type":
    "object"``, which the API requires. ``choice`` is ``"auto"``, ``"none"``,
    ``"required"`` (Anthropic's ``any``) or a tool's name. With no tools the
    result is ``{}``. Raises :class:`~convtypes.dialects.ToolSchemaError`
    for a root whose type is not ``"object"`` (``path="/type"``), a root
    ``$ref`` to a definition that is not there (``path="/$ref"``), a name
    the API refuses, a name given twice, or a choice that names no tool.

    ``cache`` (``True``, ``"5m"`` or ``"1h"``) puts a cache breakpoint on the
    last tool, so the tools (which come first in the prompt) are read from
    the cache; with :func:`to_request`'s three, that makes the API's limit
    of four. The fields are the caller's: no dict or list in them is shared
    with the specs.
    """
    ttl = cache_ttl(cache)
    specs, chosen = checked_tools(tools, choice, DIALECT)
    if not specs:
        return {}
    out: list[dict[str, Any]] = []
    for spec in specs:
        tool: dict[str, Any] = {"name": spec.name}
        if spec.description:
            tool["description"] = spec.description
        tool["input_schema"] = copy_json(_input_schema(spec))
        out.append(tool)
    if ttl is not None:
        out[-1][_MARKER] = _marker(ttl)
    if chosen is not None:
        tool_choice: dict[str, Any] = {"type": "tool", "name": chosen}
    else:
        tool_choice = {"type": "any" if choice == "required" else choice}
    return {"tools": out, "tool_choice": tool_choice}


_DEFS_REF: Final = "#/$defs/"


def _input_schema(spec: ToolSpec) -> dict[str, Any]:
    """The tool's schema with an object at its root (see :func:`tools_to_request`)."""
    schema = spec.parameters
    target = schema.get("$ref")
    if set(schema) == {"$ref", "$defs"} and isinstance(target, str):
        defs = schema["$defs"]
        name = target[len(_DEFS_REF) :] if target.startswith(_DEFS_REF) else None
        root = defs.get(name) if isinstance(defs, dict) and name is not None else None
        if not isinstance(root, dict):
            raise ToolSchemaError(
                f"tool {spec.name!r}: the schema's root $ref {short(target)} names no "
                "definition in its $defs",
                spec.name,
                pointer(["$ref"]),
            )
        schema = {**root, "$defs": defs}
    if "type" not in schema:
        return {"type": "object", **schema}
    if schema["type"] != "object":
        raise ToolSchemaError(
            f"tool {spec.name!r}: {DIALECT} takes only an object schema for a tool's input, "
            f"and this one's type is {short(schema['type'])}",
            spec.name,
            pointer(["type"]),
        )
    return schema


# --- responses ----------------------------------------------------------------


def _joined_text(blocks: Iterable[dict[str, Any]]) -> str:
    """The text of the text blocks: adjacent ones joined, separated ones a blank line apart."""
    runs: list[str] = []
    run: list[str] = []
    for block in blocks:
        if block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str):
                run.append(text)
        elif run:
            runs.append("".join(run))
            run = []
    if run:
        runs.append("".join(run))
    return _GAP.join(text for text in runs if text)


def _flat(message: AssistantMessage) -> list[dict[str, Any]] | None:
    """The content ``to_request`` sends for ``message`` alone; ``None`` if ids change."""
    out = _thoughts(message.thinking)
    if _has_text(message.content):
        out.append({"type": "text", "text": message.content})
    seen: set[str] = set()
    for call in message.tool_calls:
        if call.id is None or call.id in seen or not _usable_id(call.id):
            return None  # to_request would send another id than the one that came
        seen.add(call.id)
        out.append({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments})
    return out


def _carried(items: list[dict[str, Any]], assistant: AssistantMessage) -> bool:
    """Whether replaying ``assistant`` alone sends the content that came, as JSON.

    Blocks the API refuses as input do not count: they go back neither way.
    """
    flat = _flat(assistant)
    if flat is None:
        return False
    return [block for block in map(_replayable, items) if block is not None] == flat


def _read(blocks: list[Any], incomplete: set[int], where: str) -> list[Message]:
    """The messages for a reply's content blocks.

    ``incomplete`` holds the positions of blocks that were cut off; a
    ``tool_use`` among them is kept in the items only.
    """
    runs: list[str] = []
    run: list[str] = []
    calls: list[ToolCall] = []
    thinking: list[ThinkingBlock] = []
    items: list[dict[str, Any]] = []
    for number, block in enumerate(blocks):
        if not isinstance(block, dict):
            raise ResponseError(
                f"{where}.content[{number}]: expected an object, got {short(block)}"
            )
        items.append(
            {
                key: value
                for key, value in block.items()
                if value is not None and key not in _SDK_ONLY
            }
        )
        kind = block.get("type")
        if kind == "text":
            run.append(field(block, "text", str, f"{where}.content[{number}]"))
            continue
        if not isinstance(kind, str):
            raise ResponseError(
                f"{where}.content[{number}]: a block without a type: {short(block)}"
            )
        if run:
            runs.append("".join(run))
            run = []
        at = f"{where}.content[{number}]"
        if kind == "tool_use":
            if number in incomplete:
                continue  # cut off: its input may be half there
            arguments = field(block, "input", dict, at)
            call_id = field(block, "id", str, at)
            name = field(block, "name", str, at)
            calls.append(tool_call(call_id, name, arguments, at))
        elif kind == "thinking":
            thinking.append(
                ThinkingBlock(
                    text=field(block, "thinking", str, at),
                    signature=field(block, "signature", str, at),
                )
            )
        elif kind == "redacted_thinking":
            thinking.append(ThinkingBlock(redacted_data=field(block, "data", str, at)))
        # Any other block (server tools, compaction, a type this version does
        # not know) says nothing the flat message can hold: it is in the items.
    if run:
        runs.append("".join(run))
    text = _GAP.join(text for text in runs if text)
    assistant = built(
        lambda: AssistantMessage(content=text, tool_calls=tuple(calls), thinking=tuple(thinking)),
        where,
    )
    if _carried(items, assistant):
        return [assistant]
    kept = built(lambda: ProviderOutputItemsMessage(protocol=PROTOCOL, items=tuple(items)), where)
    return [kept, assistant]


def from_response(response: object) -> list[Message]:
    """The messages to append for a Messages API response.

    ``response`` is the response JSON as a dict or the SDK's ``Message``
    (``BetaMessage``, ``ParsedMessage`` and the stream helper's final
    message too). Text becomes the assistant's ``content``, thinking and
    redacted thinking ``ThinkingBlock``\\ s in order, ``tool_use`` blocks
    ``ToolCall``\\ s with their ids; what that message cannot say is kept
    before it as ``anthropic`` items (see the module).
    """
    return read_reply(response).messages


def read_reply(response: object) -> Reply:
    """:func:`from_response`'s messages with the stop reason, usage, model and id."""
    try:
        data = plain(response, "the response")
        error = reported_error(data, "content")
        if error is not None:
            raise ResponseError(error)
        content = field(data, "content", list, "the response")
        reason = data.get("stop_reason")
        cut = isinstance(reason, str) and reason in _CUT
        incomplete = {len(content) - 1} if cut and content else set()
        messages = _read(content, incomplete, "response")
        return _reply(messages, reason, data.get("usage"), data.get("model"), data.get("id"))
    except LEAKS as err:
        raise_response_failure(err)


_STOPS: Final[dict[str, StopReason]] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "stop_sequence": "stop_sequence",
    "pause_turn": "pause_turn",
    "refusal": "refusal",
}


def _stop_reason(messages: list[Message], reason: object) -> StopReason:
    stop = _STOPS.get(reason, "other") if isinstance(reason, str) else "other"
    assistant = messages[-1]
    if stop == "end_turn" and isinstance(assistant, AssistantMessage) and assistant.tool_calls:
        return "tool_use"
    return stop


def _usage(raw: object) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    fresh = token_count(raw, "input_tokens")
    written = token_count(raw, "cache_creation_input_tokens")
    read = token_count(raw, "cache_read_input_tokens")
    return Usage(
        input_tokens=None if fresh is None else fresh + (written or 0) + (read or 0),
        output_tokens=token_count(raw, "output_tokens"),
        cache_read_tokens=read,
        cache_write_tokens=written,
        reasoning_tokens=token_count(raw, "output_tokens_details", "thinking_tokens"),
        raw=raw,
    )


def _reply(
    messages: list[Message], reason: object, usage: object, model: object, reply_id: object
) -> Reply:
    return Reply(
        messages=messages,
        stop_reason=_stop_reason(messages, reason),
        provider_stop_reason=reason if isinstance(reason, str) else None,
        usage=_usage(usage),
        model=model if isinstance(model, str) else None,
        id=reply_id if isinstance(reply_id, str) else None,
    )


# --- streams ------------------------------------------------------------------

# Events whose helper form carries the whole block or message snapshot:
# read as an SDK object, only their type and index are taken.
_BARE_EVENTS: Final = frozenset({"message_stop", "content_block_stop", "ping"})
# The events and deltas of the Messages stream this version reads. Any other
# type is skipped, not refused: the SDK's ``messages.stream()`` helper adds
# events of its own (``text``, ``input_json``, ``citation``...) that repeat
# what the raw deltas say, and Anthropic may add event and delta types, which
# it asks clients to let pass (as the SDK does).
_EVENTS: Final = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
        "error",
    }
)
_DELTAS: Final = frozenset(
    {
        "text_delta",
        "input_json_delta",
        "thinking_delta",
        "signature_delta",
        "citations_delta",
        "compaction_delta",
    }
)
_NOT_TOOLS: Final = frozenset({"text", "thinking", "redacted_thinking"})
# The deltas that come by the thousand, and the key of their piece of text:
# read from the SDK's object without its dump where that gives the same (see
# _objects).
_PIECES: Final = {
    "text_delta": "text",
    "input_json_delta": "partial_json",
    "thinking_delta": "thinking",
}
_DELTA_EVENT: Final = frozenset({"type", "index", "delta"})
_PIECE_FIELDS: Final = {kind: (key, frozenset({"type", key})) for kind, key in _PIECES.items()}


# What a message_start or message_delta is read for, from an SDK object's fields.
_START_EVENT: Final = frozenset({"type", "message"})
_BLOCK_START_EVENT: Final = frozenset({"type", "index", "content_block"})
_START_MESSAGE: Final = frozenset({"id", "model", "usage", "content"})
_DELTA_MESSAGE_EVENT: Final = frozenset({"type", "delta", "usage"})
_STOP_REASON: Final = frozenset({"stop_reason"})
_TEXT_OR_NONE: Final = frozenset({str, type(None)})


def _object_usage(holder: object, read: dict[str, Any]) -> tuple[bool, dict[str, Any] | None]:
    """Whether the ``usage`` among the fields ``read`` of an SDK object can be read; its dump.

    The dump is ``None`` where the holder's has none (or ``null``). Not
    readable where only the holder's own dump can tell what it holds there.
    """
    usage = read.get("usage")
    if usage is None:
        return True, None
    if fields(usage) is None or not dumps_as_declared(holder, "usage", usage):
        return False, None
    dump = flat(usage)
    return True, plain(usage, "the usage") if dump is None else dump


class _Block:
    """A content block as it streams: the start as sent, and the pieces since.

    ``pieces`` are the text of a text block, the thinking of a thinking
    block, or the input JSON of a tool-like block (one whose start has an
    ``input``); ``signature`` the signature pieces; ``citations`` those
    added by deltas; ``extra`` the fields a ``compaction_delta`` set.
    ``call`` is a client call's position among the reply's calls (-1 for
    any other block); ``input`` the input parsed when the block stopped
    (``None``: the start's, no JSON came).
    """

    __slots__ = (
        "call",
        "citations",
        "extra",
        "input",
        "kind",
        "pieces",
        "signature",
        "start",
        "started",
        "stopped",
        "tool_like",
    )

    def __init__(self, start: dict[str, Any], started: int) -> None:
        self.start = start
        self.kind = start.get("type")
        self.tool_like = self.kind not in _NOT_TOOLS and "input" in start
        self.pieces: list[str] = []
        self.signature: list[str] = []
        self.citations: list[Any] | None = None
        self.extra: dict[str, Any] | None = None
        self.input: Any = None
        self.call = -1
        self.started = started
        self.stopped = False

    def whole(self, at: int, final: bool) -> dict[str, Any]:
        """The block as a whole response would hold it, so far.

        The input of a tool-like block that never stopped is read from its
        JSON text so far, as the SDK reads it; where that text cannot be
        read, ``final`` raises and a partial view keeps the start's input.
        """
        block = dict(self.start)
        if self.pieces:
            if self.kind == "text":
                block["text"] = block.get("text", "") + "".join(self.pieces)
            elif self.kind == "thinking":
                block["thinking"] = block.get("thinking", "") + "".join(self.pieces)
        if self.signature:
            block["signature"] = block.get("signature", "") + "".join(self.signature)
        if self.citations:
            before = block.get("citations")
            block["citations"] = [*(before if isinstance(before, list) else ()), *self.citations]
        if self.extra:
            block.update(self.extra)
        if self.tool_like:
            if self.input is not None:
                block["input"] = self.input
            elif not self.stopped:
                text = "".join(self.pieces)
                if text.strip():
                    try:
                        block["input"] = read_partial_object(text)
                    except ValueError as err:
                        if final:
                            raise StreamError(
                                f"content block {at} (started in event {self.started}): its "
                                f"input was cut off where it cannot be read: {err}",
                                self.started,
                                None,
                            ) from None
        return block


class Accumulator(StreamReader):
    """Builds the messages of a streamed Messages API response.

    ``feed`` every raw event (a dict or the SDK's event object), or every
    event of the SDK's ``messages.stream()`` helper (whose own ``text``,
    ``input_json`` and like events are skipped: the raw events they repeat
    come too). Event and delta types this version does not know are
    skipped as well, as Anthropic asks of clients. ``result()`` then equals
    ``from_response`` of the final message, and ``reply()`` adds the stop
    reason and usage from ``message_delta``. ``feed`` returns the event's
    deltas: text and thinking as they arrive (with the blank line that
    separates texts other blocks come between), and for each client
    ``tool_use`` a start and the pieces of its input JSON. A stream cut at
    the token limit may end with a block that never stopped; it is read as
    the SDK reads it.
    """

    _noun = "event"
    _end = "message_stop"

    def __init__(self) -> None:
        super().__init__()
        self._blocks: dict[int, _Block] = {}
        self._started = False
        self._calls = 0  # client tool calls started
        self._said = False  # some text has been given out
        self._gap = False  # another block came since the last text
        self._reason: object = None
        self._usage: dict[str, Any] | None = None
        self._model: object = None
        self._id: object = None

    def _fail(self, number: int, event: object, kind: object, reason: str) -> StreamError:
        return StreamError(f"event {number} ({label(kind)}): {reason}", number, event)

    def _take(self, number: int, event: object) -> list[Delta]:
        made = type(event)
        if made is dict:
            data: dict[str, Any] = event  # type: ignore[assignment]
            kind = data.get("type")
        else:
            # An SDK object: a piece of text, thinking or input JSON is read
            # from its fields where that gives what its dump gives (see
            # _objects); any other event, from the dump, which also says
            # what is wrong with it.
            outer = event.__dict__ if made in PLAIN else fields(event)
            if outer is not None:
                told = outer.get("type")
                if told == "content_block_delta":
                    grown = self._object_delta(number, event, outer)
                    if grown is not None:
                        return grown
                elif told == "content_block_start":
                    started = self._object_block(number, event)
                    if started is not None:
                        return started
                elif (told == "message_start" or told == "message_delta") and (
                    self._object_message(event, told)
                ):
                    return []
            kind = getattr(event, "type", None)
            if isinstance(kind, str) and (kind in _BARE_EVENTS or kind not in _EVENTS):
                at = outer.get("index") if outer is not None else getattr(event, "index", None)
                data = {"type": kind, "index": at}
            else:
                data = plain(event, "an event")
                kind = data.get("type")
        if type(kind) is not str:
            raise self._fail(number, event, kind, "has no type")
        if self._finished:
            raise self._fail(number, event, kind, "the stream already ended with message_stop")
        if kind == "content_block_delta" and self._started:
            return self._delta(number, event, data)
        if kind == "ping" or kind not in _EVENTS:
            return []  # the helper's own events, and types newer than this version
        if kind == "message_start":
            return self._message_start(number, event, data)
        if kind == "error":
            raise self._fail(
                number,
                event,
                kind,
                f"the provider reported an error: {short(data.get('error'), 200)}",
            )
        if not self._started:
            raise self._fail(number, event, kind, "came before message_start")
        if kind == "message_delta":
            self._message_delta(number, event, data)
            return []
        if kind == "message_stop":
            self._message_stop(number, event)
            return []
        at = data.get("index")
        if type(at) is not int:
            raise self._fail(number, event, kind, "has no integer index")
        if kind == "content_block_start":
            if at in self._blocks:
                raise self._fail(number, event, kind, f"content block {at} was already started")
            block = data.get("content_block")
            if not isinstance(block, dict):
                raise self._fail(number, event, kind, "has no content_block")
            return self._start(number, event, at, block)
        known = self._blocks.get(at)
        if known is None:
            raise self._fail(
                number, event, kind, f"names content block {at}, which was never started"
            )
        if known.stopped:
            raise self._fail(number, event, kind, f"content block {at} was already stopped")
        if kind == "content_block_stop":
            return self._stop(number, event, at, known)
        raise self._fail(number, event, kind, "is not an event of the Messages stream")

    def _message_start(self, number: int, event: object, data: dict[str, Any]) -> list[Delta]:
        kind = "message_start"
        if self._started:
            raise self._fail(number, event, kind, "a second message_start")
        self._started = True
        message = data.get("message")
        if not isinstance(message, dict):
            return []
        self._id = message.get("id")
        self._model = message.get("model")
        usage = message.get("usage")
        if isinstance(usage, dict):
            self._usage = dict(usage)
        blocks = message.get("content")
        if blocks is not None and not isinstance(blocks, list):
            raise self._fail(number, event, kind, "the message's content is not a list")
        deltas: list[Delta] = []
        for position, block in enumerate(blocks or ()):
            if not isinstance(block, dict):
                raise self._fail(
                    number, event, kind, f"the message's content block {position} is not an object"
                )
            # A block the message starts with is whole: started and stopped.
            deltas += self._start(number, event, position, block)
            deltas += self._stop(number, event, position, self._blocks[position])
        return deltas

    def _message_delta(self, number: int, event: object, data: dict[str, Any]) -> None:
        kind = "message_delta"
        delta = data.get("delta")
        if delta is not None:
            if not isinstance(delta, dict):
                raise self._fail(number, event, kind, f"the delta is not an object: {short(delta)}")
            reason = delta.get("stop_reason")
            if reason is not None:
                if not isinstance(reason, str):
                    raise self._fail(
                        number, event, kind, f"the stop_reason is not text: {short(reason)}"
                    )
                self._reason = reason
        usage = data.get("usage")
        if usage is not None:
            if not isinstance(usage, dict):
                raise self._fail(number, event, kind, f"the usage is not an object: {short(usage)}")
            # Cumulative counts: a later value replaces an earlier one.
            merged = self._usage if self._usage is not None else {}
            merged.update((key, value) for key, value in usage.items() if value is not None)
            self._usage = merged

    def _message_stop(self, number: int, event: object) -> None:
        open_blocks = sorted(at for at, block in self._blocks.items() if not block.stopped)
        # Cut at the token limit, a stream may end inside its last block.
        if open_blocks and not (self._reason in _CUT and open_blocks == [max(self._blocks)]):
            raise self._fail(
                number, event, "message_stop", f"content block {open_blocks[0]} was never stopped"
            )
        self._finished = True

    def _start(self, number: int, event: object, at: int, block: dict[str, Any]) -> list[Delta]:
        kind = block.get("type")
        if kind == "tool_use" and not (
            isinstance(block.get("id"), str) and isinstance(block.get("name"), str)
        ):
            # Refused before it is kept, so that partial() can go on without it.
            raise self._fail(
                number, event, "content_block_start", "a tool_use block without an id and a name"
            )
        known = self._blocks[at] = _Block(block, number)
        if kind == "text":
            text = block.get("text")
            return [self._text(text)] if isinstance(text, str) and text else []
        if self._said:
            self._gap = True
        if kind == "thinking":
            thought = block.get("thinking")
            return [ThinkingDelta(text=thought)] if isinstance(thought, str) and thought else []
        if kind == "tool_use":
            known.call = self._calls
            self._calls += 1
            return [ToolCallStart(index=known.call, id=block["id"], name=block["name"])]
        if kind == "fallback":
            # The model that serves the rest of the reply is the one the
            # whole response names.
            target = block.get("to")
            if isinstance(target, dict) and isinstance(target.get("model"), str):
                self._model = target["model"]
        return []

    def _stop(self, number: int, event: object, at: int, block: _Block) -> list[Delta]:
        if not block.tool_like:
            block.stopped = True
            return []
        text = "".join(block.pieces)
        if text.strip():
            try:
                block.input = parse_arguments(text)
            except ValueError as err:
                # Left open: partial() shows no call whose input does not parse.
                raise self._fail(
                    number,
                    event,
                    "content_block_stop",
                    f"the tool input of block {at} does not parse: {err}",
                ) from None
            block.stopped = True
            return []
        block.stopped = True
        given = block.start.get("input")
        if block.call < 0 or not isinstance(given, dict) or not given:
            return []
        # A call whose input came whole, in its start: one piece with all of it.
        try:
            whole = arguments_json(given)
        except (msgspec.EncodeError, ValueError, TypeError, RecursionError):
            return []  # result() names what is wrong with it
        return [ToolCallDelta(index=block.call, arguments=whole)]

    def _text(self, piece: str) -> TextDelta:
        """A text delta, after the blank line that separates it from earlier text."""
        if self._gap:
            self._gap = False
            piece = _GAP + piece
        self._said = True
        return TextDelta(piece)

    def _delta(self, number: int, event: object, data: dict[str, Any]) -> list[Delta]:
        kind = "content_block_delta"
        at = data.get("index")
        if type(at) is not int:
            raise self._fail(number, event, kind, "has no integer index")
        block = self._blocks.get(at)
        if block is None:
            raise self._fail(
                number, event, kind, f"names content block {at}, which was never started"
            )
        if block.stopped:
            raise self._fail(number, event, kind, f"content block {at} was already stopped")
        delta = data.get("delta")
        if not isinstance(delta, dict):
            raise self._fail(number, event, kind, "has no delta")
        delta_type = delta.get("type")
        if delta_type not in _DELTAS:
            return []  # a delta type newer than this version: skipped, as the SDK does
        key = _PIECES.get(delta_type)
        if key is not None:
            grown = self._grow(number, event, at, block, delta_type, delta.get(key))
            if grown is not None:
                return grown
        if delta_type == "signature_delta" and block.kind == "thinking":
            signature = delta.get("signature")
            if not isinstance(signature, str):
                raise self._fail(number, event, kind, "the delta has no 'signature' text")
            if not block.signature:
                self._check_text(number, event, at, block, "signature")
            block.signature.append(signature)
            return []
        if delta_type == "citations_delta" and block.kind == "text":
            if "citation" not in delta:
                raise self._fail(number, event, kind, "the delta has no 'citation'")
            if block.citations is None:
                block.citations = []
            block.citations.append(delta["citation"])
            return []
        if delta_type == "compaction_delta" and block.kind == "compaction":
            # It sets the block's fields, as the SDK reads it.
            if block.extra is None:
                block.extra = {}
            block.extra.update((key, value) for key, value in delta.items() if key != "type")
            return []
        raise self._fail(
            number,
            event,
            kind,
            f"a {short(delta_type, 40)} delta cannot apply to a {short(block.kind, 40)} block",
        )

    def _object_block(self, number: int, event: object) -> list[Delta] | None:
        """A ``content_block_start`` taken from the SDK object's fields, as from its dump.

        For a block of plain values only (see ``_objects.flat``): text,
        thinking, a tool's use before its input. ``None`` for anything else,
        which is read from the event's dump.
        """
        outer = given(event, _BLOCK_START_EVENT)
        if outer is None or len(outer) != len(_BLOCK_START_EVENT):
            return None
        at, block = outer["index"], outer["content_block"]
        if (
            self._finished
            or not self._started
            or type(at) is not int
            or at in self._blocks
            or not dumps_as_declared(event, "content_block", block)
        ):
            return None
        start = flat(block)
        return None if start is None else self._start(number, event, at, start)

    def _object_message(self, event: object, kind: str) -> bool:
        """A ``message_start`` or ``message_delta`` taken from the SDK object's fields.

        Only what ``_message_start`` and ``_message_delta`` read of the dict:
        the message's id, model and usage when it starts with no content, the
        stop reason and the usage of a delta. A usage is kept as its own
        dump. False, with nothing taken, where the fields might not read as
        the event's dump does: the event is then read from that dump.
        """
        if self._finished:
            return False
        if kind == "message_start":
            outer = given(event, _START_EVENT)
            if outer is None or "type" not in outer or self._started:
                return False
            message = outer.get("message")
            inner = None if message is None else given(message, _START_MESSAGE)
            if inner is None:
                return False
            content = inner.get("content", [])
            reply_id, model = inner.get("id"), inner.get("model")
            if (
                type(content) is not list
                or content
                or type(reply_id) not in _TEXT_OR_NONE
                or type(model) not in _TEXT_OR_NONE
            ):
                return False
            readable, usage = _object_usage(message, inner)
            if not readable:
                return False
            self._started = True
            self._id, self._model = reply_id, model
            if usage is not None:
                self._usage = usage
            return True
        outer = given(event, _DELTA_MESSAGE_EVENT)
        if outer is None or "type" not in outer or not self._started:
            return False
        delta = outer.get("delta")
        reason = None
        if delta is not None:
            inner = given(delta, _STOP_REASON)
            if inner is None:
                return False
            reason = inner.get("stop_reason")
            if type(reason) not in _TEXT_OR_NONE:
                return False
        readable, usage = _object_usage(event, outer)
        if not readable:
            return False
        if reason is not None:
            self._reason = reason
        if usage is not None:
            merged = self._usage if self._usage is not None else {}
            merged.update((key, value) for key, value in usage.items() if value is not None)
            self._usage = merged
        return True

    def _object_delta(
        self, number: int, event: object, outer: dict[str, Any]
    ) -> list[Delta] | None:
        """A ``content_block_delta`` read from the fields of the SDK's object.

        ``outer`` is the event's fields. A piece of text, thinking or input
        JSON is taken as ``_delta`` takes it from the event's dump; ``None``
        for any other delta, or where the fields might not read as the dump
        does: the event is then read from its dump, which also says what is
        wrong with it.
        """
        try:
            at = outer["index"]
            delta = outer["delta"]
            inner: Any = delta.__dict__ if type(delta) in PLAIN else fields(delta)
            kind = inner["type"]
            key, named = _PIECE_FIELDS[kind]
            piece = inner[key]
            block = self._blocks[at] if type(at) is int else None
        except (KeyError, TypeError):  # not there, or not what a dump can hold
            return None
        if (
            type(piece) is not str
            or block is None
            or block.stopped
            or self._finished
            or not _DELTA_EVENT <= event.__pydantic_fields_set__  # type: ignore[attr-defined]
            or not named <= delta.__pydantic_fields_set__
        ):
            return None
        # An extra field of a name read is what the dump holds there.
        outside = event.__pydantic_extra__  # type: ignore[attr-defined]
        inside = delta.__pydantic_extra__
        if (outside and not _DELTA_EVENT.isdisjoint(outside)) or (
            inside and not named.isdisjoint(inside)
        ):
            return None
        return self._grow(number, event, at, block, kind, piece)

    def _grow(
        self, number: int, event: object, at: int, block: _Block, delta_type: str, piece: object
    ) -> list[Delta] | None:
        """Add a piece of text, thinking or input JSON to its block; its deltas.

        ``None`` when the delta's type does not fit the block.
        """
        if delta_type == "text_delta":
            if block.kind != "text":
                return None
            if not isinstance(piece, str):
                raise self._fail(
                    number, event, "content_block_delta", "the delta has no 'text' text"
                )
            if not block.pieces:
                self._check_text(number, event, at, block, "text")
            block.pieces.append(piece)
            if not piece:
                return []
            if self._gap:  # as _text does: the blank line after other blocks
                self._gap = False
                piece = _GAP + piece
            self._said = True
            return [TextDelta(piece)]
        if delta_type == "input_json_delta":
            if not block.tool_like:
                return None
            if not isinstance(piece, str):
                raise self._fail(
                    number, event, "content_block_delta", "the delta has no 'partial_json' text"
                )
            block.pieces.append(piece)
            return [ToolCallDelta(block.call, piece)] if piece and block.call >= 0 else []
        if block.kind != "thinking":
            return None
        if not isinstance(piece, str):
            raise self._fail(
                number, event, "content_block_delta", "the delta has no 'thinking' text"
            )
        if not block.pieces:
            self._check_text(number, event, at, block, "thinking")
        block.pieces.append(piece)
        return [ThinkingDelta(piece)] if piece else []

    def _check_text(self, number: int, event: object, at: int, block: _Block, key: str) -> None:
        """The block's own ``key``, which deltas add to, must be text if present."""
        before = block.start.get(key, "")
        if not isinstance(before, str):
            raise self._fail(
                number,
                event,
                "content_block_delta",
                f"content block {at} has a {key!r} that is not text: {short(before)}",
            )

    def _messages(self, final: bool) -> list[Message]:
        order = sorted(self._blocks)
        blocks = [self._blocks[at].whole(at, final) for at in order]
        incomplete = {n for n, at in enumerate(order) if not self._blocks[at].stopped}
        if self._reason in _CUT and order:
            incomplete.add(len(order) - 1)
        return _read(blocks, incomplete, "stream")

    def _reply(self, messages: list[Message]) -> Reply:
        return _reply(messages, self._reason, self._usage, self._model, self._id)
