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
    ``offset`` is the byte offset in the document where the reader stopped,
    when it is known (syntax errors), else ``None``. ``str(err)`` reads
    ``"<reason> at <path>"``, followed by ``" (byte <offset>)"`` when known.
    It subclasses ``ValueError`` so that code which already catches bad input
    keeps working.
    """

    reason: str
    path: str
    offset: int | None

    def __init__(self, reason: str, path: str = "$", offset: int | None = None) -> None:
        self.reason = reason
        self.path = path
        self.offset = offset
        where = f" (byte {offset})" if offset is not None else ""
        super().__init__(f"{reason} at {path}{where}")

    def __reduce__(self) -> tuple[type[WireError], tuple[str, str, int | None]]:
        # Keep every attribute when the error crosses a process boundary.
        return (type(self), (self.reason, self.path, self.offset))
