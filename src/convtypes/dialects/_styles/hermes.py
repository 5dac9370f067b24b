"""``"hermes"``: Hermes 2 Pro and 3, Qwen2.5, Qwen3, QwQ, Granite 4.

Each call is a JSON object in its own block, after the text::

    Let me check.
    <tool_call>
    {"name": "get_weather", "arguments": {"city": "Oslo"}}
    </tool_call><|im_end|>

Reasoning, for the models that reason, is a ``<think>`` block at the start.
The JSON's end, not the first ``</tool_call>``, ends the call, so the tag
may appear inside an argument. The closing tag may be missing after the
last call (a stop sequence of ``</tool_call>``, or an end-of-turn token
right after the JSON).

This module is the example of a style: a reader for each marker, written
with the cursor's waiting methods, and the data around them.
"""

from __future__ import annotations

from .. import _call_json as call_json
from .._output_cursor import Cursor, Reading
from .._output_style import Style

OPEN = "<tool_call>"
CLOSE = "</tool_call>"


def read_call(cur: Cursor, marker: str) -> Reading:
    """What follows ``<tool_call>``: one JSON object, then ``</tool_call>``."""
    if marker == CLOSE:
        raise cur.error(f"a {CLOSE} with no {OPEN} before it")
    yield from cur.skip_space()
    head = yield from cur.peek(1)
    if not head:
        raise cur.error(f"a {OPEN} with nothing after it")
    if head != "{":
        raise cur.error(f"a {OPEN} that does not hold a JSON object")
    raw = yield from cur.json()
    if raw is None:
        raise cur.error("the tool call is cut off: its JSON never closes")
    cur.add_call(*call_json.read_call(cur.loads(raw), cur.start))
    yield from cur.skip_space()
    if (yield from cur.startswith(CLOSE)):
        cur.take(len(CLOSE))
    elif (yield from cur.peek(1)) and not (yield from cur.startswith(*cur.ends)):
        # Neither the end of the text, nor the turn ended with the call open.
        raise cur.error(
            f"a tool call's JSON is followed by something other than {CLOSE}", cur.offset
        )


STYLE = Style(
    "hermes",
    calls={OPEN: read_call, CLOSE: read_call},
    ends=("<|im_end|>", "<|endoftext|>"),
    marks=(OPEN,),
)
