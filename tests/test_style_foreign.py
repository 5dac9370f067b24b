"""Another family's call markup is never the answer's text in silence.

Each sample is a call as one family writes it, after a line of text. Read
with any other style that does not read that family's opening token as
its own, ``on_error="raise"`` raises ``OutputError`` at the token, naming
the family; ``on_error="text"`` keeps the markup as the answer's text.
Streamed in small pieces, both agree with the whole text.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convtypes.dialects import _output_style as styles
from convtypes.dialects._output_cursor import Tags
from convtypes.dialects.chat_template import (
    STYLES,
    Cursor,
    OutputError,
    Reading,
    parse_output,
    register_style,
)

from budget import examples
from style_checks import outcome, split

LEAD = "Let me check.\n"

# (family, its opening token, a call as the family writes it, beginning with that token)
SAMPLES: list[tuple[str, str, str]] = [
    ("hermes", "<tool_call>", '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>'),
    (
        "qwen3_coder",
        "<function=",
        "<function=f>\n<parameter=a>\n1\n</parameter>\n</function>",
    ),
    (
        "qwen3_coder",
        "<seed:tool_call>",
        "<seed:tool_call><function=f><parameter=a>1</parameter></function></seed:tool_call>",
    ),
    ("mistral", "[TOOL_CALLS]", '[TOOL_CALLS]f[ARGS]{"a": 1}'),
    ("llama3", "<|python_tag|>", '<|python_tag|>{"name": "f", "parameters": {"a": 1}}'),
    ("pythonic", "<|tool_call_start|>", "<|tool_call_start|>[f(a=1)]<|tool_call_end|>"),
    ("pythonic", "<|python_start|>", "<|python_start|>[f(a=1)]<|python_end|>"),
    (
        "deepseek",
        "<\uff5ctool\u2581calls\u2581begin\uff5c>",
        "<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin\uff5c>f"
        '<\uff5ctool\u2581sep\uff5c>{"a": 1}<\uff5ctool\u2581call\u2581end\uff5c>'
        "<\uff5ctool\u2581calls\u2581end\uff5c>",
    ),
    (
        "harmony",
        "<|channel|>",
        '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1}<|call|>',
    ),
    (
        "kimi_k2",
        "<|tool_calls_section_begin|>",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
        '<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|><|tool_calls_section_end|>',
    ),
    ("granite", "<|tool_call|>", '<|tool_call|>[{"name": "f", "arguments": {"a": 1}}]'),
    (
        "phi4_mini",
        "<|tool_call|>",
        '<|tool_call|>{"name": "f", "arguments": {"a": 1}}<|/tool_call|>',
    ),
    (
        "kimi_k2",
        "<|tool_call_begin|>",
        '<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|>',
    ),
    (
        "deepseek",
        "<\uff5ctool\u2581call\u2581begin\uff5c>",
        "<\uff5ctool\u2581call\u2581begin\uff5c>f"
        '<\uff5ctool\u2581sep\uff5c>{"a": 1}<\uff5ctool\u2581call\u2581end\uff5c>',
    ),
    ("nemotron", "<TOOLCALL>", '<TOOLCALL>[{"name": "f", "arguments": {"a": 1}}]</TOOLCALL>'),
    (
        "minimax",
        "<minimax:tool_call>",
        '<minimax:tool_call>\n<invoke name="f">\n<parameter name="a">1</parameter>\n</invoke>\n'
        "</minimax:tool_call>",
    ),
    (
        "minimax",
        "<tool_calls>",
        '<tool_calls>\n{"name": "f", "arguments": {"a": 1}}\n</tool_calls>',
    ),
    (
        "command_r",
        "<|START_ACTION|>",
        '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {"a": 1}}]'
        "<|END_ACTION|>",
    ),
    (
        "glm45",
        "<tool_call>",
        "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
    ),
    (
        "deepseek_dsml",
        "<\uff5cDSML\uff5cfunction_calls>",
        '<\uff5cDSML\uff5cfunction_calls>\n<\uff5cDSML\uff5cinvoke name="f">\n'
        '<\uff5cDSML\uff5cparameter name="a" string="false">1</\uff5cDSML\uff5cparameter>\n'
        "</\uff5cDSML\uff5cinvoke>\n</\uff5cDSML\uff5cfunction_calls>",
    ),
    (
        "deepseek_dsml",
        "<\uff5cDSML\uff5ctool_calls>",
        '<\uff5cDSML\uff5ctool_calls>\n<\uff5cDSML\uff5cinvoke name="f">\n'
        '<\uff5cDSML\uff5cparameter name="a" string="false">1</\uff5cDSML\uff5cparameter>\n'
        "</\uff5cDSML\uff5cinvoke>\n</\uff5cDSML\uff5ctool_calls>",
    ),
    ("gemma4", "<|tool_call>", "<|tool_call>call:f{a:1}<tool_call|>"),
    (
        "step3",
        "<\uff5ctool_calls_begin\uff5c>",
        "<\uff5ctool_calls_begin\uff5c><\uff5ctool_call_begin\uff5c>function<\uff5ctool_sep\uff5c>"
        '<steptml:invoke name="f"><steptml:parameter name="a">1</steptml:parameter>'
        "</steptml:invoke><\uff5ctool_call_end\uff5c><\uff5ctool_calls_end\uff5c>",
    ),
    (
        "step3",
        "<\uff5ctool_call_begin\uff5c>",
        "<\uff5ctool_call_begin\uff5c>function<\uff5ctool_sep\uff5c>"
        '<steptml:invoke name="f"><steptml:parameter name="a">1</steptml:parameter>'
        "</steptml:invoke><\uff5ctool_call_end\uff5c>",
    ),
]

PAIRS = [
    (style, family, token, markup)
    for family, token, markup in SAMPLES
    for style in STYLES
    if style != family and token not in styles.get_style(style).own
]


def test_every_family_and_every_opening_token_has_a_sample() -> None:
    # Kimi-VL writes no calls: it has no opening token to be known by.
    assert {family for family, _, _ in SAMPLES} == set(styles.BUILTIN_OPENS) - {"kimi_vl"}
    tokens = {token for tokens in styles.BUILTIN_OPENS.values() for token in tokens}
    assert tokens == {token for _, token, _ in SAMPLES}


def test_the_written_out_opening_tokens_are_the_styles_own() -> None:
    assert {name: styles.get_style(name).opens for name in STYLES} == dict(styles.BUILTIN_OPENS)


@pytest.mark.parametrize(("style", "family", "token", "markup"), PAIRS)
def test_another_familys_markup_raises_naming_it(
    style: str, family: str, token: str, markup: str
) -> None:
    text = LEAD + markup
    with pytest.raises(OutputError) as caught:
        parse_output(text, style=style)
    assert family in str(caught.value) and token in str(caught.value)
    assert caught.value.offset == len(LEAD)
    pieces = split(text, range(0, len(text), 3))
    assert outcome(style, pieces) == ("error", (str(caught.value), len(LEAD)))
    kept = parse_output(text, style=style, on_error="text")
    assert token in kept.content and kept.content.startswith("Let me check.")
    assert outcome(style, pieces, on_error="text") == ("ok", kept)


def test_each_style_is_tried_against_most_families() -> None:
    # Only a family whose opening token the style reads as its own is left out.
    for style in STYLES:
        if style == "kimi_vl":
            continue  # tried, below, with every family
        families = {family for s, family, _, _ in PAIRS if s == style}
        assert len(families) >= len(STYLES) - 6, (style, families)


def read_nothing(cur: Cursor, marker: str) -> Reading:
    yield from cur.skip_space()


def test_a_style_that_writes_no_calls_flags_every_family() -> None:
    assert {family for s, family, _, _ in PAIRS if s == "kimi_vl"} == set(styles.BUILTIN_OPENS) - {
        "kimi_vl"
    }


def test_a_registered_style_is_known_by_its_opening_token() -> None:
    register_style("test_acme", calls={"<<acme-call>>": read_nothing})
    try:
        with pytest.raises(OutputError, match="as test_acme writes it"):
            parse_output("Hi <<acme-call>>", style="hermes")
        # A style may keep its markers to itself.
        register_style("test_quiet", calls={"<<quiet-call>>": read_nothing}, opens=())
        assert parse_output("Hi <<quiet-call>>", style="hermes").content == "Hi <<quiet-call>>"
    finally:
        styles._REGISTERED.pop("test_acme")
        styles._REGISTERED.pop("test_quiet", None)


@settings(max_examples=examples(300, 100))
@given(
    st.lists(st.text("<|ab>", min_size=1, max_size=4), min_size=5, max_size=12, unique=True),
    st.text("<|ab> ", max_size=60),
    st.integers(0, 10),
)
def test_many_tags_are_found_as_a_search_per_tag_finds_them(
    tags: list[str], text: str, start: int
) -> None:
    # With many tags (another family's beside a style's own) the search hops
    # from one first character to the next; it must find what a search per
    # tag finds: the earliest whole tag, the longest at one place.
    found = Tags(tuple(tags))
    assert found._earliest(text, start) == found._each(text, start)
