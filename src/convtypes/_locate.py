"""Walk raw JSON bytes for what msgspec does not report.

msgspec reports a syntax error as a byte offset, gives up on very deep
nesting without a position, and lets a repeated key's last value win. This
module walks the document itself to name a place as a JSON path, and to find
repeated keys when a caller asks for that. It runs after a decode failed, or
on request, so it favours being simple and exact over being fast; strings
are skipped with ``bytes.find``.
"""

from __future__ import annotations

import math
import re

__all__ = ["find_bad_number", "find_excess_depth", "format_path", "path_at"]

_SCALAR_END = re.compile(rb"[,\]}\x20\t\r\n\[{\":]")
_SPACE = b" \t\r\n"


def format_path(parts: list[str | int]) -> str:
    """Render path parts as ``$.key[3].other``."""
    out = ["$"]
    for part in parts:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif part.isidentifier():
            out.append(f".{part}")
        else:
            out.append(f"[{part!r}]")
    return "".join(out)


def _string_end(data: bytes, start: int) -> int:
    """Index just past the string that opens at ``start``, or ``len(data)``."""
    pos = start + 1
    while True:
        quote = data.find(b'"', pos)
        if quote < 0:
            return len(data)
        slashes = 0
        back = quote - 1
        while back > start and data[back] == 0x5C:
            slashes += 1
            back -= 1
        if slashes % 2 == 0:
            return quote + 1
        pos = quote + 1


def _key_text(raw: bytes) -> str:
    """The text of the key spelled ``raw`` (a JSON string, its quotes included).

    A document cut inside a key leaves ``raw`` without its closing quote; the
    key is then read as far as it goes.
    """
    import json

    for attempt in (raw, raw + b'"'):
        try:
            key = json.loads(attempt)
        except ValueError:
            continue
        if isinstance(key, str):
            return key
    return raw[1:].decode("utf-8", "replace").rstrip('"')


def _number_unreadable(token: bytes) -> bool:
    """Whether a JSON number is one a reader cannot hold: past a double's
    range, or an integer with more digits than Python turns into a number."""
    try:
        if any(c in token for c in b".eE"):
            return math.isinf(float(token))
        int(token)
    except ValueError:
        return True
    return False


def _walk(
    data: bytes,
    stop_offset: int,
    depth_limit: int,
    stop_on_repeat: bool = False,
    target: str | None = None,
    stop_on_bad_number: bool = False,
) -> tuple[int, list[str | int]]:
    """Walk until ``stop_offset``, until nesting passes ``depth_limit``, (with
    ``stop_on_repeat``) until an object repeats a key, or (with
    ``stop_on_bad_number``) until a number no reader can hold.

    With ``target``, also stop where the value at that JSON path starts.
    Returns the offset where the walk stopped and the path there. The path of
    a position inside an object names the key whose value is being read.
    """
    # Each frame is [is_object, key_or_index, between_values, keys_seen].
    stack: list[list[object]] = []
    pos = 0
    end = min(len(data), stop_offset)

    def path() -> list[str | int]:
        parts: list[str | int] = []
        for _, where, between, _ in stack:
            # ``between``: an object awaits its next key, or an array has
            # finished an element and awaits a comma; neither is inside a value.
            if between or where is None:
                continue
            parts.append(where)  # type: ignore[arg-type]
        return parts

    while pos < end:
        ch = data[pos]
        if ch in _SPACE:
            pos += 1
            continue
        if target is not None and ch not in b",:]}" and format_path(path()) == target:
            if not (stack and stack[-1][0] and stack[-1][2]):  # not a key
                return pos, path()
        if ch in b"[{":
            if len(stack) >= depth_limit:
                return pos, path()
            if ch == 0x7B:
                stack.append([True, None, True, set()])
            else:
                stack.append([False, 0, False, None])
            pos += 1
        elif ch in b"]}":
            if stack:
                stack.pop()
            if stack:
                stack[-1][2] = True
            pos += 1
        elif ch == 0x2C:  # ,
            if stack:
                frame = stack[-1]
                if frame[0]:
                    frame[2] = True
                else:
                    frame[1] = int(frame[1]) + 1  # type: ignore[call-overload]
                    frame[2] = False
            pos += 1
        elif ch == 0x3A:  # :
            if stack:
                stack[-1][2] = False
            pos += 1
        elif ch == 0x22:  # "
            close = _string_end(data, pos)
            if stack and stack[-1][0] and stack[-1][2]:
                frame = stack[-1]
                key = _key_text(data[pos:close])
                frame[1] = key
                frame[2] = False  # the key is read; what follows is its value
                if stop_on_repeat:
                    seen: set[str] = frame[3]  # type: ignore[assignment]
                    if key in seen:
                        return pos, path()
                    seen.add(key)
            pos = close
        else:
            # A number, a literal or a stray byte: skip to what can follow it,
            # always moving forward, so no input can stall the walk.
            found = _SCALAR_END.search(data, pos + 1)
            token_end = found.start() if found else len(data)
            if stop_on_bad_number and (ch == 0x2D or 0x30 <= ch <= 0x39):
                if _number_unreadable(data[pos:token_end]):
                    return pos, path()
            pos = token_end
            if pos == end:
                break
    return pos, path()


def path_at(data: bytes, offset: int) -> str:
    """The JSON path of the value being read at byte ``offset``."""
    return format_path(_walk(data, offset, 1 << 30)[1])


def find_excess_depth(data: bytes, limit: int) -> tuple[int, str] | None:
    """Where nesting first goes past ``limit`` levels, or ``None``."""
    pos, parts = _walk(data, len(data), limit)
    if pos >= len(data):
        return None
    return pos, format_path(parts)


def find_repeated_key(data: bytes) -> tuple[int, str] | None:
    """The first key an object repeats, as (offset, path of the key), or ``None``."""
    pos, parts = _walk(data, len(data), 1 << 30, stop_on_repeat=True)
    if pos >= len(data):
        return None
    return pos, format_path(parts)


def find_bad_number(data: bytes) -> tuple[int, str] | None:
    """The first number no reader can hold, as (offset, path), or ``None``."""
    pos, parts = _walk(data, len(data), 1 << 30, stop_on_bad_number=True)
    if pos >= len(data):
        return None
    return pos, format_path(parts)


def offset_of(data: bytes, path: str) -> int | None:
    """The byte offset where the value at JSON ``path`` starts, if it exists."""
    if path == "$":
        stripped = len(data) - len(data.lstrip())
        return stripped if stripped < len(data) else None
    pos, parts = _walk(data, len(data), 1 << 30, target=path)
    return pos if pos < len(data) and format_path(parts) == path else None
