"""``"pythonic"``: Llama 3.2 and 4 (pythonic templates), LFM2, Gemma: calls written as Python.

::

    [get_weather(city="Oslo", days=3), get_time(zone='CET')]

The list is the whole answer, or follows text after a tag: Llama 4 wraps it
in ``<|python_start|>...<|python_end|>``, LFM2 in
``<|tool_call_start|>...<|tool_call_end|>``. Arguments are keyword
arguments whose values are Python literals (strings in any quotes, numbers,
``True``/``False``/``None``, lists, tuples, dicts); see ``_py_literal``.

An answer that opens with ``[`` is a list of calls only if a name and
``(`` follow the bracket (``[f(``); other answers in brackets are text.
"""

from __future__ import annotations

import re
from typing import Final

from .. import _py_literal as py_literal
from .._output_cursor import Cursor, Reading
from .._output_style import Style

CLOSERS: Final = {
    "<|python_start|>": "<|python_end|>",
    "<|tool_call_start|>": "<|tool_call_end|>",
    "<|python_tag|>": "",
}
_LOOKS_LIKE_A_CALL: Final = re.compile(r"\[\s*[A-Za-z_][A-Za-z0-9_.]*\s*\($")
_HEAD_LIMIT: Final = 200


def read_bare(cur: Cursor, marker: str) -> Reading:
    """An answer that opens with the list of calls, with no tag before it."""
    if (yield from cur.peek(1)) != "[":
        return
    head = yield from cur.peek_to("(", _HEAD_LIMIT)
    if _LOOKS_LIKE_A_CALL.match(head) is None:
        return  # brackets, but not a call: the answer's text
    yield from read_list(cur)


def read_tagged(cur: Cursor, marker: str) -> Reading:
    """The list after Llama 4's or LFM2's tag, then the closing tag."""
    closer = CLOSERS.get(marker)
    if closer is None:  # a closing tag with no opening one
        opener = next(opener for opener, close in CLOSERS.items() if close == marker)
        raise cur.error(f"a {marker} with no {opener} before it")
    yield from cur.skip_space()
    head = yield from cur.peek(1)
    if not head:
        raise cur.error(f"{marker} with no tool call after it")
    if head != "[":
        raise cur.error(f"expected a list of calls after {marker}", cur.offset)
    yield from read_list(cur)
    if not closer:
        return
    yield from cur.skip_space()
    if (yield from cur.startswith(closer)):
        cur.take(len(closer))
    elif (yield from cur.peek(1)) and not (yield from cur.startswith(*cur.ends)):
        raise cur.error(f"a list of calls is followed by something other than {closer}", cur.offset)


def read_list(cur: Cursor) -> Reading:
    """``[f(x=1), ...]`` from here: its extent found as it streams, then read whole."""
    raw = yield from cur.span(py_literal.PySpan())
    if raw is None:
        raise cur.error("the tool call is cut off: its list never closes")
    try:
        calls = py_literal.calls(raw)
    except py_literal.PyLiteralError as err:
        raise cur.error(f"the tool call is not Python this reads: {err}") from None
    for name, arguments, _ in calls:
        cur.add_call(name, arguments)


STYLE = Style(
    "pythonic",
    calls={
        **dict.fromkeys(CLOSERS, read_tagged),
        **{closer: read_tagged for closer in CLOSERS.values() if closer},
    },
    opening=read_bare,
    marks=("func_name1(", "<|python_start|>", "<|tool_call_start|>"),
    outranks=("llama3",),
    opens=("<|python_start|>", "<|tool_call_start|>"),  # <|python_tag|> is llama3's
)
