"""Copies of JSON values, so that a request shares nothing with the transcript.

A request belongs to its caller, who may change any part of it (add a
cache marker, drop a field) after it is built. Strings, numbers and the
other scalars are immutable and are shared as they are; every dict and list
is new. The values come from a transcript or a ``ToolSpec``, which checked
their nesting when they were built, so the recursion is bounded.
"""

from __future__ import annotations

from typing import Any, overload

__all__ = ["copy_json"]


@overload
def copy_json(value: dict[str, Any]) -> dict[str, Any]: ...
@overload
def copy_json(value: list[Any]) -> list[Any]: ...
@overload
def copy_json(value: Any) -> Any: ...
def copy_json(value: Any) -> Any:
    """``value`` with every dict and list inside it copied; scalars are shared."""
    kind = type(value)
    if kind is dict:
        return _copy_dict(value)
    if kind is list:
        return _copy_list(value)
    return value


def _copy_dict(value: dict[str, Any]) -> dict[str, Any]:
    # A shallow copy, then only the containers replaced: faster than building
    # the dict key by key, since most values are scalars.
    out = value.copy()
    for key, item in value.items():
        kind = type(item)
        if kind is dict:
            out[key] = _copy_dict(item)
        elif kind is list:
            out[key] = _copy_list(item)
    return out


def _copy_list(value: list[Any]) -> list[Any]:
    out = value.copy()
    for position, item in enumerate(value):
        kind = type(item)
        if kind is dict:
            out[position] = _copy_dict(item)
        elif kind is list:
            out[position] = _copy_list(item)
    return out
