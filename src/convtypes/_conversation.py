"""Checks on a whole conversation: what makes a provider refuse a replay.

The codec checks one document's shape; these rules span messages. They find
what a fold of sync operations can get wrong and what a provider rejects when
a transcript is replayed: results that answer nothing, calls never answered,
ids used twice, a misplaced system prompt, unsigned thinking next to signed.
"""

from __future__ import annotations

from collections.abc import Iterable

from msgspec import Struct

from ._messages import (
    AssistantMessage,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)

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
    """
    return f"call_{position}"


def check_conversation(messages: Iterable[object]) -> list[Problem]:
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
    - ``unsigned-thinking``: a thinking block with neither ``signature`` nor
      ``redacted_data`` in a conversation that has signed ones, which a
      provider refuses to take back.

    A call without an id is answered by :func:`positional_call_id` of its
    place in its turn. Messages of unknown or provider-specific kinds are
    passed over.
    """
    problems: list[Problem] = []
    open_calls: dict[str, tuple[int, str]] = {}  # id -> (message index, tool name)
    issued: set[str] = set()
    explicit_ids: set[str] = set()
    answered: set[str] = set()
    unsigned: list[int] = []
    signed = False
    seen_system = False
    count = 0
    for index, message in enumerate(messages):
        count += 1
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
            for block in message.thinking:
                if block.signature is not None or block.redacted_data is not None:
                    signed = True
                else:
                    unsigned.append(index)
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
    if signed:
        problems.extend(
            Problem(
                index,
                "unsigned-thinking",
                "a thinking block without a signature or redacted data, beside signed ones",
            )
            for index in unsigned
        )
    problems.sort(key=lambda problem: problem.index)  # stable: same index keeps its order
    return problems
