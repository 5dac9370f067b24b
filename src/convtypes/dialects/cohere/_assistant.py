"""An assistant turn on the Cohere wire: how one is gathered and written, and what a kept message
already says.
"""

from __future__ import annotations

from typing import Any

from ..._conversation import positional_call_id
from ..._messages import (
    AssistantMessage,
    ToolCall,
)
from .._copy import copy_json
from .._ids import CallIds, safe_id
from .._json import arguments_json, parse_arguments
from ._wire import PLAN_JOIN

_usable_id = safe_id(64)


def _call_out(call_id: str | None, call: ToolCall) -> dict[str, Any]:
    function = {"name": call.name, "arguments": arguments_json(call.arguments)}
    if call_id is None:
        return {"type": "function", "function": function}
    return {"id": call_id, "type": "function", "function": function}


def _text_item(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


class _Turn:
    """One assistant message of the request, gathered from a run of messages and items.

    ``content`` holds its content items in order, ``plan`` the tool plans it
    came with, ``calls`` and ``citations`` what they are.
    """

    __slots__ = ("calls", "citations", "content", "plan")

    def __init__(self) -> None:
        self.content: list[Any] = []
        self.plan: list[str] = []
        self.calls: list[Any] = []
        self.citations: list[Any] = []

    def flat(self, index: int, message: AssistantMessage, ids: CallIds) -> None:
        if message.content:
            self.content.append(_text_item(message.content))
        self.calls += [
            _call_out(ids.call(index, position, call), call)
            for position, call in enumerate(message.tool_calls)
        ]

    def after_kept(self, index: int, message: AssistantMessage, kept: _Kept, ids: CallIds) -> None:
        """The turn read from a kept message: only what it adds to the message."""
        if message.content and message.content != kept.text:
            self.content.append(_text_item(message.content))
        self.calls += [
            _call_out(ids.call(index, position, call), call)
            for position, call in enumerate(message.tool_calls)
            if not kept.holds(position, call)
        ]

    def item(self, index: int, item: dict[str, Any], ids: CallIds) -> None:
        """A kept message, as it came, its calls' ids entered in ``ids``."""
        content = item.get("content")
        if isinstance(content, str):
            if content:
                self.content.append(_text_item(content))
        elif isinstance(content, list):
            self.content += [copy_json(part) for part in content]
        plan = item.get("tool_plan")
        if isinstance(plan, str) and plan:
            self.plan.append(plan)
        calls = item.get("tool_calls")
        if isinstance(calls, list):
            self.calls += _replayed_calls(index, calls, ids)
        citations = item.get("citations")
        if isinstance(citations, list):
            self.citations += copy_json(citations)

    def message(self) -> dict[str, Any] | None:
        """The assistant message, or ``None`` when it has neither text nor calls.

        Beside calls, text goes into the ``tool_plan``; without calls, a
        plan (of a turn whose only call was cut off) is text.
        """
        texts = [part for part in self.content if _is_text(part)]
        others = [part for part in self.content if not _is_text(part)]
        plan = list(self.plan)
        if self.calls:
            plan += [part["text"] for part in texts if part["text"]]
            content = others
        else:
            content = self.content + [_text_item(text) for text in plan]
            plan = []
            if not any(_is_text(part) and part["text"] for part in content):
                return None  # nothing Cohere takes: no turn
        turn: dict[str, Any] = {"role": "assistant"}
        if content:
            turn["content"] = content
        if plan:
            turn["tool_plan"] = PLAN_JOIN.join(plan)
        if self.calls:
            turn["tool_calls"] = self.calls
        if self.citations:
            turn["citations"] = self.citations
        return turn


def _is_text(part: object) -> bool:
    return (
        isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
    )


def _runnable(call: dict[str, Any]) -> bool:
    """Whether a kept call is one a backend could run: not one cut off at the token limit."""
    function = call.get("function")
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        return False
    arguments = function.get("arguments")
    if arguments is None:
        return True
    if not isinstance(arguments, str):
        return False
    try:
        parse_arguments(arguments)
    except ValueError:
        return False
    return True


def _call_name(call: dict[str, Any]) -> str:
    function = call.get("function")
    name = function.get("name") if isinstance(function, dict) else None
    return name if isinstance(name, str) else ""


def _replayed_calls(index: int, kept: list[Any], ids: CallIds) -> list[Any]:
    """A kept message's calls with ids Cohere takes, entered in ``ids``; cut calls left out."""
    out: list[Any] = []
    position = 0
    for call in kept:
        if not isinstance(call, dict):
            out.append(copy_json(call))
            continue
        if not _runnable(call):
            continue
        call = copy_json(call)
        call_id = call.get("id")
        name = _call_name(call)
        if isinstance(call_id, str) and ids.free(call_id) and _usable_id(call_id):
            ids.carried(index, call_id, call_id, name)
        else:
            key = call_id if isinstance(call_id, str) else positional_call_id(position)
            call["id"] = ids.fresh(index, position, key, name)
        position += 1
        out.append(call)
    return out


def _said(item: dict[str, Any]) -> str:
    """The text of a kept message as the flat turn reads it: its plan, then its text."""
    content = item.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = "".join(part["text"] for part in content if _is_text(part))
    else:
        text = ""
    plan = item.get("tool_plan")
    plan = plan if isinstance(plan, str) else ""
    return PLAN_JOIN.join(part for part in (plan, text) if part)


def _thoughts(item: dict[str, Any]) -> list[str]:
    content = item.get("content")
    parts = content if isinstance(content, list) else []
    return [
        part["thinking"]
        for part in parts
        if isinstance(part, dict)
        and part.get("type") == "thinking"
        and isinstance(part.get("thinking"), str)
        and part["thinking"]
    ]


class _Kept:
    """What a kept ``cohere`` message already says: its text, thinking and calls."""

    __slots__ = ("calls", "text", "thoughts")

    def __init__(self, item: dict[str, Any]) -> None:
        self.text = _said(item)
        self.thoughts = _thoughts(item)
        raw_calls = item.get("tool_calls")
        self.calls: list[tuple[str | None, str]] = []
        for call in raw_calls if isinstance(raw_calls, list) else ():
            if isinstance(call, dict) and _runnable(call):
                call_id = call.get("id")
                self.calls.append((call_id if isinstance(call_id, str) else None, _call_name(call)))

    def holds(self, position: int, call: ToolCall) -> bool:
        """Whether the kept message holds ``call``, the ``position``-th of the turn read from it."""
        if call.id:
            return any(call_id == call.id for call_id, _ in self.calls)
        return position < len(self.calls) and self.calls[position] == (call.id, call.name)


def _flat(message: AssistantMessage) -> dict[str, Any]:
    """What ``to_request`` sends for ``message`` alone (ids as they are), without its role."""
    turn = _Turn()
    if message.content:
        turn.content.append(_text_item(message.content))
    turn.calls = [_call_out(call.id, call) for call in message.tool_calls]
    sent = turn.message() or {}
    sent.pop("role", None)
    return sent
