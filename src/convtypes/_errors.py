"""The one exception convtypes raises for data it cannot read or write.

It lives in its own module because both sides need it: the value types raise
it when constructed with numbers the wire cannot carry, and the codec raises it
for every document it refuses.
"""

from __future__ import annotations

__all__ = ["WireError"]


class WireError(ValueError):
    """A document could not be decoded, or a value could not be encoded.

    ``reason`` says what was expected, ``path`` is a JSON path into the
    document (``$`` is the root, ``$[3].content[0].type`` a nested field), and
    ``str(err)`` joins the two as ``"<reason> at <path>"``. It subclasses
    ``ValueError`` so that code which already catches bad input keeps working.
    """

    reason: str
    path: str

    def __init__(self, reason: str, path: str = "$") -> None:
        self.reason = reason
        self.path = path
        super().__init__(f"{reason} at {path}")

    def __reduce__(self) -> tuple[type[WireError], tuple[str, str]]:
        # Keep both attributes when the error crosses a process boundary.
        return (type(self), (self.reason, self.path))
