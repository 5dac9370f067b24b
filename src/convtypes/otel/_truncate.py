"""Cutting an export to a byte budget, inside its parts, keeping its JSON whole.

The conventions let an instrumentation truncate message contents as long as
the JSON structure stays valid. Here the budget is the length in bytes of
the value as compact JSON (what a tracer stores when it serialises the
attribute). Only strings inside parts are cut, and the longest first: each
string longer than a common cap is cut to it, the cap chosen as high as the
budget allows, so that short texts survive whole. Structure (roles, part
types, ids, names, MIME types) is never cut. A part that lost something says
so in a ``truncated`` field: a JSON Pointer into the part for each string
cut, with that string's length before the cut, in bytes.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

__all__ = ["truncate"]

_ENCODE: Final = msgspec.json.Encoder()

# Fields that say what a part is, not what it holds: never cut.
_STRUCTURE: Final = frozenset({"type", "id", "name", "role", "mime_type", "modality", "provenance"})


class _Slot:
    """A string inside a part: where it stands, and its cost as JSON."""

    __slots__ = ("container", "cost", "key", "part", "pointer", "text")

    def __init__(
        self, part: dict[str, Any], container: Any, key: Any, pointer: str, text: str
    ) -> None:
        self.part = part
        self.container = container
        self.key = key
        self.pointer = pointer
        self.text = text
        self.cost = len(_ENCODE.encode(text)) - 2


def _escape(step: object) -> str:
    return str(step).replace("~", "~0").replace("/", "~1")


def _slots(
    part: dict[str, Any], container: Any, pointer: str, found: list[_Slot], top: bool
) -> None:
    pairs = container.items() if isinstance(container, dict) else enumerate(container)
    for key, value in pairs:
        if key == "type" or (top and key in _STRUCTURE):
            continue
        where = f"{pointer}/{_escape(key)}"
        if isinstance(value, str):
            if value:
                found.append(_Slot(part, container, key, where, value))
        elif isinstance(value, (dict, list)):
            _slots(part, value, where, found, False)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copy(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_copy(inner) for inner in value]
    return value


def _cut(text: str, budget: int) -> str:
    """The longest start of ``text`` whose JSON costs at most ``budget`` bytes."""
    low, high = 0, min(len(text), budget)
    while low < high:
        middle = (low + high + 1) // 2
        if len(_ENCODE.encode(text[:middle])) - 2 <= budget:
            low = middle
        else:
            high = middle - 1
    cut = text[:low]
    if cut and "\ud800" <= cut[-1] <= "\udbff":
        cut = cut[:-1]  # never half a surrogate pair
    return cut


def _cap(costs: list[int], excess: int) -> int:
    """The highest cap such that cutting every cost above it frees at least ``excess``."""
    freed = 0
    for rank, cost in enumerate(costs):
        following = costs[rank + 1] if rank + 1 < len(costs) else 0
        # With the cap at ``following``, the first rank + 1 strings free this much.
        reach = freed + (cost - following) * (rank + 1)
        if reach >= excess:
            return following + (reach - excess) // (rank + 1)
        freed = reach
    return 0


def _cut_to(value: list[Any], cap: int, parts_of: str | None) -> list[Any]:
    value = _copy(value)
    for part in _parts(value, parts_of):
        slots: list[_Slot] = []
        _slots(part, part, "", slots, True)
        for slot in slots:
            if slot.cost <= cap:
                continue
            whole = len(slot.text.encode("utf-8", "surrogatepass"))
            blob = part.get("type") == "blob" and slot.container is part and slot.key == "content"
            slot.container[slot.key] = "" if blob else _cut(slot.text, cap)
            part.setdefault("truncated", {})[slot.pointer] = whole
    return value


def _parts(value: list[Any], parts_of: str | None) -> list[dict[str, Any]]:
    if parts_of is None:
        return value
    return [part for entry in value for part in entry[parts_of]]


def truncate(value: list[Any], budget: int, parts_of: str | None) -> list[Any]:
    """``value`` (messages, or parts when ``parts_of`` is ``None``) cut to ``budget`` bytes.

    When the structure alone costs more than the budget, every string that
    may be cut is emptied, and the result is as small as it can be.
    """
    size = len(_ENCODE.encode(value))
    if size <= budget:
        return value
    slots: list[_Slot] = []
    for part in _parts(value, parts_of):
        _slots(part, part, "", slots, True)
    costs = sorted((slot.cost for slot in slots), reverse=True)
    excess = size - budget
    while True:
        cap = _cap(costs, excess)
        cut = _cut_to(value, cap, parts_of)
        over = len(_ENCODE.encode(cut)) - budget
        if over <= 0 or cap == 0:
            return cut
        excess += over  # the marks took room, or a cut fell short of a character
