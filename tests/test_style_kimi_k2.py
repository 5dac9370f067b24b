"""The ``"kimi_k2"`` style: Kimi-K2 Instruct and Thinking, calls between the model's tokens.

Generations written from Kimi-K2's chat template (the calls in a section
token pair, each call's id ``functions.NAME:INDEX`` before the argument
token and its JSON after it; turns end on ``<|im_end|>``) and from vLLM's
kimi_k2 parser tests (white space between the tokens, the id without
``functions.``, an id that is only the counter, JSON holding angle brackets
or spread over lines, a malformed id) and its reasoning parser (K2-Thinking
may start its calls without closing ``<think>``).
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

S = "kimi_k2"
SECTION = "<|tool_calls_section_begin|>"
SECTION_END = "<|tool_calls_section_end|>"
BEGIN = "<|tool_call_begin|>"
ARGS = "<|tool_call_argument_begin|>"
END = "<|tool_call_end|>"

WEATHER = ToolSpec(name="get_weather", parameters={"type": "object"})
NEWS = ToolSpec(name="get_news", parameters={"type": "object"})


def one(call_id: str, arguments: str) -> str:
    return f"{BEGIN}{call_id}{ARGS}{arguments}{END}"


def section(*calls: str) -> str:
    return SECTION + "".join(calls) + SECTION_END


OSLO = one("functions.get_weather:0", '{"city": "Oslo"}')
OSLO_CALL = call("get_weather", {"city": "Oslo"}, "functions.get_weather:0")


READS: list[tuple[str, bool, Any, object]] = [
    # K2-Instruct: a sentence, then two calls with white space between the tokens.
    (
        "I'll help you check the weather. "
        + SECTION
        + " "
        + BEGIN
        + "\nfunctions.get_weather:0 "
        + ARGS
        + ' {"city": "Beijing"} '
        + END
        + " "
        + BEGIN
        + "\nfunctions.get_weather:1 "
        + ARGS
        + ' {"city": "Shanghai"} '
        + END
        + " "
        + SECTION_END
        + "<|im_end|>",
        False,
        None,
        msg(
            "I'll help you check the weather.",
            (
                call("get_weather", {"city": "Beijing"}, "functions.get_weather:0"),
                call("get_weather", {"city": "Shanghai"}, "functions.get_weather:1"),
            ),
        ),
    ),
    # Three calls on one line; JSON with angle brackets, spread over lines, a big integer.
    (
        section(
            one(
                "functions.process_html:0",
                '{"html": "<div>content</div>", "n": 12345678901234567890}',
            ),
            one("functions.get_news:1", '{\n  "topic": "tech",\n  "nested": {"key": "value"}\n}'),
            one("functions.get_time:2", "{}"),
        ),
        False,
        None,
        msg(
            "",
            (
                call(
                    "process_html",
                    {"html": "<div>content</div>", "n": 12345678901234567890},
                    "functions.process_html:0",
                ),
                call(
                    "get_news",
                    {"topic": "tech", "nested": {"key": "value"}},
                    "functions.get_news:1",
                ),
                call("get_time", {}, "functions.get_time:2"),
            ),
        ),
    ),
    # K2-Thinking: a reasoning block, then the calls.
    (
        "<think>The user wants Oslo's weather.</think>Checking." + section(OSLO) + "<|im_end|>",
        False,
        None,
        msg(
            "Checking.",
            (OSLO_CALL,),
            "The user wants Oslo's weather.",
        ),
    ),
    # K2-Thinking starting its calls without closing the block: the section ends it.
    (
        "<think>I need the weather first." + section(OSLO),
        False,
        None,
        msg(
            "",
            (OSLO_CALL,),
            "I need the weather first.",
        ),
    ),
    # The same with the block opened by the prompt.
    (
        "Weather first." + section(OSLO) + "<|im_end|>",
        True,
        None,
        msg("", (OSLO_CALL,), "Weather first."),
    ),
    # The id without functions.; an id that is only the counter, with one tool offered.
    (
        section(one("get_weather:0", '{"city": "Tokyo"}')),
        False,
        None,
        msg("", (call("get_weather", {"city": "Tokyo"}, "get_weather:0"),)),
    ),
    (
        "Let me check. " + section(one("0", '{"city": "Tokyo"}')),
        False,
        [WEATHER],
        msg("Let me check.", (call("get_weather", {"city": "Tokyo"}, "0"),)),
    ),
    # Text after the calls; the section's end left off by a stop sequence.
    (
        section(one("functions.get_time:0", "{}")) + " Done.",
        False,
        None,
        msg("Done.", (call("get_time", {}, "functions.get_time:0"),)),
    ),
    (
        SECTION + one("functions.get_time:0", "{}"),
        False,
        None,
        msg("", (call("get_time", {}, "functions.get_time:0"),)),
    ),
    # An empty section; a plain answer with its end token.
    ("Nothing to call." + SECTION + SECTION_END, False, None, msg("Nothing to call.")),
    ("<think>\n\n</think>\n\nParis.<|im_end|>", False, None, msg("Paris.")),
]


@pytest.mark.parametrize(("text", "in_thinking", "tools", "expected"), READS)
def test_realistic_generations(text: str, in_thinking: bool, tools: Any, expected: Any) -> None:
    assert_reads(S, text, expected, in_thinking=in_thinking, tools=tools)


AT = len(SECTION)
CALL = SECTION + BEGIN + "functions.get_weather:0" + ARGS
FAILS: list[tuple[str, str, int, Any]] = [
    # Cut off at max_tokens in the arguments, in the id, after the argument token.
    ("Sure. " + CALL + '{"city": "Bei', "never closes", 6 + AT, None),
    (SECTION + BEGIN + "functions.get_wea", "the tool call is cut off", AT, None),
    (CALL, "cut off before its arguments", AT, None),
    # Malformed JSON: a trailing comma, brackets that do not match, not an object.
    (CALL + '{"a": 1,}' + END, "the call's arguments cannot be read", AT, None),
    (CALL + '{"a": [1}' + END, "brackets do not match: a '}' closes a '['", AT, None),
    (CALL + "[1]" + END, "a call's arguments are not a JSON object", len(CALL), None),
    # Ids that name no tool: a dot for the colon, a counter with no single tool offered.
    (section(one("functions.get_weather.0", "{}")), "whose id names no tool", AT, None),
    (section(one("0", "{}")), "whose id names no tool", AT, None),
    (section(one("0", "{}")), "whose id names no tool", AT, [WEATHER, NEWS]),
    # Tokens out of place.
    (section(BEGIN + "f:0" + END), f"a call with no {ARGS}", AT, None),
    (SECTION + " junk", f"expected {BEGIN} or {SECTION_END}", AT + 1, None),
    ("Done." + SECTION_END, "with no call begun before it", 5, None),
    (
        CALL + "{} junk" + END,
        f"followed by something other than {END}",
        len(CALL + "{} "),
        None,
    ),
    # A call to a tool that was not offered.
    (
        section(one("functions.rm_rf:0", "{}")),
        "a call to 'rm_rf', which is not among the tools offered",
        AT,
        [WEATHER],
    ),
]


@pytest.mark.parametrize(("text", "reason", "offset", "tools"), FAILS)
def test_what_cannot_be_read_raises_where_it_is(
    text: str, reason: str, offset: int, tools: Any
) -> None:
    kept = assert_fails(S, text, reason, offset, tools=tools)
    if text.startswith("Sure. "):
        assert kept.content == text.rstrip()  # the call that cannot be read stays as it was


def test_the_prompt_of_k2_thinking_does_not_open_the_block() -> None:
    # The model writes <think> itself; a prompt that ends in it is said so.
    assert not opens_thinking("<|im_assistant|>assistant<|im_middle|>")
    assert opens_thinking("<|im_assistant|>assistant<|im_middle|><think>")


CASES = [c[:3] for c in READS] + [(c[0], False, c[3]) for c in FAILS]


@settings(max_examples=examples(200, 80))
@given(st.sampled_from(CASES), CUTS)
def test_any_split_streams_the_same(case: tuple[str, bool, Any], cuts: list[int]) -> None:
    text, in_thinking, tools = case
    any_split(S, text, cuts, in_thinking=in_thinking, tools=tools)
