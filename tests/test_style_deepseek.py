"""The ``"deepseek"`` style: DeepSeek V3, R1 (and its distills) and V3.1.

Generations written from R1-distill's chat template (each call is the
call-begin token, ``function``, the separator token, the name, then the
arguments in a ```json fence and the call-end token; the calls sit between
the calls-begin and calls-end tokens and the turn ends with the
end-of-sentence token; the generation prompt opens ``<think>``) and from
vLLM's DeepSeek V3 and V3.1 parser tests (V3.1 writes the name, the
separator and the JSON, with no type and no fence). The tokens are spelled
below from their code points.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convtypes.dialects import ToolSpec
from convtypes.dialects.chat_template import opens_thinking

from budget import examples
from style_checks import CUTS, any_split, assert_fails, assert_reads, call, msg

S = "deepseek"
CALLS = "<\uff5ctool\u2581calls\u2581begin\uff5c>"
CALLS_END = "<\uff5ctool\u2581calls\u2581end\uff5c>"
BEGIN = "<\uff5ctool\u2581call\u2581begin\uff5c>"
END = "<\uff5ctool\u2581call\u2581end\uff5c>"
SEP = "<\uff5ctool\u2581sep\uff5c>"
EOS = "<\uff5cend\u2581of\u2581sentence\uff5c>"
ASSISTANT = "<\uff5cAssistant\uff5c>"


def v3(name: str, arguments: str) -> str:
    return f"{BEGIN}function{SEP}{name}\n```json\n{arguments}\n```{END}"


def v31(name: str, arguments: str) -> str:
    return f"{BEGIN}{name}{SEP}{arguments}{END}"


READS = [
    # R1: the prompt opened <think>; reasoning, then one call.
    (
        "Okay, the user wants the weather in Beijing.\n</think>\n\n"
        + CALLS
        + v3("get_current_weather", '{"location": "Beijing"}')
        + CALLS_END
        + EOS,
        True,
        msg(
            "",
            (call("get_current_weather", {"location": "Beijing"}),),
            "Okay, the user wants the weather in Beijing.",
        ),
    ),
    # V3: text, then two calls on their own lines.
    (
        "I will check both cities."
        + CALLS
        + v3("get_current_weather", '{"location": "Beijing"}')
        + "\n"
        + v3("get_current_weather", '{"location": "Shanghai", "days": 3}')
        + CALLS_END
        + EOS,
        False,
        msg(
            "I will check both cities.",
            (
                call("get_current_weather", {"location": "Beijing"}),
                call("get_current_weather", {"location": "Shanghai", "days": 3}),
            ),
        ),
    ),
    # V3.1: no type, no fence; big integers and key order kept.
    (
        CALLS
        + v31("get_stock", '{"symbol": "AAPL", "shares": 123456789012345678901234567890}')
        + v31("get_time", "{}")
        + CALLS_END,
        False,
        msg(
            "",
            (
                call("get_stock", {"symbol": "AAPL", "shares": 123456789012345678901234567890}),
                call("get_time", {}),
            ),
        ),
    ),
    # V3.1 with thinking on: <think> opened by the prompt, closed by the model.
    (
        "Need the time.</think>" + CALLS + v31("get_time", '{"zone": "CET"}') + CALLS_END + EOS,
        True,
        msg("", (call("get_time", {"zone": "CET"}),), "Need the time."),
    ),
    # A plain answer, the reasoning block written by the model, the end token dropped.
    (
        "<think>\nhmm\n</think>\n\nThe answer is 4." + EOS,
        False,
        msg("The answer is 4.", thinking="hmm"),
    ),
    # The calls' end token left out (a stop sequence): the calls are whole.
    (CALLS + v3("f", '{"a": 1}'), False, msg("", (call("f", {"a": 1}),))),
    # A lone call-begin token, with no calls-begin before it.
    (v31("f", '{"a": [1, 2]}'), False, msg("", (call("f", {"a": [1, 2]}),))),
    # Text after the calls.
    (CALLS + v31("f", "{}") + CALLS_END + " Done.", False, msg("Done.", (call("f", {}),))),
]


@pytest.mark.parametrize(("text", "in_thinking", "expected"), READS)
def test_realistic_generations(text: str, in_thinking: bool, expected: object) -> None:
    assert_reads(S, text, expected, in_thinking=in_thinking)  # type: ignore[arg-type]


# Each error is at the start of its call's call-begin token, or where the trouble is.
AT_CALL = len(CALLS)
FAILS = [
    # Cut off at max_tokens inside the arguments, and after the name.
    (
        "Sure." + CALLS + BEGIN + "function" + SEP + 'f\n```json\n{"a": ',
        "never closes",
        5 + AT_CALL,
    ),
    (CALLS + BEGIN + "function" + SEP + "get_weath", "cut off after its name", AT_CALL),
    (CALLS + BEGIN + "get_weath", "the tool call is cut off", AT_CALL),
    (CALLS + v3("f", '{"a": 1,}'), "the call's arguments cannot be read", AT_CALL),
    (CALLS + v31("f", '{"a": [1}'), "brackets do not match: a '}' closes a '['", AT_CALL),
    (
        CALLS + v3("f", "[1]"),
        "a call's arguments are not a JSON object",
        len(CALLS + BEGIN + "function" + SEP + "f\n```json\n"),
    ),
    (
        CALLS + BEGIN + "function" + SEP + 'f\n{"a": 1}' + END,
        "not in a ```json block",
        len(CALLS + BEGIN + "function" + SEP + "f\n"),
    ),
    (CALLS + BEGIN + "retrieval" + SEP + "f\n```json\n{}\n```" + END, "type 'retrieval'", AT_CALL),
    (CALLS + v31("get weather", "{}"), "whose name is not one", AT_CALL),
    (CALLS + v31("f", "{}") + "oops", "expected " + BEGIN, len(CALLS + v31("f", "{}"))),
    ("Done." + CALLS_END, "with no call begun before it", 5),
]


@pytest.mark.parametrize(("text", "reason", "offset"), FAILS)
def test_what_cannot_be_read_raises_where_it_is(text: str, reason: str, offset: int) -> None:
    kept = assert_fails(S, text, reason, offset)
    assert not kept.tool_calls or kept.content  # a bad call is kept as text


def test_the_tokens_are_the_characters_they_are() -> None:
    assert [len(token) for token in (CALLS, BEGIN, SEP, END, EOS)] == [20, 19, 12, 17, 19]


def test_a_call_to_a_tool_not_offered() -> None:
    text = CALLS + v31("rm_rf", "{}") + CALLS_END
    tools = [ToolSpec(name="get_weather")]
    assert_fails(
        S, text, "a call to 'rm_rf', which is not among the tools offered", AT_CALL, tools=tools
    )


def test_the_prompts_that_open_thinking() -> None:
    assert opens_thinking(ASSISTANT + "<think>\n")  # R1
    assert not opens_thinking(ASSISTANT + "<think>\n</think>")  # V3.1 with thinking off


@settings(max_examples=examples(200, 80))
@given(st.sampled_from([case[:2] for case in READS] + [(c[0], False) for c in FAILS]), CUTS)
def test_any_split_streams_the_same(case: tuple[str, bool], cuts: list[int]) -> None:
    text, in_thinking = case
    any_split(S, text, cuts, in_thinking=in_thinking)
