"""``"granite"``: IBM Granite 3.x, whose calls are a JSON list after ``<|tool_call|>``.

::

    <|tool_call|>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]<|end_of_text|>

The list may hold several calls, and may follow text. As vLLM's granite
parser reads it, ``<tool_call>`` (Granite 3.1) may stand for the token,
and a list of calls may make up the whole answer with no token at all;
an answer in brackets is read as calls only if every item is shaped as a
call (and, when the tools offered are given, names one of them), else it
is the answer's text. Granite 4 writes Hermes' ``<tool_call>`` blocks:
read it with ``"hermes"``.

Reasoning comes in the two forms Granite's templates ask for: Granite 3.3
writes ``<think>...</think>`` and then its answer in
``<response>...</response>`` (the two tags are dropped); Granite 3.2 writes
``Here is my thought process:`` and then ``Here is my response:``, which
vLLM's granite reasoning parser reads (with ``Here's`` for ``Here is``,
as quantized models write it).
"""

from __future__ import annotations

import re
from typing import Final

from .. import _call_json as call_json
from .._output_cursor import Cursor, Reading
from .._output_style import Style, read_answer

TOKEN: Final = "<|tool_call|>"
TAG: Final = "<tool_call>"
END_TAG: Final = "</tool_call>"
RESPONSE: Final = "<response>"
END_RESPONSE: Final = "</response>"
THOUGHTS: Final = ("Here is my thought process:", "Here's my thought process:")
RESPONSES: Final = ("Here is my response:", "Here's my response:")

# A bare answer that opens like a list of calls is held to be one: cut off, it is an error.
_CALL_LIKE: Final = re.compile(r'\[\s*\{\s*"name"\s*:')


def read_calls(cur: Cursor, marker: str) -> Reading:
    """What follows the token: a JSON list of calls (or one call object)."""
    if marker == END_TAG:
        raise cur.error(f"a {END_TAG} with no {TAG} before it")
    yield from cur.skip_space()
    head = yield from cur.peek(1)
    if not head:
        raise cur.error(f"a {marker} with no tool call after it")
    if head not in "[{":
        raise cur.error(f"a {marker} that is not followed by a JSON list of calls", cur.offset)
    raw = yield from cur.json()
    if raw is None:
        raise cur.error("the tool call is cut off: its JSON never closes")
    value = cur.loads(raw, levels=3)
    calls = value if isinstance(value, list) else [value]
    if not calls:
        raise cur.error(f"a {marker} followed by an empty list")
    for item in calls:
        cur.add_call(*call_json.read_call(item, cur.start))
    if marker != TAG:
        return
    yield from cur.skip_space()
    if (yield from cur.startswith(END_TAG)):
        cur.take(len(END_TAG))
    elif (yield from cur.peek(1)) and not (yield from cur.startswith(*cur.ends)):
        raise cur.error(
            f"a list of calls is followed by something other than {END_TAG}", cur.offset
        )


def read_bare(cur: Cursor, marker: str) -> Reading:
    """An answer that may be a list of calls with no token before it."""
    if (yield from cur.peek(1)) != "[":
        return
    raw = yield from cur.json()
    if raw is None:
        if _CALL_LIKE.match(cur.since(cur.start)) is None:
            raise cur.not_a_call()
        raise cur.error("the tool call is cut off: its JSON never closes")
    value = (
        call_json.decode_quietly(raw) if _CALL_LIKE.match(raw) is None else cur.loads(raw, levels=3)
    )
    if (
        not isinstance(value, list)
        or not value
        or not all(call_json.is_bare_call(item) and cur.offered(item["name"]) for item in value)
    ):
        raise cur.not_a_call()  # JSON that is not a list of calls: the answer's text
    for item in value:
        cur.add_call(*call_json.read_call(item, cur.start))


def drop_tag(cur: Cursor, marker: str) -> Reading:
    """``<response>`` and ``</response>``: the answer's wrapping, not its text."""
    cur.new_run()
    yield from ()


def read(style: Style, cur: Cursor) -> Reading:
    """Reasoning in either form, then the answer."""
    yield from cur.skip_space()
    opener = yield from cur.startswith("<think>", *THOUGHTS)
    closers: tuple[str, ...]
    if opener:
        cur.take(len(opener))
        closers = RESPONSES if opener in THOUGHTS else ("</think>",)
    elif cur.in_thinking:
        closers = ("</think>", *RESPONSES)
    else:
        closers = ()
    if closers:
        yield from cur.thinking_until(*closers)
    yield from read_answer(style, cur)


STYLE = Style(
    "granite",
    calls={
        TOKEN: read_calls,
        TAG: read_calls,
        END_TAG: read_calls,
        RESPONSE: drop_tag,
        END_RESPONSE: drop_tag,
    },
    opening=read_bare,
    read=read,
    thinking={"<think>": "</think>", **dict(zip(THOUGHTS, RESPONSES, strict=True))},
    marks=(TOKEN,),
    opens=(TOKEN,),  # its <tool_call> is hermes'
    outranks=("hermes",),
)
