"""Free-form JSON inside a message: tool-call arguments and provider items.

These are the only places a document can nest without bound, hold a float,
or hold a value Python can build but JSON cannot carry. The codec checks
them on every decode and encode, for the whole document at once: the values
are walked level by level, and each level is scanned by C-level builtins
(``map``, ``filter``, ``set`` operations) rather than by a Python loop per
value, which keeps the check a small fraction of the msgspec work around it.
"""

from __future__ import annotations

import math
from itertools import chain
from typing import TYPE_CHECKING, Any, Final, Union

from ._errors import WireError
from ._locate import format_path

__all__ = ["MAX_DEPTH", "JsonValue", "check_values", "explain_values"]

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

_JSON_TYPES: Final = frozenset({str, int, float, bool, type(None), dict, list})
_STR: Final = frozenset({str})
# Bound isinstance checks that map and filter can call without Python frames.
_IS_DICT: Final = dict.__instancecheck__
_IS_LIST: Final = list.__instancecheck__
_IS_FLOAT: Final = float.__instancecheck__


def check_values(dicts: list[Any], lists: list[Any], room: int) -> bool:
    """Whether everything inside these containers is JSON that fits ``room``.

    ``dicts`` and ``lists`` are the outermost containers (arguments objects,
    items tuples); ``room`` is how many further levels may open inside them.
    True when every key is a string, every value a JSON type, every float
    finite, and no container sits deeper than ``room`` levels below a root.
    """
    level = 0
    while dicts or lists:
        if level > room:
            return False
        if dicts and not _STR.issuperset(map(type, chain.from_iterable(dicts))):
            return False
        children = [*chain.from_iterable(map(dict.values, dicts)), *chain.from_iterable(lists)]
        if not _JSON_TYPES.issuperset(map(type, children)):
            return False
        if not all(map(math.isfinite, filter(_IS_FLOAT, children))):
            return False
        dicts = [*filter(_IS_DICT, children)]
        lists = [*filter(_IS_LIST, children)]
        level += 1
    return True


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
