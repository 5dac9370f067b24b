"""The ``"gemma4"`` style: Gemma 4, calls in a syntax of its own.

Generations written from Gemma 4's chat template (a call is
``<|tool_call>call:NAME{...}<tool_call|>``, keys without quotes, strings
between ``<|"|>`` marks, numbers and booleans bare, objects and lists in
braces and brackets; reasoning in ``<|channel>thought ...<channel|>``,
which the generation prompt writes empty when thinking is off; a turn ends
on ``<turn|>``, or hands over to the tool with ``<|tool_response>``) and
from the llama.cpp and SGLang parser tests of the same syntax (quoted
strings, bare words).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convtypes.dialects import ToolSpec
from convtypes.dialects.chat_template import opens_thinking

from budget import examples
from style_checks import CUTS, any_split, assert_fails, assert_reads, call, msg

S = "gemma4"
Q = '<|"|>'
OPEN = "<|tool_call>"
CLOSE = "<tool_call|>"


def gcall(name: str, body: str) -> str:
    return f"{OPEN}call:{name}{{{body}}}{CLOSE}"


READS: list[tuple[str, Any, object]] = [
    # Thinking on: reasoning, text, a call, the hand-over to the tool.
    (
        "<|channel>thought\nThe user wants Oslo's weather.<channel|>Let me check."
        + gcall("get_weather", f"city:{Q}Oslo{Q},days:3")
        + "<|tool_response>",
        None,
        msg(
            "Let me check.",
            (call("get_weather", {"city": "Oslo", "days": 3}),),
            "The user wants Oslo's weather.",
        ),
    ),
    # Two calls in a row; every kind of value the template writes, in its order (keys sorted).
    (
        gcall(
            "get_weather",
            f"city:{Q}Oslo, Norway{Q},hours:[9,12,15],metric:true,note:None,"
            f"options:{{units:{Q}m/s{Q},wind:false}},threshold:0.5",
        )
        + gcall("get_time", f"zone:{Q}CET{Q}")
        + "<turn|>",
        None,
        msg(
            "",
            (
                call(
                    "get_weather",
                    {
                        "city": "Oslo, Norway",
                        "hours": [9, 12, 15],
                        "metric": True,
                        "note": None,
                        "options": {"units": "m/s", "wind": False},
                        "threshold": 0.5,
                    },
                ),
                call("get_time", {"zone": "CET"}),
            ),
        ),
    ),
    # A string holds anything but the mark itself: commas, braces, quotes, newlines.
    (
        gcall("write", f'text:{Q}a, {{b}}: "c"\n[d]{Q}'),
        None,
        msg("", (call("write", {"text": 'a, {b}: "c"\n[d]'}),)),
    ),
    # No arguments; text after the call.
    (gcall("get_time", "") + "\nDone.<turn|>", None, msg("Done.", (call("get_time", {}),))),
    # Strings quoted the JSON way or with single quotes, and bare words.
    (
        gcall("get_weather", "city: 'Paris', country: \"FR\", unit: celsius, days: -2"),
        None,
        msg(
            "",
            (
                call(
                    "get_weather", {"city": "Paris", "country": "FR", "unit": "celsius", "days": -2}
                ),
            ),
        ),
    ),
    # The turn ended where the call's closer would be.
    (
        f"{OPEN}call:get_time{{zone:{Q}UTC{Q}}}<turn|><|tool_response>",
        None,
        msg("", (call("get_time", {"zone": "UTC"}),)),
    ),
    # Thinking off: the prompt wrote an empty thought; the answer alone.
    ("Paris.<turn|>", None, msg("Paris.")),
    (
        "<|channel>thought\nEasy.<channel|>Paris.<turn|>",
        [ToolSpec(name="get_time", parameters={})],
        msg("Paris.", thinking="Easy."),
    ),
]


@pytest.mark.parametrize(("text", "tools", "expected"), READS)
def test_realistic_generations(text: str, tools: Any, expected: Any) -> None:
    assert_reads(S, text, expected, tools=tools)


HEAD = "Checking." + OPEN
FAILS = [
    # Cut off at max_tokens in a string, in the name, in the arguments.
    (HEAD + f"call:get_weather{{city:{Q}Os", "cut off in a string", 9),
    (HEAD + "call:get_wea", "cut off in its name", 9),
    (HEAD + "call:get_weather{days:3", "cut off in its arguments", 9),
    (HEAD + "cal", "cut off", 9),
    # Not the syntax.
    (OPEN + '{"name": "f"}' + CLOSE, "not followed by call:NAME{...}", len(OPEN)),
    (OPEN + "call:f(a=1)" + CLOSE, "has no {...} after it", len(OPEN)),
    (OPEN + "call:{a:1}" + CLOSE, "whose name is not one", len(OPEN)),
    (
        OPEN + "call:f{a:1}junk" + CLOSE,
        "text after the call's arguments",
        len(OPEN + "call:f{a:1}"),
    ),
    (OPEN + "call:f{a:1;b:2}" + CLOSE, "expected ',' or '}'", len(OPEN + "call:f{a:1;b")),
    (OPEN + "call:f{a:1,a:2}" + CLOSE, "the key 'a' is given twice", len(OPEN + "call:f{a:1,a")),
    (OPEN + "call:f{a:[1,,2]}" + CLOSE, "a value that is empty", len(OPEN + "call:f{a:[1,")),
    (OPEN + "call:f{a:1}" + OPEN + "call:g{}" + CLOSE, f"no {CLOSE} before the next {OPEN}", 0),
    ("Done." + CLOSE, f"a {CLOSE} with no {OPEN} before it", 5),
]


@pytest.mark.parametrize(("text", "reason", "offset"), FAILS)
def test_what_cannot_be_read_raises_where_it_is(text: str, reason: str, offset: int) -> None:
    kept = assert_fails(S, text, reason, offset)
    if text.startswith("Checking."):
        assert kept.content.startswith("Checking." + OPEN)


def test_a_call_to_a_tool_not_offered() -> None:
    tools = [ToolSpec(name="get_time", parameters={})]
    assert_fails(
        S,
        gcall("rm_rf", ""),
        "a call to 'rm_rf', which is not among the tools offered",
        0,
        tools=tools,
    )


def test_nesting_too_deep_is_refused() -> None:
    deep = "a:" + "[" * 100 + "]" * 100
    assert_fails(S, gcall("f", deep), "nested too deep", len(OPEN + "call:f{a:") + 64)


CASES = [(case[0], case[1]) for case in READS] + [(c[0], None) for c in FAILS]


@settings(max_examples=examples(200, 80))
@given(st.sampled_from(CASES), CUTS)
def test_any_split_streams_the_same(case: tuple[str, Any], cuts: list[int]) -> None:
    text, tools = case
    any_split(S, text, cuts, tools=tools)


def test_the_prompt_never_leaves_the_thought_open() -> None:
    # With thinking off the prompt writes an empty thought; on, the model opens its own.
    assert not opens_thinking("<|turn>model\n<|channel>thought\n<channel|>")
    assert not opens_thinking("<|turn>model\n")
