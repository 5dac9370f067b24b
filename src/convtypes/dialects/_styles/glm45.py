"""``"glm45"``: GLM-4.5, 4.6 and 4.7, whose calls name the function and pair keys with values.

::

    <tool_call>get_weather
    <arg_key>city</arg_key>
    <arg_value>Oslo</arg_value>
    <arg_key>days</arg_key>
    <arg_value>3</arg_value>
    </tool_call>

(GLM-4.7 writes it on one line.) Reasoning is a ``<think>`` block; a turn
ends on ``<|user|>`` or ``<|observation|>``, the next speaker's token.

GLM's template writes a string value as itself and anything else as JSON,
so a value is typed as vLLM's parser types it: by the tool's schema when
the tools offered are given (a string stays text, as written), otherwise
read as JSON (or a Python literal) when it is one, and text when not.
"""

from __future__ import annotations

from typing import Any, Final

from .. import _schema_values as values
from .._output_cursor import Cursor, Reading
from .._output_style import Style

OPEN: Final = "<tool_call>"
CLOSE: Final = "</tool_call>"
KEY: Final = "<arg_key>"
END_KEY: Final = "</arg_key>"
VALUE: Final = "<arg_value>"
END_VALUE: Final = "</arg_value>"
_BAD_IN_NAMES: Final = frozenset("{}<>\"'\t\r\n")


def read_call(cur: Cursor, marker: str) -> Reading:
    """What follows ``<tool_call>``: the name, then key and value pairs, then ``</tool_call>``."""
    if marker == CLOSE:
        raise cur.error(f"a {CLOSE} with no {OPEN} before it")
    name, tag = yield from cur.until("\n", KEY, CLOSE)
    name = name.strip()
    if not tag:
        raise cur.error("the tool call is cut off" if name else f"a {OPEN} with nothing after it")
    if not name or any(c in _BAD_IN_NAMES for c in name):
        raise cur.error(f"a tool call whose name is not one: {name!r:.60}")
    cur.announce(name)
    schema = cur.parameters(name)
    arguments: dict[str, Any] = {}
    while tag != CLOSE:
        if tag != KEY:
            yield from cur.skip_space()
            tag = yield from cur.startswith(KEY, CLOSE)
            if not tag:
                if not (yield from cur.peek(1)):
                    raise cur.error("the tool call is cut off")
                raise cur.error(f"expected {KEY} or {CLOSE} in a call", cur.offset)
            cur.take(len(tag))
            continue
        at = cur.offset - len(KEY)
        key, end = yield from cur.until(END_KEY)
        if not end:
            raise cur.error("the tool call is cut off in a key")
        key = key.strip()
        yield from cur.skip_space()
        if not (yield from cur.startswith(VALUE)):
            if not (yield from cur.peek(1)):
                raise cur.error("the tool call is cut off")
            raise cur.error(f"the key {key!r:.60} is not followed by {VALUE}", cur.offset)
        cur.take(len(VALUE))
        text, end = yield from cur.until(END_VALUE)
        if not end:
            raise cur.error("the tool call is cut off in a value")
        if key in arguments:
            raise cur.error(f"the key {key!r:.60} of {name!r:.60} is given twice", at)
        own = values.schema_of(schema, key)
        arguments[key] = (
            values.untyped(text, as_json=True) if own is None else values.typed(text, own)
        )
        tag = ""
    cur.add_call(name, arguments)


STYLE = Style(
    "glm45",
    calls={OPEN: read_call, CLOSE: read_call},
    ends=("<|user|>", "<|observation|>", "<|endoftext|>"),
    marks=(KEY,),
    outranks=("hermes",),
)
