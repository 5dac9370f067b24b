"""The ``"step3"`` style: Step-3, calls in steptml between tokens of its own.

Generations written from SGLang's and vLLM's Step-3 parser tests (the
calls-begin token, each call ``function`` and the separator token then a
``<steptml:invoke>`` element, the call-end and calls-end tokens; values as
text, typed by the tool's schema; reasoning ended by ``</think>`` with the
prompt having opened it). The tokens are spelled from their code points.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convtypes.dialects import ToolSpec

from budget import examples
from style_checks import CUTS, any_split, assert_fails, assert_reads, call, msg

S = "step3"
BEGIN = "<\uff5ctool_calls_begin\uff5c>"
END = "<\uff5ctool_calls_end\uff5c>"
CALL = "<\uff5ctool_call_begin\uff5c>"
CALL_END = "<\uff5ctool_call_end\uff5c>"
SEP = "<\uff5ctool_sep\uff5c>"
EOT = "<|EOT|>"

SEARCH = ToolSpec(
    name="search",
    parameters={
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"type": "integer"},
            "exact": {"type": "boolean"},
            "filters": {"type": "object"},
        },
    },
)
TOOLS = [SEARCH, ToolSpec(name="get_time", parameters={"type": "object"})]


def one(name: str, **params: str) -> str:
    body = "".join(
        f'<steptml:parameter name="{key}">{value}</steptml:parameter>\n'
        for key, value in params.items()
    )
    return f'{CALL}function{SEP}<steptml:invoke name="{name}">\n{body}</steptml:invoke>{CALL_END}'


def block(*calls: str) -> str:
    return f"{BEGIN}\n" + "\n".join(calls) + f"\n{END}"


READS: list[tuple[str, bool, Any, object]] = [
    # Reasoning the prompt opened, text, one call typed by the schema, text after it.
    (
        "They want Rust docs.</think>Let me help you.\n"
        + block(one("search", query="rust programming", limit="10"))
        + "\nHere are the results..."
        + EOT,
        True,
        TOOLS,
        msg(
            "Let me help you.\n\nHere are the results...",
            (call("search", {"query": "rust programming", "limit": 10}),),
            "They want Rust docs.",
        ),
    ),
    # Without the tools, values are text as written.
    (
        block(one("search", query="rust", limit="10")),
        False,
        None,
        msg("", (call("search", {"query": "rust", "limit": "10"}),)),
    ),
    # Two calls; JSON for an object, a bool, a number that stays text where the schema says string.
    (
        block(
            one("search", query="2024", exact="true", filters='{"lang": "en"}'),
            one("get_time"),
        )
        + EOT,
        False,
        TOOLS,
        msg(
            "",
            (
                call("search", {"query": "2024", "exact": True, "filters": {"lang": "en"}}),
                call("get_time", {}),
            ),
        ),
    ),
    # A closer left out; the calls left open when the turn ended.
    (
        f'{BEGIN}{CALL}function{SEP}<steptml:invoke name="search">'
        '<steptml:parameter name="query">rust\n'
        '<steptml:parameter name="limit">5</steptml:parameter>'
        f"</steptml:invoke>{CALL_END}{EOT}",
        False,
        TOOLS,
        msg("", (call("search", {"query": "rust", "limit": 5}),)),
    ),
    # A <think> written at the start; an answer only.
    ("<think>Easy.</think>Paris." + EOT, False, None, msg("Paris.", thinking="Easy.")),
]


@pytest.mark.parametrize(("text", "in_thinking", "tools", "expected"), READS)
def test_realistic_generations(text: str, in_thinking: bool, tools: Any, expected: Any) -> None:
    assert_reads(S, text, expected, in_thinking=in_thinking, tools=tools)


HEAD = f"Checking.{BEGIN}"
OPEN = f'{CALL}function{SEP}<steptml:invoke name="search">'
FAILS = [
    (HEAD + OPEN + '<steptml:parameter name="query">ru', "cut off in a parameter", len(HEAD)),
    (HEAD + f"{CALL}function{SEP}", "cut off after its separator", len(HEAD)),
    (HEAD + f"{CALL}funct", "cut off", len(HEAD)),
    (HEAD + OPEN, "cut off before its </steptml:invoke>", len(HEAD)),
    (HEAD + f"{CALL}code{SEP}x", "a call of type 'code'", len(HEAD)),
    (
        HEAD + f'{CALL}function{SEP}{{"name": "search"}}',
        "does not hold a <steptml:invoke",
        len(HEAD + CALL + "function" + SEP),
    ),
    (HEAD + "junk", f"expected {CALL} or {END}", len(HEAD)),
    (
        HEAD + OPEN + "</steptml:invoke>junk",
        f"other than {CALL_END}",
        len(HEAD + OPEN + "</steptml:invoke>"),
    ),
    ("Done." + END, f"a {END} with no call begun", 5),
]


@pytest.mark.parametrize(("text", "reason", "offset"), FAILS)
def test_what_cannot_be_read_raises_where_it_is(text: str, reason: str, offset: int) -> None:
    kept = assert_fails(S, text, reason, offset)
    if text.startswith("Checking.") and not kept.tool_calls:
        assert kept.content.startswith("Checking." + BEGIN)


def test_a_call_to_a_tool_not_offered() -> None:
    text = block(one("rm_rf"))
    assert_fails(
        S,
        text,
        "a call to 'rm_rf', which is not among the tools offered",
        len(BEGIN) + 1,
        tools=TOOLS,
    )


CASES = [(case[0], case[1], case[2]) for case in READS] + [(c[0], False, None) for c in FAILS]


@settings(max_examples=examples(200, 80))
@given(st.sampled_from(CASES), CUTS)
def test_any_split_streams_the_same(case: tuple[str, bool, Any], cuts: list[int]) -> None:
    text, in_thinking, tools = case
    any_split(S, text, cuts, in_thinking=in_thinking, tools=tools)


@pytest.mark.parametrize(
    "closer", ["</steptml:parameter1>", "</steptml:parameter", "</steptml:param>", ""]
)
def test_a_wrong_or_missing_closer_ends_the_value_at_the_next_parameter(closer: str) -> None:
    text = block(
        f'{CALL}function{SEP}<steptml:invoke name="search">\n'
        f'<steptml:parameter name="query">rust{closer}\n'
        '<steptml:parameter name="limit">5</steptml:parameter>\n'
        f"</steptml:invoke>{CALL_END}"
    )
    assert_reads(S, text, msg("", (call("search", {"query": "rust", "limit": 5}),)), tools=TOOLS)
