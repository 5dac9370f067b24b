"""The JSON object a cut-off text had got to: what a stream left unfinished.

A streamed tool call arrives as pieces of JSON text. When the stream stops
at the token limit in the middle of one, the provider SDKs still show the
call, with the arguments read from the text so far (the anthropic SDK reads
it with ``jiter`` in its partial mode). A reader that must agree with that
reads the same text the same way; this module does so without any package.

What is kept: every member and element whose value was complete, and the
containers open at the cut, closed there. What is left out: a string, key,
``true``/``false``/``null`` or number cut in the middle (a number counts as
whole if it ends in a digit, as ``jiter`` counts it), a key without its
value, a trailing comma. The text up to the cut must be JSON; anything
else raises ``ValueError``.
"""

from __future__ import annotations

import re
from typing import Any, Final

from ._json import parse_arguments

__all__ = ["read_partial_object"]

_SPACE: Final = re.compile(r"[ \t\n\r]*")
_NUMBER: Final = re.compile(r"[-+0-9.eE]*")
_LITERALS: Final = ("true", "false", "null")
# Where an expected token is missing, what was expected instead.
_VALUE, _KEY, _COLON, _AFTER, _FIRST_KEY, _FIRST_VALUE = range(6)


def read_partial_object(text: str) -> dict[str, Any]:
    """The object a prefix of JSON text holds so far (see the module).

    Raises ``ValueError`` if the text is not the beginning of a JSON
    object, or if nothing of one has come yet.
    """
    cut, closers = _last_whole_point(text)
    if cut < 0:
        raise ValueError("the text holds no JSON value yet")
    try:
        return parse_arguments(text[:cut] + closers)
    except ValueError as err:
        raise ValueError(f"the text so far is not the start of a JSON object: {err}") from None


def _last_whole_point(text: str) -> tuple[int, str]:
    """Where the text last stood at a whole value, and the brackets to close there.

    Returns ``(-1, "")`` when no such point came. Checks the structure on
    the way (brackets, colons, commas); what is inside a string or a
    number is left for the JSON reader to check.
    """
    end = len(text)
    stack: list[str] = []  # the closing bracket of each open container
    at = _skip(_SPACE, text, 0)
    state = _VALUE
    cut, closers = -1, ""
    while at < end:
        char = text[at]
        if state in (_VALUE, _FIRST_VALUE):
            if state == _FIRST_VALUE and char == "]":
                stack.pop()
                at += 1
                state = _AFTER
            elif char in "{[":
                stack.append("}" if char == "{" else "]")
                at += 1
                state = _FIRST_KEY if char == "{" else _FIRST_VALUE
            else:
                stop = _scalar_end(text, at)
                if stop < 0:
                    break  # cut inside the value: it is left out
                at = stop
                state = _AFTER
            cut, closers = at, "".join(reversed(stack))
        elif state in (_KEY, _FIRST_KEY):
            if state == _FIRST_KEY and char == "}":
                stack.pop()
                at += 1
                state = _AFTER
                cut, closers = at, "".join(reversed(stack))
            elif char != '"':
                raise ValueError(f"expected a key at offset {at}, found {char!r}")
            else:
                stop = _string_end(text, at)
                if stop < 0:
                    break
                at = stop
                state = _COLON
        elif state == _COLON:
            if char != ":":
                raise ValueError(f"expected ':' at offset {at}, found {char!r}")
            at += 1
            state = _VALUE
        else:  # _AFTER: a comma or the closing bracket
            if not stack:
                raise ValueError(f"text after the whole value at offset {at}")
            if char == ",":
                at += 1
                state = _KEY if stack[-1] == "}" else _VALUE
            elif char == stack[-1]:
                stack.pop()
                at += 1
                cut, closers = at, "".join(reversed(stack))
            else:
                raise ValueError(f"expected ',' or {stack[-1]!r} at offset {at}, found {char!r}")
        at = _skip(_SPACE, text, at)
    return cut, closers


def _skip(pattern: re.Pattern[str], text: str, at: int) -> int:
    """The offset after the run of ``pattern`` (which matches the empty text) at ``at``."""
    match = pattern.match(text, at)
    return at if match is None else match.end()


def _string_end(text: str, at: int) -> int:
    """The offset after the string opening at ``at``, or -1 if the text ends in it."""
    search = at + 1
    while True:
        quote = text.find('"', search)
        if quote < 0:
            return -1
        backslashes = 0
        while text[quote - 1 - backslashes] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            return quote + 1
        search = quote + 1


def _scalar_end(text: str, at: int) -> int:
    """The offset after the string, literal or number at ``at``; -1 if cut off."""
    char = text[at]
    if char == '"':
        return _string_end(text, at)
    for literal in _LITERALS:
        rest = text[at : at + len(literal)]
        if rest == literal:
            return at + len(literal)
        if at + len(rest) == len(text) and literal.startswith(rest):
            return -1
    stop = _skip(_NUMBER, text, at)
    if stop == at:
        raise ValueError(f"expected a value at offset {at}, found {char!r}")
    if stop == len(text) and not text[stop - 1].isdigit():
        return -1  # "1.", "-", "1e": not a number yet
    return stop
