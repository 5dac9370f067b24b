"""An independent canonical form to hold convtypes.canonical to: the rfc8785 package.

rfc8785 (Trail of Bits) implements RFC 8785 and refuses integers beyond
+-(2**53 - 1), which RFC 8785 cannot write exactly. convtypes writes such an
integer in its exact digits (docs/identity.md); so does this reference, by
letting rfc8785 write a placeholder string in the integer's place and then
putting the digits where the placeholder's quotes are.
"""

from __future__ import annotations

import json
from typing import Any

import rfc8785

_SAFE = 2**53 - 1
_MARK = "\x00big:"


def _mark(value: Any) -> Any:
    if type(value) is int and abs(value) > _SAFE:
        return f"{_MARK}{value}"
    if type(value) is dict:
        return {key: _mark(item) for key, item in value.items()}
    if type(value) is list:
        return [_mark(item) for item in value]
    return value


def reference_bytes(value: Any) -> bytes:
    """The canonical bytes of a JSON value (as Python's json module reads it)."""
    written = rfc8785.dumps(_mark(value)).decode("utf-8")
    marker = json.dumps(_MARK)[1:-1]  # the placeholder's prefix as rfc8785 escapes it
    while True:
        start = written.find('"' + marker)
        if start < 0:
            return written.encode("utf-8")
        end = written.index('"', start + 1)
        written = written[:start] + written[start + 1 + len(marker) : end] + written[end + 1 :]


def reference_of_wire(data: bytes) -> bytes:
    """The canonical bytes of a JSON document, read by Python's json module."""
    return reference_bytes(json.loads(data))
