"""``"phi4_mini"``: Phi-4-mini, whose calls are a JSON list after the word ``functools``.

::

    functools[{"name": "get_weather", "arguments": {"city": "Oslo"}},
              {"name": "get_time", "arguments": {}}]<|end|>

There is no closing marker: the list's ``]`` ends the calls, and a list
cut off after a whole call keeps the calls before the cut. Each call is
added as soon as its object closes. ``functools`` followed by anything
but a call object (``functools[0]`` in prose about Python) is the
answer's text. The reasoning models of the family think in ``<think>``;
a turn ends on ``<|end|>``.
"""

from __future__ import annotations

from typing import Final

from .. import _call_json as call_json
from .._output_cursor import Cursor, Reading
from .._output_style import Style

MARKER: Final = "functools["


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


STYLE = Style(
    "phi4_mini",
    calls={MARKER: read_calls},
    ends=("<|end|>", "<|endoftext|>"),
    marks=(MARKER, "<|/tool|>"),
)
