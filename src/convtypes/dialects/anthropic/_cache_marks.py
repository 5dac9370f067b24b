"""Prompt caching: where a request carries Anthropic's cache markers."""

from __future__ import annotations

from typing import Any, Final

from ._wire import _MARKER, _has_text

# Blocks the API refuses a cache breakpoint on, whatever they hold.
_UNMARKABLE: Final = frozenset({"thinking", "redacted_thinking"})
_MARKED_TURNS: Final = 2


def _marker(ttl: str) -> dict[str, Any]:
    """A new ``cache_control`` value: the default lifetime is left unsaid."""
    return {"type": "ephemeral"} if ttl == "5m" else {"type": "ephemeral", "ttl": ttl}


def _markable(block: dict[str, Any]) -> bool:
    """Whether the API takes a ``cache_control`` on this block.

    Thinking blocks never take one, and text with nothing in it is refused
    with one ("cache_control cannot be set for empty text blocks"). Tool
    results, images and text take one.
    """
    kind = block.get("type")
    if kind in _UNMARKABLE:
        return False
    if kind == "text":
        text = block.get("text")
        return isinstance(text, str) and _has_text(text)
    return True


def _mark(turns: list[dict[str, Any]], ttl: str) -> None:
    """Marks the last block of each of the last two user turns, for incremental caching.

    The last turn's marker writes the whole conversation to the cache; the
    one before it sits where the previous request put its last marker, so
    this request reads everything up to there from the cache. A turn whose
    last block takes no marker has it on its latest block that does.
    """
    marked = 0
    for turn in reversed(turns):
        if turn["role"] != "user":
            continue
        for block in reversed(turn["content"]):
            if _markable(block):
                block[_MARKER] = _marker(ttl)
                break
        marked += 1
        if marked == _MARKED_TURNS:
            return
