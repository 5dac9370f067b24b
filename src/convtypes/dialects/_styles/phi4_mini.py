"""``"phi4_mini"``: Phi-4-mini, whose calls are a JSON list after the word ``functools``.

::

    functools[{"name": "get_weather", "arguments": {"city": "Oslo"}},
              {"name": "get_time", "arguments": {}}]<|end|>

There is no closing marker: the list's ``]`` ends the calls, and a list
cut off after a whole call keeps the calls before the cut. Each call is
added as soon as its object closes. ``functools`` followed by anything
but a call object (``functools[0]`` in prose about Python) is the
answer's text. This is the form vLLM's phi4_mini parser reads, and its
tool template asks for. llama.cpp's template for the model asks instead
for the model's own tokens, ``<|tool_call|>{...}<|/tool_call|>`` (a call
object, or a list of them), which this style reads too.

The reasoning models of the family think in ``<think>``; a turn ends on
``<|end|>``.
"""

from __future__ import annotations

from typing import Final

from .. import _call_json as call_json
from .._output_cursor import Cursor, Reading
from .._output_style import Style

MARKER: Final = "functools["
TOKEN: Final = "<|tool_call|>"
END_TOKEN: Final = "<|/tool_call|>"


def read_calls(cur: Cursor, marker: str) -> Reading:
    """What follows ``functools[``: call objects joined by commas, then ``]``."""
    yield from cur.skip_space()
    head = yield from cur.peek(1)
    if head == "]":
        cur.take(1)
        return  # no calls
    if head != "{":
        if not head:
            raise cur.error(f"{MARKER} with no tool call after it")
        raise cur.not_a_call()
    while True:
        start = cur.offset
        raw = yield from cur.json(at=start)
        if raw is None:
            raise cur.error("the tool call is cut off: its JSON never closes", start)
        cur.add_call(*call_json.read_call(cur.loads(raw, at=start), start), at=start)
        yield from cur.skip_space()
        after = yield from cur.peek(1)
        if after == "]":
            cur.take(1)
            return
        if after != ",":
            if not after or (yield from cur.startswith(*cur.ends)):
                return  # the list cut off after a whole call
            raise cur.error("expected ',' or ']' after a call in the list", cur.offset)
        cur.take(1)
        yield from cur.skip_space()
        head = yield from cur.peek(1)
        if head != "{":
            if not head:
                raise cur.error("the tool call is cut off after ','", cur.offset)
            raise cur.error("expected a JSON tool call after ','", cur.offset)


def read_tagged(cur: Cursor, marker: str) -> Reading:
    """What follows ``<|tool_call|>``: a call object or a list of them, then ``<|/tool_call|>``."""
    if marker == END_TOKEN:
        raise cur.error(f"a {END_TOKEN} with no {TOKEN} before it")
    yield from cur.skip_space()
    head = yield from cur.peek(1)
    if not head:
        raise cur.error(f"a {TOKEN} with nothing after it")
    if head not in "[{":
        raise cur.error(f"a {TOKEN} that does not hold a JSON tool call", cur.offset)
    raw = yield from cur.json()
    if raw is None:
        raise cur.error("the tool call is cut off: its JSON never closes")
    value = cur.loads(raw, levels=3)
    for item in value if isinstance(value, list) else [value]:
        cur.add_call(*call_json.read_call(item, cur.start))
    yield from cur.skip_space()
    if (yield from cur.startswith(END_TOKEN)):
        cur.take(len(END_TOKEN))
    elif (yield from cur.peek(1)) and not (yield from cur.startswith(*cur.ends)):
        raise cur.error(f"a tool call is followed by something other than {END_TOKEN}", cur.offset)


STYLE = Style(
    "phi4_mini",
    calls={MARKER: read_calls, TOKEN: read_tagged, END_TOKEN: read_tagged},
    ends=("<|end|>", "<|endoftext|>"),
    marks=(MARKER, "<|/tool|>"),
    outranks=("granite",),
    opens=(TOKEN,),  # "functools[" is text too: only the token tells
)
