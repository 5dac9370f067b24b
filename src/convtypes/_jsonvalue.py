"""Free-form JSON inside a message: tool-call arguments and provider items.

These are the only places a document can nest without bound, hold a float,
or hold a value Python can build but JSON cannot carry. A value built in
Python or decoded by msgspec is checked whole in ``__post_init__``, by one
tight recursive walk over its containers.

Every value is budgeted for the deepest place it can stand in a transcript,
so that any value convtypes holds can be written into any document, and
encoding needs no walk of its own.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Final, Union

from ._errors import WireError
from ._locate import format_path

__all__ = [
    "ARGUMENTS_DEPTH",
    "FLAT_TYPES",
    "ITEMS_DEPTH",
    "MAX_DEPTH",
    "JsonValue",
    "check_json",
    "explain_values",
]

if TYPE_CHECKING:
    JsonValue = Union[None, bool, int, float, str, list["JsonValue"], dict[str, "JsonValue"]]
else:
    # msgspec cannot resolve a recursive alias; at run time any JSON value is
    # accepted here and the codec checks the rest.
    JsonValue = Any

MAX_DEPTH: Final = 127
"""The deepest nesting of arrays and objects a document may have.

The reference reads JSON with serde_json, which refuses the 128th level.
"""

# In a transcript the arguments object opens the fifth level (array, message,
# tool_calls, call, arguments) and the items array the third (array, message,
# items); values inside may use the levels that remain.
ARGUMENTS_DEPTH: Final = MAX_DEPTH - 5
"""Levels of nesting allowed inside one tool call's arguments object."""

ITEMS_DEPTH: Final = MAX_DEPTH - 3
"""Levels of nesting allowed inside one message's items array."""

_JSON_TYPES: Final = frozenset({str, int, float, bool, type(None), dict, list})
FLAT_TYPES: Final = frozenset({str, int, bool, type(None)})
"""Scalar types that are always valid JSON (floats need a finiteness check)."""
_isfinite: Final = math.isfinite


def _fits(value: Any, room: int) -> bool:
    """Whether the container ``value`` is JSON nesting at most ``room`` levels."""
    if room <= 0:
        return False
    room -= 1
    if type(value) is dict:
        for key in value:
            if type(key) is not str:
                return False
        children: Any = value.values()
    else:
        children = value
    for child in children:
        kind = type(child)
        if kind in FLAT_TYPES:
            continue
        if kind is float:
            if not _isfinite(child):
                return False
        elif (kind is not dict and kind is not list) or not _fits(child, room):
            return False
    return True


def check_json(values: Any, room: int, field: str) -> None:
    """Check one value's arguments (a dict) or items (a tuple) as it is built.

    Runs for decoded values too (msgspec calls ``__post_init__``). ``room``
    is how many levels may open inside the arguments object or items array.
    """
    kind = type(values)
    wanted = dict if field == "arguments" else tuple
    if kind is not wanted:
        got = kind.__name__
        raise WireError(f"expected a {wanted.__name__}, got {got}", format_path([field]))
    if _fits(values, room + 1):
        return
    problem = explain_values(values, room, [field])
    assert problem is not None
    raise problem


def explain_values(root: Any, room: int, where: list[str | int]) -> WireError | None:
    """The first problem inside one root container, with its path, if any.

    Slow and exact; used only after :func:`check_values` found a problem.
    """
    kind = type(root)
    children: Any = root.items() if kind is dict else enumerate(root)
    for key, child in children:
        if kind is dict and type(key) is not str:
            return WireError(f"expected a string key, got {key!r}", format_path(where))
        found = _explain(child, room, [*where, key])
        if found is not None:
            return found
    return None


def _explain(value: Any, room: int, where: list[str | int]) -> WireError | None:
    kind = type(value)
    if kind is float and not math.isfinite(value):
        return WireError(f"expected a finite number, got {value!r}", format_path(where))
    if kind not in _JSON_TYPES:
        return WireError(f"expected a JSON value, got {kind.__name__}", format_path(where))
    if kind is dict or kind is list:
        if room <= 0:
            return WireError(
                f"expected JSON nested at most {MAX_DEPTH} levels deep", format_path(where)
            )
        return explain_values(value, room - 1, where)
    return None
