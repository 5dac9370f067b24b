"""``"gemma4"``: Gemma 4, whose calls are written in a syntax of its own.

::

    <|channel>thought
    The user wants the weather.<channel|>Let me check.<|tool_call>call:get_weather{
    city:<|"|>Oslo<|"|>,days:3}<tool_call|>

(the call on one line). A call is ``call:NAME{...}`` between ``<|tool_call>`` and ``<tool_call|>``.
Its arguments are keys without quotes, strings between ``<|"|>`` marks
(nothing inside them is escaped), numbers, ``true`` and ``false``, and
lists and objects of those, as Gemma 4's template writes them. Quoted
strings (``"Oslo"``, ``'Oslo'``) are read too, and a bare word that is no
number (and holds no ``:``) is its text. The syntax says each value's
type, so no schema is needed to type it. Several calls follow one another.

The reasoning is ``<|channel>thought ...<channel|>`` at the start (the
template's generation prompt writes an empty one when thinking is off).
A turn ends on ``<turn|>``, or on ``<|tool_response>`` after its calls.
"""

from __future__ import annotations

from typing import Any, Final

from .. import _schema_values as values
from .._output_cursor import Cursor, Reading
from .._output_style import Style

OPEN: Final = "<|tool_call>"
CLOSE: Final = "<tool_call|>"
QUOTE: Final = '<|"|>'
PREFIX: Final = "call:"
_BAD_IN_NAMES: Final = frozenset("{}<>\"' \t\r\n:,")
_NULLS: Final = frozenset({"null", "None"})
_DEPTH: Final = 64


class _Unreadable(Exception):
    def __init__(self, why: str, at: int) -> None:
        super().__init__(why)
        self.why = why
        self.at = at


def read_call(cur: Cursor, marker: str) -> Reading:
    """What follows ``<|tool_call>``: ``call:NAME{...}``, then ``<tool_call|>``."""
    if marker == CLOSE:
        raise cur.error(f"a {CLOSE} with no {OPEN} before it")
    at = cur.offset - len(OPEN)
    body, tag = yield from cur.until(CLOSE, OPEN)
    if tag == OPEN:
        raise cur.error(f"a call with no {CLOSE} before the next {OPEN}", at)
    if not tag:
        # The turn ended: a call whose closer the end token replaced is whole.
        trimmed = body.rstrip()
        while (token := next((t for t in cur.ends if trimmed.endswith(t)), None)) is not None:
            trimmed = trimmed[: -len(token)].rstrip()
        body = trimmed
    start = at + len(OPEN)
    if not body.startswith(PREFIX):
        if not tag and PREFIX.startswith(body):
            raise cur.error("the tool call is cut off", at)
        raise cur.error(f"a {OPEN} not followed by {PREFIX}NAME{{...}}", start)
    brace = body.find("{")
    if brace == -1:
        if not tag:
            raise cur.error("the tool call is cut off in its name", at)
        raise cur.error("a call whose name has no {...} after it", start)
    name = body[len(PREFIX) : brace].strip()
    if not name or any(c in _BAD_IN_NAMES for c in name):
        raise cur.error(f"a tool call whose name is not one: {name!r:.60}", start)
    cur.announce(name, at=at)
    try:
        arguments, end = _object(body, brace, 0)
        if body[end:].strip():
            raise _Unreadable("text after the call's arguments", _space(body, end))
    except _Unreadable as err:
        if not tag and err.why.startswith("cut off"):
            raise cur.error(f"the tool call is {err.why}", at) from None
        raise cur.error(f"the call's arguments cannot be read: {err.why}", start + err.at) from None
    cur.add_call(name, arguments, at=at)


def _space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _value(text: str, at: int, depth: int) -> tuple[Any, int]:
    at = _space(text, at)
    if at >= len(text):
        raise _Unreadable("cut off before a value", at)
    if text.startswith(QUOTE, at):
        close = text.find(QUOTE, at + len(QUOTE))
        if close == -1:
            raise _Unreadable("cut off in a string", at)
        return text[at + len(QUOTE) : close], close + len(QUOTE)
    head = text[at]
    if head == "{":
        return _object(text, at, depth + 1)
    if head == "[":
        return _array(text, at, depth + 1)
    if head in "\"'":
        close = at + 1
        while close < len(text) and (text[close] != head or text[close - 1] == "\\"):
            close += 1
        if close >= len(text):
            raise _Unreadable("cut off in a string", at)
        raw = text[at : close + 1]
        if head == '"':
            ok, value = values.json_value(raw)
            if ok:
                return value, close + 1
        return raw[1:-1], close + 1
    end = at
    while end < len(text) and text[end] not in ",}]:":
        end += 1
    word = text[at:end].strip()
    if not word:
        raise _Unreadable("a value that is empty", at)
    return _word(word), end


def _word(word: str) -> Any:
    if word in ("true", "True"):
        return True
    if word in ("false", "False"):
        return False
    if word in _NULLS:
        return None
    ok, value = values.json_value(word)
    if ok and type(value) in (int, float):
        return value
    return word


def _object(text: str, at: int, depth: int) -> tuple[dict[str, Any], int]:
    if depth > _DEPTH:
        raise _Unreadable("arguments nested too deep", at)
    found: dict[str, Any] = {}
    at = _space(text, at + 1)
    if text.startswith("}", at):
        return found, at + 1
    while True:
        at = _space(text, at)
        if text.startswith(QUOTE, at):
            close = text.find(QUOTE, at + len(QUOTE))
            if close == -1:
                raise _Unreadable("cut off in a key", at)
            key, at = text[at + len(QUOTE) : close], close + len(QUOTE)
        else:
            colon = text.find(":", at)
            if colon == -1:
                raise _Unreadable("cut off in a key", at)
            key = text[at:colon].strip().strip("\"'")
            if not key or any(c in "{}[],<>" for c in key):
                raise _Unreadable(f"a key that is not one: {key!r:.40}", at)
            at = colon
        at = _space(text, at)
        if not text.startswith(":", at):
            raise _Unreadable("cut off after a key" if at >= len(text) else "a key with no ':'", at)
        if key in found:
            raise _Unreadable(f"the key {key!r:.40} is given twice", at)
        found[key], at = _value(text, at + 1, depth)
        at = _space(text, at)
        if at >= len(text):
            raise _Unreadable("cut off in its arguments", at)
        if text[at] == "}":
            return found, at + 1
        if text[at] != ",":
            raise _Unreadable(f"expected ',' or '}}', not {text[at]!r}", at)
        at += 1


def _array(text: str, at: int, depth: int) -> tuple[list[Any], int]:
    if depth > _DEPTH:
        raise _Unreadable("arguments nested too deep", at)
    found: list[Any] = []
    at = _space(text, at + 1)
    if text.startswith("]", at):
        return found, at + 1
    while True:
        item, at = _value(text, at, depth)
        found.append(item)
        at = _space(text, at)
        if at >= len(text):
            raise _Unreadable("cut off in a list", at)
        if text[at] == "]":
            return found, at + 1
        if text[at] != ",":
            raise _Unreadable(f"expected ',' or ']', not {text[at]!r}", at)
        at += 1


STYLE = Style(
    "gemma4",
    calls={OPEN: read_call, CLOSE: read_call},
    thinking={"<|channel>thought": "<channel|>"},
    ends=("<turn|>", "<|tool_response>"),
    marks=("<|tool_call>call:",),
    opens=(OPEN,),
)
