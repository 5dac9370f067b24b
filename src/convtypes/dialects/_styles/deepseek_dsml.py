"""``"deepseek_dsml"``: DeepSeek V3.2 and V4, whose calls are DSML markup.

Shown with a plain bar, the DSML tags' is the full-width bar (U+FF5C)::

    Let me check.

    <|DSML|function_calls>
    <|DSML|invoke name="get_weather">
    <|DSML|parameter name="city" string="true">Oslo</|DSML|parameter>
    <|DSML|parameter name="days" string="false">3</|DSML|parameter>
    </|DSML|invoke>
    </|DSML|function_calls><|end▁of▁sentence|>

V4 writes ``tool_calls`` where V3.2 writes ``function_calls``; both are
read. A parameter with ``string="true"`` is text as written; with
``string="false"`` it is JSON (a number, a bool, an object...), and JSON
that does not read is typed by the tool's schema when the tools are given
(``tools=``), or kept as text. With no ``string`` attribute, a value is
typed by the schema, or read as JSON when it is JSON. A value whose
closer was written wrong or left out ends where the next parameter or the
invoke's end begins.

The older DeepSeek families (V3, R1, V3.1) write other tokens: that is
the ``"deepseek"`` style. Reasoning is a ``<think>`` block, which the
generation prompt opens when thinking is on: pass ``in_thinking`` (see
``opens_thinking``). A turn ends on ``<|end▁of▁sentence|>``.
"""

from __future__ import annotations

from typing import Any, Final

from .. import _schema_values as values
from .._output_cursor import Cursor, Reading
from .._output_style import Style
from ._invoke import Tags, read_invoke

DSML: Final = "\uff5cDSML\uff5c"
BLOCKS: Final = {
    f"<{DSML}function_calls>": f"</{DSML}function_calls>",  # V3.2
    f"<{DSML}tool_calls>": f"</{DSML}tool_calls>",  # V4
}
TAGS: Final = Tags(
    invoke=f"<{DSML}invoke",
    parameter=f"<{DSML}parameter",
    end_parameter=f"</{DSML}parameter>",
    end_invoke=f"</{DSML}invoke>",
)
_OPENERS: Final = {closer: opener for opener, closer in BLOCKS.items()}


def read_block(cur: Cursor, marker: str) -> Reading:
    """What follows the block's opening tag: invokes, then its closing tag."""
    if marker in _OPENERS:
        raise cur.error(f"a {marker} with no {_OPENERS[marker]} before it")
    closer = BLOCKS[marker]
    while True:
        yield from cur.skip_space()
        tag = yield from cur.startswith(TAGS.invoke, closer)
        if tag == closer:
            cur.take(len(tag))
            return
        if tag:
            cur.take(len(tag))
            yield from read_invoke(cur, TAGS, convert)
            continue
        if not (yield from cur.peek(1)) or (yield from cur.startswith(*cur.ends)):
            return  # the turn ended with the block still open
        raise cur.error(
            f'expected {TAGS.invoke} name="...">  or {closer} among the calls', cur.offset
        )


def convert(text: str, attributes: dict[str, str], schema: dict[str, Any] | None) -> Any:
    """A value by its ``string`` attribute, then by the schema."""
    kind = attributes.get("string", "").strip().lower()
    if kind == "true":
        return text
    if kind == "false":
        ok, value = values.json_value(text.strip())
        if ok:
            return value
    if schema is not None:
        return values.typed(text, schema)
    return text if kind == "false" else values.untyped(text, as_json=True)


STYLE = Style(
    "deepseek_dsml",
    calls=dict.fromkeys((*BLOCKS, *BLOCKS.values()), read_block),
    ends=("<\uff5cend\u2581of\u2581sentence\uff5c>",),
    marks=(DSML,),
    opens=tuple(BLOCKS),
)
