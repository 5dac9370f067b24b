"""A request belongs to its caller: the JSON it takes from a transcript is copied.

A dialect puts a call's arguments, a replayed item or a tool's schema into
the request it builds. Handed out as they are, those dicts would be the
transcript's own, and a caller who edits the request (a cache marker added
to a block, say) would write into the stored conversation. So a builder
copies exactly those values, and nothing else: the strings in them are
immutable, and everything else in a request is built fresh.

The values were checked as JSON when their message or tool was built, so
msgspec can write and read them back, in C, faster than a Python walk
copies them; a flat object, the common shape of arguments, is copied as a
dict, which is faster still.
"""

from __future__ import annotations

from typing import Any, Final, TypeVar

import msgspec

__all__ = ["owned"]

_ENCODER: Final = msgspec.json.Encoder()
_DECODER: Final = msgspec.json.Decoder()

_T = TypeVar("_T", dict[str, Any], list[Any])


def owned(value: _T) -> _T:
    """A copy of the JSON object or array ``value`` that shares no dict or list with it."""
    if type(value) is dict:
        for item in value.values():
            kind = type(item)
            if kind is dict or kind is list:
                break
        else:
            return value.copy()
    copied: _T = _DECODER.decode(_ENCODER.encode(value))
    return copied
