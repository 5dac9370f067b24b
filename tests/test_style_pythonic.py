"""The ``"pythonic"`` style: Llama 3.2 and 4, LFM2 and Gemma, calls written as Python.

Generations written from the pythonic templates' instructions (``[func_name1(
params_name1=params_value1, ...), func_name2(params)]`` as the whole
answer) and from vLLM's pythonic, llama4_pythonic and lfm2 parser tests
(Llama 4's ``<|python_start|>...<|python_end|>``, LFM2's
``<|tool_call_start|>...<|tool_call_end|>`` after text, values in every
literal Python has).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convtypes.dialects import ToolSpec

from budget import examples
from style_checks import CUTS, any_split, assert_fails, assert_reads, call, msg

S = "pythonic"

READS = [
    # Llama 3.2 (pythonic): the list is the whole answer.
    (
        '[get_weather(city="San Francisco", metric="celsius")]<|eot_id|>',
        msg("", (call("get_weather", {"city": "San Francisco", "metric": "celsius"}),)),
    ),
    # Two calls; every literal: quotes of both kinds, escapes, a triple-quoted
    # multi-line string, numbers, True/False/None, nested lists, tuples, dicts.
    (
        "[register_user(name='John Doe', age=37, address={'city': 'San Francisco', "
        "'state': 'CA'}, role=None, passed_test=True, aliases=['John', 'Johnny'], "
        'pair=(1, -2.5), quote="She said \\"hi\\"\\n", big=123456789012345678901234567890), '
        'run_code(code="""print(1)\nprint(\'two\')""", dry_run=False)]',
        msg(
            "",
            (
                call(
                    "register_user",
                    {
                        "name": "John Doe",
                        "age": 37,
                        "address": {"city": "San Francisco", "state": "CA"},
                        "role": None,
                        "passed_test": True,
                        "aliases": ["John", "Johnny"],
                        "pair": [1, -2.5],
                        "quote": 'She said "hi"\n',
                        "big": 123456789012345678901234567890,
                    },
                ),
                call("run_code", {"code": "print(1)\nprint('two')", "dry_run": False}),
            ),
        ),
    ),
    # A call with no arguments, and one spread over lines.
    (
        "[get_time(), get_weather(\n    city='Oslo',\n    days=3,\n)]",
        msg("", (call("get_time", {}), call("get_weather", {"city": "Oslo", "days": 3}))),
    ),
    # Llama 4: wrapped in its python tags.
    (
        '<|python_start|>[get_weather(city="Oslo")]<|python_end|><|eot|>',
        msg("", (call("get_weather", {"city": "Oslo"}),)),
    ),
    # LFM2: text, the tagged list, text after it.
    (
        'Let me check.<|tool_call_start|>[get_weather(location="Paris")]<|tool_call_end|>'
        "The weather in Paris is sunny.<|im_end|>",
        msg(
            "Let me check.\n\nThe weather in Paris is sunny.",
            (call("get_weather", {"location": "Paris"}),),
        ),
    ),
    # Answers in brackets that are not calls are text.
    ("[1] Smith et al., 2020.", msg("[1] Smith et al., 2020.")),
    ("[Note: see above] fine.", msg("[Note: see above] fine.")),
    ("<think>Easy.</think>Four.<|eot|>", msg("Four.", thinking="Easy.")),
]


@pytest.mark.parametrize(("text", "expected"), READS)
def test_realistic_generations(text: str, expected: object) -> None:
    assert_reads(S, text, expected)  # type: ignore[arg-type]


FAILS = [
    # Cut off at max_tokens.
    ('[get_weather(city="Os', "its list never closes", 0),
    ("Sure.<|tool_call_start|>[get_weather(city='Oslo'", "its list never closes", 5),
    # Python this does not read: a variable, an expression, a positional argument.
    ("[get_weather(city=city_name)]", "a value that is not a literal: 'city_name)]'", 0),
    ("[get_weather(days=1 + 2)]", "expected ')' to close the call to 'get_weather'", 0),
    ('[get_weather("Oslo")]', "an argument of 'get_weather' that is not written key=value", 0),
    ("[get_weather(city='Oslo') get_time()]", "expected ']' after a call", 0),
    ('[weather.get(city="Oslo")]', "a tool's name has no dot", 0),
    ("[get_weather(city='Oslo'}]", "brackets do not match: a '}' closes a '('", 0),
    ("[f(x={1: 'a'})]", "a dict key that is not a string", 0),
    ("[f(x='\\xZZ')]", "an escape Python does not have", 0),
    ("<|python_start|>get_weather(city='Oslo')<|python_end|>", "expected a list of calls", 16),
    ("[f(x=1)] tail<|python_end|>", "a <|python_end|> with no <|python_start|>", 13),
]


@pytest.mark.parametrize(("text", "reason", "offset"), FAILS)
def test_what_cannot_be_read_raises_where_it_is(text: str, reason: str, offset: int) -> None:
    kept = assert_fails(S, text, reason, offset)
    if offset == 0:
        assert kept.content == text  # nothing lost: the whole answer is its text


def test_a_call_to_a_tool_not_offered() -> None:
    tools = [ToolSpec(name="get_weather")]
    assert_fails(
        S, "[rm_rf(path='/')]", "a call to 'rm_rf', which is not among the", 0, tools=tools
    )


@settings(max_examples=examples(200, 80))
@given(st.sampled_from([case[0] for case in READS] + [case[0] for case in FAILS]), CUTS)
def test_any_split_streams_the_same(text: str, cuts: list[int]) -> None:
    any_split(S, text, cuts)
