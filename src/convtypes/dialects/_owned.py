"""A request belongs to its caller: the JSON it takes from a transcript is copied.

A dialect puts a call's arguments, a replayed item or a tool's schema into
the request it builds. Handed out as they are, those dicts would be the
transcript's own, and a caller who edits the request (a cache marker added
to a block, say) would write into the stored conversation. So a builder
copies exactly those values, and nothing else: the strings and numbers in
them are immutable, and everything else in a request is built fresh.

The values were checked as JSON when their message or tool was built, so
``msgspec.to_builtins`` can copy them: it rebuilds every dict and list in
C and shares the strings, faster than a Python walk or a trip through
JSON text.
"""

from __future__ import annotations

from typing import Any, Final, TypeVar

import msgspec

__all__ = ["copy_json", "owned"]

copy_json: Final = msgspec.to_builtins
"""``owned`` without the name lookup, for a builder's hot loop."""

_T = TypeVar("_T", dict[str, Any], list[Any])


def owned(value: _T) -> _T:
    """A copy of the JSON object or array ``value`` that shares no dict or list with it."""
    copied: _T = copy_json(value)
    return copied
