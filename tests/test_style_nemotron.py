"""The ``"nemotron"`` style: Llama-Nemotron and Nemotron Nano 2, calls as JSON in ``<TOOLCALL>``.

Generations written from Nemotron Nano 2's tool template (the answer's
text, a blank line, ``<TOOLCALL>[...]</TOOLCALL>``, then ``<SPECIAL_12>``
on its own line; the generation prompt opens ``<think>`` unless the user
says ``/no_think``, when it writes an empty block) and from vLLM's
nemotron_json parser and its tests (a call object with no list around it,
arguments as a JSON string, as the template's own example writes them).
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

S = "nemotron"
EOT = "\n<SPECIAL_12>\n"
WEATHER = ToolSpec(name="get_weather", parameters={"type": "object"})

READS: list[tuple[str, bool, Any, object]] = [
    # Nano 2 with thinking on: the prompt opened <think>; reasoning, text, a call.
    (
        "The user wants the weather in Oslo.\n</think>\n\nLet me check.\n\n"
        '<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]</TOOLCALL>' + EOT,
        True,
        None,
        msg(
            "Let me check.",
            (call("get_weather", {"city": "Oslo"}),),
            "The user wants the weather in Oslo.",
        ),
    ),
    # Two calls in the list; a big integer kept.
    (
        '<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Oslo"}}, '
        '{"name": "convert", "arguments": {"amount": 12345678901234567890, "to": "NOK"}}]'
        "</TOOLCALL>",
        False,
        [WEATHER, ToolSpec(name="convert")],
        msg(
            "",
            (
                call("get_weather", {"city": "Oslo"}),
                call("convert", {"amount": 12345678901234567890, "to": "NOK"}),
            ),
        ),
    ),
    # No list around the calls, and arguments written as a JSON string.
    (
        '<TOOLCALL>{"name": "f", "arguments": "{\\"a\\": 1}"}, {"name": "g", "arguments": {}}'
        "</TOOLCALL>",
        False,
        None,
        msg("", (call("f", {"a": 1}), call("g", {}))),
    ),
    # Thinking off (the empty block), a plain answer; Llama-Nemotron's end token.
    ("<think></think>Paris." + EOT, False, None, msg("Paris.")),
    ("Paris.<|eot_id|>", False, None, msg("Paris.")),
    # The closing tag left off by a stop sequence; text after the calls.
    (
        '<TOOLCALL>[{"name": "get_weather", "arguments": {}}]',
        False,
        None,
        msg("", (call("get_weather", {}),)),
    ),
    (
        '<TOOLCALL>[{"name": "get_weather", "arguments": {}}]</TOOLCALL> Then I answer.',
        False,
        None,
        msg("Then I answer.", (call("get_weather", {}),)),
    ),
]


@pytest.mark.parametrize(("text", "in_thinking", "tools", "expected"), READS)
def test_realistic_generations(text: str, in_thinking: bool, tools: Any, expected: Any) -> None:
    assert_reads(S, text, expected, in_thinking=in_thinking, tools=tools)


OPEN = "<TOOLCALL>"
FAILS: list[tuple[str, str, int, Any]] = [
    # Cut off at max_tokens, in the list and in bare objects.
    ("Sure.\n" + OPEN + '[{"name": "get_weather", "arguments": {"ci', "never closes", 6, None),
    (OPEN + '{"name": "f", "arguments": {}}, {"name": "g", "argu', "never closes", 42, None),
    (OPEN, "a <TOOLCALL> with nothing after it", 0, None),
    # Malformed JSON and what is not a call.
    (OPEN + '[{"name": "f", "arguments": {"a": 1,}}]</TOOLCALL>', "not valid JSON", 0, None),
    (OPEN + '[{"name": "f", "arguments": {]}]', "brackets do not match", 0, None),
    (OPEN + "[]</TOOLCALL>", "not a list of calls", 0, None),
    (OPEN + '[{"arguments": {}}]</TOOLCALL>', "a tool call has no name", 0, None),
    (OPEN + "get_weather(city='Oslo')", "does not hold a JSON list of calls", len(OPEN), None),
    (OPEN + '{"name": "f"}, 7', "expected a JSON tool call after ','", len(OPEN) + 15, None),
    (
        OPEN + '[{"name": "f"}] oops',
        "followed by something other than </TOOLCALL>",
        len(OPEN) + 16,
        None,
    ),
    ("Done.</TOOLCALL>", "a </TOOLCALL> with no <TOOLCALL> before it", 5, None),
    (
        OPEN + '[{"name": "rm_rf", "arguments": {}}]',
        "a call to 'rm_rf', which is not among the tools offered",
        0,
        [WEATHER],
    ),
]


@pytest.mark.parametrize(("text", "reason", "offset", "tools"), FAILS)
def test_what_cannot_be_read_raises_where_it_is(
    text: str, reason: str, offset: int, tools: Any
) -> None:
    kept = assert_fails(S, text, reason, offset, tools=tools)
    if text.startswith("Sure."):
        assert kept.content == text  # the call that cannot be read stays as it was


def test_the_generation_prompt_opens_thinking() -> None:
    assert opens_thinking("<SPECIAL_11>User\nWeather?\n<SPECIAL_11>Assistant\n<think>\n")
    assert not opens_thinking(
        "<SPECIAL_11>User\nHi /no_think\n<SPECIAL_11>Assistant\n<think></think>"
    )


CASES = [c[:3] for c in READS] + [(c[0], False, c[3]) for c in FAILS]


@settings(max_examples=examples(200, 80))
@given(st.sampled_from(CASES), CUTS)
def test_any_split_streams_the_same(case: tuple[str, bool, Any], cuts: list[int]) -> None:
    text, in_thinking, tools = case
    any_split(S, text, cuts, in_thinking=in_thinking, tools=tools)
