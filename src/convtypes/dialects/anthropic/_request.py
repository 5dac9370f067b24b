"""A transcript to the Messages API's ``messages`` and ``system``."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any, Final

from ..._content import ImageBase64Block, ImageUrlBlock, TextBlock
from ..._conversation import repeated
from ..._fence import fence_external as fence
from ..._messages import (
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
from ..._provenance import Provenance
from ..._unknown import UnknownBlock, UnknownMessage
from .._block_text import joined_text
from .._cache import Cache, cache_ttl
from .._copy import copy_json
from .._errors import (
    DialectError,
    Unsupported,
    check_unsupported,
    not_a_message,
    note_text,
    unknown_block,
    unknown_message,
    unsupported_block,
)
from .._ids import CallIds
from .._left_out import LeftOutKind
from .._media import image_type, parse_data_url
from .._newer import Unknown, check_unknown, next_known
from .._send import transcript_of
from ._cache_marks import _mark, _marker
from ._wire import _MARKER, _NO_MEDIA, _SDK_ONLY, DIALECT, PROTOCOL, _has_text, _usable_id

IMAGE_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""The image media types the Messages API takes inline."""
# Server tools' uses, which the server answers in the same assistant turn.
_SERVER_USES: Final = frozenset({"server_tool_use", "mcp_tool_use"})
# Messages that end an assistant turn with a user turn.
_ANSWERS: Final = (UserMessage, UserMultimodalMessage, ToolResultMessage)


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
    after = next_known(transcript, index)
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
    unknown: Unknown = "raise",
) -> dict[str, Any]:
    """The conversation part of a Messages API request body.

    Returns ``{"system": str, "messages": [...]}``, without ``system`` when no
    system message is given. The system messages before the first turn join
    into ``system``; one after it goes into ``messages`` where it stands, as
    a ``{"role": "system", ...}`` message (``SystemMessageParam``), so that
    an instruction given mid-conversation follows what came before it.

    The caller adds ``model``, ``max_tokens``, the tool fields
    (``tools_to_request``) and the rest. External tool results
    are fenced unless ``fence_external`` is False. Tool-call ids are made
    unique and fit ``^[A-Za-z0-9_-]{1,64}$``; a result follows its call's new
    id. ``anthropic`` items go back as they came (see the module).

    ``cache`` (``True``, ``"5m"`` or ``"1h"``) marks the prompt for
    Anthropic's incremental caching: the system prompt becomes one text
    block, and it and the last block of each of the last two user turns get
    a ``cache_control``, at most three breakpoints. ``TypeError`` or
    ``ValueError`` for another value.

    A message of a role this version does not know raises
    ``UnsupportedContent``, or with ``unknown="skip"`` is left out, walked
    past as if it were not there.

    The request is the caller's: no dict or list in it is shared with the
    transcript, so changing it in place changes nothing stored.

    An assistant turn does not end in thinking: the API refuses one whose
    final block is a thinking block (a reply cut after its thinking, before
    any text). Such trailing thinking is not sent, and a turn of nothing
    else is left out (``left_out`` names it).
    """
    check_unsupported(unsupported)
    check_unknown(unknown)
    ttl = cache_ttl(cache)
    transcript = transcript_of(messages, "to_request")
    return _request(transcript, fence_external, unsupported, ttl, unknown)[0]


def _request(
    transcript: list[Any],
    fence_external: bool,
    unsupported: Unsupported,
    ttl: str | None,
    unknown: Unknown,
    tails: list[tuple[int, list[dict[str, Any]]]] | None = None,
) -> tuple[dict[str, Any], int]:
    """The request (see :func:`to_request`), and the index of the message that opened
    its first turn: a system message after it goes in place, one before it to ``system``.
    ``tails`` (when given) gets what :func:`_cut_thought_tails` left out.
    """
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
    # System text after the first turn, waiting for the next message that is
    # neither a tool result nor system text: it goes in place, except that it
    # never comes between calls and their results (see waits_for_results).
    held: list[dict[str, Any]] = []
    opened: dict[int, int] = {}  # an assistant turn's place -> the message that opened it
    copies = repeated(transcript)
    for index, message in enumerate(transcript):
        if copies and index in copies:
            continue  # sent once: walked past, as an unknown message is
        previous, kept = kept, None
        if held and not (
            isinstance(message, (ToolResultMessage, SystemMessage, UnknownMessage))
            or (isinstance(message, ProviderOutputItemsMessage) and message.protocol != PROTOCOL)
        ):
            if role != "system":
                content = []
                turns.append({"role": "system", "content": content})
                role = "system"
            content += held
            held = []
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
                    opened[len(turns)] = index
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
            if not turns:
                system.append(message.content)  # before the first turn: the system prompt
                continue
            # After it: a system-role message where it stands, past any tool
            # results it came before (blank text is refused).
            system_text = message.content
            if system_text and not system_text.isspace():
                held.append({"type": "text", "text": system_text})
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
                    opened[len(turns)] = index
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
            if unknown == "raise":
                raise unknown_message(index, message)
            kept = previous  # walked past: what comes next follows what came before
            continue
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
    if held:
        if role != "system":
            turns.append({"role": "system", "content": held})
        else:
            content += held
    _cut_thought_tails(turns, opened, tails)
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
        return {"messages": turns}, first_index
    prompt = "\n\n".join(system)
    if ttl is not None and _has_text(prompt):
        block = {"type": "text", "text": prompt, "cache_control": _marker(ttl)}
        return {"system": [block], "messages": turns}, first_index
    return {"system": prompt, "messages": turns}, first_index


_THOUGHTS: Final = ("thinking", "redacted_thinking")


def _cut_thought_tails(
    turns: list[dict[str, Any]],
    opened: dict[int, int],
    tails: list[tuple[int, list[dict[str, Any]]]] | None,
) -> None:
    """Take the thinking off the end of each assistant turn, and the turns left empty.

    The Messages API refuses an assistant turn whose final block is
    thinking ("The final block in an assistant message cannot be
    `thinking`"), which is what a reply cut after its thinking gives. A
    turn left empty goes, and the user turns around it become one, as the
    API would read them. ``tails`` gets, for each turn cut, the message that
    opened it and the blocks that went.
    """
    place = 0
    while place < len(turns):
        turn = turns[place]
        content = turn["content"]
        if turn["role"] != "assistant" or not content or content[-1].get("type") not in _THOUGHTS:
            place += 1
            continue
        cut: list[dict[str, Any]] = []
        while content and content[-1].get("type") in _THOUGHTS:
            cut.append(content.pop())
        if tails is not None:
            tails.append((opened.get(place, -1), cut))
        if content:
            place += 1
            continue
        del turns[place]
        opened = {(at - 1 if at > place else at): index for at, index in opened.items()}
        if 0 < place < len(turns) and turns[place - 1]["role"] == turns[place]["role"] == "user":
            turns[place - 1]["content"].extend(turns.pop(place)["content"])
            opened = {(at - 1 if at > place else at): index for at, index in opened.items()}


def _text_piece(block: dict[str, Any]) -> str | None:
    """A block's part in the flat text: its text, ``""`` for a text block without one."""
    if block.get("type") != "text":
        return None
    text = block.get("text")
    return text if isinstance(text, str) else ""


def _joined_text(blocks: Iterable[dict[str, Any]]) -> str:
    """The text of the text blocks: adjacent ones joined, separated ones a blank line apart."""
    return joined_text(map(_text_piece, blocks))
