"""``"minimax"``: MiniMax-M1 (a JSON call per line) and M2 (calls as markup).

M1 writes one JSON object per call, a line each, in ``<tool_calls>``::

    <tool_calls>
    {"name": "get_weather", "arguments": {"city": "Oslo"}}
    {"name": "get_time", "arguments": {"zone": "CET"}}
    </tool_calls>

M2 names the function and each parameter in attributes::

    <minimax:tool_call>
    <invoke name="get_weather">
    <parameter name="city">Oslo</parameter>
    <parameter name="days">3</parameter>
    </invoke>
    </minimax:tool_call>

M2's template writes a string value as itself and anything else as JSON;
as vLLM's minimax_m2 parser reads them, values are typed by the tool's
schema when the tools offered are given (``tools=``), and are text
otherwise. A value is the text between its tags, less one newline on
each side. It ends where the next ``<parameter`` or the ``</invoke>``
begins, whatever closer was written (as ``"qwen3_coder"`` reads its
values), so a closer written wrong or left out never makes it run on into
the next parameter. A quoted name loses its quotes.

Both reason in a ``<think>`` block, which M2's generation prompt opens:
pass ``in_thinking`` (see ``opens_thinking``). A turn ends on ``[e~[``
(M2) or ``<end_of_sentence>`` (M1).
"""

from __future__ import annotations

from typing import Any, Final

from .. import _call_json as call_json
from .. import _schema_values as values
from .._output_cursor import Cursor, Reading, Wait
from .._output_style import Style
from ._parameter_value import read_value

M1_OPEN: Final = "<tool_calls>"
M1_CLOSE: Final = "</tool_calls>"
M2_OPEN: Final = "<minimax:tool_call>"
M2_CLOSE: Final = "</minimax:tool_call>"
INVOKE: Final = "<invoke name="
END_INVOKE: Final = "</invoke>"
PARAMETER: Final = "<parameter name="
END_PARAMETER: Final = "</parameter>"
_CLOSERS: Final = {M1_CLOSE: M1_OPEN, M2_CLOSE: M2_OPEN}
_NAME_LIMIT: Final = 256
_BAD_IN_NAMES: Final = frozenset("{}<>\"' \t\r\n")


def read_m1(cur: Cursor, marker: str) -> Reading:
    """What follows ``<tool_calls>``: JSON call objects, then ``</tool_calls>``."""
    if marker in _CLOSERS:
        raise cur.error(f"a {marker} with no {_CLOSERS[marker]} before it")
    while True:
        yield from cur.skip_space()
        if (yield from cur.startswith(M1_CLOSE)):
            cur.take(len(M1_CLOSE))
            return
        head = yield from cur.peek(1)
        if head != "{":
            if not head or (yield from cur.startswith(*cur.ends)):
                return  # the turn ended with the block still open
            raise cur.error(f"expected a JSON tool call or {M1_CLOSE}", cur.offset)
        start = cur.offset
        raw = yield from cur.json(at=start)
        if raw is None:
            raise cur.error("the tool call is cut off: its JSON never closes", start)
        cur.add_call(*call_json.read_call(cur.loads(raw, at=start), start), at=start)


def read_m2(cur: Cursor, marker: str) -> Reading:
    """What follows ``<minimax:tool_call>``: ``<invoke>`` blocks, then the closer."""
    while True:
        yield from cur.skip_space()
        tag = yield from cur.startswith(INVOKE, M2_CLOSE)
        if tag == M2_CLOSE:
            cur.take(len(tag))
            return
        if tag == INVOKE:
            cur.take(len(tag))
            yield from read_invoke(cur)
            continue
        if not (yield from cur.peek(1)) or (yield from cur.startswith(*cur.ends)):
            return  # the turn ended with the block still open
        raise cur.error(f"expected {INVOKE}...> or {M2_CLOSE} among the calls", cur.offset)


def read_invoke(cur: Cursor) -> Reading:
    """One ``<invoke>``, its opening taken: the name, the parameters, ``</invoke>``."""
    at = cur.offset - len(INVOKE)
    name = yield from read_name(cur, "function", at)
    cur.announce(name, at=at)
    schema = cur.parameters(name)
    arguments: dict[str, Any] = {}
    yield from cur.skip_space()
    tag = yield from cur.startswith(PARAMETER, END_INVOKE)
    if tag:
        cur.take(len(tag))
    while True:
        if tag == END_INVOKE:
            cur.add_call(name, arguments, at=at)
            return
        if not tag:
            if not (yield from cur.peek(1)):
                raise cur.error(f"the tool call is cut off before its {END_INVOKE}", at)
            raise cur.error(f"expected {PARAMETER}...> or {END_INVOKE} in a call", cur.offset)
        key_at = cur.offset - len(PARAMETER)
        key = yield from read_name(cur, "parameter", at)
        text, tag = yield from read_value(cur, PARAMETER, END_INVOKE, at=at)
        if key in arguments:
            raise cur.error(f"the parameter {key!r:.60} of {name!r:.60} is given twice", key_at)
        own = values.schema_of(schema, key)
        arguments[key] = text if own is None else values.typed(text, own)


def read_name(cur: Cursor, what: str, at: int) -> Wait[str]:
    """A name, quoted or not, up to its ``>`` (taken); ``at`` is where the call began."""
    head = yield from cur.peek_to(">\n", _NAME_LIMIT)
    if not head.endswith(">"):
        if len(head) < _NAME_LIMIT and not head.endswith("\n"):
            raise cur.error(f"the tool call is cut off in a {what} name", at)
        raise cur.error(f"a {what} name with no '>' after it", cur.offset)
    name = head[:-1].strip()
    if len(name) >= 2 and name[0] == name[-1] and name[0] in "\"'":
        name = name[1:-1]
    if not name or any(c in _BAD_IN_NAMES for c in name):
        raise cur.error(f"a {what} name that is not one: {name!r:.60}", cur.offset)
    cur.take(len(head))
    return name


STYLE = Style(
    "minimax",
    calls={M1_OPEN: read_m1, M1_CLOSE: read_m1, M2_OPEN: read_m2, M2_CLOSE: read_m1},
    ends=("[e~[", "<end_of_sentence>"),
    marks=(M2_OPEN, "respond with <tool_calls></tool_calls>"),
)
