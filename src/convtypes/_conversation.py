"""Checks on a whole conversation: what makes a provider refuse a replay.

The codec checks one document's shape; these rules span messages. They find
what a fold of sync operations can get wrong and what a provider rejects when
a transcript is replayed: results that answer nothing, calls never answered,
ids used twice, provider items sent twice, a misplaced system prompt, a turn
whose thinking is signed only in part.

Each rule says what a replay through convtypes' own dialects would really
have refused, and nothing more: a dialect that drops what it cannot replay
(unsigned thinking, another provider's items) raises no alarm for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final, Literal

import msgspec
from msgspec import Struct

from ._content import TextBlock
from ._messages import (
    MESSAGE_TYPES,
    AssistantMessage,
    LenientMessage,
    ProviderOutputItemsMessage,
    SystemMessage,
    ThinkingBlock,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from ._unknown import UnknownMessage

__all__ = ["Problem", "check_conversation", "positional_call_id"]


class Problem(Struct, frozen=True, gc=False):
    """One thing wrong with a conversation.

    ``index`` is the position of the message it concerns (``-1`` for the
    conversation as a whole), ``code`` a stable identifier to match on,
    ``text`` a sentence for people, and ``severity`` whether a replay is
    refused (``"error"``, the default: some dialect's ``to_request`` or the
    provider refuses it) or only changed on the way (``"warning"``: a copy
    left out, a system prompt moved). A transcript with no error goes
    through every dialect's ``to_request``.
    """

    index: int
    code: str
    text: str
    severity: Literal["error", "warning"] = "error"


def positional_call_id(position: int) -> str:
    """The id a backend gives a tool call that came without one.

    Backends number the calls of one assistant turn from zero (``call_0``,
    ``call_1``...); a tool result answers such a call with that id. The
    numbering restarts on every assistant turn, so these ids may repeat
    across turns without being duplicates.

    ``position`` is an ``int`` from 0 (``TypeError`` for anything else,
    ``bool`` included; ``ValueError`` for a negative one).
    """
    if type(position) is not int:
        if not isinstance(position, int) or isinstance(position, bool):
            raise TypeError(f"positional_call_id takes an int, got {type(position).__name__}")
        position = int(position)
    if position < 0:
        raise ValueError(f"positional_call_id takes a position from 0, got {position}")
    return f"call_{position}"


# The protocol whose items carry ids that its API refuses to see twice.
_RESPONSES: Final = "openai-responses"
_MESSAGE_KINDS: Final = (*MESSAGE_TYPES, UnknownMessage)


def _is_signed(block: ThinkingBlock) -> bool:
    """Whether a thinking block can be replayed to the provider that made it.

    As the Anthropic dialect sends them: redacted data, or a signature that
    is not empty. An empty signature (``""``) signs nothing.
    """
    return block.redacted_data is not None or bool(block.signature)


# Where an item names itself: the id a provider gives the item (a Responses
# item, an Anthropic block) or the call it holds (Gemini, Bedrock), unique to
# it. A signature names nothing (a model that says the same again may sign
# it the same), and neither do the call ids of a kept chat message: some
# servers number each turn's calls from 0.
_INNER_IDS: Final = (("toolUse", "toolUseId"), ("function_call", "id"), ("functionCall", "id"))


def _item_ids(items: Iterable[object]) -> tuple[str, ...]:
    """The ids the items carry, in order: what makes two copies of them one reply.

    Items without any (Gemini parts without call ids, say) name nothing, and
    two equal ones may be two replies that happened to say the same.
    """
    found: list[str] = []
    for item in items:
        if type(item) is not dict:
            continue
        item_id = item.get("id")
        if type(item_id) is str:
            found.append(item_id)
        for outer, key in _INNER_IDS:
            inner = item.get(outer)
            if type(inner) is dict and type(inner.get(key)) is str:
                found.append(inner[key])
    return tuple(found)


def _next_known(transcript: Sequence[object], index: int) -> int:
    """The index of the message after ``index`` that is not an ``UnknownMessage`` (or -1)."""
    for at in range(index + 1, len(transcript)):
        if not isinstance(transcript[at], UnknownMessage):
            return at
    return -1


def _at(transcript: Sequence[object], index: int) -> object:
    return transcript[index] if index >= 0 else None


def _call_keys(message: object) -> list[str]:
    """The ids a result answers an assistant message's calls by (``[]`` for anything else)."""
    if not isinstance(message, AssistantMessage):
        return []
    return [
        call.id if call.id is not None else positional_call_id(position)
        for position, call in enumerate(message.tool_calls)
    ]


def repeated(transcript: Sequence[object]) -> dict[int, str]:
    """The messages that are copies of earlier ones, which no dialect sends twice.

    A sync merge (or a retry) that stored a reply twice leaves the same
    messages again, ids and all, and a provider refuses ids it has seen in
    the request. The same value stored twice is one thing, as an op applied
    twice is one op: the later copy is left out, and ``left_out`` names it.
    Maps the index of each copy to what it is:

    - ``"reply"``: a provider items message equal to an earlier one, whose
      items carry ids that name them (a Responses item's, an Anthropic
      block's, a Gemini or Bedrock call's), with the message after each
      (the reply's assistant message, or the lack of one) equal too; that
      assistant message goes with it. An assistant message alone is never
      a copy: some servers number each turn's calls from 0, so equal call
      ids prove nothing, and a model may well say the same twice;
    - ``"result"``: a tool result equal to the one that already answered
      its call, when no call has taken that id again since.

    Anything else that repeats an id is not a copy, and is judged as it
    stands (``duplicate-item-id``, ``duplicate-call-id``,
    ``repeated-result``).
    """
    if not _may_repeat(transcript):
        return {}
    copies: dict[int, str] = {}
    items_seen: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    answered_by: dict[str, int] = {}  # call id -> the result that answered it
    for index, message in enumerate(transcript):
        if index in copies:
            continue  # the assistant message of a copied reply
        if isinstance(message, ProviderOutputItemsMessage):
            ids = _item_ids(message.items)
            if not ids:
                continue
            key = (message.protocol, ids)
            following_at = _next_known(transcript, index)
            following = _at(transcript, following_at)
            for earlier in items_seen.get(key, ()):
                if transcript[earlier] != message:
                    continue
                before = _at(transcript, _next_known(transcript, earlier))
                if isinstance(following, AssistantMessage):
                    if following != before:
                        continue
                elif isinstance(before, AssistantMessage):
                    continue
                copies[index] = "reply"
                if isinstance(following, AssistantMessage):
                    copies[following_at] = "reply"
                break
            else:
                items_seen.setdefault(key, []).append(index)
                for call_id in _calls_in_items(message):
                    answered_by.pop(call_id, None)
        elif isinstance(message, AssistantMessage):
            for call_id in _call_keys(message):
                answered_by.pop(call_id, None)
        elif isinstance(message, ToolResultMessage):
            earlier_result = answered_by.get(message.tool_use_id)
            if earlier_result is not None and transcript[earlier_result] == message:
                copies[index] = "result"
            else:
                answered_by[message.tool_use_id] = index
    return copies


def _may_repeat(transcript: Sequence[object]) -> bool:
    """Whether two results answer by one id, or two items messages carry ids: a cheap look first."""
    results: set[str] = set()
    named_items = False
    for message in transcript:
        if isinstance(message, ToolResultMessage):
            call_id = message.tool_use_id
            if call_id in results:
                return True
            results.add(call_id)
        elif isinstance(message, ProviderOutputItemsMessage) and _item_ids(message.items):
            if named_items:
                return True
            named_items = True
    return False


def _calls_in_items(message: ProviderOutputItemsMessage) -> list[str]:
    return [key for key, _ in _item_calls(message)]


# Chat-shaped protocols, whose kept items are whole assistant messages that
# carry their calls in ``tool_calls``.
_KEPT_MESSAGES: Final = frozenset({"openai-chat", "mistral", "cohere", "ollama"})


def _item_calls(message: ProviderOutputItemsMessage) -> list[tuple[str, str]]:
    """The tool calls that the items send with them in their own dialect: (id, name).

    A result answers each by its id, or by :func:`positional_call_id` of its
    place among the items' calls. Anthropic and Bedrock items send a call
    only if the assistant message after them holds it, so they carry none
    of their own; a Responses call cut off before it completed is not sent
    either. Custom tool calls (Responses' ``custom_tool_call`` items, OpenAI
    Chat's ``custom`` calls) are sent as they are, and want their results.
    """
    protocol = message.protocol
    found: list[tuple[str, str]] = []
    if protocol == _RESPONSES:
        for item in message.items:
            if type(item) is not dict:
                continue
            kind = item.get("type")
            # A custom tool call is sent whole (its input is free text, never cut).
            if (kind == "function_call" and not _cut(item)) or kind == "custom_tool_call":
                call_id, name = item.get("call_id"), item.get("name")
                if type(call_id) is str:
                    found.append((call_id, name if type(name) is str else ""))
    elif protocol == "gemini":
        position = 0
        for item in message.items:
            call = item.get("function_call") if type(item) is dict else None
            if type(call) is dict:
                call_id, name = call.get("id"), call.get("name")
                key = call_id if type(call_id) is str else positional_call_id(position)
                found.append((key, name if type(name) is str else ""))
                position += 1
    elif protocol in _KEPT_MESSAGES:
        for item in message.items:
            calls = item.get("tool_calls") if type(item) is dict else None
            for position, call in enumerate(calls if type(calls) is list else ()):
                if type(call) is not dict:
                    continue
                call_id, function = call.get("id"), call.get("function")
                custom = call.get("custom") if protocol == "openai-chat" else None
                if call.get("type") == "custom" and type(custom) is dict:
                    name = custom.get("name")  # OpenAI Chat's custom tool call: sent whole
                elif type(function) is not dict or not _whole(function.get("arguments")):
                    continue  # cut off at the token limit: not sent
                else:
                    name = function.get("name")
                key = call_id if type(call_id) is str else positional_call_id(position)
                found.append((key, name if type(name) is str else ""))
    return found


def _cut(item: dict[str, Any]) -> bool:
    """Whether a Responses function call never completed (the dialect's rule)."""
    status = item.get("status")
    if status == "completed":
        return False
    if status == "incomplete":
        return True
    arguments = item.get("arguments")
    return type(arguments) is not str or not _whole(arguments)


def _whole(arguments: object) -> bool:
    """Whether a kept call's arguments are whole: an object, or JSON text of one (or blank)."""
    if type(arguments) is dict:
        return True
    if type(arguments) is not str:
        return False
    if arguments == "" or arguments.isspace():
        return True
    try:
        value = msgspec.json.decode(arguments)
    except (msgspec.DecodeError, RecursionError):
        return False
    return type(value) is dict


class _Call:
    """A call made since the last user turn: where, the id a result answers it by, its tool.

    ``protocol`` names the provider items that alone hold it (``None`` for a
    call of an assistant message).
    """

    __slots__ = ("answered", "index", "key", "name", "protocol")

    def __init__(self, index: int, key: str, name: str, protocol: str | None = None) -> None:
        self.index = index
        self.key = key
        self.name = name
        self.protocol = protocol
        self.answered = False


_NONE: Final = _Call(-1, "", "")  # no call of the turn has the id


def _enter(call: _Call, made: list[_Call], scope: dict[str, _Call | None]) -> None:
    made.append(call)
    # Two calls of one turn with one id: a result cannot tell them apart.
    scope[call.key] = None if call.key in scope else call


# The protocols whose kept items Anthropic and Bedrock send as an assistant turn.
_TURN_ITEMS: Final = {"anthropic": "type", "bedrock-converse": "reasoningContent"}


def _says(text: str) -> bool:
    """Whether text is sent: the Anthropic and Bedrock dialects leave out blank text."""
    return bool(text) and not text.isspace()


def _first_turn(transcript: Sequence[object], copies: dict[int, str]) -> Problem | None:
    """Anthropic and Bedrock want a turn, and the first one the user's: what breaks that.

    The first message that makes a turn decides: a user message with
    something to say or a tool result (a user turn), or an assistant
    message with text or calls, or kept Anthropic or Bedrock items with
    more than thinking (an assistant turn). Thinking alone makes no turn
    (both dialects leave out a turn that would end in it).
    """
    for index, message in enumerate(transcript):
        if index in copies:
            continue
        if isinstance(message, (UserMessage, UserMultimodalMessage)):
            if isinstance(message, UserMessage):
                says = _says(message.content)
            else:
                says = any(
                    not isinstance(block, TextBlock) or _says(block.text)
                    for block in message.content
                )
            if says:
                return None
        elif isinstance(message, ToolResultMessage):
            return None
        elif isinstance(message, AssistantMessage):
            if _says(message.content) or message.tool_calls:
                return _assistant_first(index)
        elif isinstance(message, ProviderOutputItemsMessage):
            key = _TURN_ITEMS.get(message.protocol)
            if key is not None and any(_more_than_thinking(item, key) for item in message.items):
                return _assistant_first(index)
    return Problem(
        -1,
        "no-turn",
        "nothing but system messages, blank text or thinking alone: "
        "Anthropic and Bedrock have no turn to send",
    )


def _more_than_thinking(item: object, key: str) -> bool:
    if type(item) is not dict:
        return False
    if key == "type":  # Anthropic's blocks
        return item.get("type") not in ("thinking", "redacted_thinking")
    return key not in item  # Bedrock's: reasoning is a reasoningContent block


def _assistant_first(index: int) -> Problem:
    return Problem(
        index,
        "assistant-first",
        "the conversation begins with the assistant: Anthropic and Bedrock need a user turn first",
    )


def check_conversation(messages: Iterable[LenientMessage]) -> list[Problem]:
    """Find what a provider would refuse in a replay of ``messages``.

    One pass, no side effects; problems come back in message order. It
    agrees with the dialects: a transcript with no problem of severity
    ``"error"`` goes through every dialect's ``to_request``, with no item
    or call id twice in the request; and a transcript a dialect refuses for
    pairing (:class:`~convtypes.dialects.UnansweredCall`,
    :class:`~convtypes.dialects.UnmatchedResult`) has an error at the
    message the refusal names (a reply's provider items and its assistant
    message being one place). Codes, errors unless marked:

    - ``empty``: there are no messages;
    - ``system-not-first`` (warning): a system message after the first
      position;
    - ``system-repeated`` (warning): a second system message;
    - ``duplicate-call-id``: a tool call reuses an explicit id;
    - ``unanswered-call``: a tool call has no result before the next user
      turn (calls still open at the end are not reported: the caller may be
      about to run them). This counts the calls that provider items hold
      and the assistant message after them does not (a crash kept the
      items and lost the message, or a regenerate replaced the message
      alone): the items' own dialect sends them, and refuses them
      unanswered;
    - ``unknown-call``: a tool result answers no call of the assistant turn
      before it (results pair with the calls of the run of assistant
      messages and items right before them, as every dialect pairs them);
      or could answer two of its calls, which share the id; or answers a
      call that only provider items hold, which every other dialect leaves
      out;
    - ``repeated-result``: a second result, with other content, for a call
      already answered;
    - ``duplicate-reply``, ``duplicate-result`` (warnings): a copy of an
      earlier reply or tool result, ids and all, as a sync merge that stored
      it twice leaves it. Every dialect sends it once and its ``left_out``
      names the copy (``"duplicate"``); the rule is in
      ``docs/sync.md``;
    - ``duplicate-item-id``: an ``openai-responses`` provider item whose
      ``id`` an earlier item already had, in items that are no copy of
      earlier ones; the Responses dialect sends items verbatim, and the API
      refuses an id it has seen in the request;
    - ``assistant-first``: the first message that says anything (system
      messages, blank text and thinking alone pass over) is the
      assistant's; Anthropic and Bedrock need the conversation to begin
      with a user turn;
    - ``no-turn`` (index ``-1``): nothing but system messages, blank text
      and thinking alone, which leaves Anthropic and Bedrock no turn to
      send;
    - ``unsigned-thinking``: an assistant message whose thinking is signed
      in part: beside a block with a signature (or redacted data), one with
      neither, or with an empty signature. One reply's thinking is signed
      whole or not at all, so this one was altered; the Anthropic dialect
      would send the signed blocks without the others, and the API refuses
      a turn whose thinking has been cut. A message whose thinking is all
      unsigned (an OpenAI or Gemini summary) is no problem: no dialect
      replays it.

    A call without an id is answered by :func:`positional_call_id` of its
    place in its turn. An :class:`UnknownMessage` is passed over. Anything
    that is not a message (a ``dict`` from ``json.loads``, a string) raises
    ``TypeError``, as does a ``messages`` that is a string or a single
    message rather than an iterable of them: a check that looked at nothing
    must not come back clean.
    """
    if isinstance(messages, (str, bytes, bytearray, memoryview, dict, Struct)) or not isinstance(
        messages, Iterable
    ):
        raise TypeError(
            "check_conversation takes an iterable of messages (a list, say), "
            f"got {type(messages).__name__}"
        )
    transcript = list(messages)
    for index, message in enumerate(transcript):
        if not isinstance(message, _MESSAGE_KINDS):
            raise TypeError(
                f"check_conversation checks messages; item {index} is a {type(message).__name__}"
            )
    copies = repeated(transcript)
    problems: list[Problem] = []
    # The calls made since the last user turn, in order; and those a result
    # may answer, by id, as the dialects pair them: the calls of the
    # assistant turn (a run of assistant messages and items) before it.
    made: list[_Call] = []
    scope: dict[str, _Call | None] = {}  # None: two calls of the turn have that id
    turn_open = False
    issued: set[str] = set()
    explicit_ids: set[str] = set()
    answered: set[str] = set()
    item_ids: set[str] = set()
    seen_system = False
    count = 0
    for index, message in enumerate(transcript):
        count += 1
        copy = copies.get(index)
        if copy is not None:
            what = "a reply" if copy == "reply" else "a tool result"
            problems.append(
                Problem(
                    index,
                    f"duplicate-{copy}",
                    f"a copy of {what} stored earlier, which is sent once",
                    "warning",
                )
            )
            continue
        if isinstance(message, SystemMessage):
            if seen_system:
                problems.append(
                    Problem(index, "system-repeated", "a second system message", "warning")
                )
            elif index != 0:
                problems.append(
                    Problem(
                        index, "system-not-first", "the system message is not the first", "warning"
                    )
                )
            seen_system = True
        elif isinstance(message, (UserMessage, UserMultimodalMessage)):
            for made_call in made:
                if not made_call.answered:
                    problems.append(
                        Problem(
                            made_call.index,
                            "unanswered-call",
                            f"tool call {made_call.key!r} ({made_call.name}) has no result "
                            f"before the user turn at {index}",
                        )
                    )
            made.clear()
            scope.clear()
            turn_open = False
        elif isinstance(message, AssistantMessage):
            if not turn_open:
                scope.clear()
                turn_open = True
            for position, call in enumerate(message.tool_calls):
                if call.id is None:
                    call_id = positional_call_id(position)
                else:
                    call_id = call.id
                    if call_id in explicit_ids:
                        reused = f"tool call id {call_id!r} is reused"
                        problems.append(Problem(index, "duplicate-call-id", reused))
                    explicit_ids.add(call_id)
                _enter(_Call(index, call_id, call.name), made, scope)
                issued.add(call_id)
                answered.discard(call_id)
            signed = [_is_signed(block) for block in message.thinking]
            if any(signed) and not all(signed):
                problems.append(
                    Problem(
                        index,
                        "unsigned-thinking",
                        f"{signed.count(False)} of the message's {len(signed)} thinking blocks "
                        "have no signature or redacted data, beside signed ones",
                    )
                )
        elif isinstance(message, ProviderOutputItemsMessage):
            carried = _item_calls(message)
            if carried:
                # Calls the assistant message after the items does not hold
                # (it was lost, or replaced alone): only the items' own
                # dialect sends them, and refuses them unanswered.
                held = set(_call_keys(_at(transcript, _next_known(transcript, index))))
                if not turn_open:
                    scope.clear()
                    turn_open = True
                for call_id, name in carried:
                    if call_id not in held:
                        _enter(_Call(index, call_id, name, message.protocol), made, scope)
                        issued.add(call_id)
                        answered.discard(call_id)
            if message.protocol == _RESPONSES:
                for item in message.items:
                    item_id = item.get("id") if isinstance(item, dict) else None
                    if type(item_id) is not str:
                        continue
                    if item_id in item_ids:
                        problems.append(
                            Problem(
                                index,
                                "duplicate-item-id",
                                f"provider item id {item_id!r} is sent again",
                            )
                        )
                    item_ids.add(item_id)
        elif isinstance(message, ToolResultMessage):
            call_id = message.tool_use_id
            turn_open = False
            found = scope.get(call_id, _NONE)
            if found is None:
                problems.append(
                    Problem(
                        index,
                        "unknown-call",
                        f"tool result {call_id!r} could answer more than one call of the turn "
                        "before it",
                    )
                )
            elif found is not _NONE and not found.answered:
                found.answered = True
                if found.protocol is None:
                    answered.add(call_id)
                else:
                    problems.append(
                        Problem(
                            index,
                            "unknown-call",
                            f"tool result {call_id!r} answers a call that only {found.protocol} "
                            "provider items hold, which no other dialect sends",
                        )
                    )
            elif found is not _NONE or call_id in answered:
                problems.append(
                    Problem(index, "repeated-result", f"tool call {call_id!r} is answered again")
                )
            else:
                reason = "an earlier turn's" if call_id in issued else "no"
                problems.append(
                    Problem(index, "unknown-call", f"tool result {call_id!r} answers {reason} call")
                )
    if count == 0:
        problems.append(Problem(-1, "empty", "the conversation has no messages"))
    else:
        first = _first_turn(transcript, copies)
        if first is not None:
            problems.append(first)
    problems.sort(key=lambda problem: problem.index)  # stable: same index keeps its order
    return problems
