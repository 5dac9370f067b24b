"""The ``"command_r"`` style: Command R7B and Command A, each part between tokens of its own.

Generations written from Command R7B's tool-use template (the plan in
``<|START_THINKING|>``, the calls as a JSON list of ``tool_call_id``,
``tool_name`` and ``parameters`` in ``<|START_ACTION|>``, the answer in
``<|START_RESPONSE|>``; turns end on ``<|END_OF_TURN_TOKEN|>``) and from
vLLM's Cohere command parser tests (parallel calls, reasoning only, a
grounded answer's ``<co>`` spans).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convtypes.dialects import ToolSpec

from budget import examples
from style_checks import CUTS, any_split, assert_fails, assert_reads, call, msg

S = "command_r"
THINK = "<|START_THINKING|>"
END_THINK = "<|END_THINKING|>"
ACTION = "<|START_ACTION|>"
END_ACTION = "<|END_ACTION|>"
EOT = "<|END_OF_TURN_TOKEN|>"
WEATHER = ToolSpec(name="get_weather", parameters={"type": "object"})


def entry(call_id: str, name: str, parameters: str) -> str:
    """One call as the template writes it."""
    return f'{{"tool_call_id": "{call_id}", "tool_name": "{name}", "parameters": {parameters}}}'


READS: list[tuple[str, bool, Any, object]] = [
    # The plan, then one call, as R7B's template lays it out.
    (
        THINK
        + "I will look up the weather in Oslo."
        + END_THINK
        + ACTION
        + "[\n    "
        + entry("0", "get_weather", '{"city": "Oslo"}')
        + "\n]"
        + END_ACTION
        + EOT,
        False,
        None,
        msg(
            "",
            (call("get_weather", {"city": "Oslo"}, "0"),),
            "I will look up the weather in Oslo.",
        ),
    ),
    # Two calls at once, with white space around the list; a big integer kept.
    (
        THINK
        + " first I think about foo"
        + END_THINK
        + ACTION
        + "\n[\n    "
        + entry("0", "foo", '{"query": "query1"}')
        + ",\n    "
        + entry("1", "bar", '{"x": 12345678901234567890}')
        + "\n]\n"
        + END_ACTION,
        False,
        None,
        msg(
            "",
            (
                call("foo", {"query": "query1"}, "0"),
                call("bar", {"x": 12345678901234567890}, "1"),
            ),
            "first I think about foo",
        ),
    ),
    # The answer after the tool results: its tokens dropped, a grounded span's markup kept.
    (
        "<|START_RESPONSE|>It rains in <co>Oslo</co: 0:[0]>.<|END_RESPONSE|>" + EOT,
        False,
        None,
        msg("It rains in <co>Oslo</co: 0:[0]>."),
    ),
    # Reasoning only; a reflection then the answer.
    (THINK + "just think" + END_THINK, False, None, msg(thinking="just think")),
    (
        THINK + "Both results are in." + END_THINK + "<|START_RESPONSE|>Sunny in both."
        "<|END_RESPONSE|>",
        False,
        None,
        msg("Sunny in both.", thinking="Both results are in."),
    ),
    # Text around the action, outside the response tokens.
    (
        "Let me look."
        + ACTION
        + "["
        + entry("0", "get_weather", "{}")
        + "]"
        + END_ACTION
        + " Back soon.",
        False,
        None,
        msg("Let me look.\n\nBack soon.", (call("get_weather", {}, "0"),)),
    ),
    # The action's end token left off by a stop sequence; a call with no id.
    (
        ACTION + '[{"tool_name": "get_time", "parameters": {}}]',
        False,
        [ToolSpec(name="get_time")],
        msg("", (call("get_time", {}),)),
    ),
]


@pytest.mark.parametrize(("text", "in_thinking", "tools", "expected"), READS)
def test_realistic_generations(text: str, in_thinking: bool, tools: Any, expected: Any) -> None:
    assert_reads(S, text, expected, in_thinking=in_thinking, tools=tools)


FAILS: list[tuple[str, str, int, Any]] = [
    # Cut off at max_tokens in the list, right after the token.
    ("Sure." + ACTION + '[{"tool_call_id": "0", "tool_name": "get_wea', "never closes", 5, None),
    ("Sure." + ACTION, "with nothing after it", 5, None),
    # Malformed JSON, and JSON that is not a list of calls.
    (ACTION + '[{"tool_name": "f", "parameters": {"a": 1,}}]', "not valid JSON", 0, None),
    (ACTION + '[{"tool_name": "f", "parameters": {]}]', "brackets do not match", 0, None),
    (ACTION + '{"tool_name": "f"}', "does not hold a JSON list of calls", len(ACTION), None),
    (ACTION + "[]" + END_ACTION, "followed by an empty list", 0, None),
    (ACTION + '[{"parameters": {}}]', "a tool call has no name", 0, None),
    (ACTION + '[{"tool_name": "f", "name": "g"}]', "gives both 'tool_name' and 'name'", 0, None),
    (ACTION + '[{"tool_name": "f", "params": {}}]', "has a key 'params'", 0, None),
    (ACTION + '[{"tool_call_id": 0, "tool_name": "f"}]', "has an id that is not text", 0, None),
    # Tokens out of place.
    ("Done." + END_ACTION, "with no <|START_ACTION|> before it", 5, None),
    (
        ACTION + '[{"tool_name": "f"}] and more',
        "followed by something other than <|END_ACTION|>",
        len(ACTION + '[{"tool_name": "f"}] '),
        None,
    ),
    (
        ACTION + '[{"tool_name": "rm_rf", "parameters": {}}]',
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


def test_the_old_action_form_is_text() -> None:
    # Command R (2024) wrote its calls as plain text, which no reader can tell from prose.
    text = 'Action: ```json\n[{"tool_name": "f", "parameters": {}}]```'
    assert_reads(S, text, msg(text))


CASES = [c[:3] for c in READS] + [(c[0], False, c[3]) for c in FAILS]


@settings(max_examples=examples(200, 80))
@given(st.sampled_from(CASES), CUTS)
def test_any_split_streams_the_same(case: tuple[str, bool, Any], cuts: list[int]) -> None:
    text, in_thinking, tools = case
    any_split(S, text, cuts, in_thinking=in_thinking, tools=tools)
