"""``"qwen3_coder"``: Qwen3-Coder, Qwen3.5 and Seed-OSS, whose calls are markup.

A call names its function and writes each argument as a block of text::

    <tool_call>
    <function=get_weather>
    <parameter=city>
    Oslo
    </parameter>
    <parameter=days>
    3
    </parameter>
    </function>
    </tool_call>

Seed-OSS writes the same inside ``<seed:tool_call>...</seed:tool_call>``,
often without the newlines, and thinks in ``<seed:think>...</seed:think>``;
the others think in ``<think>``. A ``<function=...>`` block written with no
``<tool_call>`` around it is read too, as vLLM's parser reads it.

A value is the text between its tags, less one newline on each side. Its
type comes from the tool's schema when the tools offered are given
(``tools=``): a string stays text, ``3`` becomes a number where the schema
says integer, ``True`` a bool where it says boolean, JSON an object where
it says object. Without a schema for it, a value is the text as written,
since the template writes ``3`` and ``"3"`` alike.

A value ends where the next ``<parameter=`` or the ``</function>``
begins, as SGLang's and vLLM's parsers read it, whatever closer the model
wrote: ``</parameter>``, one written wrong (``</parameter1>``, a bare
``</parameter``), or none. So a value never swallows the next parameter.
A ``</parameter>`` inside a value is the value's text (code a model writes
may hold the tag) when the value ends with a closer; when it does not,
nothing says which was meant, and that is an error (text, with
``on_error="text"``).
"""

from __future__ import annotations

from typing import Any, Final

from .. import _schema_values as values
from .._output_cursor import Cursor, Reading, Wait
from .._output_style import Style
from ._parameter_value import read_value

OPENS: Final = {"<tool_call>": "</tool_call>", "<seed:tool_call>": "</seed:tool_call>"}
FUNCTION: Final = "<function="
PARAMETER: Final = "<parameter="
END_PARAMETER: Final = "</parameter>"
END_FUNCTION: Final = "</function>"
_NAME_LIMIT: Final = 256
_BAD_IN_NAMES: Final = frozenset("{}<>\"' \t\r\n")


def read_block(cur: Cursor, marker: str) -> Reading:
    """What follows ``<tool_call>`` (or Seed's): one ``<function=...>`` block, then the closer."""
    if marker in OPENS.values():
        opener = next(opener for opener, closer in OPENS.items() if closer == marker)
        raise cur.error(f"a {marker} with no {opener} before it")
    yield from cur.skip_space()
    if not (yield from cur.startswith(FUNCTION)):
        if not (yield from cur.peek(1)):
            raise cur.error(f"a {marker} with nothing after it")
        raise cur.error(f"a {marker} that does not hold a {FUNCTION}...> block", cur.offset)
    cur.take(len(FUNCTION))
    yield from read_function(cur)
    yield from cur.skip_space()
    closer = OPENS[marker]
    if (yield from cur.startswith(closer)):
        cur.take(len(closer))
    elif (yield from cur.peek(1)) and not (yield from cur.startswith(*cur.ends)):
        raise cur.error(
            f"a call's {END_FUNCTION} is followed by something other than {closer}", cur.offset
        )


def read_bare(cur: Cursor, marker: str) -> Reading:
    """A ``<function=...>`` block with no ``<tool_call>`` around it."""
    yield from read_function(cur)


def read_name(cur: Cursor, what: str) -> Wait[str]:
    """A name up to its ``>`` (taken)."""
    head = yield from cur.peek_to(">\n", _NAME_LIMIT)
    if not head.endswith(">"):
        if len(head) < _NAME_LIMIT and not head.endswith("\n"):
            raise cur.error("the tool call is cut off in a name")
        raise cur.error(f"a {what} name with no '>' after it", cur.offset)
    name = head[:-1]
    if not name or any(c in _BAD_IN_NAMES for c in name):
        raise cur.error(f"a {what} name that is not one: {name!r:.60}", cur.offset)
    cur.take(len(head))
    return name


def read_function(cur: Cursor) -> Reading:
    """``name>``, its parameters, and ``</function>``."""
    name = yield from read_name(cur, "function")
    cur.announce(name)
    schema = cur.parameters(name)
    arguments: dict[str, Any] = {}
    yield from cur.skip_space()
    tag = yield from cur.startswith(PARAMETER, END_FUNCTION)
    if tag:
        cur.take(len(tag))
    while True:
        if tag == END_FUNCTION:
            cur.add_call(name, arguments)
            return
        if not tag:
            if not (yield from cur.peek(1)):
                raise cur.error("the tool call is cut off before its </function>")
            raise cur.error(f"expected {PARAMETER} or {END_FUNCTION} in a call", cur.offset)
        at = cur.offset - len(PARAMETER)
        key = yield from read_name(cur, "parameter")
        text, tag = yield from read_value(cur, PARAMETER, END_FUNCTION)
        if key in arguments:
            raise cur.error(f"the parameter {key!r:.60} of {name!r:.60} is given twice", at)
        own = values.schema_of(schema, key)
        arguments[key] = text if own is None else values.typed(text, own)


STYLE = Style(
    "qwen3_coder",
    calls={
        **dict.fromkeys(OPENS, read_block),
        **dict.fromkeys(OPENS.values(), read_block),
        FUNCTION: read_bare,
    },
    thinking={"<think>": "</think>", "<seed:think>": "</seed:think>"},
    ends=("<|im_end|>", "<|endoftext|>", "<seed:eos>"),
    marks=(FUNCTION, "<seed:tool_call>"),
    outranks=("hermes",),
    opens=(*OPENS, FUNCTION),
)
