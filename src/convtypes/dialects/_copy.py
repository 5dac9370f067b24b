"""Copies of JSON values, so that a request shares nothing with what it was built from.

A request is the caller's to change: a backend adds a cache marker to a
block, or fills in a field, before it sends. Where a builder would put a
transcript's tool arguments or provider items, or a tool's schema, into the
request as they are, that edit would change the stored transcript too. The
builders copy those values here. Text and numbers are immutable and are
shared; every dict and list is new.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

import msgspec

__all__ = ["copy_json", "copy_object", "owned"]

_T = TypeVar("_T", dict[str, Any], list[Any])

copy_json: Final[Callable[[Any], Any]] = msgspec.to_builtins
"""A copy of a JSON value in which every dict and list is new.

msgspec builds the new containers in C and shares the immutable values, so
a large string (an encrypted block, base64 data) costs nothing to copy:
about 1.5 to 2 times as fast as a walk in Python, measured on items and
arguments. The values a transcript or a ``ToolSpec`` holds are JSON checked
when built (plain dicts and lists, finite numbers, nesting within
``MAX_DEPTH``), so nothing in them is converted and the copy equals the
value; a dict or list subclass comes back as a plain one.
"""


def copy_object(value: dict[str, Any]) -> dict[str, Any]:
    """A copy of a JSON object, every dict and list inside it new."""
    copied: dict[str, Any] = msgspec.to_builtins(value)
    return copied


def owned(value: _T) -> _T:
    """A copy of the JSON object or array ``value`` that shares no dict or list with it."""
    copied: _T = msgspec.to_builtins(value)
    return copied
