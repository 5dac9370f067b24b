"""An assistant turn on the Mistral wire: how one is gathered and written, and what a kept message
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
from .._ids import CallIds, usable_alnum9
from .._json import arguments_json, parse_arguments
from .._tools import spelled_name


def _thinking_chunk(text: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": [{"type": "text", "text": text}]}


def _flat_content(message: AssistantMessage) -> list[Any]:
    """The content pieces of a turn: its thinking chunks, then its text (a ``str``)."""
    pieces: list[Any] = [
        _thinking_chunk(block.text)
        for block in message.thinking
        if block.redacted_data is None and block.text
    ]
    if message.content:
        pieces.append(message.content)
    return pieces


def _call_out(call_id: str | None, call: ToolCall) -> dict[str, Any]:
    function = {"name": spelled_name(call.name), "arguments": arguments_json(call.arguments)}
    if call_id is None:
        return {"type": "function", "function": function}
    return {"id": call_id, "type": "function", "function": function}


class _Turn:
    """One assistant message of the request, gathered from a run of messages and items.

    ``pieces`` are its content in order: text as ``str``, chunks as dicts;
    ``calls`` its tool calls as the API takes them.
    """

    __slots__ = ("calls", "pieces")

    def __init__(self) -> None:
        self.pieces: list[Any] = []
        self.calls: list[Any] = []

    def flat(self, index: int, message: AssistantMessage, ids: CallIds) -> None:
        self.pieces += _flat_content(message)
        self.calls += [
            _call_out(ids.call(index, position, call), call)
            for position, call in enumerate(message.tool_calls)
        ]

    def after_kept(self, index: int, message: AssistantMessage, kept: _Kept, ids: CallIds) -> None:
        """The turn read from a kept message: only what it adds to the message."""
        if message.content and message.content != kept.text:
            self.pieces.append(message.content)
        self.calls += [
            _call_out(ids.call(index, position, call), call)
            for position, call in enumerate(message.tool_calls)
            if not kept.holds(position, call)
        ]

    def item(self, index: int, item: dict[str, Any], ids: CallIds) -> None:
        """A kept message, as it came: its content, and its calls with ids entered in ``ids``."""
        content = item.get("content")
        if isinstance(content, str):
            if content:
                self.pieces.append(content)
        elif isinstance(content, list):
            self.pieces += [copy_json(chunk) for chunk in content]
        calls = item.get("tool_calls")
        if isinstance(calls, list):
            self.calls += _replayed_calls(index, calls, ids)

    def message(self) -> dict[str, Any] | None:
        """The assistant message, or ``None`` when the turn has nothing to send."""
        turn: dict[str, Any] = {"role": "assistant"}
        if len(self.pieces) == 1 and isinstance(self.pieces[0], str):
            turn["content"] = self.pieces[0]
        elif self.pieces:
            turn["content"] = [
                {"type": "text", "text": piece} if isinstance(piece, str) else piece
                for piece in self.pieces
            ]
        elif not self.calls:
            return None
        if self.calls:
            turn["tool_calls"] = self.calls
        return turn


def _runnable(call: dict[str, Any]) -> bool:
    """Whether a kept call is one a backend could run: not one cut off at the token limit."""
    if call.get("type", "function") != "function":
        return True
    function = call.get("function")
    arguments = function.get("arguments") if isinstance(function, dict) else None
    if isinstance(arguments, dict):
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
    """A kept message's calls, each with an id Mistral takes, entered in ``ids``.

    A call cut off at the token limit is left out: no result will answer
    it. A call keeps the id it came with when that id is nine letters and
    digits and no earlier call of the request has it; otherwise it gets one
    made from its place, and a result answers it as it answers its
    ``ToolCall``: by the id it came with, or by its place.
    """
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
        if isinstance(call_id, str) and ids.free(call_id) and usable_alnum9(call_id):
            ids.carried(index, call_id, call_id, name)
        else:
            key = call_id if isinstance(call_id, str) else positional_call_id(position)
            call["id"] = ids.fresh(index, position, key, name)
        if call.get("type", "function") == "function":
            position += 1
        out.append(call)
    return out


def _said(item: dict[str, Any]) -> str:
    """The text of a kept message: its string content, or its text chunks joined."""
    content = item.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        chunk["text"]
        for chunk in content
        if isinstance(chunk, dict)
        and chunk.get("type") == "text"
        and isinstance(chunk.get("text"), str)
    )


def _thoughts(item: dict[str, Any]) -> list[str]:
    """The text of each thinking chunk of a kept message, as the flat turn reads them."""
    content = item.get("content")
    if not isinstance(content, list):
        return []
    out: list[str] = []
    for chunk in content:
        if isinstance(chunk, dict) and chunk.get("type") == "thinking":
            text = _thinking_text(chunk.get("thinking"))
            if text:
                out.append(text)
    return out


def _thinking_text(inner: object) -> str:
    if not isinstance(inner, list):
        return ""
    return "".join(
        part["text"]
        for part in inner
        if isinstance(part, dict)
        and part.get("type") == "text"
        and isinstance(part.get("text"), str)
    )


class _Kept:
    """What a kept ``mistral`` message already says: its text, thinking and calls."""

    __slots__ = ("calls", "text", "thoughts")

    def __init__(self, item: dict[str, Any]) -> None:
        self.text = _said(item)
        self.thoughts = _thoughts(item)
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
        """Whether the kept message holds ``call``, the ``position``-th of the turn read from it."""
        if call.id:
            return any(call_id == call.id for call_id, _ in self.calls)
        return position < len(self.calls) and self.calls[position] == (call.id, call.name)


def _flat(message: AssistantMessage) -> dict[str, Any]:
    """What ``to_request`` sends for ``message`` alone (ids as they are), without its role."""
    turn = _Turn()
    turn.pieces = _flat_content(message)
    turn.calls = [_call_out(call.id, call) for call in message.tool_calls]
    sent = turn.message() or {}
    sent.pop("role", None)
    return sent
