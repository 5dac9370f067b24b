"""What a Ollama request leaves out of a transcript, and why: the notes ``left_out`` gives."""

from __future__ import annotations

from collections.abc import Iterable

from ..._messages import (
    ThinkingBlock,
)
from .._left_out import LeftOut
from ._assistant import _Kept, _thought


def _thinking_left_out(
    index: int, blocks: Iterable[ThinkingBlock], sent: bool, report: list[LeftOut]
) -> None:
    """Report what of message ``index``'s thinking the request leaves out.

    ``sent`` says whether its text goes (in the ``thinking`` field): then
    only a signature (which has no field) and redacted thinking (which has
    no text) stay behind; otherwise every block does.
    """
    for position, block in enumerate(blocks):
        where = f"thinking block {position}"
        if block.redacted_data is not None:
            report.append(
                LeftOut(
                    index, "redacted-thinking", f"{where}: redacted thinking has no text to send"
                )
            )
        elif not sent and block.text:
            report.append(LeftOut(index, "thinking", f"{where}: thinking=False leaves it out"))
        elif block.signature is not None:
            report.append(
                LeftOut(index, "signature", f"{where}: Ollama's thinking has no signature field")
            )


def _kept_thinking_left_out(
    index: int,
    blocks: tuple[ThinkingBlock, ...],
    kept: _Kept,
    thinking: bool,
    report: list[LeftOut],
) -> None:
    """Report the thinking of an assistant message read from the kept item before it.

    Its blocks are never sent: the item carries its reply's thinking. Blocks
    that say what the item says are the item's own, and only what a
    ``thinking`` field cannot hold stays behind; blocks that say something
    else, and any under ``thinking=False``, are left out.
    """
    if not thinking or _thought(blocks) == kept.thinking:
        _thinking_left_out(index, blocks, thinking, report)
        return
    for position, block in enumerate(blocks):
        if block.text or block.signature is not None or block.redacted_data is not None:
            report.append(
                LeftOut(
                    index,
                    "redacted-thinking" if block.redacted_data is not None else "thinking",
                    f"thinking block {position}: the kept message before it holds other thinking",
                )
            )
