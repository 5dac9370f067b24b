"""Calls still waiting for their result, and how to close them after a cancel.

A backend that cancels a reply half-way keeps what arrived (the dialects'
``partial()``), which may hold complete tool calls that will never run.
Every provider refuses a request in which a call has no result before the
next user turn, so those calls must be answered first. The rule for what
answers what is ``check_conversation``'s: a result answers the latest
unanswered call with its id, before the next user message, and a call made
without an id is answered by :func:`positional_call_id` of its place in its
message.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, overload

from ._conversation import positional_call_id
from ._messages import (
    MESSAGE_TYPES,
    AssistantMessage,
    LenientMessage,
    Message,
    ProviderOutputItemsMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from ._pending import PendingCall
from ._unknown import UnknownMessage

__all__ = ["close_open_calls", "open_calls"]

_USER: Final = (UserMessage, UserMultimodalMessage)
_TURN: Final = (AssistantMessage, ProviderOutputItemsMessage)
_MESSAGE_KINDS: Final = (*MESSAGE_TYPES, UnknownMessage)


class _Open:
    """A call without a result yet, and the message its result belongs after."""

    __slots__ = ("after", "call", "key")

    def __init__(self, call: ToolCall, key: str, after: int) -> None:
        self.call = call
        self.key = key
        self.after = after


def _find_open(messages: list[Any]) -> list[_Open]:
    """Every call no result answers, in the order the calls were made.

    A turn is a run of assistant messages and provider items, then the tool
    results right after it. A call's ``after`` is the last message of its
    turn: a result placed just after it is one every dialect pairs with the
    call (a later assistant message starts a turn in which the dialects no
    longer look for this one's calls). When a later message of the same run
    makes a call with the same id (positional ids restart in every
    message), one result could not tell the two apart: the earlier call's
    result then goes before that message, which starts a turn of its own.
    """
    unanswered: dict[int, _Open] = {}  # by id(): insertion keeps the calls' order
    pending: dict[str, list[_Open]] = {}  # the result id -> the calls it may answer
    turn: list[_Open] = []
    answering = False  # the turn's results have begun
    reply_start = 0  # where the reply being read began: its items, then its message
    for index, message in enumerate(messages):
        if isinstance(message, _TURN):
            if answering:
                turn, answering = [], False
            if index == 0 or not isinstance(messages[index - 1], ProviderOutputItemsMessage):
                reply_start = index
            if isinstance(message, AssistantMessage):
                keys = [
                    call.id if call.id is not None else positional_call_id(position)
                    for position, call in enumerate(message.tool_calls)
                ]
                if any(earlier.key in keys for earlier in turn):
                    # The earlier calls' results go before this reply (and its items).
                    for earlier in turn:
                        earlier.after = reply_start - 1
                    turn = []
                for key, call in zip(keys, message.tool_calls, strict=True):
                    waiting = _Open(call, key, index)
                    unanswered[id(waiting)] = waiting
                    pending.setdefault(key, []).append(waiting)
                    turn.append(waiting)
            for waiting in turn:
                waiting.after = index
        elif isinstance(message, ToolResultMessage):
            answering = True
            candidates = pending.get(message.tool_use_id)
            if candidates:
                del unanswered[id(candidates.pop())]
            for waiting in turn:
                waiting.after = index
        else:
            turn, answering = [], False
            if isinstance(message, _USER):
                pending.clear()  # no later result can answer these
    return list(unanswered.values())


def _listed(transcript: object, caller: str) -> list[Any]:
    if isinstance(transcript, (str, bytes, bytearray, memoryview, dict)) or not isinstance(
        transcript, Iterable
    ):
        raise TypeError(
            f"{caller} takes an iterable of messages (a list, say), got {type(transcript).__name__}"
        )
    messages = list(transcript)
    for index, message in enumerate(messages):
        if not isinstance(message, _MESSAGE_KINDS):
            raise TypeError(f"{caller} takes messages; item {index} is a {type(message).__name__}")
    return messages


def open_calls(transcript: Iterable[LenientMessage]) -> list[PendingCall]:
    """The tool calls in ``transcript`` that no tool result answers yet, in order.

    A call counts as answered when a result with its id comes after it and
    before the next user message, the pairing ``check_conversation`` uses.
    Each call comes back as a :class:`PendingCall`, with the id its result
    must carry: its own or, for a call that came without one (Gemini's), the
    :func:`positional_call_id` of its place in its message. So ``call.id``
    is a ``str``, for type checkers too, as in a dialect reply's
    ``tool_calls``.

    ``TypeError`` for anything that is not an iterable of messages.
    """
    return [
        PendingCall(id=waiting.key, name=waiting.call.name, arguments=waiting.call.arguments)
        for waiting in _find_open(_listed(transcript, "open_calls"))
    ]


# A transcript of known messages stays one; a lenient one keeps its unknown messages.
@overload
def close_open_calls(transcript: Iterable[Message], content: str) -> list[Message]: ...
@overload
def close_open_calls(
    transcript: Iterable[LenientMessage], content: str
) -> list[LenientMessage]: ...
def close_open_calls(transcript: Iterable[Any], content: str) -> list[Any]:
    """``transcript`` with a result carrying ``content`` for each of its :func:`open_calls`.

    The step between a cancelled reply and the next request: append the
    Accumulator's ``partial()``, close what it left open with a short note
    (``"The user cancelled this call."``), then add the user's next message.
    Each result is an internal :class:`ToolResultMessage`, since the text is
    the program's own, and stands right after the results its turn already
    has, where every dialect pairs it with its call. The given messages are
    not changed: a new list holds them and the results.

    ``TypeError`` for anything that is not an iterable of messages, or a
    ``content`` that is not text.
    """
    messages = _listed(transcript, "close_open_calls")
    if not isinstance(content, str):
        raise TypeError(f"close_open_calls takes content as text, got {type(content).__name__}")
    unanswered = _find_open(messages)
    out: list[Any] = []
    done = 0
    for place in sorted({waiting.after for waiting in unanswered}):
        out += messages[done : place + 1]
        done = place + 1
        out += [
            ToolResultMessage(tool_use_id=waiting.key, content=content)
            for waiting in unanswered
            if waiting.after == place
        ]
    out += messages[done:]
    return out
