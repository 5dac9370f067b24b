"""An assistant turn on the Mistral wire: how one is gathered and written, and what a kept message
already says.
"""

from __future__ import annotations

from typing import Any, Final

from ..._messages import (
    AssistantMessage,
    ToolCall,
)
from .._chat_kept import KeptCalls, Replay, is_function, is_text_part, whole_arguments
from .._chat_request import ChatTurn, function_call
from .._ids import CallIds, usable_alnum9
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
    return function_call(call_id, call, spelled_name(call.name))


class _Turn(ChatTurn):
    """One assistant message of the request, gathered from a run of messages and items.

    ``pieces`` are its content in order: text as ``str``, chunks as dicts;
    ``calls`` its tool calls as the API takes them.
    """

    __slots__ = ("pieces",)

    def __init__(self) -> None:
        super().__init__()
        self.pieces: list[Any] = []

    def said(self, message: AssistantMessage) -> None:
        self.pieces += _flat_content(message)

    def text(self, text: str) -> None:
        self.pieces.append(text)

    def content_parts(self, parts: list[Any]) -> None:
        self.pieces += parts

    call_out = staticmethod(_call_out)

    def replayed(self, index: int, calls: list[Any], ids: CallIds) -> list[Any]:
        """A kept message's calls, each with an id Mistral takes (nine letters and digits)."""
        return _REPLAY.calls(index, calls, ids)

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
    if not is_function(call):
        return True
    function = call.get("function")
    arguments = function.get("arguments") if isinstance(function, dict) else None
    return isinstance(arguments, dict) or whole_arguments(arguments)


_REPLAY: Final = Replay(usable_alnum9, _runnable, counted=is_function)


def _read(call: dict[str, Any]) -> bool:
    """Whether a reader made a ``ToolCall`` of a kept call: a function call, not cut off."""
    return is_function(call) and _runnable(call)


def _said(item: dict[str, Any]) -> str:
    """The text of a kept message: its string content, or its text chunks joined."""
    content = item.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(chunk["text"] for chunk in content if is_text_part(chunk))


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
    return "".join(part["text"] for part in inner if is_text_part(part))


class _Kept(KeptCalls):
    """What a kept ``mistral`` message already says: its text, thinking and calls."""

    __slots__ = ("thoughts",)

    def __init__(self, item: dict[str, Any]) -> None:
        super().__init__(_said(item), item.get("tool_calls"), _read)
        self.thoughts = _thoughts(item)
