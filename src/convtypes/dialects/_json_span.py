"""Where a JSON object or array ends, found as its text streams in.

A model writes a tool call's JSON inline, with no length and often no
closing tag (Mistral's ``[ARGS]{...}``, Llama's ``{...}; {...}``), so the
reader must find the value's end before it can decode it. This tracks only
what decides that: the depth of brackets and whether it is inside a string
(and just after a backslash there). It does not check the JSON; msgspec
does, once the span is known.
"""

from __future__ import annotations

import re
from typing import Final

# Outside a string: a whole string (skipped in one step), a bracket, or the
# quote that opens a string this piece does not close.
_OUTSIDE: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]]|"')
_INSIDE: Final = re.compile(r'["\\]')


class JsonSpan:
    """Fed the text of one JSON object or array from its first bracket on.

    :meth:`feed` returns the position in the piece just past the bracket
    that closes the value, or ``None`` while it goes on. Pieces may split
    the text anywhere, even between a backslash and what it escapes.
    """

    __slots__ = ("_depth", "_escaped", "_in_string")

    def __init__(self) -> None:
        self._depth = 0
        self._in_string = False
        self._escaped = False

    def feed(self, text: str) -> int | None:
        at = 0
        end = len(text)
        if self._escaped:
            if not text:
                return None
            at = 1
            self._escaped = False
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
            found = _OUTSIDE.search(text, at)
            if found is None:
                return None
            mark = found.group()
            at = found.end()
            if len(mark) > 1:
                continue  # a whole string
            if mark == '"':
                self._in_string = True
            elif mark in "{[":
                self._depth += 1
            else:
                self._depth -= 1
                if self._depth <= 0:
                    return at
        return None
