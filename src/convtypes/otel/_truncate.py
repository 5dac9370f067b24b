"""Cutting an export to a byte budget, inside its parts, keeping its JSON whole.

The conventions let an instrumentation truncate message contents as long as
the JSON structure stays valid. Here the budget is the length in bytes of
the value as compact JSON (what a tracer stores when it serialises the
attribute). Only strings inside parts are cut, and the longest first: each
string longer than a common cap is cut to it, the cap chosen as high as the
budget allows, so that short texts survive whole. Structure (roles, part
types, ids, names, MIME types, an image's detail) is never cut; a ``type``
inside a call's arguments is the caller's, and is. A part that lost something says
so in a ``truncated`` field: a JSON Pointer into the part for each string
cut, with that string's length before the cut, in bytes.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

__all__ = ["truncate"]

_ENCODE: Final = msgspec.json.Encoder()
_DECODE: Final = msgspec.json.Decoder()

# Fields that say what a part is, not what it holds: never cut.
# An image's ``detail`` is a setting, not content: cut, it would say another thing.
_STRUCTURE: Final = frozenset(
    {"type", "id", "name", "role", "mime_type", "modality", "provenance", "detail"}
)


class _Slot:
    """A string inside a part: where it stands, and its cost as JSON."""

    __slots__ = ("container", "cost", "key", "part", "path", "text")

    def __init__(
        self, part: dict[str, Any], container: Any, key: Any, path: tuple[Any, ...], text: str
    ) -> None:
        self.part = part
        self.container = container
        self.key = key
        self.path = path
        self.text = text
        self.cost = len(_ENCODE.encode(text)) - 2

    @property
    def pointer(self) -> str:
        """Where the string stands in its part, as a JSON Pointer."""
        return "".join("/" + str(step).replace("~", "~0").replace("/", "~1") for step in self.path)


def _slots(part: dict[str, Any], container: Any, path: tuple[Any, ...], found: list[_Slot]) -> None:
    pairs = container.items() if isinstance(container, dict) else enumerate(container)
    for key, value in pairs:
        # A ``type`` names a part or a provider's block; inside a call's
        # arguments it is the caller's own value, and is cut like any other.
        if (key == "type" and path[:1] != ("arguments",)) or (not path and key in _STRUCTURE):
            continue
        if isinstance(value, str):
            if value:
                found.append(_Slot(part, container, key, (*path, key), value))
        elif isinstance(value, (dict, list)):
            _slots(part, value, (*path, key), found)


def _cut(text: str, budget: int) -> str:
    """The longest start of ``text`` whose JSON costs at most ``budget`` bytes."""
    if text.isascii() and len(_ENCODE.encode(text)) == len(text) + 2:
        return text[:budget]  # nothing to escape: a character is a byte
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


def truncate(value: list[Any], budget: int, parts_of: str | None) -> list[Any]:
    """``value`` (messages, or parts when ``parts_of`` is ``None``) cut to ``budget`` bytes.

    A value within the budget is returned as it is; any other is copied
    first, so that the transcript's own values are never cut. When the
    structure alone costs more than the budget, every string that may be cut
    is emptied, and the result is as small as it can be.
    """
    encoded = _ENCODE.encode(value)
    size = len(encoded)
    if size <= budget:
        return value
    value = _DECODE.decode(encoded)  # a copy of its own, to cut
    parts = value if parts_of is None else [part for entry in value for part in entry[parts_of]]
    slots: list[_Slot] = []
    for part in parts:
        _slots(part, part, (), slots)
    costs = sorted((slot.cost for slot in slots), reverse=True)
    excess = size - budget
    while True:
        cap = _cap(costs, excess)
        for part in parts:
            part.pop("truncated", None)
        for slot in slots:
            if slot.cost <= cap:
                slot.container[slot.key] = slot.text
                continue
            blob = slot.part.get("type") == "blob" and slot.path == ("content",)
            slot.container[slot.key] = "" if blob else _cut(slot.text, cap)
            whole = len(slot.text.encode("utf-8", "surrogatepass"))
            slot.part.setdefault("truncated", {})[slot.pointer] = whole
        over = len(_ENCODE.encode(value)) - budget
        if over <= 0 or cap == 0:
            return value
        excess += over  # the marks took room, or a cut fell short of a character
