"""``"kimi_k2"``: Kimi-K2 (Instruct and Thinking), whose calls sit between tokens of its own.

::

    Let me check.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0
    <|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|><|tool_calls_section_end|>

(one line in the model's output; white space may come between the tokens).
What stands between a call's begin token and its argument token is the
call's id, ``functions.NAME:INDEX`` (or ``NAME:INDEX``); the call's name
is the id without ``functions.`` and ``:INDEX``, and the id is kept as the
call's, since Kimi's template writes it back into the prompt and the model
counts on it. An id that is only the counter (``0``) names the tool when
exactly one was offered (``tools=``), as vLLM's parser reads it; any other
id is an error. The arguments are a JSON object, which streams as it comes.

K2-Thinking reasons in a ``<think>`` block. Its section token also ends
the reasoning when the model starts its calls without closing the block,
as vLLM's kimi_k2 reasoning parser reads it. A turn ends on ``<|im_end|>``.
"""

from __future__ import annotations

import re
from typing import Final

from .._json import parse_arguments
from .._output_cursor import Cursor, Reading
from .._output_style import Style, read_answer

SECTION_BEGIN: Final = "<|tool_calls_section_begin|>"
SECTION_END: Final = "<|tool_calls_section_end|>"
CALL_BEGIN: Final = "<|tool_call_begin|>"
ARGUMENT_BEGIN: Final = "<|tool_call_argument_begin|>"
CALL_END: Final = "<|tool_call_end|>"
THINK_OPEN: Final = "<think>"
THINK_CLOSE: Final = "</think>"
_STRAYS: Final = (SECTION_END, ARGUMENT_BEGIN, CALL_END)

# functions.NAME:INDEX, NAME:INDEX; a name holds no white space, colon or markup.
_ID: Final = re.compile(r"(?:functions\.)?([^\s:<>{}\[\]\"']+):\d+")
_COUNTER: Final = re.compile(r"\d+")


def read_section(cur: Cursor, marker: str) -> Reading:
    """The calls after the section token (or a lone call token), up to the section's end."""
    if marker in _STRAYS:
        raise cur.error(f"a {marker} with no call begun before it")
    if marker == CALL_BEGIN:
        yield from read_call(cur)
    while True:
        yield from cur.skip_space()
        tag = yield from cur.startswith(CALL_BEGIN, SECTION_END)
        if tag == SECTION_END:
            cur.take(len(tag))
            return
        if tag == CALL_BEGIN:
            cur.take(len(tag))
            yield from read_call(cur)
            continue
        if not (yield from cur.peek(1)) or (yield from cur.startswith(*cur.ends)):
            return  # the turn ended with the section still open
        raise cur.error(f"expected {CALL_BEGIN} or {SECTION_END} among the calls", cur.offset)


def read_call(cur: Cursor) -> Reading:
    """One call, its begin token taken: the id, the argument token, the JSON, the end token."""
    at = cur.offset - len(CALL_BEGIN)
    text, tag = yield from cur.until(ARGUMENT_BEGIN, CALL_END, CALL_BEGIN, SECTION_END)
    if tag != ARGUMENT_BEGIN:
        raise cur.error(
            "the tool call is cut off" if not tag else f"a call with no {ARGUMENT_BEGIN}", at
        )
    call_id = text.strip()
    name = name_of(cur, call_id, at)
    yield from cur.skip_space()
    head = yield from cur.peek(1)
    if head != "{":
        if not head:
            raise cur.error("the tool call is cut off before its arguments", at)
        raise cur.error("a call's arguments are not a JSON object", cur.offset)
    cur.announce(name, call_id, at=at)
    raw = yield from cur.json(at=at, stream=True)
    if raw is None:
        raise cur.error("the tool call is cut off: its JSON never closes", at)
    try:
        arguments = parse_arguments(raw)
    except ValueError as err:
        raise cur.error(f"the call's arguments cannot be read: {err}", at) from None
    cur.add_call(name, arguments, call_id, at=at)
    yield from cur.skip_space()
    if (yield from cur.startswith(CALL_END)):
        cur.take(len(CALL_END))
    elif (yield from cur.peek(1)) and not (yield from cur.startswith(*cur.ends)):
        raise cur.error(
            f"a call's arguments are followed by something other than {CALL_END}", cur.offset
        )


def name_of(cur: Cursor, call_id: str, at: int) -> str:
    """The tool a call's id names."""
    found = _ID.fullmatch(call_id)
    if found is not None:
        return found.group(1)
    if _COUNTER.fullmatch(call_id) and cur.tools is not None and len(cur.tools) == 1:
        return next(iter(cur.tools))
    raise cur.error(
        f"a call whose id names no tool (expected functions.NAME:INDEX): {call_id!r:.60}", at
    )


def read(style: Style, cur: Cursor) -> Reading:
    """Reasoning, ended by ``</think>`` or by the calls, then the answer."""
    yield from cur.skip_space()
    if (yield from cur.startswith(THINK_OPEN)):
        cur.take(len(THINK_OPEN))
    elif not cur.in_thinking:
        yield from read_answer(style, cur)
        return
    tag = yield from cur.thinking_until(THINK_CLOSE, SECTION_BEGIN)
    if tag == SECTION_BEGIN:
        yield from cur.section(read_section, tag)
    yield from read_answer(style, cur)


STYLE = Style(
    "kimi_k2",
    calls=dict.fromkeys((SECTION_BEGIN, CALL_BEGIN, *_STRAYS), read_section),
    read=read,
    thinking={THINK_OPEN: THINK_CLOSE},
    ends=("<|im_end|>",),
    marks=(SECTION_BEGIN, CALL_BEGIN),
    outranks=("kimi_vl",),  # its template holds Kimi-VL's <|im_middle|> too
    opens=(SECTION_BEGIN, CALL_BEGIN),
)
