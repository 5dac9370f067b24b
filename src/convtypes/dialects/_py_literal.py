"""Python literals a model wrote: the pythonic call list ``[f(x=1), g(y="a")]``, and values.

Llama 3.2 and 4, LFM2 and Gemma write their calls as Python:
``[get_weather(city="Oslo", days=3)]``. This reads that small part of
Python by hand, never by evaluating it: a list of calls to a name with
keyword arguments, whose values are literals (strings in any of Python's
quotes, numbers, ``True``, ``False``, ``None``, lists, tuples and dicts
with string keys). Anything else (a variable, an expression, a positional
argument) is an error that says where, since a call read without it would
not be the call the model wrote.

:class:`PySpan` finds where such a list ends as its text streams in, as
``JsonSpan`` does for JSON.
"""

from __future__ import annotations

import math
import re
import warnings
from typing import Any, Final

from .._errors import MAX_DEPTH

_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER: Final = re.compile(
    r"[-+]?(?:(?:\d[\d_]*)?\.\d[\d_]*(?:[eE][-+]?\d+)?|\d[\d_]*\.?(?:[eE][-+]?\d+)?)"
)
_SPACE: Final = re.compile(r"\s*")
_OPENERS: Final = {"[": "]", "(": ")", "{": "}"}
_WORDS: Final = {"True": True, "False": False, "None": None}
DIGITS: Final = 4300  # past this, int() of text refuses (CPython's int_max_str_digits)


class PyLiteralError(ValueError):
    """Text that is not the Python this module reads; ``position`` is where, in the text."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.position = position


class PySpan:
    """Fed the text of a Python list from its ``[`` on; where it ends, as it streams.

    :meth:`feed` returns the position in the piece just past the bracket
    that closes the list, or ``None`` while it goes on; strings in any quote
    (triple ones too) and backslash escapes are stepped over, however the
    pieces split them. A bracket that closes one of another kind ends the
    span, and ``mismatch`` says which.
    """

    __slots__ = ("_open", "_quote", "_tail", "mismatch")

    def __init__(self) -> None:
        self._open: list[str] = []
        self._quote = ""  # the quote of the string being read, "" outside one
        self._tail = ""  # quotes or a backslash at the end of a piece, read with the next
        self.mismatch: tuple[str, str] | None = None

    def feed(self, text: str) -> int | None:
        held = len(self._tail)
        text = self._tail + text
        self._tail = ""
        at, end = 0, len(text)
        while at < end:
            char = text[at]
            quote = self._quote
            if quote:
                if char == "\\":
                    if at + 1 >= end:
                        self._tail = text[at:]
                        return None
                    at += 2
                    continue
                if char == quote[0]:
                    if len(quote) == 1 or text.startswith(quote, at):
                        self._quote = ""
                        at += len(quote)
                        continue
                    if quote.startswith(text[at:]):
                        self._tail = text[at:]  # part of the closing quotes, the rest to come
                        return None
                at += 1
                continue
            if char in "'\"":
                triple = char * 3
                if text.startswith(triple, at):
                    self._quote = triple
                    at += 3
                    continue
                if triple.startswith(text[at:]):
                    self._tail = text[at:]  # one or two quotes: a triple one may follow
                    return None
                self._quote = char
            elif char in _OPENERS:
                self._open.append(_OPENERS[char])
            elif char in ")]}":
                if not self._open:
                    return at + 1 - held
                expected = self._open.pop()
                if char != expected:
                    opened = next(key for key, value in _OPENERS.items() if value == expected)
                    self.mismatch = (opened, char)
                    return at + 1 - held
                if not self._open:
                    return at + 1 - held
            at += 1
        return None


class _Reader:
    """The parser over one whole text (a span :class:`PySpan` found)."""

    __slots__ = ("pos", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, message: str) -> PyLiteralError:
        return PyLiteralError(message, self.pos)

    def space(self) -> None:
        self.pos = _SPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]

    def peek(self) -> str:
        return self.text[self.pos : self.pos + 1]

    def expect(self, char: str, what: str) -> None:
        self.space()
        if self.peek() != char:
            found = repr(self.peek()) if self.peek() else "the end of the text"
            raise self.fail(f"expected {char!r} {what}, found {found}")
        self.pos += 1

    def name(self, what: str) -> str:
        self.space()
        found = _NAME.match(self.text, self.pos)
        if found is None:
            raise self.fail(f"expected {what}, found {self.text[self.pos : self.pos + 20]!r}")
        self.pos = found.end()
        return found.group()

    def calls(self) -> list[tuple[str, dict[str, Any], int]]:
        """``[name(key=value, ...), ...]``: each call's name, arguments and position."""
        found: list[tuple[str, dict[str, Any], int]] = []
        self.expect("[", "to open the list of calls")
        while True:
            self.space()
            if self.peek() == "]" and found:
                self.pos += 1
                return found
            at = self.pos
            name = self.name("a function's name")
            self.space()
            if self.peek() == ".":
                raise self.fail(f"a call to {name!r}'s attribute; a tool's name has no dot")
            found.append((name, self.arguments(name), at))
            self.space()
            if self.peek() == ",":
                self.pos += 1
                continue
            self.expect("]", "after a call")
            return found

    def arguments(self, name: str) -> dict[str, Any]:
        self.expect("(", f"after the name {name!r}")
        arguments: dict[str, Any] = {}
        while True:
            self.space()
            if self.peek() == ")":
                self.pos += 1
                return arguments
            at = self.pos
            key = _NAME.match(self.text, self.pos)
            after = self.text[key.end() :].lstrip()[:1] if key else ""
            if key is None or after != "=" or self.text.startswith("==", key.end()):
                raise self.fail(
                    f"an argument of {name!r} that is not written key=value "
                    "(a call's arguments are named)"
                )
            self.pos = key.end()
            self.expect("=", "after an argument's name")
            if key.group() in arguments:
                self.pos = at
                raise self.fail(f"the argument {key.group()!r} of {name!r} is given twice")
            arguments[key.group()] = self.value(MAX_DEPTH)
            self.space()
            if self.peek() == ",":
                self.pos += 1
                continue
            self.expect(")", f"to close the call to {name!r}")
            return arguments

    def value(self, room: int) -> Any:
        self.space()
        char = self.peek()
        if not char:
            raise self.fail("a value missing at the end of the text")
        after = self.text[self.pos + 1 : self.pos + 2]
        if char in "'\"" or (char in "rRuU" and after and after in "'\""):
            return self.string()
        if char in "[({":
            if room <= 0:
                raise self.fail(f"a value nested deeper than {MAX_DEPTH} levels")
            return self.container(char, room - 1)
        if char.isdigit() or char in "-+.":
            return self.number()
        word = _NAME.match(self.text, self.pos)
        if word is not None and word.group() in _WORDS:
            self.pos = word.end()
            return _WORDS[word.group()]
        raise self.fail(f"a value that is not a literal: {self.text[self.pos : self.pos + 20]!r}")

    def container(self, opener: str, room: int) -> Any:
        closer = _OPENERS[opener]
        self.pos += 1
        items: list[Any] = []
        entries: dict[str, Any] = {}
        while True:
            self.space()
            if self.peek() == closer:
                self.pos += 1
                if opener == "{":
                    return entries
                return items
            if opener == "{":
                at = self.pos
                key = self.value(room)
                if not isinstance(key, str):
                    self.pos = at
                    raise self.fail("a dict key that is not a string")
                self.expect(":", "after a dict key")
                entries[key] = self.value(room)
            else:
                items.append(self.value(room))
            self.space()
            if self.peek() == ",":
                self.pos += 1
                continue
            self.expect(closer, "to close a " + {"[": "list", "(": "tuple", "{": "dict"}[opener])
            return entries if opener == "{" else items

    def string(self) -> str:
        at = self.pos
        raw = self.peek() in "rR"
        if self.peek() in "rRuU":
            self.pos += 1
        quote = self.text[self.pos] * 3
        if not self.text.startswith(quote, self.pos):
            quote = quote[0]
        self.pos += len(quote)
        start = self.pos
        while True:
            found = self.text.find(quote, self.pos)
            slash = self.text.find("\\", self.pos)
            if found == -1:
                self.pos = at
                raise self.fail("a string that never closes")
            if slash != -1 and slash < found:
                self.pos = slash + 2
                continue
            body = self.text[start:found]
            self.pos = found + len(quote)
            break
        if len(quote) == 1 and "\n" in body:
            self.pos = at
            raise self.fail("a string in single quotes that runs over a line")
        if raw or "\\" not in body:
            return body
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return body.encode("latin-1", "backslashreplace").decode("unicode_escape")
            except UnicodeDecodeError:
                self.pos = at
                raise self.fail("a string with an escape Python does not have") from None

    def number(self) -> int | float:
        found = _NUMBER.match(self.text, self.pos)
        if found is None or found.end() == self.pos:
            raise self.fail(
                f"a value that is not a literal: {self.text[self.pos : self.pos + 20]!r}"
            )
        word = found.group().replace("_", "")
        if any(c in word for c in ".eE"):
            number = float(word)
            if not math.isfinite(number):
                raise self.fail("a number too large to keep")
            self.pos = found.end()
            return number
        if len(word) > DIGITS:
            raise self.fail("an integer too long to read")
        self.pos = found.end()
        return int(word)


def calls(text: str) -> list[tuple[str, dict[str, Any], int]]:
    """The calls of a whole pythonic list, with where each begins; ``PyLiteralError`` if not one."""
    reader = _Reader(text)
    found = reader.calls()
    reader.space()
    if reader.pos != len(text):
        raise reader.fail("text after the list of calls")
    return found


def value(text: str) -> tuple[bool, Any]:
    """``(True, value)`` if ``text`` is one Python literal, ``(False, None)`` otherwise."""
    reader = _Reader(text)
    try:
        found = reader.value(MAX_DEPTH)
        reader.space()
    except PyLiteralError:
        return False, None
    return (True, found) if reader.pos == len(text) else (False, None)
