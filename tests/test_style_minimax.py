"""The ``"minimax"`` style: MiniMax-M1's JSON lines and M2's ``<invoke>`` markup.

Generations written from MiniMax-M1's tool template (``<tool_calls>``, a
JSON call per line, ``</tool_calls>``; turns end on ``<end_of_sentence>``)
and M2's (``<minimax:tool_call>``, an ``<invoke name="...">`` per call with
a ``<parameter name="...">`` per argument, a string as itself and anything
else as JSON; the generation prompt opens ``<think>``; turns end on
``[e~[``), and from vLLM's minimax and minimax_m2 parser tests (calls
inside the reasoning are not calls, several invokes in one block, values
typed by the schema and text without one).
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

S = "minimax"
WEATHER = ToolSpec(
    name="get_weather",
    parameters={
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer"},
            "hourly": {"type": "boolean"},
            "options": {"type": "object"},
            "zip": {"type": "string"},
        },
    },
)
WRITE = ToolSpec(
    name="write_file",
    parameters={"type": "object", "properties": {"content": {"type": "string"}}},
)
TOOLS = [WEATHER, WRITE]


def invoke(name: str, **arguments: str) -> str:
    """A call as M2's template writes it."""
    body = "".join(f'<parameter name="{k}">{v}</parameter>\n' for k, v in arguments.items())
    return f'<invoke name="{name}">\n{body}</invoke>\n'


def m2(*invokes: str) -> str:
    return "<minimax:tool_call>\n" + "".join(invokes) + "</minimax:tool_call>"


READS: list[tuple[str, bool, Any, object]] = [
    # M1: reasoning, text, two calls a line each; a call inside the reasoning is text of it.
    (
        "<think>\nI could use <tool_calls>{}</tool_calls> here.\n</think>\n\n"
        "Let me check. <tool_calls>\n"
        '{"name": "get_weather", "arguments": {"city": "Dallas", "days": 3}}\n'
        '{"name": "get_weather", "arguments": {"city": "Orlando"}}\n'
        "</tool_calls><end_of_sentence>",
        False,
        None,
        msg(
            "Let me check.",
            (
                call("get_weather", {"city": "Dallas", "days": 3}),
                call("get_weather", {"city": "Orlando"}),
            ),
            "I could use <tool_calls>{}</tool_calls> here.",
        ),
    ),
    # M1 cut off by a stop sequence after a whole call.
    (
        '<tool_calls>\n{"name": "get_weather", "arguments": {"city": "Boston"}}',
        False,
        None,
        msg("", (call("get_weather", {"city": "Boston"}),)),
    ),
    # M2 with thinking on (the prompt opened <think>); values are text without the schema.
    (
        "The user wants Oslo.\n</think>\n\nChecking.\n"
        + m2(invoke("get_weather", city="Oslo", days="3"))
        + "[e~[",
        True,
        None,
        msg(
            "Checking.",
            (call("get_weather", {"city": "Oslo", "days": "3"}),),
            "The user wants Oslo.",
        ),
    ),
    # ...and typed by it, a string that looks like a number staying a string.
    (
        m2(
            invoke(
                "get_weather",
                city="Oslo",
                days="12345678901234567890",
                hourly="true",
                options='{"units": "metric"}',
                zip="0150",
            )
        ),
        False,
        TOOLS,
        msg(
            "",
            (
                call(
                    "get_weather",
                    {
                        "city": "Oslo",
                        "days": 12345678901234567890,
                        "hourly": True,
                        "options": {"units": "metric"},
                        "zip": "0150",
                    },
                ),
            ),
        ),
    ),
    # Two invokes on one line, with no white space; a call with no arguments.
    (
        '<minimax:tool_call><invoke name="search_web"><parameter name="query">OpenAI'
        '</parameter></invoke><invoke name="get_time"></invoke></minimax:tool_call>',
        False,
        None,
        msg("", (call("search_web", {"query": "OpenAI"}), call("get_time", {}))),
    ),
    # A value holding the closing tag as code, and one spread over lines.
    (
        m2(invoke("write_file", content="\nUse </parameter> to close.\n\nDone.\n")),
        False,
        TOOLS,
        msg("", (call("write_file", {"content": "Use </parameter> to close.\n\nDone."}),)),
    ),
    # Unquoted names; the closing tag left off by a stop sequence; text after the calls.
    (
        "<minimax:tool_call>\n<invoke name=get_time>\n<parameter name=zone>CET</parameter>\n"
        "</invoke>\n",
        False,
        None,
        msg("", (call("get_time", {"zone": "CET"}),)),
    ),
    (m2(invoke("get_time")) + "\nDone.", False, None, msg("Done.", (call("get_time", {}),))),
    # A plain answer, each family's end token.
    ("<think>\nEasy.\n</think>\n\nParis.[e~[", False, None, msg("Paris.", thinking="Easy.")),
    ("Paris.<end_of_sentence>", False, None, msg("Paris.")),
]


@pytest.mark.parametrize(("text", "in_thinking", "tools", "expected"), READS)
def test_realistic_generations(text: str, in_thinking: bool, tools: Any, expected: Any) -> None:
    assert_reads(S, text, expected, in_thinking=in_thinking, tools=tools)


M2 = "<minimax:tool_call>\n"
CALL = M2 + '<invoke name="get_weather">\n'
FAILS: list[tuple[str, str, int, Any]] = [
    # Cut off at max_tokens: M1 in the JSON; M2 in a value, in a name, before </invoke>.
    ('Sure. <tool_calls>\n{"name": "get_weather", "arguments": {"ci', "never closes", 19, None),
    ("Sure. " + CALL + '<parameter name="city">Os', "cut off in a parameter", 6 + len(M2), None),
    ("Sure. " + M2 + '<invoke name="get_wea', "cut off in a function name", 6 + len(M2), None),
    (
        CALL + '<parameter name="city">Oslo</parameter>\n',
        "cut off before its </invoke>",
        len(M2),
        None,
    ),
    # Malformed JSON in M1; a line that is not a call.
    (
        '<tool_calls>\n{"name": "f", "arguments": {"a": 1,}}\n</tool_calls>',
        "not valid JSON",
        13,
        None,
    ),
    ('<tool_calls>\n{"name": "f", "arguments": {"a": [1}}}', "brackets do not match", 13, None),
    ("<tool_calls>\n{invalid json here}\n</tool_calls>", "not valid JSON", 13, None),
    ("<tool_calls>\nget_weather(city='Oslo')", "expected a JSON tool call", 13, None),
    # M2 markup out of place.
    (CALL + "<city>Oslo</city>\n</invoke>", "<parameter name=...> or </invoke>", len(CALL), None),
    (M2 + "<call/>", "<invoke name=...> or </minimax:tool_call>", len(M2), None),
    (
        M2 + '<invoke name="{{ tool.name }}"></invoke>',
        "a function name that is not one",
        len(M2 + "<invoke name="),
        None,
    ),
    (
        CALL + '<parameter name="a">1</parameter><parameter name="a">2</parameter></invoke>',
        "the parameter 'a' of 'get_weather' is given twice",
        len(CALL + '<parameter name="a">1</parameter>'),
        None,
    ),
    ("Done.</tool_calls>", "a </tool_calls> with no <tool_calls> before it", 5, None),
    ("Done.</minimax:tool_call>", "with no <minimax:tool_call> before it", 5, None),
    (
        m2(invoke("rm_rf")),
        "a call to 'rm_rf', which is not among the tools offered",
        len(M2),
        TOOLS,
    ),
]


@pytest.mark.parametrize(("text", "reason", "offset", "tools"), FAILS)
def test_what_cannot_be_read_raises_where_it_is(
    text: str, reason: str, offset: int, tools: Any
) -> None:
    kept = assert_fails(S, text, reason, offset, tools=tools)
    if text.startswith("Sure. "):
        assert kept.content == text  # the call that cannot be read stays as it was


def test_m2s_generation_prompt_opens_thinking() -> None:
    assert opens_thinking("]~b]user\nWeather?[e~[\n]~b]ai\n<think>\n")


CASES = [c[:3] for c in READS] + [(c[0], False, c[3]) for c in FAILS]


@settings(max_examples=examples(200, 80))
@given(st.sampled_from(CASES), CUTS)
def test_any_split_streams_the_same(case: tuple[str, bool, Any], cuts: list[int]) -> None:
    text, in_thinking, tools = case
    any_split(S, text, cuts, in_thinking=in_thinking, tools=tools)


# --- a closer written wrong, bare, or left out (as for Qwen3.5's values) ----------------


@pytest.mark.parametrize(
    "closer", ["</parameter1>", "</parameter", "</parameter_function>", "</param>", ""]
)
def test_a_wrong_or_missing_closer_ends_the_value_at_the_next_parameter(closer: str) -> None:
    text = (
        '<minimax:tool_call>\n<invoke name="get_weather">\n'
        f'<parameter name="city">Shanghai{closer}\n'
        '<parameter name="days">3</parameter>\n</invoke>\n</minimax:tool_call>'
    )
    expected = msg("", (call("get_weather", {"city": "Shanghai", "days": 3}),))
    assert_reads(S, text, expected, tools=TOOLS)


def test_a_closer_with_text_after_it_and_none_at_the_end_is_ambiguous() -> None:
    head = '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">'
    text = (
        head + "Shanghai</parameter> Beijing\n"
        '<parameter name="days">3</parameter>\n</invoke>\n</minimax:tool_call>'
    )
    assert_fails(S, text, "the value's end is ambiguous", len(head))
