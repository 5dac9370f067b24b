"""An assistant turn on the Chat Completions wire: how one is written, and what a kept message
already says.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..._messages import (
    AssistantMessage,
    ThinkingBlock,
    ToolCall,
)
from .._json import arguments_json, parse_arguments
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
    if call.get("type", "function") != "function":
        return True
    function = call.get("function")
    text = function.get("arguments") if isinstance(function, dict) else None
    if not isinstance(text, str):
        return False
    try:
        parse_arguments(text)
    except ValueError:
        return False
    return True


class _Kept:
    """What a kept ``openai-chat`` message already says: its text and its function calls.

    ``calls`` holds each function call's id (``None`` when it came without
    one) and name, in order: the order of the calls read from it.
    """

    __slots__ = ("calls", "item", "text")

    def __init__(self, item: dict[str, Any]) -> None:
        self.item = item
        self.text = _said(item)
        raw_calls = item.get("tool_calls")
        self.calls: list[tuple[str | None, str]] = []
        for call in raw_calls if isinstance(raw_calls, list) else ():
            if (
                isinstance(call, dict)
                and call.get("type", "function") == "function"
                and _runnable(call)
            ):
                call_id = call.get("id")
                self.calls.append((call_id if isinstance(call_id, str) else None, _call_name(call)))

    def holds(self, position: int, call: ToolCall) -> bool:
        """Whether the kept message holds ``call``, the ``position``-th of the turn read from it.

        A call with an id is found by it; one without, by its place and name.
        """
        if call.id:
            return any(call_id == call.id for call_id, _ in self.calls)
        return position < len(self.calls) and self.calls[position] == (call.id, call.name)

    def thinking(self) -> tuple[ThinkingBlock, ...]:
        """The thinking of the turn read from the kept message."""
        for key in _REASONING_KEYS:
            value = self.item.get(key)
            if value is not None:
                return (ThinkingBlock(text=value),) if isinstance(value, str) and value else ()
        return ()


def _call_name(call: dict[str, Any]) -> str:
    for key in ("function", "custom"):
        inner = call.get(key)
        if isinstance(inner, dict) and isinstance(inner.get("name"), str):
            return str(inner["name"])
    return ""


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
    out: list[dict[str, Any]] = []
    for call in message.tool_calls:
        function = {"name": call.name, "arguments": arguments_json(call.arguments)}
        if call.id is None:
            out.append({"type": "function", "function": function})
        else:
            out.append({"id": call.id, "type": "function", "function": function})
    return out


def _flat(message: AssistantMessage) -> dict[str, Any]:
    """What ``to_request`` sends for ``message`` (ids as they are), without its role."""
    turn = _turn(message.content, _flat_calls(message), (), None)
    del turn["role"]
    return turn
