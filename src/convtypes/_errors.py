"""The one exception convtypes raises for data it cannot read or write.

The value types raise it when built with a field the wire cannot carry, and
every decoder raises it for a document it refuses. This module also turns
msgspec's errors into it, so that every reader of bytes (the fast codec and
the careful path alike) reports the same words and the same JSON path.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

import msgspec

from ._locate import find_bad_number, find_excess_depth, path_at

__all__ = [
    "MAX_DEPTH",
    "TornLineError",
    "WireError",
    "explain_validation",
    "from_msgspec",
    "too_deep",
]

MAX_DEPTH: Final = 127
"""The deepest nesting of arrays and objects a document may have.

The reference reads JSON with serde_json, which refuses the 128th level.
"""


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


class TornLineError(WireError):
    """A JSONL file's last line has no newline: a crash cut an append short.

    A reader that runs while an append is being written meets the same.
    ``append_jsonl`` raises it for any file that does not end with a
    newline, rather than glue a line onto the tail; ``iter_jsonl`` raises
    it for a last line without a newline that is not whole JSON.
    ``repair_jsonl`` cuts such a line (or gives a whole message its
    newline), and a reader may also try again later. It is a
    :class:`WireError`, so ``except WireError`` still catches it: catch it
    first to tell it from a bad line. ``line``, ``column`` and ``offset``
    place the end of the file.
    """


def too_deep(path: str = "$", offset: int | None = None) -> WireError:
    """The error for nesting past :data:`MAX_DEPTH`."""
    return WireError(f"expected JSON nested at most {MAX_DEPTH} levels deep", path, offset)


Tags = Mapping[str, tuple[str, ...]]
"""Known tag values by tag field (``"role"``, ``"type"``), for error messages."""

# msgspec phrases its errors as "<what> - at `<path>`".
# Patterns are compiled on first use (re keeps them): errors are the rare
# path, and import time is paid by every program.
_MSGSPEC_ERROR = r"^(?P<what>.*?)(?: - at `(?P<path>[^`]*)`)?$"
# A \\uD800-\\uDBFF escape not followed by a low half, or a lone low half.
_LONE_SURROGATE = (
    rb"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)
_BYTE_OFFSET = r"\s*\(byte (\d+)\)$"
_OWN_PATH = r"^(?P<what>.*) at \$(?P<rest>.*)$"
_UNREADABLE_NUMBER: Final = ("Number out of range", "Integer value out of range")
# The u32 fields, and their range, as the reference stores them.
_U32_FIELDS: Final = (".max_frames", ".sample_rate")
_U32_MAX: Final = 2**32 - 1


def from_msgspec(
    exc: BaseException, data: bytes | bytearray | memoryview | str, tags: Tags
) -> WireError:
    """Turn whatever msgspec raised reading ``data`` into a WireError with a JSON path.

    ``tags`` lists the known tag values, to say what a bad tag should be.
    """
    if isinstance(exc, WireError):
        return exc
    if isinstance(exc, RecursionError):
        raw = _as_bytes(data)
        try:
            found = find_excess_depth(raw, MAX_DEPTH) if raw is not None else None
        except Exception:  # pragma: no cover - see _path_at
            found = None
        return too_deep() if found is None else too_deep(found[1], found[0])
    if isinstance(exc, UnicodeDecodeError):
        # Older msgspec reports invalid UTF-8 this way; newer as a DecodeError.
        raw = _as_bytes(data)
        offset = 0
        if raw is not None:
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as bad:
                offset = bad.start
        path = _path_at(raw, offset) if raw is not None else "$"
        return WireError("expected UTF-8 text, found an invalid byte", path, offset)
    if isinstance(exc, UnicodeError):
        return WireError("expected text encodable as UTF-8 (a lone surrogate?)", "$")
    if not isinstance(exc, (msgspec.ValidationError, msgspec.DecodeError)):
        return WireError(f"unreadable document: {exc}", "$")
    text = str(exc)
    match = re.match(_MSGSPEC_ERROR, text, re.DOTALL)
    assert match is not None  # the pattern matches any string
    what, path = match["what"], match["path"] or "$"
    if isinstance(exc, msgspec.ValidationError):
        reason, path = explain_validation(what, path, tags)
        if "[...]" in path and what in _UNREADABLE_NUMBER:
            # Inside free-form JSON msgspec names keys it did not keep as
            # [...]; the bytes say which key, and where.
            raw = _as_bytes(data)
            found = find_bad_number(raw) if raw is not None else None
            if found is not None:
                return WireError(reason, found[1], found[0])
        return WireError(reason, path)
    # A syntax error: msgspec gives a byte offset; name the JSON path there.
    offset_match = re.search(_BYTE_OFFSET, what)
    raw = _as_bytes(data)
    if offset_match:
        offset = int(offset_match[1])
        what = what[: offset_match.start()]
    else:
        offset = len(raw) if raw is not None else 0
    if raw is not None and raw.startswith(b"\xef\xbb\xbf"):
        return WireError("expected JSON, found a UTF-8 byte-order mark", "$", 0)
    lone = re.search(_LONE_SURROGATE, raw) if raw is not None else None
    surrogate_errors = (
        "Input data was truncated",
        "JSON is malformed: invalid utf-16 surrogate pair",
    )
    if lone and what in surrogate_errors:
        offset = lone.start()
        what = "expected a valid string, found a lone surrogate escape"
    elif what == "Invalid UTF-8 encoded string" and raw is not None:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as bad:
            offset = bad.start
        what = "expected UTF-8 text, found an invalid byte"
    elif what == "Input data was truncated":
        what = "expected more JSON: the document ends early"
    else:
        what = "malformed JSON: " + what.removeprefix("JSON is malformed: ")
    # Trailing data follows a complete document: it belongs to no path inside.
    inside = raw is not None and "trailing characters" not in what
    if not inside and raw is not None:
        offset = _trailing_start(raw, offset)
    path = _path_at(raw, offset) if inside and raw is not None else "$"
    return WireError(what, path, offset)


def _trailing_start(raw: bytes, offset: int) -> int:
    """Where the trailing characters that msgspec reported at ``offset`` begin.

    msgspec names the byte after the first of them (``{}x`` at byte 3), and
    a reader wants the first: it is taken when what comes before it is a
    whole document, so a msgspec that names the first itself is read right.
    """
    start = offset - 1
    if start < 0 or raw[start : start + 1] in _JSON_SPACE:
        return offset
    head = raw[:start]
    if find_excess_depth(head, MAX_DEPTH) is not None:
        return offset
    try:
        msgspec.json.decode(head)
    except (msgspec.DecodeError, RecursionError):
        return offset
    return start


_JSON_SPACE: Final = (b" ", b"\t", b"\r", b"\n")


def _path_at(raw: bytes, offset: int) -> str:
    # The locator is a second reader of hostile bytes; if it ever fails, the
    # error still leaves as a WireError, only with a coarser path.
    try:
        return path_at(raw, offset)
    except Exception:  # pragma: no cover - a defect in the locator, not in the input
        return "$"


def explain_validation(what: str, path: str, tags: Tags) -> tuple[str, str]:
    """Reword one msgspec validation message (``what``, at ``path``) as (reason, path)."""
    own = re.match(_OWN_PATH, what, re.DOTALL)
    if own:
        # Raised by a value type's own check, with a path relative to it.
        return own["what"], path + own["rest"]
    what = what.replace("`", "")
    if what.startswith(("Expected int >= 0", "Expected int <= ")) and path.endswith(_U32_FIELDS):
        side = "negative" if ">=" in what else "too large"
        what = f"expected an integer in 0..{_U32_MAX}, got one {side}"
    elif what.startswith("Expected "):
        what = "expected " + what[len("Expected ") :]
    elif what.startswith("Object missing required field "):
        what = "missing required field '" + what[len("Object missing required field ") :] + "'"
    elif what.startswith("Invalid enum value "):
        what = f"expected 'internal' or 'external', got {what[len('Invalid enum value ') :]}"
    elif what.startswith("Invalid value ") and path.rsplit(".", 1)[-1] in tags:
        field = path.rsplit(".", 1)[-1]
        got = what[len("Invalid value ") :]
        if len(tags[field]) == 1:
            what = f"expected {field} to be '{tags[field][0]}', got {got}"
        else:
            choices = ", ".join(f"'{tag}'" for tag in tags[field])
            what = f"expected {field} to be one of {choices}, got {got}"
    elif what == "Number out of range":
        what = "expected a number within the range of a 64-bit float"
    elif what == "Integer value out of range":
        what = "expected an integer short enough to read (see sys.set_int_max_str_digits)"
    else:
        what = what[:1].lower() + what[1:]
    return what, path


def _as_bytes(data: bytes | bytearray | memoryview | str) -> bytes | None:
    if isinstance(data, str):
        try:
            return data.encode("utf-8")
        except UnicodeEncodeError:
            return None
    return bytes(data)
