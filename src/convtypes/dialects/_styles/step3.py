"""``"step3"``: StepFun's Step-3, whose calls are steptml markup between tokens of its own.

Shown with plain bars, the tokens' is the full-width bar (U+FF5C)::

    Let me check.<|tool_calls_begin|>
    <|tool_call_begin|>function<|tool_sep|><steptml:invoke name="get_weather">
    <steptml:parameter name="city">Oslo</steptml:parameter>
    <steptml:parameter name="days">3</steptml:parameter>
    </steptml:invoke><|tool_call_end|>
    <|tool_calls_end|>

Each value is text; with the tools offered (``tools=``) it is typed by its
parameter's schema, as for ``"qwen3_coder"``, and without a schema it is
the text as written. A value whose closer was written wrong or left out
ends where the next parameter or the invoke's end begins.

Step-3 reasons first and ends its reasoning with ``</think>``; the prompt
opens the block, so pass ``in_thinking=True`` (a ``<think>`` written at
the start is read too). A turn ends on ``<|EOT|>``.
"""

from __future__ import annotations

from typing import Any, Final

from .. import _schema_values as values
from .._output_cursor import Cursor, Reading
from .._output_style import Style
from ._invoke import Tags, read_invoke

CALLS_BEGIN: Final = "<\uff5ctool_calls_begin\uff5c>"
CALLS_END: Final = "<\uff5ctool_calls_end\uff5c>"
CALL_BEGIN: Final = "<\uff5ctool_call_begin\uff5c>"
CALL_END: Final = "<\uff5ctool_call_end\uff5c>"
SEP: Final = "<\uff5ctool_sep\uff5c>"
TAGS: Final = Tags(
    invoke="<steptml:invoke",
    parameter="<steptml:parameter",
    end_parameter="</steptml:parameter>",
    end_invoke="</steptml:invoke>",
)


def read_calls(cur: Cursor, marker: str) -> Reading:
    """The calls after the calls-begin token (or a lone call-begin token)."""
    if marker in (CALLS_END, CALL_END):
        raise cur.error(f"a {marker} with no call begun before it")
    if marker == CALL_BEGIN:
        yield from read_call(cur)
    while True:
        yield from cur.skip_space()
        tag = yield from cur.startswith(CALL_BEGIN, CALLS_END)
        if tag == CALLS_END:
            cur.take(len(tag))
            return
        if tag == CALL_BEGIN:
            cur.take(len(tag))
            yield from read_call(cur)
            continue
        if not (yield from cur.peek(1)) or (yield from cur.startswith(*cur.ends)):
            return  # the turn ended with the calls still open
        raise cur.error(f"expected {CALL_BEGIN} or {CALLS_END} among the calls", cur.offset)


def read_call(cur: Cursor) -> Reading:
    """One call, its begin token taken: ``function``, the separator, the invoke, the end token."""
    at = cur.offset - len(CALL_BEGIN)
    kind, sep = yield from cur.until(SEP, CALL_END, CALLS_END)
    if sep != SEP:
        raise cur.error("the tool call is cut off" if not sep else f"a call with no {SEP}", at)
    if kind.strip() != "function":
        raise cur.error(f"a call of type {kind.strip()!r:.40}, not 'function'", at)
    yield from cur.skip_space()
    if not (yield from cur.startswith(TAGS.invoke)):
        if not (yield from cur.peek(1)):
            raise cur.error("the tool call is cut off after its separator", at)
        raise cur.error(f"a call that does not hold a {TAGS.invoke} ...> element", cur.offset)
    cur.take(len(TAGS.invoke))
    yield from read_invoke(cur, TAGS, convert, at)
    yield from cur.skip_space()
    if (yield from cur.startswith(CALL_END)):
        cur.take(len(CALL_END))
    elif (yield from cur.peek(1)) and not (yield from cur.startswith(*cur.ends)):
        raise cur.error(f"a call is followed by something other than {CALL_END}", cur.offset)


def convert(text: str, attributes: dict[str, str], schema: dict[str, Any] | None) -> Any:
    """A value typed by its schema, or the text as written."""
    return text if schema is None else values.typed(text, schema)


STYLE = Style(
    "step3",
    calls=dict.fromkeys((CALLS_BEGIN, CALL_BEGIN, CALLS_END, CALL_END), read_calls),
    ends=("<|EOT|>",),
    marks=("steptml:invoke", CALLS_BEGIN),
    opens=(CALLS_BEGIN, CALL_BEGIN),
)
