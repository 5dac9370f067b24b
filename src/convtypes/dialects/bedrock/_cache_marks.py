"""Prompt caching: where a Converse request carries its cache points."""

from __future__ import annotations

from typing import Any, Final

from ._wire import _member

# A block a cache point may follow: the API refuses one after reasoning, a
# document or a video, and one with nothing before it in its message.
_CACHEABLE: Final = frozenset({"text", "image", "toolResult"})


def _point(ttl: str) -> dict[str, Any]:
    """A ``cachePoint`` block; the five-minute default goes without a ``ttl``."""
    return {"cachePoint": {"type": "default", "ttl": "1h"} if ttl == "1h" else {"type": "default"}}


def _mark(messages: list[dict[str, Any]], ttl: str) -> None:
    """A cache point at the end of each of the last two user turns.

    It goes after the turn's last block a cache point may follow (text, an
    image, a tool result): a document, video or audio after it stays after
    it. A turn with no such block gets none.
    """
    marked = 0
    for turn in reversed(messages):
        if turn["role"] != "user":
            continue
        content = turn["content"]
        for at in range(len(content) - 1, -1, -1):
            if _member(content[at]) in _CACHEABLE:
                content.insert(at + 1, _point(ttl))
                break
        marked += 1
        if marked == 2:
            return
