"""The ``"qwen3_coder"`` style: Qwen3.5, Qwen3-Coder and Seed-OSS, calls as markup.

Generations written from Qwen3.5's chat template (each argument
``<parameter=NAME>\\nVALUE\\n</parameter>``, a string as itself, a number
or bool as Python prints it, a list or dict as JSON; the generation prompt
opens ``<think>``) and from vLLM's qwen3coder and seed_oss parser tests
(values typed by the tool's schema, Seed's ``<seed:think>`` with its budget
notes, values with no newlines around them, a ``<function=`` block with no
``<tool_call>`` around it).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convtypes.dialects import ToolSpec
from convtypes.dialects.chat_template import parse_output

from budget import examples
from style_checks import CUTS, any_split, assert_fails, assert_reads, call, msg

S = "qwen3_coder"

WEATHER = ToolSpec(
    name="get_weather",
    parameters={
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer"},
            "metric": {"type": "boolean"},
            "hours": {"type": "array", "items": {"type": "integer"}},
            "options": {"type": "object"},
            "threshold": {"type": "number"},
            "note": {"type": ["string", "null"]},
            "zip": {"type": "string"},
        },
    },
)
WRITE = ToolSpec(
    name="write_file",
    parameters={
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    },
)
TOOLS = [WEATHER, WRITE]


def block(name: str, **arguments: str) -> str:
    """A call as Qwen3.5's template writes it."""
    body = "".join(
        f"<parameter={key}>\n{value}\n</parameter>\n" for key, value in arguments.items()
    )
    return f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>"


READS: list[tuple[str, bool, Any, object]] = [
    # Qwen3.5 with thinking on: the prompt opened <think>.
    (
        "The user wants Oslo's weather for three days.\n</think>\n\nLet me check.\n\n"
        + block("get_weather", city="Oslo", days="3")
        + "<|im_end|>",
        True,
        TOOLS,
        msg(
            "Let me check.",
            (call("get_weather", {"city": "Oslo", "days": 3}),),
            "The user wants Oslo's weather for three days.",
        ),
    ),
    # Without the tools, a value is the text as written.
    (
        block("get_weather", city="Oslo", days="3"),
        False,
        None,
        msg("", (call("get_weather", {"city": "Oslo", "days": "3"}),)),
    ),
    # Every type the template writes, typed back by the schema; a string that
    # looks like a number stays a string.
    (
        block(
            "get_weather",
            city="Oslo",
            days="12345678901234567890123",
            metric="True",
            hours="[9, 12, 15]",
            options='{"lang": "nb", "units": {"wind": "m/s"}}',
            threshold="0.5",
            note="None",
            zip="0150",
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
                        "days": 12345678901234567890123,
                        "metric": True,
                        "hours": [9, 12, 15],
                        "options": {"lang": "nb", "units": {"wind": "m/s"}},
                        "threshold": 0.5,
                        "note": None,
                        "zip": "0150",
                    },
                ),
            ),
        ),
    ),
    # Text that does not read as the schema's type stays text, for the caller to check.
    (
        block("get_weather", days="three", metric="maybe"),
        False,
        TOOLS,
        msg("", (call("get_weather", {"days": "three", "metric": "maybe"}),)),
    ),
    # Two calls; a multi-line value holding the closing tag of a parameter as code.
    (
        block("get_weather", city="Oslo")
        + "\n"
        + block(
            "write_file",
            path="notes.md",
            content="Use </parameter> to close a value.\n\nEnd.",
        ),
        False,
        TOOLS,
        msg(
            "",
            (
                call("get_weather", {"city": "Oslo"}),
                call(
                    "write_file",
                    {"path": "notes.md", "content": "Use </parameter> to close a value.\n\nEnd."},
                ),
            ),
        ),
    ),
    # A call with no arguments; and the closing tag left off by a stop sequence.
    (
        "<tool_call>\n<function=get_time>\n</function>\n</tool_call>",
        False,
        None,
        msg("", (call("get_time", {}),)),
    ),
    (
        "<tool_call>\n<function=get_time>\n<parameter=zone>\nCET\n</parameter>\n</function>\n",
        False,
        None,
        msg("", (call("get_time", {"zone": "CET"}),)),
    ),
    # Qwen3-Coder without the <tool_call> around its function.
    (
        "Sure.\n<function=get_time>\n<parameter=zone>\nCET\n</parameter>\n</function>",
        False,
        None,
        msg("Sure.", (call("get_time", {"zone": "CET"}),)),
    ),
    # Seed-OSS: its thinking (with budget notes, and a call written as an example
    # inside it), values with no newlines, its own end token.
    (
        "<seed:think>Budget is 512.</seed:cot_budget_reflect>\nI could write "
        "<seed:tool_call><function=x></function></seed:tool_call> as the format."
        "\n<seed:cot_budget_reflect>Used 40 tokens.</seed:cot_budget_reflect>\nCall it."
        "</seed:think>\n<seed:tool_call>\n<function=get_weather>\n<parameter=city>Barcelona, "
        "Spain</parameter>\n<parameter=days>2</parameter>\n</function>\n</seed:tool_call>"
        "<seed:eos>",
        False,
        TOOLS,
        msg(
            "",
            (call("get_weather", {"city": "Barcelona, Spain", "days": 2}),),
            "Budget is 512.</seed:cot_budget_reflect>\nI could write <seed:tool_call>"
            "<function=x></function></seed:tool_call> as the format.\n<seed:cot_budget_reflect>"
            "Used 40 tokens.</seed:cot_budget_reflect>\nCall it.",
        ),
    ),
    # Thinking switched off: the empty block the template writes, then the answer.
    ("<think>\n\n</think>\n\nParis.<|im_end|>", False, None, msg("Paris.")),
]


@pytest.mark.parametrize(("text", "in_thinking", "tools", "expected"), READS)
def test_realistic_generations(text: str, in_thinking: bool, tools: Any, expected: Any) -> None:
    assert_reads(S, text, expected, in_thinking=in_thinking, tools=tools)


OPEN = "<tool_call>\n<function=get_weather>\n"
FAILS = [
    # Cut off at max_tokens in a value, in a name, before the function's end.
    ("Checking.\n" + OPEN + "<parameter=city>\nOs", "cut off in a parameter", 10),
    ("Checking.\n<tool_call>\n<function=get_wea", "cut off in a name", 10),
    (OPEN + "<parameter=city>\nOslo\n</parameter>\n", "cut off before its </function>", 0),
    # A hermes call where markup was expected.
    (
        '<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>',
        "does not hold a <function=...> block",
        len("<tool_call>\n"),
    ),
    (
        "<tool_call>\n<function={{ tool.name }}>\n</function>",
        "a function name that is not one: '{{ tool.name }}'",
        len("<tool_call>\n<function="),
    ),
    (
        OPEN + "<parameter=a>\n1\n</parameter>\n<parameter=a>\n2\n</parameter>\n</function>",
        "given twice",
        len(OPEN + "<parameter=a>\n1\n</parameter>\n"),
    ),
    (OPEN + "<oops>\n</function>", "expected <parameter= or </function>", len(OPEN)),
    ("Done.</tool_call>", "a </tool_call> with no <tool_call> before it", 5),
    (
        OPEN + "</function>\nmore",
        "followed by something other than </tool_call>",
        len(OPEN + "</function>\n"),
    ),
]


@pytest.mark.parametrize(("text", "reason", "offset"), FAILS)
def test_what_cannot_be_read_raises_where_it_is(text: str, reason: str, offset: int) -> None:
    kept = assert_fails(S, text, reason, offset)
    if text.startswith("Checking."):
        assert kept.content.startswith("Checking.\n<tool_call>")


def test_a_call_to_a_tool_not_offered() -> None:
    text = "<tool_call>\n<function=rm_rf>\n</function>\n</tool_call>"
    assert_fails(S, text, "a call to 'rm_rf', which is not among the tools offered", 0, tools=TOOLS)


CASES = [(case[0], case[1], case[2]) for case in READS] + [(c[0], False, None) for c in FAILS]


@settings(max_examples=examples(200, 80))
@given(st.sampled_from(CASES), CUTS)
def test_any_split_streams_the_same(case: tuple[str, bool, Any], cuts: list[int]) -> None:
    text, in_thinking, tools = case
    any_split(S, text, cuts, in_thinking=in_thinking, tools=tools)


# --- a closer written wrong, bare, or left out ----------------------------------------

GET_WEATHER = ToolSpec(
    name="get_weather",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    },
)


@pytest.mark.parametrize(
    "closer", ["</parameter1>", "</parameter", "</parameter_function>", "</param>", ""]
)
def test_a_wrong_or_missing_closer_ends_the_value_at_the_next_parameter(closer: str) -> None:
    # The case: the value ran on into the next parameter, in silence.
    text = (
        f"<tool_call>\n<function=get_weather>\n<parameter=city>\nShanghai\n{closer}\n"
        "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
    )
    expected = msg("", (call("get_weather", {"city": "Shanghai", "days": 3}),))
    assert_reads(S, text, expected, tools=[GET_WEATHER])


@pytest.mark.parametrize("closer", ["</parameter1>", "</parameter", ""])
def test_the_last_value_ends_at_the_function_end_whatever_its_closer(closer: str) -> None:
    text = (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nShanghai\n</parameter>\n"
        f"<parameter=days>\n3\n{closer}\n</function>\n</tool_call>"
    )
    expected = msg("", (call("get_weather", {"city": "Shanghai", "days": 3}),))
    assert_reads(S, text, expected, tools=[GET_WEATHER])


def test_a_closer_with_text_after_it_and_none_at_the_end_is_ambiguous() -> None:
    # Either "</parameter>" closed the value and "Beijing" is stray, or it is the
    # value's text and the closer was left out: an error, never a guess.
    body = "<parameter=city>\nShanghai\n</parameter>\nBeijing\n<parameter=days>\n3\n</parameter>\n"
    text = f"<tool_call>\n<function=get_weather>\n{body}</function>\n</tool_call>"
    kept = assert_fails(
        S,
        text,
        "the value's end is ambiguous",
        len("<tool_call>\n<function=get_weather>\n<parameter=city>"),
    )
    assert kept.content == text and not kept.tool_calls


CLOSERS = st.sampled_from(
    ["</parameter>", "</parameter1>", "</parameter", "</parameter_function>", ""]
)
NAMES = st.from_regex(r"[a-z][a-z_]{0,7}", fullmatch=True)
VALUES = st.text(st.characters(blacklist_characters="<", blacklist_categories=["Cs"]), max_size=20)


@settings(max_examples=examples(200, 80))
@given(
    st.lists(st.tuples(NAMES, VALUES, CLOSERS), min_size=1, max_size=5, unique_by=lambda p: p[0]),
    st.booleans(),
    CUTS,
)
def test_no_value_ever_holds_another_parameters_markup(
    parameters: list[tuple[str, str, str]], newlines: bool, cuts: list[int]
) -> None:
    """Any closer, or none, at any parameter: each value is its own text, whole and streamed."""
    nl = "\n" if newlines else ""
    body = "".join(
        f"<parameter={key}>{nl}{value}{nl}{closer}{nl}" for key, value, closer in parameters
    )
    text = f"<tool_call>\n<function=f>\n{body}</function>\n</tool_call>"
    got = parse_output(text, style=S)
    assert len(got.tool_calls) == 1
    arguments = got.tool_calls[0].arguments
    assert list(arguments) == [key for key, _, _ in parameters]
    for key, value, _ in parameters:
        held = arguments[key]
        assert isinstance(held, str)
        assert "<parameter=" not in held and "</function>" not in held and "</param" not in held
        # The value is what was written, give or take the space a missing closer leaves.
        assert held.strip() == value.strip() or held == value
    any_split(S, text, cuts)
