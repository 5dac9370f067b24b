"""An assistant turn on the Ollama wire: how one is gathered and written, and what a kept message
already says.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..._messages import (
    ThinkingBlock,
    ToolCall,
)
from .._errors import (
    ResponseError,
    short,
)
from .._json import field, parse_arguments


def _turn(text: str, calls: list[dict[str, Any]], thought: str) -> dict[str, Any]:
    """An assistant message as Ollama takes it: content always, then thinking and calls."""
    turn: dict[str, Any] = {"role": "assistant", "content": text}
    if thought:
        turn["thinking"] = thought
    if calls:
        turn["tool_calls"] = calls
    return turn


def _call_out(call_id: str | None, call: ToolCall) -> dict[str, Any]:
    function = {"name": call.name, "arguments": call.arguments}
    return {"function": function} if call_id is None else {"id": call_id, "function": function}


def _thought(blocks: Iterable[ThinkingBlock]) -> str:
    return "".join(block.text for block in blocks if block.redacted_data is None)


class _Kept:
    """What a kept ``ollama`` message already says: its text, calls and thinking."""

    __slots__ = ("calls", "text", "thinking")

    def __init__(self, item: dict[str, Any]) -> None:
        content = item.get("content")
        self.text = content if isinstance(content, str) else ""
        thinking = item.get("thinking")
        self.thinking = thinking if isinstance(thinking, str) else ""
        raw_calls = item.get("tool_calls")
        # The calls a reader made ToolCalls of, in order: (id, name, arguments).
        self.calls: list[tuple[str | None, str, dict[str, Any]]] = []
        for raw in raw_calls if isinstance(raw_calls, list) else ():
            try:
                call_id, name, arguments = _call_parts(raw, "an item's call")
            except ResponseError:
                continue  # not a call a reader would have read
            if arguments is not None:
                self.calls.append((call_id, name, arguments))

    def holds(self, position: int, call: ToolCall) -> bool:
        if position >= len(self.calls):
            return False
        call_id, name, arguments = self.calls[position]
        return call_id == call.id and name == call.name and arguments == call.arguments


def _call_parts(raw: object, where: str) -> tuple[str | None, str, dict[str, Any] | None]:
    """A call's id, name and arguments; arguments ``None`` when they are no object.

    Arguments given as JSON text are read when the text is an object; an
    absent or ``null`` value reads as no arguments.
    """
    if not isinstance(raw, dict):
        raise ResponseError(f"{where}: expected an object, got {short(raw)}")
    function = field(raw, "function", dict, where)
    name = field(function, "name", str, f"{where}.function")
    call_id = field(raw, "id", str, where, None)
    arguments = function.get("arguments")
    if arguments is None:
        return call_id, name, {}
    if isinstance(arguments, dict):
        return call_id, name, arguments
    if isinstance(arguments, str):
        try:
            return call_id, name, parse_arguments(arguments)
        except ValueError:
            pass
    return call_id, name, None
