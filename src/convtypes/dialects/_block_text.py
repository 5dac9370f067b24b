"""The flat text of a run of content blocks, as Anthropic's and Bedrock's replies lay it out.

Texts that follow each other are joined as they are; texts that another
block (thinking, a tool call) stands between are a blank line apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

__all__ = ["GAP", "joined_text"]

GAP: Final = "\n\n"
"""Between texts that other blocks separate."""


def joined_text(pieces: Iterable[str | None]) -> str:
    """The text of blocks given as their texts, ``None`` for a block that is not text."""
    runs: list[str] = []
    run: list[str] = []
    for text in pieces:
        if text is not None:
            run.append(text)
        elif run:
            runs.append("".join(run))
            run = []
    if run:
        runs.append("".join(run))
    return GAP.join(text for text in runs if text)
