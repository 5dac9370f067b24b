"""Every built-in style on generations made of its own tags in random order.

A model's text can be anything, and a style sees its own tags in every
wrong place: cut off, doubled, inside strings, around broken JSON. For
any such text, each style raises only ``OutputError`` (nothing of Python's
own leaks), keeps it all as text with ``on_error="text"`` rather than
raise, and reads any split of it as it reads the whole.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from convtypes.dialects.chat_template import STYLES, OutputError, parse_output

from budget import examples
from style_checks import any_split

# Pieces every family's text is made of, and each style's own tags.
COMMON = [
    " ", "\n", "text", '"', "'", "\\", "{", "}", "[", "]", "(", ")", ",", ":", "=", "1", "-2.5",
    '"k"', '"name"', '"arguments"', '{"name": "f", "arguments": {"a": 1}}', "true", "None",
    "<think>", "</think>", "<|im_end|>", "</s>", "<", ">", "f(", "x=1",
]  # fmt: skip
TAGS: dict[str, list[str]] = {
    "hermes": ["<tool_call>", "</tool_call>"],
    "llama3": ["<|python_tag|>", ";", '"parameters"', "<|eom_id|>"],
    "mistral": ["[TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "[THINK]", "[/THINK]", "abcdefghi"],
    "harmony": [
        "<|start|>", "assistant", "<|channel|>", "analysis", "final", "commentary",
        " to=functions.f", "<|constrain|>json", "<|message|>", "<|end|>", "<|call|>", "<|return|>",
    ],
    "qwen3_coder": [
        "<tool_call>", "</tool_call>", "<function=f>", "</function>", "<parameter=a>",
        "</parameter>", "<seed:tool_call>", "</seed:tool_call>", "<seed:think>", "</seed:think>",
    ],
    "glm45": ["<tool_call>", "</tool_call>", "f\n", "<arg_key>", "</arg_key>", "<arg_value>",
              "</arg_value>", "<|observation|>"],
    "pythonic": ["[f(", "g(", "x=", "'s'", '"""', "True", "<|python_start|>", "<|python_end|>",
                 "<|tool_call_start|>", "<|tool_call_end|>"],
    "deepseek": [
        "<\uff5ctool\u2581calls\u2581begin\uff5c>", "<\uff5ctool\u2581calls\u2581end\uff5c>",
        "<\uff5ctool\u2581call\u2581begin\uff5c>", "<\uff5ctool\u2581call\u2581end\uff5c>",
        "<\uff5ctool\u2581sep\uff5c>", "function", "```json\n", "```",
        "<\uff5cend\u2581of\u2581sentence\uff5c>",
    ],
    "kimi_k2": [
        "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>", "<|tool_call_begin|>",
        "<|tool_call_argument_begin|>", "<|tool_call_end|>", "functions.f:0", "0", "<|im_end|>",
    ],
    "granite": [
        "<|tool_call|>", "<tool_call>", "</tool_call>", "<response>", "</response>",
        "Here is my thought process:", "Here's my response:", '[{"name": "f", "arguments": {}}]',
        "<|end_of_text|>",
    ],
    "nemotron": ["<TOOLCALL>", "</TOOLCALL>", '[{"name": "f", "arguments": "{}"}]', "<SPECIAL_12>"],
    "minimax": [
        "<tool_calls>", "</tool_calls>", "<minimax:tool_call>", "</minimax:tool_call>",
        '<invoke name="f">', "</invoke>", '<parameter name="a">', "</parameter>", "[e~[", "~[",
        "<end_of_sentence>",
    ],
    "command_r": [
        "<|START_THINKING|>", "<|END_THINKING|>", "<|START_ACTION|>", "<|END_ACTION|>",
        "<|START_RESPONSE|>", "<|END_RESPONSE|>", '{"tool_call_id": "0", "tool_name": "f"}',
        "<|END_OF_TURN_TOKEN|>",
    ],
    "phi4_mini": ["functools[", "functools", "<|tool_call|>", "<|/tool_call|>", "<|end|>"],
    "deepseek_dsml": [
        "<\uff5cDSML\uff5cfunction_calls>", "</\uff5cDSML\uff5cfunction_calls>",
        "<\uff5cDSML\uff5ctool_calls>", "</\uff5cDSML\uff5ctool_calls>",
        '<\uff5cDSML\uff5cinvoke name="f">', "</\uff5cDSML\uff5cinvoke>",
        '<\uff5cDSML\uff5cparameter name="a" string="true">',
        '<\uff5cDSML\uff5cparameter name="b" string="false">',
        "</\uff5cDSML\uff5cparameter>", "<\uff5cend\u2581of\u2581sentence\uff5c>",
    ],
    "gemma4": [
        "<|tool_call>", "<tool_call|>", "call:f", "{a:", '<|"|>', "[1,", "true",
        "<|channel>thought", "<channel|>", "<turn|>", "<|tool_response>",
    ],
    "step3": [
        "<\uff5ctool_calls_begin\uff5c>", "<\uff5ctool_calls_end\uff5c>",
        "<\uff5ctool_call_begin\uff5c>", "<\uff5ctool_call_end\uff5c>", "<\uff5ctool_sep\uff5c>",
        "function", '<steptml:invoke name="f">', "</steptml:invoke>",
        '<steptml:parameter name="a">', "</steptml:parameter>", "<|EOT|>",
    ],
    "kimi_vl": ["\u25c1think\u25b7", "\u25c1/think\u25b7", "<|im_end|>"],
}  # fmt: skip


@st.composite
def generations(draw: st.DrawFn) -> tuple[str, str]:
    style = draw(st.sampled_from(sorted(TAGS)))
    pieces = draw(st.lists(st.sampled_from(COMMON + TAGS[style] * 3), max_size=24))
    return style, "".join(pieces)


def test_every_builtin_style_is_fuzzed() -> None:
    assert set(STYLES) <= set(TAGS)


@settings(max_examples=examples(1500, 300))
@given(generations(), st.booleans(), st.lists(st.integers(0, 200), max_size=6))
def test_nothing_but_output_error_and_any_split_agrees(
    case: tuple[str, str], in_thinking: bool, cuts: list[int]
) -> None:
    style, text = case
    try:
        parse_output(text, style=style, in_thinking=in_thinking)
    except OutputError:
        pass
    kept: Any = parse_output(text, style=style, in_thinking=in_thinking, on_error="text")
    assert kept is not None
    any_split(style, text, cuts, in_thinking=in_thinking)
