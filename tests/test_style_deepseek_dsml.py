"""The ``"deepseek_dsml"`` style: DeepSeek V3.2 and V4, calls in DSML.

Generations written from the V3.2 and V4 chat templates (a block
``<|DSML|function_calls>``, V4's ``<|DSML|tool_calls>`` (full-width bars), of invokes whose
parameters say ``string="true"`` for text and ``string="false"`` for JSON;
the generation prompt opens ``<think>`` when thinking is on and writes
``</think>`` when it is off; a turn ends with the end-of-sentence token)
and from SGLang's and vLLM's DeepSeek V3.2 parser tests (values written
over several lines, a closer left out). The tokens are spelled from their
code points.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convtypes.dialects import ToolSpec
from convtypes.dialects.chat_template import opens_thinking, parse_output

from budget import examples
from style_checks import CUTS, any_split, assert_fails, assert_reads, call, msg

S = "deepseek_dsml"
D = "\uff5cDSML\uff5c"
V32 = f"<{D}function_calls>"
V32_END = f"</{D}function_calls>"
V4 = f"<{D}tool_calls>"
V4_END = f"</{D}tool_calls>"
EOS = "<\uff5cend\u2581of\u2581sentence\uff5c>"

WEATHER = ToolSpec(
    name="get_weather",
    parameters={
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer"},
            "amount": {"type": ["string", "integer"]},
        },
    },
)
TIME = ToolSpec(name="get_time", parameters={"type": "object", "properties": {}})
TOOLS = [WEATHER, TIME]


def param(key: str, value: str, string: str | None = "true") -> str:
    flag = "" if string is None else f' string="{string}"'
    return f'<{D}parameter name="{key}"{flag}>{value}</{D}parameter>\n'


def invoke(name: str, *params: str) -> str:
    return f'<{D}invoke name="{name}">\n' + "".join(params) + f"</{D}invoke>\n"


def v32(*invokes: str) -> str:
    return f"\n\n{V32}\n" + "".join(invokes) + V32_END


def v4(*invokes: str) -> str:
    return f"\n\n{V4}\n" + "".join(invokes) + V4_END


OSLO = invoke("get_weather", param("city", "Oslo"), param("days", "3", "false"))

READS: list[tuple[str, bool, Any, object]] = [
    # V3.2 with thinking on: the prompt opened <think>.
    (
        "The user wants Oslo's weather.</think>Let me check." + v32(OSLO) + EOS,
        True,
        TOOLS,
        msg(
            "Let me check.",
            (call("get_weather", {"city": "Oslo", "days": 3}),),
            "The user wants Oslo's weather.",
        ),
    ),
    # V4, two calls, JSON values of every kind; a string that looks like a number stays text.
    (
        "Checking both."
        + v4(
            invoke(
                "lookup",
                param("zip", "0150"),
                param("hours", "[9, 12]", "false"),
                param("options", '{"units": {"wind": "m/s"}}', "false"),
                param("metric", "true", "false"),
                param("note", "null", "false"),
                param("big", "12345678901234567890123", "false"),
            ),
            invoke("get_time", param("zone", "CET")),
        )
        + EOS,
        False,
        None,
        msg(
            "Checking both.",
            (
                call(
                    "lookup",
                    {
                        "zip": "0150",
                        "hours": [9, 12],
                        "options": {"units": {"wind": "m/s"}},
                        "metric": True,
                        "note": None,
                        "big": 12345678901234567890123,
                    },
                ),
                call("get_time", {"zone": "CET"}),
            ),
        ),
    ),
    # A text value over several lines, holding markup of its own; text after the block.
    (
        v32(invoke("write", param("content", "line one\n<b>two</b>\n\n"))) + "\nDone." + EOS,
        False,
        None,
        msg("Done.", (call("write", {"content": "line one\n<b>two</b>\n\n"}),)),
    ),
    # A closer left out: the value ends where the next parameter begins.
    (
        v32(
            f'<{D}invoke name="get_weather">\n<{D}parameter name="city" string="true">Oslo\n'
            + param("days", "3", "false")
            + f"</{D}invoke>\n"
        ),
        False,
        TOOLS,
        msg("", (call("get_weather", {"city": "Oslo", "days": 3}),)),
    ),
    # No string attribute: the schema types it (a union by its one rule), or JSON reads it.
    (
        v4(invoke("get_weather", param("days", "4", None), param("amount", "42", None))),
        False,
        TOOLS,
        msg("", (call("get_weather", {"days": 4, "amount": 42}),)),
    ),
    (
        v4(invoke("f", param("n", "4", None), param("word", "hello", None))),
        False,
        None,
        msg("", (call("f", {"n": 4, "word": "hello"}),)),
    ),
    # string="false" that is not JSON: typed by the schema, else kept as text.
    (
        v4(invoke("get_weather", param("days", "three", "false"), param("city", "Oslo", "false"))),
        False,
        TOOLS,
        msg("", (call("get_weather", {"days": "three", "city": "Oslo"}),)),
    ),
    # V4 writes a newline in a call with no arguments.
    (
        v4(f'<{D}invoke name="get_time">\n\n</{D}invoke>\n'),
        False,
        None,
        msg("", (call("get_time", {}),)),
    ),
    # The turn ended with the block still open.
    (
        "Sure." + f"\n\n{V32}\n" + OSLO + EOS,
        False,
        None,
        msg("Sure.", (call("get_weather", {"city": "Oslo", "days": 3}),)),
    ),
    # Thinking off: the prompt wrote </think>; the answer alone.
    ("Paris." + EOS, False, None, msg("Paris.")),
    ("<think>Easy.</think>\n\nParis." + EOS, False, None, msg("Paris.", thinking="Easy.")),
]


@pytest.mark.parametrize(("text", "in_thinking", "tools", "expected"), READS)
def test_realistic_generations(text: str, in_thinking: bool, tools: Any, expected: Any) -> None:
    assert_reads(S, text, expected, in_thinking=in_thinking, tools=tools)


HEAD = f"Checking.\n\n{V32}\n"
INVOKE = f'<{D}invoke name="get_weather">\n'
FAILS = [
    # Cut off at max_tokens in a value, in a tag, before the invoke's end.
    (
        HEAD + INVOKE + f'<{D}parameter name="city" string="true">Os',
        "cut off in a parameter",
        len(HEAD),
    ),
    (HEAD + f'<{D}invoke name="get_wea', "cut off in a function tag", len(HEAD)),
    (HEAD + INVOKE + param("city", "Oslo"), f"cut off before its </{D}invoke>", len(HEAD)),
    # Not DSML where DSML was expected.
    (HEAD + '{"name": "get_weather"}', f"expected <{D}invoke", len(HEAD)),
    (
        HEAD + f'<{D}invoke name="{{{{ name }}}}">',
        "a function tag whose name is not one",
        len(HEAD) + len(f"<{D}invoke"),
    ),
    (HEAD + f"<{D}invoke nam=>", "attributes cannot be read", len(HEAD) + len(f"<{D}invoke")),
    (
        HEAD + INVOKE + param("city", "a") + param("city", "b") + f"</{D}invoke>",
        "given twice",
        len(HEAD + INVOKE + param("city", "a")),
    ),
    (HEAD + INVOKE + "<oops>" + f"</{D}invoke>", f"expected <{D}parameter", len(HEAD + INVOKE)),
    ("Done." + V4_END, f"a {V4_END} with no {V4} before it", 5),
]


@pytest.mark.parametrize(("text", "reason", "offset"), FAILS)
def test_what_cannot_be_read_raises_where_it_is(text: str, reason: str, offset: int) -> None:
    kept = assert_fails(S, text, reason, offset)
    if text.startswith("Checking."):
        assert kept.content.startswith("Checking.\n\n" + V32)


def test_a_call_to_a_tool_not_offered() -> None:
    text = v32(invoke("rm_rf"))
    assert_fails(
        S,
        text,
        "a call to 'rm_rf', which is not among the tools offered",
        2 + len(V32) + 1,
        tools=TOOLS,
    )


def test_the_older_deepseek_tokens_are_another_style() -> None:
    text = "Sure. <\uff5ctool\u2581calls\u2581begin\uff5c>"
    assert_fails(S, text, "as deepseek writes it", 6)


CASES = [(case[0], case[1], case[2]) for case in READS] + [(c[0], False, None) for c in FAILS]


@settings(max_examples=examples(200, 80))
@given(st.sampled_from(CASES), CUTS)
def test_any_split_streams_the_same(case: tuple[str, bool, Any], cuts: list[int]) -> None:
    text, in_thinking, tools = case
    any_split(S, text, cuts, in_thinking=in_thinking, tools=tools)


# --- a closer written wrong, bare, or left out ----------------------------------------

CLOSERS = [f"</{D}parameter>", f"</{D}parameter1>", f"</{D}parameter", f"</{D}param>", ""]


@settings(max_examples=examples(200, 80))
@given(
    st.lists(
        st.tuples(
            st.from_regex(r"[a-z][a-z_]{0,7}", fullmatch=True),
            st.text(
                st.characters(blacklist_characters="<", blacklist_categories=["Cs"]), max_size=20
            ),
            st.sampled_from(CLOSERS),
        ),
        min_size=1,
        max_size=5,
        unique_by=lambda p: p[0],
    ),
    CUTS,
)
def test_no_value_ever_holds_another_parameters_markup(
    parameters: list[tuple[str, str, str]], cuts: list[int]
) -> None:
    body = "".join(
        f'<{D}parameter name="{key}" string="true">{value}{closer}\n'
        for key, value, closer in parameters
    )
    text = f'{V4}\n<{D}invoke name="f">\n{body}</{D}invoke>\n{V4_END}'
    got = parse_output(text, style=S)
    arguments = got.tool_calls[0].arguments
    assert list(arguments) == [key for key, _, _ in parameters]
    for key, value, closer in parameters:
        held = arguments[key]
        assert isinstance(held, str) and D not in held
        # Closed, rightly or wrongly, the value is as written; with no closer, less
        # the space before the next tag.
        assert held == (value if closer else value.rstrip())
    any_split(S, text, cuts)


def test_a_closer_with_text_after_it_and_none_at_the_end_is_ambiguous() -> None:
    head = f'{V4}\n<{D}invoke name="f">\n'
    text = (
        head
        + f'<{D}parameter name="a" string="true">x</{D}parameter1> y\n'
        + param("b", "2")
        + f"</{D}invoke>"
    )
    assert_fails(S, text, "the value's end is ambiguous", len(head))


def test_the_prompt_says_whether_thinking_is_open() -> None:
    # V3.2's generation prompt with thinking on, then off; V4's off.
    assert opens_thinking("<\uff5cUser\uff5c>Hi<\uff5cAssistant\uff5c><think>")
    assert not opens_thinking("<\uff5cUser\uff5c>Hi<\uff5cAssistant\uff5c><think></think>")
    assert not opens_thinking("<\uff5cUser\uff5c>Hi<\uff5cAssistant\uff5c></think>")
