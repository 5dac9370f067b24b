"""The one exception convtypes raises for data it cannot read or write.

It lives in its own module because both sides need it: the value types raise
it when constructed with numbers the wire cannot carry, and the codec raises it
for every document it refuses.
"""

from __future__ import annotations

__all__ = ["WireError"]


class WireError(ValueError):
    """A document could not be decoded, or a value could not be built or encoded.

    ``reason`` says what was expected. ``path`` is a JSON path into the
    document or value (``$`` is the root, ``$[3].content[0].type`` a nested
    field). ``offset`` is the byte offset in the document where reading
    stopped, when it is known, else ``None``. Readers of files also set
    ``line`` and ``column`` (1-based, counted in bytes within the file);
    otherwise they are ``None``.

    ``str(err)`` reads ``"<reason> at <path>"``, followed by
    ``" (line L, column C)"`` or ``" (byte N)"`` when those are known. It
    subclasses ``ValueError`` so that code which already catches bad input
    keeps working.
    """

    reason: str
    path: str
    offset: int | None
    line: int | None
    column: int | None

    def __init__(
        self,
        reason: str,
        path: str = "$",
        offset: int | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.reason = reason
        self.path = path
        self.offset = offset
        self.line = line
        self.column = column
        if line is not None:
            where = f" (line {line}, column {column})"
        elif offset is not None:
            where = f" (byte {offset})"
        else:
            where = ""
        super().__init__(f"{reason} at {path}{where}")

    def __reduce__(
        self,
    ) -> tuple[type[WireError], tuple[str, str, int | None, int | None, int | None]]:
        # Keep every attribute when the error crosses a process boundary.
        return (type(self), (self.reason, self.path, self.offset, self.line, self.column))
