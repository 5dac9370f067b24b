"""``"llama3"``: Llama 3.1, 3.2 and 3.3 with JSON tool calls.

A call is a JSON object, ``{"name": ..., "parameters": {...}}`` (or
``"arguments"``), written as the whole answer, or after ``<|python_tag|>``;
several are joined by ``;``::

    <|python_tag|>{"name": "search", "parameters": {"q": "Oslo"}}<|eom_id|>

An answer that opens with a brace is a call only if it is shaped as one;
JSON that is not (a JSON-mode answer) is the answer's text. When the tools
offered are known, a "call" to a tool that was not offered is text too, as
is an answer cut off before its JSON closes unless it names an offered tool.
"""

from __future__ import annotations

import re
from typing import Final

from .. import _call_json as call_json
from .._output_cursor import Cursor, Reading
from .._output_style import Style

TAG: Final = "<|python_tag|>"

# An answer that opens like a call object is held to be one: if it is cut
# off or malformed, that is an error rather than text.
_CALL_LIKE: Final = re.compile(r'\{\s*"(?:name|type)"\s*:')
_NAME: Final = re.compile(r'\{\s*(?:"type"\s*:\s*"function"\s*,\s*)?"name"\s*:\s*"([^"\\]*)')


def read_bare(cur: Cursor, marker: str) -> Reading:
    """An answer that may be its calls, bare, with no tag before them."""
    if (yield from cur.peek(1)) != "{":
        return
    start = cur.offset
    raw = yield from cur.json(at=start)
    if raw is None:
        if not _held_to_be_a_call(cur, cur.start):
            raise cur.not_a_call()
        raise cur.error("the tool call is cut off: its JSON never closes")
    if _CALL_LIKE.match(raw) is None:
        value = call_json.decode_quietly(raw)
    else:
        value = cur.loads(raw, at=start)  # opens as a call: it must be JSON
    if not call_json.is_bare_call(value) or not cur.offered(value["name"]):
        raise cur.not_a_call()  # JSON (or braces) that is not a call: the answer's text
    cur.add_call(*call_json.read_call(value, start), at=start)
    yield from read_more(cur)


def _held_to_be_a_call(cur: Cursor, start: int) -> bool:
    """Whether an answer cut off inside its JSON was a call (an error) rather than text."""
    raw = cur.since(start)
    if _CALL_LIKE.match(raw) is None:
        return False
    named = _NAME.match(raw)
    if named is None or cur.tools is None:
        return True
    return any(tool.startswith(named.group(1)) for tool in cur.tools)


def read_tagged(cur: Cursor, marker: str) -> Reading:
    """What follows ``<|python_tag|>``: calls joined by ``;``."""
    yield from cur.skip_space()
    head = yield from cur.peek(1)
    if not head:
        raise cur.error(f"{TAG} with no tool call after it")
    yield from read_object(cur, f"after {TAG}")
    yield from read_more(cur)


def read_object(cur: Cursor, where: str) -> Reading:
    if (yield from cur.peek(1)) != "{":
        raise cur.error(f"expected a JSON tool call {where}", cur.offset)
    start = cur.offset
    raw = yield from cur.json(at=start)
    if raw is None:
        raise cur.error("the tool call is cut off: its JSON never closes", start)
    cur.add_call(*call_json.read_call(cur.loads(raw, at=start), start), at=start)


def read_more(cur: Cursor) -> Reading:
    """After a call: ``;`` and another, or the end of the calls."""
    while True:
        yield from cur.skip_space()
        if (yield from cur.peek(1)) != ";":
            return
        cur.take(1)
        yield from cur.skip_space()
        if not (yield from cur.peek(1)):
            return  # a ';' after the last call
        yield from read_object(cur, "after ';'")


STYLE = Style(
    "llama3",
    calls={TAG: read_tagged},
    opening=read_bare,
    ends=("<|eot_id|>", "<|eom_id|>", "<|end_of_text|>"),
    marks=(TAG, '"parameters": dictionary of argument name'),
)
