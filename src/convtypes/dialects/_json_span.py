"""Where a JSON object or array ends, found as its text streams in.

A model writes a tool call's JSON inline, with no length and often no
closing tag (Mistral's ``[ARGS]{...}``, Llama's ``{...}; {...}``), so the
reader must find the value's end before it can decode it. This tracks only
what decides that: the brackets still open and whether it is inside a string
(and just after a backslash there). It does not check the JSON; msgspec
does, once the span is known. A closing bracket of the wrong kind ends the
span at once (``mismatch`` says which), since no later text can mend it.
"""

from __future__ import annotations

import re
from typing import Final

# Outside a string: a whole string (skipped in one step), a bracket, or the
# quote that opens a string this piece does not close.
_OUTSIDE: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]]|"')
_INSIDE: Final = re.compile(r'["\\]')
_CLOSER: Final = {"{": "}", "[": "]"}


class JsonSpan:
    """Fed the text of one JSON object or array from its first bracket on.

    :meth:`feed` returns the position in the piece just past the bracket
    that closes the value, or ``None`` while it goes on. Pieces may split
    the text anywhere, even between a backslash and what it escapes. When
    a bracket closes one of the other kind, ``feed`` returns the position
    past it and ``mismatch`` holds ``(opened, closing)``.
    """

    __slots__ = ("_escaped", "_in_string", "_open", "mismatch")

    def __init__(self) -> None:
        self._open: list[str] = []  # the closers the open brackets wait for
        self._in_string = False
        self._escaped = False
        self.mismatch: tuple[str, str] | None = None

    def feed(self, text: str) -> int | None:
        at = 0
        end = len(text)
        if self._escaped:
            if not text:
                return None
            at = 1
            self._escaped = False
        open_ = self._open
        while at < end:
            if self._in_string:
                found = _INSIDE.search(text, at)
                if found is None:
                    return None
                if found.group() == "\\":
                    if found.end() >= end:
                        self._escaped = True
                        return None
                    at = found.end() + 1
                else:
                    self._in_string = False
                    at = found.end()
                continue
            for found in _OUTSIDE.finditer(text, at):
                mark = found.group()
                if len(mark) > 1:
                    continue  # a whole string
                if mark == '"':
                    self._in_string = True
                    at = found.end()
                    break
                if mark in "{[":
                    open_.append(_CLOSER[mark])
                    continue
                if not open_:
                    return found.end()  # a closer with nothing open: the caller starts at one
                expected = open_.pop()
                if mark != expected:
                    self.mismatch = ("{" if expected == "}" else "[", mark)
                    return found.end()
                if not open_:
                    return found.end()
            else:
                return None
        return None
