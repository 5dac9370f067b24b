"""A hash for JSON held inside a value, agreeing with ``==``.

Every convtypes value is hashable, so that messages, tool calls and tool
specs can be set members, dict keys and ``functools.cache`` arguments. Most
fields hash as they are; a field of free-form JSON (a tool call's arguments,
provider items, a tool's schema, unknown fields) holds dicts and lists,
which Python refuses to hash, so the value's ``__hash__`` hashes them here.

Two values that compare equal must hash equal. Python's ``==`` on JSON
ignores an object's key order and calls ``1``, ``1.0`` and ``True`` equal,
so an object hashes as the set of its keys with their values' hashes, and a
number by Python's own hash, which already agrees across the three. The
walk goes :data:`LEVELS` levels deep and then counts members, which equal
values also share: hashing costs a bounded walk, never a recursion as deep
as the value, and values that differ only deeper down merely collide.

A value is hashed as it is when asked. As with any dict key, changing the
JSON in place after the value went into a set or dict loses it there; the
values' own documentation already says not to.
"""

from __future__ import annotations

from typing import Final

__all__ = ["LEVELS", "hash_json"]

LEVELS: Final = 8
"""Levels of arrays and objects whose members are hashed; below them only counts."""


def hash_json(value: object, levels: int = LEVELS) -> int:
    """The hash of a JSON value (or a tuple of them), consistent with ``==``."""
    if isinstance(value, dict):
        if levels <= 0:
            return hash((dict, len(value)))
        return hash(frozenset((key, hash_json(item, levels - 1)) for key, item in value.items()))
    if isinstance(value, (list, tuple)):
        if levels <= 0:
            return hash((list, len(value)))
        return hash(tuple(hash_json(item, levels - 1) for item in value))
    return hash(value)
