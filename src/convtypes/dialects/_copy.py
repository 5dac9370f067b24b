"""Copies of JSON values, so that a request shares nothing with what it was built from.

A request is the caller's to change: a backend adds a marker to a block, or
fills in a field, before it sends. Where a builder would put a transcript's
tool arguments or provider items into the request as they are, that edit
would change the stored transcript too. The builders copy those values here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["json_copy"]


def json_copy(value: Any) -> Any:
    """A copy of ``value`` in which every dict and list is new.

    Text, numbers and the like are immutable and stay shared, so a large
    string (an encrypted block, base64 data) costs nothing to copy. The
    values a transcript or a ``ToolSpec`` holds are JSON checked when built,
    with plain dicts and lists inside and nesting within ``MAX_DEPTH``, so
    the recursion stays shallow. A dict or list subclass at the top (a
    schema a caller built) comes back as a plain dict or list.
    """
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    return value


def _copied(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {key: _copied(item) for key, item in value.items()}
    if kind is list:
        return [_copied(item) for item in value]
    return value
