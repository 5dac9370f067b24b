"""An assistant turn on the Cohere wire: how one is gathered and written, and what a kept message
already says.
"""

from __future__ import annotations

from typing import Any, Final

from ..._messages import AssistantMessage
from .._chat_kept import KeptCalls, Replay, is_text_part, whole_arguments
from .._chat_request import ChatTurn, function_call
from .._copy import copy_json
from .._ids import CallIds, safe_id
from ._wire import PLAN_JOIN

_usable_id = safe_id(64)


def _text_item(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


class _Turn(ChatTurn):
    """One assistant message of the request, gathered from a run of messages and items.

    ``content`` holds its content items in order, ``plan`` the tool plans it
    came with, ``calls`` and ``citations`` what they are.
    """

    __slots__ = ("citations", "content", "plan")

    def __init__(self) -> None:
        super().__init__()
        self.content: list[Any] = []
        self.plan: list[str] = []
        self.citations: list[Any] = []

    def said(self, message: AssistantMessage) -> None:
        if message.content:
            self.content.append({"type": "text", "text": message.content})

    def text(self, text: str) -> None:
        self.content.append({"type": "text", "text": text})

    def content_parts(self, parts: list[Any]) -> None:
        self.content += parts

    call_out = staticmethod(function_call)

    def replayed(self, index: int, calls: list[Any], ids: CallIds) -> list[Any]:
        """A kept message's calls with ids Cohere takes; cut calls left out."""
        return _REPLAY.calls(index, calls, ids)

    def item(self, index: int, item: dict[str, Any], ids: CallIds) -> None:
        """A kept message, as it came (its plan and citations too), its calls' ids in ``ids``."""
        super().item(index, item, ids)
        plan = item.get("tool_plan")
        if isinstance(plan, str) and plan:
            self.plan.append(plan)
        citations = item.get("citations")
        if isinstance(citations, list):
            self.citations += copy_json(citations)

    def message(self) -> dict[str, Any] | None:
        """The assistant message, or ``None`` when it has neither text nor calls.

        Beside calls, text goes into the ``tool_plan``; without calls, a
        plan (of a turn whose only call was cut off) is text.
        """
        texts = [part for part in self.content if is_text_part(part)]
        others = [part for part in self.content if not is_text_part(part)]
        plan = list(self.plan)
        if self.calls:
            plan += [part["text"] for part in texts if part["text"]]
            content = others
        else:
            content = self.content + [_text_item(text) for text in plan]
            plan = []
            if not any(is_text_part(part) and part["text"] for part in content):
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


def _runnable(call: dict[str, Any]) -> bool:
    """Whether a kept call is one a backend could run: not one cut off at the token limit."""
    function = call.get("function")
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        return False
    arguments = function.get("arguments")
    return arguments is None or whole_arguments(arguments)


_REPLAY: Final = Replay(_usable_id, _runnable)


def _said(item: dict[str, Any]) -> str:
    """The text of a kept message as the flat turn reads it: its plan, then its text."""
    content = item.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = "".join(part["text"] for part in content if is_text_part(part))
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


class _Kept(KeptCalls):
    """What a kept ``cohere`` message already says: its text, thinking and calls."""

    __slots__ = ("thoughts",)

    def __init__(self, item: dict[str, Any]) -> None:
        super().__init__(_said(item), item.get("tool_calls"), _runnable)
        self.thoughts = _thoughts(item)
