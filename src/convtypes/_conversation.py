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

from collections.abc import Iterable
from typing import Final

from msgspec import Struct

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
    conversation as a whole), ``code`` a stable identifier to match on, and
    ``text`` a sentence for people.
    """

    index: int
    code: str
    text: str


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


def check_conversation(messages: Iterable[LenientMessage]) -> list[Problem]:
    """Find what a provider would refuse in a replay of ``messages``.

    One pass, no side effects; problems come back in message order. Codes:

    - ``empty``: there are no messages;
    - ``system-not-first``: a system message after the first position;
    - ``system-repeated``: a second system message;
    - ``duplicate-call-id``: a tool call reuses an explicit id;
    - ``unanswered-call``: a tool call has no result before the next user
      turn (calls still open at the end are not reported: the caller may be
      about to run them);
    - ``unknown-call``: a tool result answers no earlier tool call;
    - ``repeated-result``: a second result for a call already answered;
    - ``duplicate-item-id``: an ``openai-responses`` provider item whose
      ``id`` an earlier item already had (the same items stored twice, as a
      sync merge can leave them); the Responses dialect sends items
      verbatim, and the API refuses an id it has seen in the request;
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
    problems: list[Problem] = []
    open_calls: dict[str, tuple[int, str]] = {}  # id -> (message index, tool name)
    issued: set[str] = set()
    explicit_ids: set[str] = set()
    answered: set[str] = set()
    item_ids: set[str] = set()
    seen_system = False
    count = 0
    for index, message in enumerate(messages):
        count += 1
        if not isinstance(message, _MESSAGE_KINDS):
            raise TypeError(
                f"check_conversation checks messages; item {index} is a {type(message).__name__}"
            )
        if isinstance(message, SystemMessage):
            if seen_system:
                problems.append(Problem(index, "system-repeated", "a second system message"))
            elif index != 0:
                problems.append(
                    Problem(index, "system-not-first", "the system message is not the first")
                )
            seen_system = True
        elif isinstance(message, (UserMessage, UserMultimodalMessage)):
            for call_id, (where, name) in open_calls.items():
                problems.append(
                    Problem(
                        where,
                        "unanswered-call",
                        f"tool call {call_id!r} ({name}) has no result before the user "
                        f"turn at {index}",
                    )
                )
            open_calls.clear()
        elif isinstance(message, AssistantMessage):
            for position, call in enumerate(message.tool_calls):
                if call.id is None:
                    call_id = positional_call_id(position)
                else:
                    call_id = call.id
                    if call_id in explicit_ids:
                        reused = f"tool call id {call_id!r} is reused"
                        problems.append(Problem(index, "duplicate-call-id", reused))
                    explicit_ids.add(call_id)
                open_calls[call_id] = (index, call.name)
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
            if call_id in open_calls:
                del open_calls[call_id]
                answered.add(call_id)
            elif call_id in answered:
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
    problems.sort(key=lambda problem: problem.index)  # stable: same index keeps its order
    return problems
