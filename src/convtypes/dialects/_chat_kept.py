"""What a kept chat-completions message already says, and its calls as they go back.

A kept message (a provider output item of the dialect's own protocol) goes
back in place of the assistant turn read from it, and the assistant message
after it sends only what the item lacks: text it does not say, calls it does
not hold. OpenAI's Chat Completions, Mistral and Cohere hold calls alike
(``{"id", "type": "function", "function": {"name", "arguments"}}``), so they
read a kept item's calls, and send them back, with the pieces here; each
says which calls a reader made a ``ToolCall`` of, and which ids its wire
takes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._conversation import positional_call_id
from .._messages import ToolCall
from ._copy import copy_json
from ._ids import CallIds
from ._json import parse_arguments


def call_name(call: dict[str, Any], kinds: tuple[str, ...] = ("function",)) -> str:
    """The name of a kept call: of its first object among ``kinds`` that has one, else ``""``."""
    for key in kinds:
        inner = call.get(key)
        if isinstance(inner, dict) and isinstance(inner.get("name"), str):
            return str(inner["name"])
    return ""


def is_text_part(part: object) -> bool:
    """Whether a content part is a text part with its text: ``{"type": "text", "text": "..."}``."""
    return (
        isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
    )


def whole_arguments(text: object) -> bool:
    """Whether a kept call's argument text is a whole JSON object: it was not cut off."""
    if not isinstance(text, str):
        return False
    try:
        parse_arguments(text)
    except ValueError:
        return False
    return True


def is_function(call: dict[str, Any]) -> bool:
    """Whether a kept call is a function call: its ``type`` says so, or says nothing."""
    return bool(call.get("type", "function") == "function")


class KeptCalls:
    """What a kept message already says: its text, and the calls a reader read from it.

    ``calls`` holds each such call's id (``None`` when it came without one)
    and name, in order: the order of the calls of the turn read from it.
    ``read`` says which of the item's calls a reader made a ``ToolCall`` of.
    """

    __slots__ = ("calls", "text")

    def __init__(
        self,
        text: str,
        raw_calls: object,
        read: Callable[[dict[str, Any]], bool],
        kinds: tuple[str, ...] = ("function",),
    ) -> None:
        self.text = text
        self.calls: list[tuple[str | None, str]] = []
        for call in raw_calls if isinstance(raw_calls, list) else ():
            if isinstance(call, dict) and read(call):
                call_id = call.get("id")
                self.calls.append(
                    (call_id if isinstance(call_id, str) else None, call_name(call, kinds))
                )

    def holds(self, position: int, call: ToolCall) -> bool:
        """Whether the kept message holds ``call``, the ``position``-th of the turn read from it.

        A call with an id is found by it; one without, by its place and name.
        """
        if call.id:
            return any(call_id == call.id for call_id, _ in self.calls)
        return position < len(self.calls) and self.calls[position] == (call.id, call.name)


def _yes(call: dict[str, Any]) -> bool:
    return True


class Replay:
    """How a wire takes a kept message's calls back: what :meth:`calls` needs to know.

    ``usable`` says which ids the wire takes; ``runnable`` which calls a
    backend could run (not cut off at the token limit); ``counted`` which
    calls a reader made a ``ToolCall`` of, and so count for the place of a
    call that came without an id; ``needs_id`` which calls get an id made
    when they came without one; ``id_first`` whether a made id goes first
    in the call (else where the call had one, or last); ``kinds`` where the
    call's name is.
    """

    __slots__ = ("counted", "id_first", "kinds", "needs_id", "runnable", "usable")

    def __init__(
        self,
        usable: Callable[[str], bool],
        runnable: Callable[[dict[str, Any]], bool],
        counted: Callable[[dict[str, Any]], bool] = _yes,
        needs_id: Callable[[dict[str, Any]], bool] = _yes,
        id_first: bool = False,
        kinds: tuple[str, ...] = ("function",),
    ) -> None:
        self.usable = usable
        self.runnable = runnable
        self.counted = counted
        self.needs_id = needs_id
        self.id_first = id_first
        self.kinds = kinds

    def calls(
        self,
        index: int,
        kept: list[Any],
        ids: CallIds,
        cut: Callable[[int], None] | None = None,
    ) -> list[Any]:
        """A kept message's calls, each a copy with an id the wire takes, entered in ``ids``.

        A call cut off at the token limit is left out (``cut`` is told its
        place): no result will answer it, and the wire refuses a call without
        its result. A call keeps the id it came with when the wire takes it
        and no earlier call of the request has it (a server that numbers each
        turn's calls from ``0`` gives the same ids again); otherwise it gets
        one made from its place, and a result answers it as it answers its
        ``ToolCall``: by the id it came with, or by
        :func:`~convtypes.positional_call_id` of its place.
        """
        out: list[Any] = []
        position = 0
        for at, call in enumerate(kept):
            if not isinstance(call, dict):
                out.append(copy_json(call))
                continue
            if not self.runnable(call):
                if cut is not None:
                    cut(at)
                continue
            call = copy_json(call)
            call_id = call.get("id")
            name = call_name(call, self.kinds)
            if isinstance(call_id, str) and ids.free(call_id) and self.usable(call_id):
                ids.carried(index, call_id, call_id, name)
            elif isinstance(call_id, str) or self.needs_id(call):
                key = call_id if isinstance(call_id, str) else positional_call_id(position)
                fresh = ids.fresh(index, position, key, name)
                if self.id_first:
                    call = {"id": fresh, **{k: v for k, v in call.items() if k != "id"}}
                else:
                    call["id"] = fresh
            if self.counted(call):
                position += 1
            out.append(call)
        return out
