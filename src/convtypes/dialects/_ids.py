"""Tool-call ids: every call gets one the provider accepts, and results follow it."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from typing import Any, Final

from .._conversation import positional_call_id
from .._messages import AssistantMessage, ProviderOutputItemsMessage, ToolCall, ToolResultMessage
from ._errors import UnansweredCall, UnmatchedResult

_SAFE_ID = re.compile(r"[A-Za-z0-9_-]+")


def safe_id(limit: int) -> Callable[[str], bool]:
    """A test for ids made of ``[A-Za-z0-9_-]`` and at most ``limit`` long."""

    def usable(call_id: str) -> bool:
        return 0 < len(call_id) <= limit and _SAFE_ID.fullmatch(call_id) is not None

    return usable


def any_id(call_id: str) -> bool:
    return True


class Call:
    """A call in scope: the id it goes out with, its tool name, whether sent.

    ``order`` grows with every call entered, so sorting results by the
    ``order`` of their calls puts them in the order the calls were sent.
    ``key`` is the id a result answers it by, and ``index`` the message
    that made it.
    """

    __slots__ = ("answered", "index", "key", "name", "order", "out_id", "send_id")

    def __init__(
        self, out_id: str, name: str, send_id: bool, order: int = -1, key: str = "", index: int = -1
    ) -> None:
        self.out_id = out_id
        self.name = name
        self.send_id = send_id
        self.order = order
        self.key = key
        self.index = index
        self.answered = False


_AMBIGUOUS: Final = Call("", "", False)


class CallIds:
    """Gives every tool call a unique id the provider accepts, and pairs results.

    Calls are kept in scope from the first assistant message of a turn (a
    run of assistant messages and provider items) until the next user
    message or the next assistant turn; a result looks its ``tool_use_id`` up
    there. A call keeps its own id when the id is usable and not used before
    in the request; otherwise it gets ``call_<message index>_<position>``, made
    unique against every explicit id of the transcript. A call without an id
    is found by :func:`positional_call_id` of its place in its message.

    Every provider refuses a call whose result has not come by the next user
    message, so a user message with a call still unanswered since the last
    one raises :class:`UnansweredCall`, by the rule of
    ``check_conversation``'s ``unanswered-call``. Calls open at the end of
    the transcript stay allowed.
    """

    __slots__ = (
        "_entered",
        "_messages",
        "_open",
        "_reserved",
        "_scope",
        "_turn_open",
        "_usable",
        "_used",
        "dialect",
    )

    def __init__(self, messages: list[Any], usable: Callable[[str], bool], dialect: str) -> None:
        self._messages = messages
        self._usable = usable
        self._used: set[str] = set()
        self._reserved: set[str] | None = None
        self._scope: dict[str, Call] = {}
        self._turn_open = False
        self._entered = 0
        self._open: list[Call] = []  # every call made since the last user message
        self.dialect = dialect

    def assistant(self) -> None:
        """An assistant message or provider items: the turn goes on or begins."""
        if not self._turn_open:
            self._scope = {}
            self._turn_open = True

    def user(self, index: int) -> None:
        """A user message closes the turn: no later result may answer its calls.

        Raises :class:`UnansweredCall` for the first call made since the last
        user message that has no result.
        """
        for call in self._open:
            if not call.answered:
                raise UnansweredCall(
                    f"message {call.index}: tool call {call.key!r} ({call.name}) has no result "
                    f"before the user message at {index}, and {self.dialect} refuses a call "
                    "without its result",
                    call.index,
                    call.key,
                    index,
                )
        self._open = []
        self._scope = {}
        self._turn_open = False

    def call(self, index: int, position: int, call: ToolCall, send_id: bool = True) -> str:
        """The id to send for ``call``, the ``position``-th call of message ``index``."""
        call_id = call.id
        if call_id is not None and call_id not in self._used and self._usable(call_id):
            out = call_id
        else:
            out = self._fresh(index, position)
        self._used.add(out)
        key = call_id if call_id is not None else positional_call_id(position)
        self._enter(index, key, out, call.name, send_id)
        return out

    def free(self, call_id: str) -> bool:
        """Whether ``call_id`` is not empty and no call of the request has it yet."""
        return bool(call_id) and call_id not in self._used

    def fresh(self, index: int, position: int, key: str, name: str) -> str:
        """A new id for a carried call that came without a usable one, answered by ``key``."""
        out = self._fresh(index, position)
        self._used.add(out)
        self._enter(index, key, out, name, True)
        return out

    def carried(self, index: int, key: str, out_id: str, name: str, send_id: bool = True) -> None:
        """A call that provider items (message ``index``) carry verbatim, with their id."""
        self._used.add(out_id)
        self._enter(index, key, out_id, name, send_id)

    def _enter(self, index: int, key: str, out_id: str, name: str, send_id: bool) -> None:
        self._entered += 1
        call = Call(out_id, name, send_id, self._entered, key, index)
        self._open.append(call)
        # Two calls of one turn answered by the same id: neither can be told apart.
        self._scope[key] = _AMBIGUOUS if key in self._scope else call

    def result(self, index: int, message: ToolResultMessage) -> Call:
        """The call that result ``index`` answers; raises if there is none."""
        self._turn_open = False
        key = message.tool_use_id
        call = self._scope.get(key)
        if call is None:
            raise UnmatchedResult(
                f"message {index}: tool result {key!r} answers no call of the assistant turn "
                f"before it, and {self.dialect} refuses a result without its call",
                index,
                key,
            )
        if call is _AMBIGUOUS:
            raise UnmatchedResult(
                f"message {index}: tool result {key!r} could answer more than one call of "
                "the turn before it",
                index,
                key,
            )
        if call.answered:
            raise UnmatchedResult(
                f"message {index}: tool result {key!r} answers a call that is already answered",
                index,
                key,
            )
        call.answered = True
        return call

    def _fresh(self, index: int, position: int) -> str:
        if self._reserved is None:
            self._reserved = _explicit_ids(self._messages)
        base = f"call_{index}_{position}"
        candidate = base
        serial = 0
        while candidate in self._reserved or candidate in self._used:
            serial += 1
            candidate = f"{base}_{serial}"
        return candidate


def _explicit_ids(messages: Iterable[Any]) -> set[str]:
    ids: set[str] = set()
    for message in messages:
        if isinstance(message, AssistantMessage):
            ids.update(call.id for call in message.tool_calls if call.id is not None)
        elif isinstance(message, ProviderOutputItemsMessage):
            # Items go back verbatim, ids and all: a made-up id must avoid theirs.
            for item in message.items:
                if isinstance(item, dict):
                    carried = item.get("call_id")
                    function_call = item.get("function_call")
                    if isinstance(function_call, dict):
                        carried = function_call.get("id")
                    use = item.get("toolUse")  # a Converse content block
                    if isinstance(use, dict):
                        carried = use.get("toolUseId")
                    if isinstance(carried, str):
                        ids.add(carried)
                    # A message kept whole (Chat Completions, Mistral, Cohere)
                    # carries its calls in a tool_calls list.
                    calls = item.get("tool_calls")
                    for call in calls if isinstance(calls, list) else ():
                        call_id = call.get("id") if isinstance(call, dict) else None
                        if isinstance(call_id, str):
                            ids.add(call_id)
    return ids


_ALNUM9: Final = re.compile(r"[A-Za-z0-9]{9}")
_DIGITS: Final = "0123456789abcdefghijklmnopqrstuvwxyz"


def usable_alnum9(call_id: str) -> bool:
    """Whether ``call_id`` is nine letters and digits, as Mistral takes ids."""
    return _ALNUM9.fullmatch(call_id) is not None


def _base36(number: int, width: int) -> str | None:
    digits = []
    while number:
        number, digit = divmod(number, 36)
        digits.append(_DIGITS[digit])
    text = "".join(reversed(digits)).rjust(width, "0")
    return text if len(text) == width else None


class Alnum9Ids(CallIds):
    """:class:`CallIds` whose made-up ids are nine letters and digits.

    The first choice for the ``position``-th call of message ``index`` reads
    as its place: ``c``, the index in five base-36 digits, the position in
    three (``c0000b001``). If that is taken, or the place does not fit, ids
    are drawn from a hash of the place and a counter until one is free.
    Either way the same transcript always gets the same ids.
    """

    def _fresh(self, index: int, position: int) -> str:
        # The same bookkeeping as the base class: a made-up id avoids every
        # explicit id of the transcript and every id already sent.
        if self._reserved is None:
            self._reserved = _explicit_ids(self._messages)
        reserved, used = self._reserved, self._used

        def taken(candidate: str) -> bool:
            return candidate in reserved or candidate in used

        place_index = _base36(index, 5)
        place_position = _base36(position, 3)
        if place_index is not None and place_position is not None:
            candidate = f"c{place_index}{place_position}"
            if not taken(candidate):
                return candidate
        serial = 0
        while True:
            digest = hashlib.blake2b(f"{index}:{position}:{serial}".encode(), digest_size=8)
            number = int.from_bytes(digest.digest(), "big") % 36**8
            candidate = f"h{_base36(number, 8)}"
            if not taken(candidate):
                return candidate
            serial += 1


_KIMI: Final = re.compile(r"functions\.([^\s:]+):(\d+)")


def usable_kimi(call_id: str) -> bool:
    """Whether ``call_id`` is shaped as Kimi-K2 writes its ids: ``functions.NAME:N``."""
    return _KIMI.fullmatch(call_id) is not None


class KimiIds(CallIds):
    """:class:`CallIds` whose ids are Kimi-K2's own: ``functions.NAME:N``.

    Kimi's template writes each call's id into the prompt, and the model
    reads the tool's name back out of it, so an id of any other shape
    (``call_1_0``, ``toolu_...``) teaches it ids that name no tool. A call
    whose id already names its own tool this way keeps it; any other gets
    ``functions.<its name>:<n>``, with ``n`` counting the conversation's
    calls from 0, as Kimi numbers them.
    """

    def call(self, index: int, position: int, call: ToolCall, send_id: bool = True) -> str:
        call_id = call.id
        match = _KIMI.fullmatch(call_id) if call_id is not None else None
        if match is not None and match.group(1) == call.name and match.group(0) not in self._used:
            out = match.group(0)
        else:
            if self._reserved is None:
                self._reserved = _explicit_ids(self._messages)
            serial = self._entered
            out = f"functions.{call.name}:{serial}"
            while out in self._reserved or out in self._used:
                serial += 1
                out = f"functions.{call.name}:{serial}"
        self._used.add(out)
        key = call_id if call_id is not None else positional_call_id(position)
        self._enter(index, key, out, call.name, send_id)
        return out
