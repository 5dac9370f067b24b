"""Taking out of a transcript what a dialect's ``left_out`` names, to check it was not sent.

Shared by the dialects' tests. A ``LeftOut`` names a message by its index
and, in its ``why``, the place inside it, as the ``LeftOut`` docstring
says every dialect words it: ``"block 2: "``, ``"thinking block 0: "``,
``"item 3: "`` (a whole item) or ``"item 0 at /tool_calls/1: "`` (what an
item holds there); a ``why`` that names no place means the message itself.
:func:`strip_reported` removes each named piece, so a test can check that
the request is the same without them (none was sent) and that
``left_out`` of what remains is empty (nothing else was left out);
:func:`stripped_messages` gives each message that remains with its index.
A message taken out whole leaves :data:`NOTHING` in its place, since a
dialect makes up the ids of calls that came without one from their
message's place.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

import convtypes as ct
from convtypes.dialects import LeftOut

_PLACE = re.compile(r"^(thinking block|block|item) (\d+)(?: at (/[^:\s]*))?: ")

NOTHING = ct.ProviderOutputItemsMessage(protocol="nothing", items=())
"""What stands for a message taken out whole: no items, of a protocol no dialect speaks,
which every dialect passes over without a word."""

Place = tuple[str, int, tuple[str, ...]] | None
"""Where a piece is: ``(kind, position, path)`` (a path only in an item), or ``None``."""


def with_fields(value: Any, **changes: Any) -> Any:
    """A frozen convtypes value with some fields changed."""
    fields = {name: getattr(value, name) for name in value.__struct_fields__}
    return type(value)(**{**fields, **changes})


def place_of(piece: LeftOut) -> Place:
    """The place ``piece.why`` names, parsed; ``None`` for the message itself."""
    match = _PLACE.match(piece.why)
    if match is None:
        assert not re.match(r"^(?:thinking block|block|item|part) \d", piece.why), piece.why
        return None
    kind, position, pointer = match.group(1), int(match.group(2)), match.group(3)
    if pointer is None:
        return (kind, position, ())
    assert kind == "item", piece.why
    steps = tuple(
        unquote(step).replace("~1", "/").replace("~0", "~") for step in pointer[1:].split("/")
    )
    return ("item", position, steps)


def places(report: list[LeftOut]) -> dict[int, dict[Place, set[str]]]:
    """The kinds ``report`` names, by message index and by the place inside it."""
    found: dict[int, dict[Place, set[str]]] = {}
    for piece in report:
        found.setdefault(piece.index, {}).setdefault(place_of(piece), set()).add(piece.what)
    return found


def _tag(block: Any) -> str:
    tag: str = type(block).__struct_config__.tag
    return tag


def _thinking(blocks: tuple[ct.ThinkingBlock, ...], inside: dict[Place, set[str]]) -> Any:
    kept = []
    for position, block in enumerate(blocks):
        what = inside.get(("thinking block", position, ()), set())
        if "redacted-thinking" in what:
            continue
        if "thinking" in what:
            if block.redacted_data is None:
                continue
            # A redacted block's text (and signature) stay behind; its data goes.
            block = ct.ThinkingBlock(redacted_data=block.redacted_data)
        kept.append(with_fields(block, signature=None) if "signature" in what else block)
    return tuple(kept)


def _without(value: Any, path: tuple[str, ...]) -> Any:
    """A copy of JSON ``value`` without what it holds at ``path``."""
    step, rest = path[0], path[1:]
    if isinstance(value, list):
        at = int(step)
        if not rest:
            return [item for n, item in enumerate(value) if n != at]
        return [_without(item, rest) if n == at else item for n, item in enumerate(value)]
    assert isinstance(value, dict), (value, path)
    if not rest:
        return {key: item for key, item in value.items() if key != step}
    return {key: _without(item, rest) if key == step else item for key, item in value.items()}


def _items(items: tuple[Any, ...], inside: dict[Place, set[str]]) -> list[Any]:
    out = []
    for position, item in enumerate(items):
        if ("item", position, ()) in inside:
            continue
        # Deepest and latest first, so that taking one out moves no other.
        paths = sorted(
            (place[2] for place in inside if place is not None and place[:2] == ("item", position)),
            key=lambda path: [int(step) if step.isdigit() else -1 for step in path],
            reverse=True,
        )
        for path in paths:
            item = _without(item, path)
        out.append(item)
    return out


def _block(block: Any, what: set[str], dialect: str) -> Any:
    if what & {"image", "audio", "video"}:
        return ct.TextBlock(
            text=f"[{_tag(block)} attachment not sent: {dialect} does not accept it]"
        )
    if "detail" in what:
        block = with_fields(block, detail="auto")
    if "fps" in what:
        block = with_fields(block, fps=None)
    if "max-frames" in what:
        block = with_fields(block, max_frames=None)
    if "sample-rate" in what:
        block = with_fields(block, sample_rate=None)
    return block


def strip_reported(
    transcript: list[ct.Message], report: list[LeftOut], dialect: str
) -> list[ct.Message]:
    """``transcript`` without each piece ``report`` names.

    A message named whole, and a user or system message whose text is
    named, gives way to :data:`NOTHING`, so that every other message keeps
    its place (the ids a dialect makes up for calls without one are made
    from it); an assistant message's named text becomes empty. A
    thinking block goes (a redacted one keeps only its data for
    ``"thinking"``), or loses only its signature for ``"signature"``; an
    item goes, or loses what it holds at the pointer named; a text block
    goes; a media block a note stood in for becomes that note (as
    ``dialect`` words it), and a setting reported left out is set back to
    its default.
    """
    return [message for _, message in stripped_messages(transcript, report, dialect)]


def stripped_messages(
    transcript: list[ct.Message], report: list[LeftOut], dialect: str
) -> list[tuple[int, ct.Message]]:
    """:func:`strip_reported`'s messages, each with its index in ``transcript``."""
    found = places(report)
    out: list[tuple[int, ct.Message]] = []
    for index, message in enumerate(transcript):
        inside = found.get(index)
        if inside is None:
            out.append((index, message))
            continue
        if None in inside:
            if inside[None] != {"text"} or not isinstance(message, ct.AssistantMessage):
                assert len(inside) == 1, (index, inside)
                out.append((index, NOTHING))  # the whole message
                continue
            message = with_fields(message, content="")
        if isinstance(message, ct.AssistantMessage):
            message = with_fields(message, thinking=_thinking(message.thinking, inside))
        elif isinstance(message, ct.ProviderOutputItemsMessage):
            message = with_fields(message, items=_items(message.items, inside))
        elif isinstance(message, ct.UserMultimodalMessage):
            blocks = [
                _block(block, inside.get(("block", n, ()), set()), dialect)
                for n, block in enumerate(message.content)
                if "text" not in inside.get(("block", n, ()), set())
            ]
            message = with_fields(message, content=tuple(blocks))
        else:
            raise AssertionError(f"message {index}: a piece of a {type(message).__name__}")
        out.append((index, message))
    return out
