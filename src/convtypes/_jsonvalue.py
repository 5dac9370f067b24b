"""Free-form JSON inside a message: tool-call arguments and provider items.

These are the only places a document can nest without bound, hold a float,
or hold a value Python can build but JSON cannot carry. They are checked
once, when the value that holds them is built or decoded, so that encoding
needs no second walk and every value convtypes holds can be written into any
document the reference reads.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Final, Union

from ._errors import WireError

__all__ = ["ARGUMENTS_DEPTH", "ITEMS_DEPTH", "MAX_DEPTH", "JsonValue", "check_json"]

if TYPE_CHECKING:
    JsonValue = Union[None, bool, int, float, str, list["JsonValue"], dict[str, "JsonValue"]]
else:
    # msgspec cannot resolve a recursive alias; at run time any JSON value is
    # accepted here and check_json does the rest.
    JsonValue = Any

MAX_DEPTH: Final = 127
"""The deepest nesting of arrays and objects a document may have.

The reference reads JSON with serde_json, which refuses the 128th level.
"""

# In a transcript, a tool call's arguments object opens the fifth level
# (array, message, tool_calls, call, arguments) and the items array the third
# (array, message, items). Values inside may use the levels that remain.
# Budgeting every value for the deepest place it can appear is what lets a
# value built or read anywhere be written anywhere.
ARGUMENTS_DEPTH: Final = MAX_DEPTH - 5
"""Levels of nesting allowed inside one tool-call argument value."""

ITEMS_DEPTH: Final = MAX_DEPTH - 3
"""Levels of nesting allowed inside one provider output item."""

_SCALARS: Final = frozenset({str, int, bool, type(None)})


def _fits(value: Any, room: int) -> bool:
    """Whether ``value`` is JSON that nests at most ``room`` levels."""
    kind = type(value)
    if kind in _SCALARS:
        return True
    if kind is float:
        return math.isfinite(value)
    if room <= 0:
        return False
    room -= 1
    if kind is dict:
        for key, child in value.items():
            if type(key) is not str:
                return False
            if type(child) not in _SCALARS and not _fits(child, room):
                return False
        return True
    if kind is list:
        for child in value:
            if type(child) not in _SCALARS and not _fits(child, room):
                return False
        return True
    return False


def _explain(value: Any, room: int, where: list[str | int]) -> tuple[str, list[str | int]]:
    """The first reason ``value`` fails :func:`_fits`, and where."""
    kind = type(value)
    if kind is float:
        return f"expected a finite number, got {value!r}", where
    if kind not in (dict, list):
        return f"expected a JSON value, got {kind.__name__}", where
    if room <= 0:
        return f"expected JSON nested at most {MAX_DEPTH} levels deep", where
    items = value.items() if kind is dict else enumerate(value)
    for key, child in items:
        if kind is dict and type(key) is not str:
            return f"expected a string key, got {key!r}", where
        if not _fits(child, room - 1):
            return _explain(child, room - 1, [*where, key])
    raise AssertionError("unreachable: _explain called on a fitting value")


def check_json(values: Any, room: int, field: str) -> None:
    """Raise :class:`WireError` unless every value in ``values`` fits ``room``.

    ``values`` is the arguments dict or the items tuple of one message.
    """
    if type(values) is dict:
        children: Any = values.items()
    elif type(values) is tuple:
        children = enumerate(values)
    else:
        wanted = "a dict" if field == "arguments" else "a tuple"
        raise WireError(f"expected {wanted}, got {type(values).__name__}", f"$.{field}")
    for key, child in children:
        if type(key) is not str and type(values) is dict:
            raise WireError(f"expected a string key, got {key!r}", f"$.{field}")
        if type(child) not in _SCALARS and not _fits(child, room):
            from ._locate import format_path

            reason, where = _explain(child, room, [field, key])
            raise WireError(reason, format_path(where))
