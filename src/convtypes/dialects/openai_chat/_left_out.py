"""What a Chat Completions request leaves out of a transcript, and why: the notes ``left_out``
gives.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from ..._messages import (
    ThinkingBlock,
)
from .._left_out import LeftOut, in_item
from ._wire import _REASONING_KEYS, DIALECT


def _kept_notes(
    index: int,
    place: int,
    item: dict[str, Any],
    turn: dict[str, Any] | None,
    thought: str | None,
) -> list[LeftOut]:
    """What of a kept message its replayed ``turn`` does not send (its cut calls aside).

    ``thought`` is the item's reasoning field that went out, if one did.
    A field that says nothing (null, empty) is not named.
    """
    out: list[LeftOut] = []
    for key, value in item.items():
        if key in ("role", "tool_calls") or value is None or value in ("", [], {}):
            continue
        where = in_item(place, key)
        if key in _REASONING_KEYS:
            if key != thought:
                out.append(LeftOut(index, "thinking", f"{where}: {_REASONING_NOT_SENT}"))
        elif turn is not None and key in turn:
            continue
        elif key == "annotations":
            out.append(LeftOut(index, "annotations", f"{where}: {_ANNOTATIONS}"))
        elif key == "audio":
            out.append(LeftOut(index, "audio", f"{where}: {_AUDIO_WITHOUT_ID}"))
        elif key not in ("content", "refusal"):
            why = "the API takes no such field on an assistant message"
            out.append(LeftOut(index, "items", f"{where}: {why}"))
    return out


_REASONING_NOT_SENT: Final = (
    f"{DIALECT} takes no reasoning back unless reasoning= names the field a server reads"
)

_ANNOTATIONS: Final = "the API takes no annotations (citations) as input"

_AUDIO_WITHOUT_ID: Final = "output audio without an id cannot be referred to"

_CUT_CALL: Final = (
    "a call cut off at the token limit is not sent: no result answers it, and the API "
    "refuses a call without its result"
)


def _thinking_notes(
    index: int, thinking: Iterable[ThinkingBlock], reasoning: str | None
) -> list[LeftOut]:
    """The thinking an assistant turn leaves out: every block, or with ``reasoning`` their
    signatures and the redacted blocks."""
    out: list[LeftOut] = []
    for position, block in enumerate(thinking):
        where = f"thinking block {position}"
        if block.redacted_data is not None:
            out.append(LeftOut(index, "redacted-thinking", f"{where}: {_REDACTED}"))
        elif reasoning is None:
            out.append(LeftOut(index, "thinking", f"{where}: {_REASONING_NOT_SENT}"))
        elif block.signature is not None:
            out.append(LeftOut(index, "signature", f"{where}: {_SIGNATURE}"))
    return out


_REDACTED: Final = f"{DIALECT} cannot read another provider's encrypted thinking"

_SIGNATURE: Final = "the thinking goes as text; its signature has no field"

_EDITED_THINKING: Final = (
    "an assistant message after a kept reply sends only the text and calls that reply "
    "lacks; its reasoning goes from the kept reply"
)


def _uncarried_notes(
    index: int, thinking: Iterable[ThinkingBlock], carried: Iterable[ThinkingBlock]
) -> list[LeftOut]:
    """The thinking of an assistant message after a kept reply that the reply does not hold.

    What the kept message holds goes (or is named) with it; each of its
    blocks answers for one block here.
    """
    held = list(carried)
    out: list[LeftOut] = []
    for at, block in enumerate(thinking):
        if block in held:
            held.remove(block)
        elif block.redacted_data is not None:
            out.append(LeftOut(index, "redacted-thinking", f"thinking block {at}: {_REDACTED}"))
        else:
            out.append(LeftOut(index, "thinking", f"thinking block {at}: {_EDITED_THINKING}"))
    return out
