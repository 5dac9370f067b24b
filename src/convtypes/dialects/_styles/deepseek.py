"""``"deepseek"``: DeepSeek V3, R1 (and its distills) and V3.1, with their own tokens.

V3 and R1 write each call's type, then its name, then its arguments as a
fenced JSON block; V3.1 writes the name, then the JSON. Shown here with
plain bars, the tokens' are the full-width bar (U+FF5C) and their spaces
U+2581::

    <|tool▁calls▁begin|><|tool▁call▁begin|>function<|tool▁sep|>get_weather
    ```json
    {"city": "Oslo"}
    ```<|tool▁call▁end|><|tool▁calls▁end|><|end▁of▁sentence|>

    <|tool▁calls▁begin|><|tool▁call▁begin|>get_weather<|tool▁sep|>{"city": "Oslo"}
    <|tool▁call▁end|><|tool▁calls▁end|>

(the second on one line). Reasoning is a ``<think>`` block; R1's prompt
and V3.1's with thinking on open it, so pass ``in_thinking`` (see
``opens_thinking``).
"""

from __future__ import annotations

from typing import Final

from .._json import parse_arguments
from .._output_cursor import Cursor, Reading
from .._output_style import Style

CALLS_BEGIN: Final = "<\uff5ctool\u2581calls\u2581begin\uff5c>"
CALLS_END: Final = "<\uff5ctool\u2581calls\u2581end\uff5c>"
CALL_BEGIN: Final = "<\uff5ctool\u2581call\u2581begin\uff5c>"
CALL_END: Final = "<\uff5ctool\u2581call\u2581end\uff5c>"
SEP: Final = "<\uff5ctool\u2581sep\uff5c>"
FENCE: Final = "```"
_BAD_IN_NAMES: Final = frozenset("{}<>\"' \t\r\n")


def read_calls(cur: Cursor, marker: str) -> Reading:
    """The calls after the calls-begin token (or a lone call-begin token)."""
    if marker in (CALLS_END, CALL_END):
        raise cur.error(f"a {marker} with no call begun before it")
    if marker == CALL_BEGIN:
        yield from read_call(cur)
    while True:
        yield from cur.skip_space()
        tag = yield from cur.startswith(CALL_BEGIN, CALLS_END)
        if tag == CALLS_END:
            cur.take(len(tag))
            return
        if tag == CALL_BEGIN:
            cur.take(len(tag))
            yield from read_call(cur)
            continue
        if not (yield from cur.peek(1)) or (yield from cur.startswith(*cur.ends)):
            return  # the turn ended with the calls still open
        raise cur.error(f"expected {CALL_BEGIN} or {CALLS_END} among the calls", cur.offset)


def read_call(cur: Cursor) -> Reading:
    """One call, its call-begin token taken: V3's form or V3.1's."""
    at = cur.offset - len(CALL_BEGIN)
    first, sep = yield from cur.until(SEP, CALL_END)
    if sep != SEP:
        raise cur.error("the tool call is cut off" if not sep else f"a call with no {SEP}", at)
    if (yield from cur.peek(1)) == "{":
        # V3.1: the name, then the arguments.
        name = check_name(cur, first.strip(), at)
        cur.announce(name, at=at)
        raw = yield from cur.json(at=at, stream=True)
        if raw is None:
            raise cur.error("the tool call is cut off: its JSON never closes", at)
        cur.add_call(name, arguments(cur, raw, at), at=at)
    else:
        # V3 and R1: the type, then the name, then the fenced arguments.
        if first.strip() != "function":
            raise cur.error(f"a call of type {first.strip()!r:.40}, not 'function'", at)
        line, newline = yield from cur.until("\n")
        if not newline:
            raise cur.error("the tool call is cut off after its name", at)
        name = check_name(cur, line.strip(), at)
        cur.announce(name, at=at)
        opening = yield from cur.peek_to("\n", 16)
        if opening.strip() not in (FENCE, FENCE + "json") or not opening.endswith("\n"):
            if len(opening) < 16 and not opening.endswith("\n"):
                raise cur.error("the tool call is cut off before its arguments", at)
            raise cur.error("a call's arguments are not in a ```json block", cur.offset)
        cur.take(len(opening))
        yield from cur.skip_space()
        if (yield from cur.peek(1)) != "{":
            if not (yield from cur.peek(1)):
                raise cur.error("the tool call is cut off before its arguments", at)
            raise cur.error("a call's arguments are not a JSON object", cur.offset)
        raw = yield from cur.json(at=at, stream=True)
        if raw is None:
            raise cur.error("the tool call is cut off: its JSON never closes", at)
        cur.add_call(name, arguments(cur, raw, at), at=at)
        yield from cur.skip_space()
        if not (yield from cur.startswith(FENCE)):
            if not (yield from cur.peek(1)):
                return
            raise cur.error("a call's arguments are not closed by ```", cur.offset)
        cur.take(len(FENCE))
    yield from cur.skip_space()
    if (yield from cur.startswith(CALL_END)):
        cur.take(len(CALL_END))
    elif (yield from cur.peek(1)) and not (yield from cur.startswith(*cur.ends)):
        raise cur.error(f"a call is followed by something other than {CALL_END}", cur.offset)


def check_name(cur: Cursor, name: str, at: int) -> str:
    if not name or any(c in _BAD_IN_NAMES for c in name):
        raise cur.error(f"a tool call whose name is not one: {name!r:.60}", at)
    return name


def arguments(cur: Cursor, raw: str, at: int) -> dict[str, object]:
    try:
        return parse_arguments(raw)
    except ValueError as err:
        raise cur.error(f"the call's arguments cannot be read: {err}", at) from None


STYLE = Style(
    "deepseek",
    calls=dict.fromkeys((CALLS_BEGIN, CALL_BEGIN, CALLS_END, CALL_END), read_calls),
    ends=("<\uff5cend\u2581of\u2581sentence\uff5c>",),
    marks=(CALLS_BEGIN, CALL_BEGIN),
    opens=(CALLS_BEGIN, CALL_BEGIN),
)
