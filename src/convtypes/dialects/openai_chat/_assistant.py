"""An assistant turn on the Chat Completions wire: how one is written, and what a kept message
already says.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from ..._messages import (
    AssistantMessage,
    ThinkingBlock,
)
from .._chat_kept import KeptCalls, Replay, is_function, whole_arguments
from .._chat_request import function_call
from .._ids import any_id
from ._wire import _REASONING_KEYS


def _turn(
    text: str, calls: list[dict[str, Any]], thinking: Iterable[ThinkingBlock], reasoning: str | None
) -> dict[str, Any]:
    """An assistant turn as the API takes it: content always, unless calls stand alone."""
    if not calls:
        turn: dict[str, Any] = {"role": "assistant", "content": text}
    elif text:
        turn = {"role": "assistant", "content": text, "tool_calls": calls}
    else:
        turn = {"role": "assistant", "tool_calls": calls}
    if reasoning is not None:
        said = "".join(thought.text for thought in thinking if thought.redacted_data is None)
        if said:
            turn[reasoning] = said
    return turn


def _runnable(call: dict[str, Any]) -> bool:
    """Whether a kept call is one a backend could run: not one cut off at the token limit.

    A function call whose argument text is not a whole JSON object never
    completed: a reader keeps it only in the item, never as a ``ToolCall``.
    """
    if not is_function(call):
        return True
    function = call.get("function")
    return whole_arguments(function.get("arguments") if isinstance(function, dict) else None)


def _is_call(call: dict[str, Any]) -> bool:
    """Whether a kept call is of a kind a reader makes a ``ToolCall`` of: function or custom."""
    return is_function(call) or call.get("type") == "custom"


def _read(call: dict[str, Any]) -> bool:
    """Whether a reader made a ``ToolCall`` of a kept call: a function or custom call, not cut
    off."""
    return _is_call(call) and _runnable(call)


_KINDS: Final = ("function", "custom")
"""Where a kept call's name is: a function's, or a custom tool's."""

_REPLAY: Final = Replay(
    any_id, _runnable, counted=_is_call, needs_id=_is_call, id_first=True, kinds=_KINDS
)
"""A kept call goes back with the id it came with, unless an earlier call has it."""


class _Kept(KeptCalls):
    """What a kept ``openai-chat`` message already says: its text and its function calls."""

    __slots__ = ("item",)

    def __init__(self, item: dict[str, Any]) -> None:
        super().__init__(_said(item), item.get("tool_calls"), _read, _KINDS)
        self.item = item

    def thinking(self) -> tuple[ThinkingBlock, ...]:
        """The thinking of the turn read from the kept message."""
        for key in _REASONING_KEYS:
            value = self.item.get(key)
            if value is not None:
                return (ThinkingBlock(text=value),) if isinstance(value, str) and value else ()
        return ()


def _said(message: dict[str, Any]) -> str:
    """The turn's words: its text, else its refusal, else the transcript of its audio."""
    for text in (message.get("content"), message.get("refusal")):
        if isinstance(text, str) and text:
            return text
    audio = message.get("audio")
    transcript = audio.get("transcript") if isinstance(audio, dict) else None
    return transcript if isinstance(transcript, str) else ""


def _flat_calls(message: AssistantMessage) -> list[dict[str, Any]]:
    """The calls as a response holds them: no ``id`` for a call that came without one."""
    return [function_call(call.id, call) for call in message.tool_calls]


def _flat(message: AssistantMessage) -> dict[str, Any]:
    """What ``to_request`` sends for ``message`` (ids as they are), without its role."""
    turn = _turn(message.content, _flat_calls(message), (), None)
    del turn["role"]
    return turn
