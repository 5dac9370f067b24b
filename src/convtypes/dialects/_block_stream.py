"""Streams of content blocks, as Anthropic's Messages API and Bedrock's ConverseStream send them.

Both streams open a block by index, grow it with deltas and close it; the
reply is read from the blocks in index order, the last one cut off when the
stop reason says the token limit was reached. What the two streams share
(their state, a text delta after the blank line between separated texts,
the blocks handed to the reply's reader) is here; each dialect reads its
own events.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, Protocol

from ._block_text import GAP
from ._errors import StreamError, label
from ._reply import TextDelta
from ._stream import StreamReader

__all__ = ["BlockStream", "blocks_read"]


class _Grown(Protocol):
    """A block as a stream grows it."""

    @property
    def stopped(self) -> bool: ...

    def whole(self, at: int, final: bool) -> dict[str, Any]: ...


def blocks_read(
    blocks: Mapping[int, _Grown], reason: object, cut: Collection[str], final: bool
) -> tuple[list[dict[str, Any]], set[int]]:
    """The blocks in index order, and the positions of those cut off.

    A block that never stopped is cut off, and so is the last one when the
    stop ``reason`` is among ``cut``.
    """
    order = sorted(blocks)
    whole = [blocks[at].whole(at, final) for at in order]
    incomplete = {n for n, at in enumerate(order) if not blocks[at].stopped}
    if isinstance(reason, str) and reason in cut and order:
        incomplete.add(len(order) - 1)
    return whole, incomplete


class BlockStream(StreamReader):
    """The state of a block-shaped stream, and the text deltas it gives."""

    def __init__(self) -> None:
        super().__init__()
        self._started = False
        self._calls = 0  # client tool calls started
        self._said = False  # some text has been given out
        self._gap = False  # another block came since the last text
        self._reason: object = None
        self._model: object = None

    def _fail(self, number: int, event: object, kind: object, reason: str) -> StreamError:
        return StreamError(f"event {number} ({label(kind)}): {reason}", number, event)

    def _text(self, piece: str) -> TextDelta:
        """A text delta, after the blank line that separates it from earlier text."""
        if self._gap:
            self._gap = False
            piece = GAP + piece
        self._said = True
        return TextDelta(piece)
