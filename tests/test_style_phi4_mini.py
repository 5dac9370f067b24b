"""The ``"phi4_mini"`` style: Phi-4-mini, a JSON list of calls after ``functools``.

Generations written from the instructions of vLLM's Phi-4-mini tool
template ("prefix function calls with functools marker (no closing marker
required)", all calls in one JSON list; turns end on ``<|end|>``), from
vLLM's phi4mini parser and its tests (arguments under ``arguments`` or
``parameters``), and from llama.cpp's template for the model (a call as
``<|tool_call|>{...}<|/tool_call|>``).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convtypes.dialects import ToolSpec

from budget import examples
from style_checks import CUTS, any_split, assert_fails, assert_reads, call, msg

S = "phi4_mini"
WEATHER = ToolSpec(name="get_weather", parameters={"type": "object"})

READS: list[tuple[str, Any, object]] = [
    # One call, the whole answer, with its end token.
    (
        'functools[{"name": "get_weather", "arguments": {"city": "Oslo"}}]<|end|>',
        None,
        msg("", (call("get_weather", {"city": "Oslo"}),)),
    ),
    # Two calls after a sentence, one with its arguments under "parameters"; a float and
    # a big integer as the template asks them written.
    (
        "I'll check both. functools["
        '{"name": "get_weather", "arguments": {"city": "Oslo", "threshold": 7.0}}, '
        '{"name": "convert", "parameters": {"amount": 12345678901234567890}}]<|end|>',
        None,
        msg(
            "I'll check both.",
            (
                call("get_weather", {"city": "Oslo", "threshold": 7.0}),
                call("convert", {"amount": 12345678901234567890}),
            ),
        ),
    ),
    # The list spread over lines; text after it.
    (
        'functools[\n  {"name": "get_weather", "arguments": {}}\n] and that is all.',
        [WEATHER],
        msg("and that is all.", (call("get_weather", {}),)),
    ),
    # The list cut off after a whole call (max_tokens): the call is kept.
    (
        'functools[{"name": "get_weather", "arguments": {"city": "Oslo"}}',
        None,
        msg("", (call("get_weather", {"city": "Oslo"}),)),
    ),
    # The word in prose about Python, and an empty list: no calls.
    (
        "Use functools.partial, or functools[0] fails: functools is not subscriptable.",
        None,
        msg("Use functools.partial, or functools[0] fails: functools is not subscriptable."),
    ),
    ("No call needed. functools[]", None, msg("No call needed.")),
    # llama.cpp's form: the model's own tokens around a call, or a list of them.
    (
        'Checking.<|tool_call|>{"name": "get_weather", "arguments": {"city": "Oslo"}}'
        "<|/tool_call|><|end|>",
        [WEATHER],
        msg("Checking.", (call("get_weather", {"city": "Oslo"}),)),
    ),
    (
        '<|tool_call|>[{"name": "f", "arguments": {}}, {"name": "g", "arguments": {"a": 1}}]',
        None,
        msg("", (call("f", {}), call("g", {"a": 1}))),
    ),
    # Phi-4-mini-reasoning's block, and a plain answer.
    ("<think>\nSimple.\n</think>\nParis.<|end|>", None, msg("Paris.", thinking="Simple.")),
]


@pytest.mark.parametrize(("text", "tools", "expected"), READS)
def test_realistic_generations(text: str, tools: Any, expected: Any) -> None:
    assert_reads(S, text, expected, tools=tools)


CALL = 'functools[{"name": "get_weather", "arguments": {}}'
FAILS: list[tuple[str, str, int, Any]] = [
    # Cut off at max_tokens in a call, after a comma, right after the marker.
    ('Sure. functools[{"name": "get_weather", "arguments": {"ci', "never closes", 16, None),
    (CALL + ", ", "cut off after ','", len(CALL) + 2, None),
    ("Sure. functools[", "functools[ with no tool call after it", 6, None),
    # Malformed JSON, and what is not a call.
    ('functools[{"name": "f", "arguments": {"a": 1,}}]', "not valid JSON", 10, None),
    ('functools[{"name": "f", "arguments": {]}]', "brackets do not match", 10, None),
    ('functools[{"arguments": {}}]', "a tool call has no name", 10, None),
    ('functools[{"name": "f", "args": {}, "kwargs": {}}]', "has a key 'kwargs'", 10, None),
    (CALL + ", 7]", "expected a JSON tool call after ','", len(CALL) + 2, None),
    (CALL + " then", "expected ',' or ']'", len(CALL) + 1, None),
    ("<|tool_call|>", "a <|tool_call|> with nothing after it", 0, None),
    ("<|tool_call|>get_weather()", "does not hold a JSON tool call", 13, None),
    ('<|tool_call|>{"name": "f", "arguments": {"a": ', "never closes", 0, None),
    ('<|tool_call|>{"name": "f"} and', "followed by something other than <|/tool_call|>", 27, None),
    ("Done.<|/tool_call|>", "a <|/tool_call|> with no <|tool_call|> before it", 5, None),
    (
        'functools[{"name": "rm_rf", "arguments": {}}]',
        "a call to 'rm_rf', which is not among the tools offered",
        10,
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


def test_calls_before_a_bad_one_are_kept_with_on_error_text() -> None:
    text = CALL + ', {"name": "f", "arguments": {"a": 1,}}]'
    kept = assert_fails(S, text, "not valid JSON", len(CALL) + 2)
    assert kept == msg(', {"name": "f", "arguments": {"a": 1,}}]', (call("get_weather", {}),))


CASES = [(c[0], c[1]) for c in READS] + [(c[0], c[3]) for c in FAILS]


@settings(max_examples=examples(200, 80))
@given(st.sampled_from(CASES), CUTS)
def test_any_split_streams_the_same(case: tuple[str, Any], cuts: list[int]) -> None:
    text, tools = case
    any_split(S, text, cuts, tools=tools)
