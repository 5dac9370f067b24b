"""The ``"granite"`` style: Granite 3.x, a JSON list of calls after ``<|tool_call|>``.

Generations written from Granite 3.x's chat templates (an assistant's calls
as ``<|tool_call|>`` and the list; turns end on ``<|end_of_text|>``; with
thinking on, 3.3 asks for ``<think></think>`` then ``<response></response>``
and 3.2 for "Here is my thought process:" then "Here is my response:") and
from vLLM's granite tool and reasoning parsers and their tests (the string
``<tool_call>`` of 3.1, a bare list, "Here's" for "Here is").
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convtypes.dialects import ToolSpec

from budget import examples
from style_checks import CUTS, any_split, assert_fails, assert_reads, call, msg

S = "granite"
TOKEN = "<|tool_call|>"
EOT = "<|end_of_text|>"
WEATHER = ToolSpec(name="get_current_weather", parameters={"type": "object"})

BOSTON = '{"name": "get_current_weather", "arguments": {"city": "Boston", "unit": "celsius"}}'
BOSTON_CALL = call("get_current_weather", {"city": "Boston", "unit": "celsius"})

READS: list[tuple[str, bool, Any, object]] = [
    # One call, the whole answer; two calls in the list, after a sentence.
    (TOKEN + "[" + BOSTON + "]" + EOT, False, None, msg("", (BOSTON_CALL,))),
    (
        "I'll check both.\n"
        + TOKEN
        + '[{"name": "get_current_weather", "arguments": {"city": "Orlando"}}, '
        + '{"name": "get_time", "arguments": {"zone": "EST", "n": 12345678901234567890}}]'
        + EOT,
        False,
        None,
        msg(
            "I'll check both.",
            (
                call("get_current_weather", {"city": "Orlando"}),
                call("get_time", {"zone": "EST", "n": 12345678901234567890}),
            ),
        ),
    ),
    # Granite 3.3 thinking: the reasoning, then the answer in <response>.
    (
        "<think>The user asks for a capital.</think><response>Paris is the capital.</response>"
        + EOT,
        False,
        None,
        msg("Paris is the capital.", thinking="The user asks for a capital."),
    ),
    # ...or the reasoning, then a call.
    (
        "<think>\nI need the weather.\n</think>\n" + TOKEN + "[" + BOSTON + "]",
        False,
        None,
        msg("", (BOSTON_CALL,), "I need the weather."),
    ),
    # Granite 3.2 thinking, in words, and with "Here's" as a quantized model writes it.
    (
        "Here is my thought process:\nThe user greets me.\n\nHere is my response:\nHello!" + EOT,
        False,
        None,
        msg("Hello!", thinking="The user greets me."),
    ),
    (
        "Here's my thought process: short. Here is my response: Hi.",
        False,
        None,
        msg("Hi.", thinking="short."),
    ),
    # Text after the list.
    (
        TOKEN + "[" + BOSTON + "] I will report back.",
        False,
        None,
        msg("I will report back.", (BOSTON_CALL,)),
    ),
    # Reasoning opened by the prompt, closed by either form; one call object, no list.
    (
        "The user asks.\nHere is my response:\nHi.",
        True,
        None,
        msg("Hi.", thinking="The user asks."),
    ),
    ("Hmm.</think><response>Hi.</response>", True, None, msg("Hi.", thinking="Hmm.")),
    (TOKEN + '{"name": "f", "arguments": {}}', False, None, msg("", (call("f", {}),))),
    # A bare list of calls (vLLM's granite parser reads it); a list that is not
    # calls, and one naming no tool offered, are the answer's text.
    ("[" + BOSTON + "]", False, None, msg("", (BOSTON_CALL,))),
    ("[1, 2, 3]", False, None, msg("[1, 2, 3]")),
    ('[{"name": "Alice", "age": 30}]', False, None, msg('[{"name": "Alice", "age": 30}]')),
    (
        '[{"name": "Alice", "arguments": {}}]',
        False,
        [WEATHER],
        msg('[{"name": "Alice", "arguments": {}}]'),
    ),
    # Granite 3.1's string tag, closed or not; arguments written as a JSON string.
    (
        "<tool_call>[" + BOSTON + "]</tool_call>",
        False,
        [WEATHER],
        msg("", (BOSTON_CALL,)),
    ),
    (
        TOKEN + '[{"name": "f", "arguments": "{\\"a\\": [1, 2]}"}]',
        False,
        None,
        msg("", (call("f", {"a": [1, 2]}),)),
    ),
    # The response tags end a run of text; a plain answer.
    ("Before.<response>After.</response>", False, None, msg("Before.\n\nAfter.")),
    ("The capital of France is Paris." + EOT, False, None, msg("The capital of France is Paris.")),
]


@pytest.mark.parametrize(("text", "in_thinking", "tools", "expected"), READS)
def test_realistic_generations(text: str, in_thinking: bool, tools: Any, expected: Any) -> None:
    assert_reads(S, text, expected, in_thinking=in_thinking, tools=tools)


FAILS: list[tuple[str, str, int, Any]] = [
    # Cut off at max_tokens: after the token, and in a bare list that opens as calls.
    ("Sure." + TOKEN + '[{"name": "f", "arguments": {"a": ', "never closes", 5, None),
    ('[{"name": "get_current_weather", "arguments": {"city": "Bos', "never closes", 0, None),
    ("Sure." + TOKEN, "with no tool call after it", 5, None),
    # Malformed JSON.
    ('[{"name": "f", "arguments": {"a": 1,}}]', "not valid JSON", 0, None),
    (TOKEN + '[{"name": "f", "arguments": {"a": 1,}}]', "not valid JSON", 0, None),
    (TOKEN + '[{"name": "f"}}', "brackets do not match: a '}' closes a '['", 0, None),
    # What is not a list of calls.
    (TOKEN + "Sorry, no.", "not followed by a JSON list of calls", len(TOKEN), None),
    (TOKEN + "[]", "followed by an empty list", 0, None),
    (TOKEN + "[1]", "a tool call is not a JSON object", 0, None),
    (TOKEN + '[{"name": "f", "params": {"a": 1}}]', "has a key 'params'", 0, None),
    ("Done.</tool_call>", "a </tool_call> with no <tool_call> before it", 5, None),
    (
        '<tool_call>[{"name": "f"}] and more',
        "followed by something other than </tool_call>",
        len('<tool_call>[{"name": "f"}] '),
        None,
    ),
    (
        TOKEN + '[{"name": "rm_rf", "arguments": {}}]',
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
        assert kept.content == text.rstrip()  # the call that cannot be read stays as it was


CASES = [c[:3] for c in READS] + [(c[0], False, c[3]) for c in FAILS]


@settings(max_examples=examples(200, 80))
@given(st.sampled_from(CASES), st.booleans(), CUTS)
def test_any_split_streams_the_same(
    case: tuple[str, bool, Any], in_thinking: bool, cuts: list[int]
) -> None:
    text, _, tools = case
    any_split(S, text, cuts, in_thinking=in_thinking, tools=tools)
