"""Taking out of a transcript what a dialect's ``left_out`` names, to check it was not sent.

Shared by the dialects' tests. A ``LeftOut`` names a message by its index
and, in its ``why``, the place inside it (``"block 2: ..."``, ``"thinking
block 0: ..."``, ``"part 3: ..."``, ``"item 0: ..."``); a ``why`` that names
no place means the whole message. :func:`strip_reported` removes each named
piece, so a test can check that the request is the same without them (none
was sent) and that ``left_out`` of what remains is empty (nothing else was
left out).
"""

from __future__ import annotations

import re
from typing import Any

import convtypes as ct
from convtypes.dialects import LeftOut

_PLACE = re.compile(r"^(?:thinking block|block|part|item) (\d+):")


def with_fields(value: Any, **changes: Any) -> Any:
    """A frozen convtypes value with some fields changed."""
    fields = {name: getattr(value, name) for name in value.__struct_fields__}
    return type(value)(**{**fields, **changes})


def places(report: list[LeftOut]) -> dict[int, dict[int | None, set[str]]]:
    """The kinds ``report`` names, by message index and by the place inside it (``None``: all)."""
    found: dict[int, dict[int | None, set[str]]] = {}
    for piece in report:
        match = _PLACE.match(piece.why)
        place = int(match.group(1)) if match else None
        found.setdefault(piece.index, {}).setdefault(place, set()).add(piece.what)
    return found


def _tag(block: Any) -> str:
    tag: str = type(block).__struct_config__.tag
    return tag


def _thinking(blocks: tuple[ct.ThinkingBlock, ...], inside: dict[int | None, set[str]]) -> Any:
    kept = []
    for position, block in enumerate(blocks):
        what = inside.get(position, set())
        if what & {"thinking", "redacted-thinking"}:
            continue
        kept.append(with_fields(block, signature=None) if "signature" in what else block)
    return tuple(kept)


def _item(item: Any, what: set[str]) -> Any:
    if "thinking" in what and isinstance(item, dict):
        return {key: value for key, value in item.items() if key != "thinking"}
    return item


def _block(block: Any, what: set[str], dialect: str) -> Any:
    if what & {"image", "audio", "video"}:
        return ct.TextBlock(
            text=f"[{_tag(block)} attachment not sent: {dialect} does not accept it]"
        )
    if "detail" in what:
        block = with_fields(block, detail="auto")
    if "max-frames" in what:
        block = with_fields(block, max_frames=None)
    if "sample-rate" in what:
        block = with_fields(block, sample_rate=None)
    return block


def strip_reported(
    transcript: list[ct.Message], report: list[LeftOut], dialect: str
) -> list[ct.Message]:
    """``transcript`` without each piece ``report`` names.

    A whole message goes; a thinking block goes, or loses only its
    signature for ``"signature"``; an item goes for ``"items"`` and loses
    its ``thinking`` for ``"thinking"``; an empty text block goes; a media
    block a note stood in for becomes that note (as ``dialect`` words it),
    and a setting reported left out is set back to its default.
    """
    found = places(report)
    out: list[ct.Message] = []
    for index, message in enumerate(transcript):
        inside = found.get(index)
        if inside is None:
            out.append(message)
        elif None in inside:
            continue  # the whole message
        elif isinstance(message, ct.AssistantMessage):
            out.append(with_fields(message, thinking=_thinking(message.thinking, inside)))
        elif isinstance(message, ct.ProviderOutputItemsMessage):
            items = [
                _item(item, inside.get(n, set()))
                for n, item in enumerate(message.items)
                if "items" not in inside.get(n, set()) and "text" not in inside.get(n, set())
            ]
            out.append(with_fields(message, items=items))
        elif isinstance(message, ct.UserMultimodalMessage):
            blocks = [
                _block(block, inside.get(n, set()), dialect)
                for n, block in enumerate(message.content)
                if "text" not in inside.get(n, set())
            ]
            out.append(with_fields(message, content=tuple(blocks)))
        else:
            raise AssertionError(f"message {index}: a piece of a {type(message).__name__}")
    return out
