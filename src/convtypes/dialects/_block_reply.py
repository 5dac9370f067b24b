"""Replies made of content blocks, as Anthropic's Messages API and Bedrock's Converse send them.

Both read a reply the same way once its blocks are read: the text runs, calls
and thinking make one assistant message, kept alone when replaying it sends
the blocks that came, and after the blocks' items otherwise; the stop reason
is the provider's mapped, with ``end_turn`` read as ``tool_use`` when the
turn holds calls; the input count adds the cached tokens to the fresh ones.
Each dialect supplies only its wire's names.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any, Final

from .._messages import (
    AssistantMessage,
    Message,
    ProviderOutputItemsMessage,
    ThinkingBlock,
    ToolCall,
)
from ._block_text import GAP
from ._json import built
from ._reply import Reply, StopReason, Usage, token_count

__all__ = [
    "BLOCK_STOPS",
    "UsageKeys",
    "assistant_after_items",
    "block_reply",
    "cached_usage",
    "cut_off",
]


BLOCK_STOPS: Final[Mapping[str, StopReason]] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "stop_sequence": "stop_sequence",
}
"""The stop reasons both APIs send; each dialect adds its own."""


def cut_off(content: list[Any], reason: object, cut: Collection[str]) -> set[int]:
    """The position of the last block when the stop ``reason`` cut the reply short (``cut``)."""
    return {len(content) - 1} if isinstance(reason, str) and reason in cut and content else set()


def assistant_after_items(
    runs: list[str],
    calls: list[ToolCall],
    thinking: list[ThinkingBlock],
    items: list[dict[str, Any]],
    carried: Callable[[list[dict[str, Any]], AssistantMessage], bool],
    protocol: str,
    where: str,
) -> list[Message]:
    """The assistant message a reply's blocks make, after their items unless it carries them.

    ``runs`` are the texts other blocks separate; ``carried`` says whether
    replaying the message alone sends ``items`` back as they came.
    """
    text = GAP.join(text for text in runs if text)
    assistant = built(
        lambda: AssistantMessage(content=text, tool_calls=tuple(calls), thinking=tuple(thinking)),
        where,
    )
    if carried(items, assistant):
        return [assistant]
    kept = built(lambda: ProviderOutputItemsMessage(protocol=protocol, items=tuple(items)), where)
    return [kept, assistant]


class UsageKeys:
    """Where a block-shaped reply's usage keeps its counts: one wire's key names."""

    __slots__ = ("fresh", "output", "read", "reasoning", "written")

    def __init__(
        self,
        *,
        fresh: str,
        read: str,
        written: str,
        output: str,
        reasoning: tuple[str, str] | None = None,
    ) -> None:
        self.fresh = fresh
        self.read = read
        self.written = written
        self.output = output
        self.reasoning = reasoning


def cached_usage(raw: object, keys: UsageKeys) -> Usage:
    """The usage of a reply whose input count leaves out the tokens cache read or wrote."""
    if not isinstance(raw, dict):
        return Usage()
    fresh = token_count(raw, keys.fresh)
    read = token_count(raw, keys.read)
    written = token_count(raw, keys.written)
    reasoning = None if keys.reasoning is None else token_count(raw, *keys.reasoning)
    return Usage(
        input_tokens=None if fresh is None else fresh + (read or 0) + (written or 0),
        output_tokens=token_count(raw, keys.output),
        cache_read_tokens=read,
        cache_write_tokens=written,
        reasoning_tokens=reasoning,
        raw=raw,
    )


def block_reply(
    messages: list[Message],
    reason: object,
    usage: Usage,
    model: object,
    reply_id: object,
    stops: Mapping[str, StopReason],
    details: dict[str, Any] | None = None,
) -> Reply:
    """The :class:`Reply` of ``messages``, with the provider's stop reason mapped by ``stops``."""
    stop = stops.get(reason, "other") if isinstance(reason, str) else "other"
    assistant = messages[-1]
    if stop == "end_turn" and isinstance(assistant, AssistantMessage) and assistant.tool_calls:
        stop = "tool_use"
    return Reply(
        messages=messages,
        stop_reason=stop,
        provider_stop_reason=reason if isinstance(reason, str) else None,
        usage=usage,
        model=model if isinstance(model, str) else None,
        id=reply_id if isinstance(reply_id, str) else None,
        details={} if details is None else details,
    )
