"""The ``"glm45"`` style: GLM-4.5, 4.6 and 4.7, the name then key and value pairs.

Generations written from GLM-4.5's chat template (``<tool_call>NAME`` on
its line, then ``<arg_key>K</arg_key>`` and ``<arg_value>V</arg_value>``
lines, a string written as itself and anything else as JSON; the turn ends
on ``<|observation|>`` after a call, ``<|user|>`` after an answer) and from
vLLM's glm4_moe and glm47 parser tests (GLM-4.7's calls on one line;
values typed by the schema, and read as JSON with none).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convtypes.dialects import ToolSpec

from budget import examples
from style_checks import CUTS, any_split, assert_fails, assert_reads, call, msg

S = "glm45"

WEATHER = ToolSpec(
    name="get_weather",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string"}, "code": {"type": "string"}},
    },
)


def pairs(**arguments: str) -> str:
    return "".join(
        f"<arg_key>{key}</arg_key>\n<arg_value>{value}</arg_value>\n"
        for key, value in arguments.items()
    )


READS: list[tuple[str, Any, object]] = [
    # GLM-4.5: reasoning, a sentence, a call, the next speaker's token.
    (
        "\n<think>The user wants Beijing's weather.</think>\nI'll check.\n<tool_call>get_weather\n"
        + pairs(city="Beijing", date="2024-06-27")
        + "</tool_call><|observation|>",
        None,
        msg(
            "I'll check.",
            (call("get_weather", {"city": "Beijing", "date": "2024-06-27"}),),
            "The user wants Beijing's weather.",
        ),
    ),
    # Two calls; with no schema, JSON values are read as JSON, a Python literal
    # as one, and other text as text.
    (
        "<tool_call>get_weather\n"
        + pairs(city="Beijing", days="3", hourly="true", hours="[9, 12]")
        + "</tool_call>\n<tool_call>search\n"
        + pairs(query="weather in Oslo", filters="{'lang': 'nb'}", limit="null")
        + "</tool_call>",
        None,
        msg(
            "",
            (
                call(
                    "get_weather", {"city": "Beijing", "days": 3, "hourly": True, "hours": [9, 12]}
                ),
                call(
                    "search", {"query": "weather in Oslo", "filters": {"lang": "nb"}, "limit": None}
                ),
            ),
        ),
    ),
    # With the tools' schemas, a string stays as written, even one that is JSON.
    (
        "<tool_call>get_weather\n" + pairs(city="  Oslo ", code="0150") + "</tool_call>",
        [WEATHER],
        msg("", (call("get_weather", {"city": "  Oslo ", "code": "0150"}),)),
    ),
    # GLM-4.7: all on one line; a call with no arguments.
    (
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call>"
        "<tool_call>get_time</tool_call>",
        None,
        msg("", (call("get_weather", {"city": "Oslo"}), call("get_time", {}))),
    ),
    # A value that starts like JSON and is not: its text (this once raised IndexError).
    (
        "<tool_call>f\n" + pairs(a="[1,", b="{'k'") + "</tool_call>",
        None,
        msg("", (call("f", {"a": "[1,", "b": "{'k'"}),)),
    ),
    # Thinking switched off: the empty block, then the answer.
    ("<think></think>\nParis.<|user|>", None, msg("Paris.")),
]


@pytest.mark.parametrize(("text", "tools", "expected"), READS)
def test_realistic_generations(text: str, tools: Any, expected: Any) -> None:
    assert_reads(S, text, expected, tools=tools)


FAILS = [
    (
        "Sure.<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Bei",
        "cut off in a value",
        5,
    ),
    ("<tool_call>get_weather\n<arg_key>ci", "cut off in a key", 0),
    ("<tool_call>get_wea", "the tool call is cut off", 0),
    (
        "<tool_call>get_weather\n<arg_key>city</arg_key>\nBeijing",
        "is not followed by <arg_value>",
        47,
    ),
    (
        "<tool_call>get_weather\ncity=Beijing\n</tool_call>",
        "expected <arg_key> or </tool_call>",
        23,
    ),
    ('<tool_call>{"name": "f"}\n</tool_call>', "whose name is not one", 0),
    ("Done.</tool_call>", "a </tool_call> with no <tool_call> before it", 5),
    (
        "<tool_call>f\n" + pairs(a="1", b="2", a_="3").replace("a_", "a") + "</tool_call>",
        "the key 'a' of 'f' is given twice",
        len("<tool_call>f\n" + pairs(a="1", b="2")),
    ),
]


@pytest.mark.parametrize(("text", "reason", "offset"), FAILS)
def test_what_cannot_be_read_raises_where_it_is(text: str, reason: str, offset: int) -> None:
    assert len("<tool_call>get_weather\n<arg_key>city</arg_key>\n") == 47
    assert len("<tool_call>get_weather\n") == 23
    kept = assert_fails(S, text, reason, offset)
    if text.startswith("Sure."):
        assert kept.content == text


def test_a_call_to_a_tool_not_offered() -> None:
    text = "<tool_call>rm_rf\n</tool_call>"
    assert_fails(S, text, "a call to 'rm_rf', which is not among the tools", 0, tools=[WEATHER])


CASES = [(case[0], case[1]) for case in READS] + [(case[0], None) for case in FAILS]


@settings(max_examples=examples(200, 80))
@given(st.sampled_from(CASES), CUTS)
def test_any_split_streams_the_same(case: tuple[str, Any], cuts: list[int]) -> None:
    text, tools = case
    any_split(S, text, cuts, tools=tools)
