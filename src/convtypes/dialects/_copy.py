"""Copies of JSON values, so that a request shares nothing with the transcript.

A request belongs to its caller, who may change any part of it (add a
cache marker, drop a field) after it is built. Strings, numbers and the
other scalars are immutable and are shared as they are; every dict and list
is new. The values come from a transcript or a ``ToolSpec``, which checked
their nesting when they were built, so the recursion is bounded.
"""

from __future__ import annotations

from typing import Any

__all__ = ["copy_json", "copy_object"]


def copy_json(value: Any) -> Any:
    """``value`` with every dict and list inside it copied; scalars are shared."""
    kind = type(value)
    if kind is dict:
        return copy_object(value)
    if kind is list:
        return _copy_list(value)
    return value


def copy_object(value: dict[str, Any]) -> dict[str, Any]:
    """A JSON object with every dict and list inside it copied."""
    # A shallow copy, then only the containers replaced: faster than building
    # the dict key by key, since most values are scalars.
    out = value.copy()
    for key, item in value.items():
        kind = type(item)
        if kind is dict:
            out[key] = copy_object(item)
        elif kind is list:
            out[key] = _copy_list(item)
    return out


def _copy_list(value: list[Any]) -> list[Any]:
    out = value.copy()
    for position, item in enumerate(value):
        kind = type(item)
        if kind is dict:
            out[position] = copy_object(item)
        elif kind is list:
            out[position] = _copy_list(item)
    return out
