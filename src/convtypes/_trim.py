"""Fitting a long transcript into a context window without breaking it.

Dropping the oldest messages one by one is the obvious window, and it breaks
requests: it separates a tool result from its call, leaves a reply's provider
items without their turn, or starts the conversation with the model
speaking. :func:`trim` cuts only where a conversation may begin, and keeps
the system prompt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, overload

from ._codec import encode
from ._conversation import positional_call_id
from ._messages import (
    MESSAGE_TYPES,
    AssistantMessage,
    LenientMessage,
    Message,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from ._unknown import UnknownMessage

__all__ = ["TrimError", "estimate_tokens", "trim"]

_USER: Final = (UserMessage, UserMultimodalMessage)
_MESSAGE_KINDS: Final = (*MESSAGE_TYPES, UnknownMessage)


class TrimError(ValueError):
    """Not even the last turn of a transcript fits the budget.

    ``needed`` is what the shortest transcript :func:`trim` could return
    would count (the system message and the last turn), and ``budget`` what
    was allowed. ``needed`` is ``None`` when no message of the transcript
    may start a conversation (there is no user turn to start from).
    """

    def __init__(self, message: str, needed: int | None, budget: int) -> None:
        super().__init__(message)
        self.needed = needed
        self.budget = budget

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.needed, self.budget))


def estimate_tokens(message: LenientMessage) -> int:
    """A rough token count of ``message``: a quarter of its JSON's bytes, rounded up.

    About four bytes of English text make a token for the common
    tokenizers, and the JSON's keys stand in for the few tokens a provider
    spends on each turn's framing. It is cheap and needs no tokenizer. Media
    sent as base64 counts its full size, far more than a provider charges
    for it: pass your own ``count`` to :func:`trim` for such transcripts,
    or when the budget must be exact.
    """
    return (len(encode(message)) + 3) // 4


def _size(size: object) -> int:
    """What ``count`` returned, as a count from 0; ``TypeError``/``ValueError`` otherwise."""
    if type(size) is not int:
        if not isinstance(size, int) or isinstance(size, bool):
            raise TypeError(f"count returned {type(size).__name__}, not an int")
        size = int(size)
    if size < 0:
        raise ValueError(f"count returned {size}, not a count from 0")
    return size


# A transcript of known messages stays one; a lenient one keeps its unknown messages.
@overload
def trim(
    transcript: Sequence[Message], budget: int, *, count: Callable[[Message], int] = ...
) -> list[Message]: ...
@overload
def trim(
    transcript: Sequence[LenientMessage],
    budget: int,
    *,
    count: Callable[[LenientMessage], int] = ...,
) -> list[LenientMessage]: ...
def trim(
    transcript: Sequence[Any],
    budget: int,
    *,
    count: Callable[[Any], int] = estimate_tokens,
) -> list[Any]:
    """The system message, then the longest tail of ``transcript`` that fits ``budget``.

    ``count(message)`` measures one message in the caller's unit (tokens
    from the model's own tokenizer, say); the default is
    :func:`estimate_tokens`. The result's messages, system message included,
    count at most ``budget`` together.

    The tail starts only where a conversation may start: at a user message,
    and never where a tool result of the tail would answer a call left
    before it (so never between a call and its result). A reply's provider
    items stand beside its assistant message, between the same two user
    messages, so no cut parts them either. Every dialect takes such a tail,
    and ``check_conversation`` finds no new problem in it. A tail that fits
    always starts as early as such a place allows. A transcript that fits
    whole comes back whole (if its first turn after the system message is
    a user's).

    ``count`` is called at most once per message, from the last message
    back, and the walk stops at the first message that no longer fits, so
    the work grows with the length of what is kept, not of the whole
    transcript. It must return an ``int`` from 0.

    Raises :class:`TrimError` (a ``ValueError``) when not even the system
    message with the last turn fits, saying how much they need, and
    ``TypeError`` for a ``transcript`` that is not a sequence (any
    ``Sequence`` is taken: a list, a tuple, a ``deque``), an item that
    is not a message (among those walked), or a ``budget`` that is not an
    ``int``. The messages themselves are not
    copied: the result holds the same objects.
    """
    if isinstance(transcript, (str, bytes, bytearray, memoryview)) or not isinstance(
        transcript, Sequence
    ):
        raise TypeError(
            f"trim takes a sequence of messages (a list, say), got {type(transcript).__name__}"
        )
    if type(budget) is not int:
        if not isinstance(budget, int) or isinstance(budget, bool):
            raise TypeError(f"trim takes an int budget, got {type(budget).__name__}")
        budget = int(budget)

    first = 1 if transcript and isinstance(transcript[0], SystemMessage) else 0
    head = [transcript[0]] if first else []
    used = _size(count(transcript[0])) if first else 0
    if len(transcript) == first:
        if used > budget:
            raise TrimError(
                f"the system message alone counts {used}, over the budget of {budget}",
                used,
                budget,
            )
        return head
    # From the newest message back. ``waiting`` holds the ids of the results
    # seen whose call has not been met yet: a user message is a place to
    # start only while it is empty, since otherwise a result of the tail
    # would answer a call cut off before it.
    waiting: set[str] = set()
    best: int | None = None
    for at in range(len(transcript) - 1, first - 1, -1):
        message = transcript[at]
        if isinstance(message, ToolResultMessage):
            waiting.add(message.tool_use_id)
        elif isinstance(message, AssistantMessage):
            if waiting:
                for position, call in enumerate(message.tool_calls):
                    key = call.id if call.id is not None else positional_call_id(position)
                    waiting.discard(key)
        elif not isinstance(message, _MESSAGE_KINDS):
            raise TypeError(f"trim takes messages; item {at} is a {type(message).__name__}")
        size = count(message)
        used += size if type(size) is int and size >= 0 else _size(size)
        if used > budget:
            if best is not None:
                break  # no earlier start can fit either
            if not waiting and isinstance(message, _USER):
                raise TrimError(
                    f"the system message and the last turn count {used}, over the budget "
                    f"of {budget}",
                    used,
                    budget,
                )
        elif not waiting and isinstance(message, _USER):
            best = at
    if best is None:
        raise TrimError(
            "no message of the transcript may start a conversation: there is no user "
            "message outside a tool call's turn",
            None,
            budget,
        )
    if isinstance(transcript, (list, tuple)):
        return [*head, *transcript[best:]]
    # Any other sequence (a deque, a Sequence of one's own) may not slice.
    return [*head, *(transcript[at] for at in range(best, len(transcript)))]
