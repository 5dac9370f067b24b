"""A hash for JSON held inside a value, agreeing with ``==``.

Every convtypes value is hashable, so that messages, tool calls and tool
specs can be set members, dict keys and ``functools.cache`` arguments. Most
fields hash as they are; a field of free-form JSON (a tool call's arguments,
provider items, a tool's schema, unknown fields) holds dicts and lists,
which Python refuses to hash, so the value's ``__hash__`` hashes them here.

Two values that compare equal must hash equal, and such a field compares by
its canonical bytes (see ``_canonical``: ``true`` is not ``1``, ``1.0`` is
``1``, key order does not count), so it hashes those bytes. A value that
JSON cannot carry (one changed in place after it was checked, or a
``Usage.raw`` of the provider's that holds something else) is hashed by a
bounded walk consistent with Python's ``==`` instead, which such a value
falls back to as well.

A value is hashed as it is when asked. As with any dict key, changing the
JSON in place after the value went into a set or dict loses it there; the
values' own documentation already says not to.
"""

from __future__ import annotations

from typing import Final

from ._canonical import json_hash
from ._errors import WireError

__all__ = ["LEVELS", "hash_json"]

LEVELS: Final = 8
"""Levels of the fallback walk whose members are hashed; below them only counts."""


def hash_json(value: object) -> int:
    """The hash of a JSON value (or a tuple of them), consistent with canonical equality."""
    try:
        return json_hash(value)
    except (WireError, RecursionError):
        return _walk(value, LEVELS)


def _walk(value: object, levels: int) -> int:
    if isinstance(value, dict):
        if levels <= 0:
            return hash((dict, len(value)))
        return hash(frozenset((key, _walk(item, levels - 1)) for key, item in value.items()))
    if isinstance(value, (list, tuple)):
        if levels <= 0:
            return hash((list, len(value)))
        return hash(tuple(_walk(item, levels - 1) for item in value))
    return hash(value)
