"""The ``"kimi_vl"`` style: Kimi-VL and Kimi 1.5, reasoning in ``◁think▷``.

Generations written from Kimi-VL's chat template (no tools; the generation
prompt is ``<|im_assistant|>assistant<|im_middle|>``; a turn ends on
``<|im_end|>``) and from SGLang's and vLLM's Kimi-VL reasoning parser
tests (``◁think▷...◁/think▷`` at the start, the thinking model's block
left open when the text is cut off).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from style_checks import CUTS, any_split, assert_fails, assert_reads, msg

S = "kimi_vl"
OPEN = "\u25c1think\u25b7"
CLOSE = "\u25c1/think\u25b7"

READS: list[tuple[str, bool, object]] = [
    (
        f"{OPEN}The picture shows a cat on a mat.\nIt is grey.{CLOSE}It is a grey cat.<|im_end|>",
        False,
        msg("It is a grey cat.", thinking="The picture shows a cat on a mat.\nIt is grey."),
    ),
    # The Instruct model: an answer only.
    ("A cat on a mat.<|im_end|>", False, msg("A cat on a mat.")),
    # Cut off while thinking: all of it is reasoning.
    (f"{OPEN}Counting the apples: one, two", False, msg(thinking="Counting the apples: one, two")),
    # A prompt that opened the block.
    (f"Three apples.{CLOSE}\n\nThree.<|im_end|>", True, msg("Three.", thinking="Three apples.")),
    # ◁think▷ later in the answer is text; so is <think>, which is not this family's.
    (f"Write {OPEN} to think.", False, msg(f"Write {OPEN} to think.")),
    ("<think>x</think>y", False, msg("<think>x</think>y")),
]


@pytest.mark.parametrize(("text", "in_thinking", "expected"), READS)
def test_realistic_generations(text: str, in_thinking: bool, expected: Any) -> None:
    assert_reads(S, text, expected, in_thinking=in_thinking)


def test_no_calls_are_read_and_another_familys_markup_is_named() -> None:
    text = (
        "Sure.<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
        "<|tool_call_argument_begin|>{}"
    )
    kept = assert_fails(S, text, "as kimi_k2 writes it", 5)
    assert kept.content == text and not kept.tool_calls


CASES = [(case[0], case[1]) for case in READS]


@settings(max_examples=examples(100, 40))
@given(st.sampled_from(CASES), CUTS)
def test_any_split_streams_the_same(case: tuple[str, bool], cuts: list[int]) -> None:
    text, in_thinking = case
    any_split(S, text, cuts, in_thinking=in_thinking)
