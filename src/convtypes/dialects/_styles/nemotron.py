"""``"nemotron"``: NVIDIA Llama-Nemotron and Nemotron Nano 2, calls as JSON in ``<TOOLCALL>``.

::

    I'll check.

    <TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]</TOOLCALL>

The list may hold several calls. As vLLM's nemotron_json parser reads it,
the brackets may be left out (one call object, or several joined by
commas), and the arguments may be a JSON string of the object, as the
template's own instructions show them. Reasoning is a ``<think>`` block,
which the generation prompt opens unless thinking is off (``/no_think``):
pass ``in_thinking`` (see ``opens_thinking``). A turn ends on
``<SPECIAL_12>`` (Nemotron Nano 2) or ``<|eot_id|>`` (Llama-Nemotron).
"""

from __future__ import annotations

from typing import Final

from .. import _call_json as call_json
from .._output_cursor import Cursor, Reading
from .._output_style import Style

OPEN: Final = "<TOOLCALL>"
CLOSE: Final = "</TOOLCALL>"


def read_calls(cur: Cursor, marker: str) -> Reading:
    """What follows ``<TOOLCALL>``: a JSON list of calls (or bare call objects), then the closer."""
    if marker == CLOSE:
        raise cur.error(f"a {CLOSE} with no {OPEN} before it")
    yield from cur.skip_space()
    head = yield from cur.peek(1)
    if not head:
        raise cur.error(f"a {OPEN} with nothing after it")
    if head == "[":
        raw = yield from cur.json()
        if raw is None:
            raise cur.error("the tool call is cut off: its JSON never closes")
        value = cur.loads(raw, levels=3)
        if not isinstance(value, list) or not value:
            raise cur.error(f"{OPEN} is followed by JSON that is not a list of calls")
        for item in value:
            cur.add_call(*call_json.read_call(item, cur.start))
    elif head == "{":
        yield from read_objects(cur)
    else:
        raise cur.error(f"a {OPEN} that does not hold a JSON list of calls", cur.offset)
    yield from cur.skip_space()
    if (yield from cur.startswith(CLOSE)):
        cur.take(len(CLOSE))
    elif (yield from cur.peek(1)) and not (yield from cur.startswith(*cur.ends)):
        raise cur.error(f"the calls are followed by something other than {CLOSE}", cur.offset)


def read_objects(cur: Cursor) -> Reading:
    """Call objects with no list around them, joined by commas."""
    while True:
        start = cur.offset
        raw = yield from cur.json(at=start)
        if raw is None:
            raise cur.error("the tool call is cut off: its JSON never closes", start)
        cur.add_call(*call_json.read_call(cur.loads(raw, at=start), start), at=start)
        yield from cur.skip_space()
        if (yield from cur.peek(1)) != ",":
            return
        cur.take(1)
        yield from cur.skip_space()
        head = yield from cur.peek(1)
        if head != "{":
            if not head:
                return  # a comma after the last call
            raise cur.error("expected a JSON tool call after ','", cur.offset)


STYLE = Style(
    "nemotron",
    calls={OPEN: read_calls, CLOSE: read_calls},
    ends=("<SPECIAL_12>", "<|eot_id|>"),
    marks=(OPEN,),
)
