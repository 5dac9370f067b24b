"""The ``"harmony"`` style: gpt-oss's messages on channels.

Generations written from gpt-oss's chat template (the generation prompt
ends with ``<|start|>assistant``; a past call is written
``<|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>``)
and from vLLM's harmony parser tests (the recipient after the channel, with
``<|constrain|>json``; several calls; empty arguments; a preamble on the
commentary channel).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convtypes.dialects import ToolSpec
from convtypes.dialects.chat_template import opens_thinking

from budget import examples
from style_checks import CUTS, any_split, assert_fails, assert_reads, call, msg

S = "harmony"
WEATHER = '{"location": "Tokyo"}'

READS = [
    # Reasoning, then a call, recipient after the channel (the model's usual form).
    (
        '<|channel|>analysis<|message|>User asks: "What is the weather in Tokyo?" We need to '
        "use get_current_weather.<|end|><|start|>assistant<|channel|>commentary "
        "to=functions.get_current_weather <|constrain|>json<|message|>" + WEATHER + "<|call|>",
        False,
        msg(
            "",
            (call("get_current_weather", {"location": "Tokyo"}),),
            'User asks: "What is the weather in Tokyo?" We need to use get_current_weather.',
        ),
    ),
    # The recipient before the channel, as the template writes a past call; the
    # generation continues the prompt's "<|start|>assistant".
    (
        ' to=functions.get_current_weather<|channel|>commentary json<|message|>{\n"location": '
        '"Tokyo"\n}<|call|>',
        False,
        msg("", (call("get_current_weather", {"location": "Tokyo"}),)),
    ),
    # Reasoning, then the answer on the final channel.
    (
        "<|channel|>analysis<|message|>Simple arithmetic.<|end|><|start|>assistant<|channel|>"
        "final<|message|>2 + 2 = **4**.<|return|>",
        False,
        msg("2 + 2 = **4**.", thinking="Simple arithmetic."),
    ),
    ("<|channel|>final<|message|>Paris.<|return|>", False, msg("Paris.")),
    # A preamble to the user on the commentary channel, then two calls; the last
    # stop token is missing, as when the engine leaves it out.
    (
        "<|channel|>analysis<|message|>Need both.<|end|><|start|>assistant<|channel|>commentary"
        "<|message|>Let me look both up.<|end|><|start|>assistant<|channel|>commentary "
        "to=functions.get_current_weather <|constrain|>json<|message|>" + WEATHER + "<|call|>"
        "<|start|>assistant<|channel|>commentary to=functions.get_user_location <|constrain|>"
        'json<|message|>{"precise": true, "n": 123456789012345678901234567890}',
        False,
        msg(
            "Let me look both up.",
            (
                call("get_current_weather", {"location": "Tokyo"}),
                call("get_user_location", {"precise": True, "n": 123456789012345678901234567890}),
            ),
            "Need both.",
        ),
    ),
    # Empty arguments, and none at all.
    (
        "<|channel|>commentary to=functions.empty_args <|constrain|>json<|message|>{}<|call|>"
        "<|start|>assistant<|channel|>commentary to=functions.no_args json<|message|><|call|>",
        False,
        msg("", (call("empty_args", {}), call("no_args", {}))),
    ),
    # A built-in tool's call (the browser, on the analysis channel) keeps its recipient.
    (
        "<|channel|>analysis<|message|>Search.<|end|><|start|>assistant<|channel|>analysis "
        'to=browser.search code<|message|>{"query": "gpt-oss"}<|call|>',
        False,
        msg("", (call("browser.search", {"query": "gpt-oss"}),), "Search."),
    ),
    # Two reasoning messages, and answers, are runs joined by a blank line.
    (
        "<|channel|>analysis<|message|>First.<|end|><|start|>assistant<|channel|>analysis"
        "<|message|>Second.<|end|><|start|>assistant<|channel|>final<|message|>Done.<|return|>"
        "<|endoftext|>",
        False,
        msg("Done.", thinking="First.\n\nSecond."),
    ),
    # A message left without <|end|>: the next header ends it.
    (
        "<|channel|>analysis<|message|>Hmm.<|start|>assistant<|channel|>final<|message|>Yes.",
        False,
        msg("Yes.", thinking="Hmm."),
    ),
    # The prompt opened the analysis message (a prefill): the generation starts in it.
    (
        "still thinking.<|end|><|start|>assistant<|channel|>final<|message|>Done.",
        True,
        msg("Done.", thinking="still thinking."),
    ),
    # Cut off at max_tokens inside reasoning, and inside a header: what came is kept.
    ("<|channel|>analysis<|message|>Let me", False, msg(thinking="Let me")),
    (
        "<|channel|>analysis<|message|>Ok.<|end|><|start|>assistant<|chan",
        False,
        msg(thinking="Ok."),
    ),
    # Decoded with the special tokens skipped, the channels are gone: text.
    ("analysisThinking.assistantfinalParis.", False, msg("analysisThinking.assistantfinalParis.")),
]


@pytest.mark.parametrize(("text", "in_thinking", "expected"), READS)
def test_realistic_generations(text: str, in_thinking: bool, expected: object) -> None:
    assert_reads(S, text, expected, in_thinking=in_thinking)  # type: ignore[arg-type]


CALL_HEAD = "<|channel|>analysis<|message|>Check.<|end|><|start|>assistant<|channel|>commentary "

FAILS = [
    # Cut off at max_tokens in the arguments: an error at the message's start.
    (
        CALL_HEAD + 'to=functions.get_weather <|constrain|>json<|message|>{"location": "Tok',
        "the tool call is cut off",
        43,
    ),
    (CALL_HEAD + "to=functions.get_we", "the tool call is cut off in its header", 43),
    (
        CALL_HEAD
        + "to=functions.get_weather <|constrain|>json<|message|>{location: Tokyo}<|call|>",
        "the call's arguments cannot be read: arguments are not valid JSON",
        43,
    ),
    (
        CALL_HEAD + "to=functions.get_weather json<|message|>[1, 2]<|call|>",
        "arguments are JSON but not an object",
        43,
    ),
    (
        "<|channel|>analysis to=python code<|message|>print(1 + 1)<|call|>",
        "a call to 'python' whose content is 'code', not JSON",
        0,
    ),
    (
        "Sure.<|start|>assistant<|channel|>final<|end|>",
        "a message header that ends with <|end|>, not <|message|>",
        5,
    ),
]


@pytest.mark.parametrize(("text", "reason", "offset"), FAILS)
def test_what_cannot_be_read_raises_where_it_is(text: str, reason: str, offset: int) -> None:
    assert CALL_HEAD.index("<|start|>") == 43
    kept = assert_fails(S, text, reason, offset)
    # Kept as text, the reasoning before it is kept too, and the call's text is the answer's.
    assert not kept.tool_calls
    if text.startswith(CALL_HEAD):
        assert kept.thinking[0].text == "Check."
        assert kept.content.startswith("<|start|>assistant<|channel|>commentary to=functions.")


def test_a_call_to_a_tool_not_offered() -> None:
    text = CALL_HEAD + "to=functions.rm_rf json<|message|>{}<|call|>"
    tools = [ToolSpec(name="get_weather")]
    assert_fails(
        S, text, "a call to 'rm_rf', which is not among the tools offered", 43, tools=tools
    )


def test_the_prompt_that_opens_an_analysis_message() -> None:
    assert opens_thinking("<|start|>assistant<|channel|>analysis<|message|>")
    assert not opens_thinking("<|start|>assistant")


@settings(max_examples=examples(200, 80))
@given(st.sampled_from([case[:2] for case in READS] + [(c[0], False) for c in FAILS]), CUTS)
def test_any_split_streams_the_same(case: tuple[str, bool], cuts: list[int]) -> None:
    text, in_thinking = case
    any_split(S, text, cuts, in_thinking=in_thinking)
