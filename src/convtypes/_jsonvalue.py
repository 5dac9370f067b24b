"""Free-form JSON inside a message: tool-call arguments and provider items.

These are the only places a document can nest without bound, hold a float,
or hold a value Python can build but JSON cannot carry.

- Decoding never walks them. The value types declare these fields with
  :data:`DecodedJson`, a JSON type that msgspec checks in C and that stops
  after :data:`FAST_DEPTH` levels of nesting. A deeper value (rare, and
  still legal up to the reference's limit) makes the fast decoder stop, and
  the codec takes its careful path, which first checks the nesting on the
  bytes. So msgspec never recurses more than a few levels on the fast path,
  whatever the input.
- A value built in Python is walked once, when it is built
  (:func:`check_json`): JSON types only, finite floats, string keys, text
  without lone surrogates, and nesting within the budget of the deepest place it can stand in a
  transcript, so that any value convtypes holds can be written into any
  document and encoding needs no walk of its own.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, NewType, Union

from ._errors import MAX_DEPTH, WireError
from ._locate import format_path
from ._value import refuse_lone_surrogate

__all__ = [
    "ARGUMENTS_DEPTH",
    "FAST_DEPTH",
    "FLAT_TYPES",
    "ITEMS_DEPTH",
    "MAX_DEPTH",
    "DecodedJson",
    "JsonValue",
    "as_json_array",
    "as_json_object",
    "check_json",
    "explain_values",
]

FAST_DEPTH: Final = 6
"""Levels of arrays and objects a free-form value may open on the fast decode path.

Deeper values are decoded on the careful path. Six covers the arguments and
provider items seen in practice; each further level doubles the size of the
type msgspec compiles at import.
"""


def _nested_json(levels: int) -> Any:
    """A JSON type that admits at most ``levels`` levels of arrays and objects."""
    # Built with ``|`` and builtin generics, which cost microseconds at import
    # where typing.Union costs milliseconds.
    scalar: Any = type(None) | bool | int | float | str
    kind = scalar
    for _ in range(levels):
        kind = scalar | list[kind] | dict[str, kind]  # type: ignore[valid-type]
    return kind


if TYPE_CHECKING:
    JsonValue = Union[None, bool, int, float, str, list["JsonValue"], dict[str, "JsonValue"]]
    DecodedJson = JsonValue
else:
    # msgspec cannot resolve a recursive alias. Public annotations get Any;
    # the value types' fields get the bounded type (see the module doc).
    JsonValue = Any
    # A NewType hides the nested union from typing, which would otherwise
    # rebuild all of it whenever msgspec resolves a field's annotation.
    DecodedJson = NewType("DecodedJson", _nested_json(FAST_DEPTH))


# In a transcript the arguments object opens the fifth level (array, message,
# tool_calls, call, arguments) and the items array the third (array, message,
# items); values inside may use the levels that remain.
ARGUMENTS_DEPTH: Final = MAX_DEPTH - 5
"""Levels of nesting allowed inside one tool call's arguments object."""

ITEMS_DEPTH: Final = MAX_DEPTH - 3
"""Levels of nesting allowed inside one message's items array."""

_JSON_TYPES: Final = frozenset({str, int, float, bool, type(None), dict, list})
FLAT_TYPES: Final = frozenset({bool, type(None)})
"""Scalar types that are always valid JSON (numbers and text need a look at their value)."""

_SMALL_INT_MIN: Final = -(2**63)
_SMALL_INT_MAX: Final = 2**64


def _writable_int(value: int) -> bool:
    """Whether ``value`` can be written in decimal under the interpreter's limit.

    Python refuses to turn an integer of more than
    ``sys.get_int_max_str_digits()`` digits into text, so msgspec could not
    encode it (and refuses to decode one). Only integers past 64 bits get
    this look.
    """
    if _SMALL_INT_MIN <= value < _SMALL_INT_MAX:
        return True
    try:
        str(value)
    except ValueError:
        return False
    return True


_isfinite: Final = math.isfinite


def _carries(text: str) -> bool:
    """Whether UTF-8 can carry ``text``: it holds no lone surrogate."""
    try:
        refuse_lone_surrogate(text, "$")
    except WireError:
        return False
    return True


def _fits(value: Any, room: int) -> bool:
    """Whether the container ``value`` is JSON nesting at most ``room`` levels."""
    if room <= 0:
        return False
    room -= 1
    if type(value) is dict:
        for key in value:
            if type(key) is not str or not (key.isascii() or _carries(key)):
                return False
        children: Any = value.values()
    else:
        children = value
    for child in children:
        kind = type(child)
        if kind is str:
            if child.isascii() or _carries(child):
                continue
            return False
        if kind in FLAT_TYPES:
            continue
        if kind is int:
            if not _writable_int(child):
                return False
        elif kind is float:
            if not _isfinite(child):
                return False
        elif (kind is not dict and kind is not list) or not _fits(child, room):
            return False
    return True


def check_json(values: Any, room: int, field: str) -> None:
    """Check one value's arguments (a dict) or items (a tuple) as it is built.

    ``room`` is how many levels may open inside the arguments object or
    items array; ``field`` names it in the error.
    """
    if _fits(values, room + 1):
        return
    problem = explain_values(values, room, [field])
    assert problem is not None
    raise problem


def explain_values(root: Any, room: int, where: list[str | int]) -> WireError | None:
    """The first problem inside one root container, with its path, if any.

    Slow and exact; used only after :func:`check_json` found a problem.
    """
    kind = type(root)
    children: Any = root.items() if kind is dict else enumerate(root)
    for key, child in children:
        if kind is dict and type(key) is not str:
            return WireError(f"expected a string key, got {key!r}", format_path(where))
        if kind is dict and not _carries(key):
            in_key = _lone_surrogate(key, where)
            return WireError(in_key.reason.replace("text", "a key", 1), in_key.path)
        found = _explain(child, room, [*where, key])
        if found is not None:
            return found
    return None


def _lone_surrogate(text: str, where: list[str | int]) -> WireError:
    try:
        refuse_lone_surrogate(text, format_path(where))
    except WireError as err:
        return err
    raise AssertionError("the text carries")  # pragma: no cover - called on a failed look


def _explain(value: Any, room: int, where: list[str | int]) -> WireError | None:
    kind = type(value)
    if kind is str and not _carries(value):
        return _lone_surrogate(value, where)
    if kind is float and not math.isfinite(value):
        return WireError(f"expected a finite number, got {value!r}", format_path(where))
    if kind is int and not _writable_int(value):
        return WireError(
            "expected an integer short enough to write in decimal (see sys.set_int_max_str_digits)",
            format_path(where),
        )
    if kind not in _JSON_TYPES:
        return WireError(f"expected a JSON value, got {kind.__name__}", format_path(where))
    if kind is dict or kind is list:
        if room <= 0:
            return WireError(
                f"expected JSON nested at most {MAX_DEPTH} levels deep", format_path(where)
            )
        return explain_values(value, room - 1, where)
    return None


def as_json_object(room: int) -> Callable[[Any, str], dict[str, Any]]:
    """A field check for a JSON object with ``room`` levels inside it; any mapping is taken."""

    def check(value: Any, name: str) -> dict[str, Any]:
        if type(value) is not dict:
            # Any mapping (a dict subclass, a MappingProxyType) is stored as a
            # plain dict, as the constructors' types promise.
            if not isinstance(value, Mapping):
                raise WireError(f"expected a dict, got {type(value).__name__}", f"$.{name}")
            value = dict(value)
        check_json(value, room, name)
        checked: dict[str, Any] = value
        return checked

    return check


def as_json_array(room: int) -> Callable[[Any, str], tuple[Any, ...]]:
    """A field check for a tuple of JSON values with ``room`` levels inside it.

    A list is stored as a tuple; the values inside stay as they are.
    """

    def check(value: Any, name: str) -> tuple[Any, ...]:
        if type(value) is not tuple:
            if type(value) is not list:
                got = type(value).__name__
                raise WireError(f"expected a list or tuple, got {got}", f"$.{name}")
            value = tuple(value)
        check_json(value, room, name)
        return value if value else ()

    return check
