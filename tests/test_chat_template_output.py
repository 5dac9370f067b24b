"""``chat_template.parse_output`` and ``OutputStream``: a raw generation back into a message.

The generations here are written from each family's documented format (the
model cards' and templates' own examples: Qwen and Hermes ``<tool_call>``
blocks, Llama's JSON calls, Mistral's ``[TOOL_CALLS]`` in its three forms,
reasoning in ``<think>`` and ``[THINK]``), with the message each must give
written out by hand.
"""

from __future__ import annotations

import json
import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import convtypes as ct
from convtypes.dialects import TextDelta, ThinkingDelta, ToolCallDelta, ToolCallStart, ToolSpec
from convtypes.dialects.chat_template import (
    OutputError,
    OutputStream,
    opens_thinking,
    parse_output,
)

from budget import examples


def msg(
    content: str = "", calls: tuple[ct.ToolCall, ...] = (), thinking: str = ""
) -> ct.AssistantMessage:
    blocks = (ct.ThinkingBlock(text=thinking),) if thinking else ()
    return ct.AssistantMessage(content=content, tool_calls=calls, thinking=blocks)


def call(name: str, arguments: dict[str, Any], call_id: str | None = None) -> ct.ToolCall:
    return ct.ToolCall(id=call_id, name=name, arguments=arguments)


BIG = 123456789012345678901234567890

# (style, in_thinking, generation, message)
DOCUMENTED: list[tuple[str, bool, str, ct.AssistantMessage]] = [
    # Qwen2.5: calls in <tool_call> blocks, one JSON object each, after the text.
    (
        "hermes",
        False,
        'Let me check both.\n<tool_call>\n{"name": "get_current_temperature", "arguments": '
        '{"location": "San Francisco, CA, USA", "unit": "celsius"}}\n</tool_call>\n<tool_call>\n'
        '{"name": "get_temperature_date", "arguments": {"location": "San Francisco, CA, USA", '
        '"date": "2024-10-01"}}\n</tool_call>',
        msg(
            "Let me check both.",
            (
                call(
                    "get_current_temperature",
                    {"location": "San Francisco, CA, USA", "unit": "celsius"},
                ),
                call(
                    "get_temperature_date",
                    {"location": "San Francisco, CA, USA", "date": "2024-10-01"},
                ),
            ),
        ),
    ),
    # Qwen3: reasoning first, then the call; the decode kept <|im_end|>.
    (
        "hermes",
        False,
        "<think>\nThe user wants the weather. I'll call the tool.\n</think>\n\n<tool_call>\n"
        '{"name": "get_weather", "arguments": {"city": "Oslo", "days": 3}}\n</tool_call><|im_end|>',
        msg(
            "",
            (call("get_weather", {"city": "Oslo", "days": 3}),),
            "The user wants the weather. I'll call the tool.",
        ),
    ),
    # Qwen3 with thinking switched off: an empty block, then the answer.
    ("hermes", False, "<think>\n\n</think>\n\nParis.", msg("Paris.")),
    # Hermes 2 Pro: "arguments" before "name", and a big integer.
    (
        "hermes",
        False,
        '<tool_call>\n{"arguments": {"symbol": "TSLA", "shares": ' + str(BIG) + "}, "
        '"name": "get_stock_fundamentals"}\n</tool_call>',
        msg("", (call("get_stock_fundamentals", {"symbol": "TSLA", "shares": BIG}),)),
    ),
    # QwQ and DeepSeek-R1: the prompt opened <think>, the generation closes it.
    (
        "hermes",
        True,
        "Okay, so 2 + 2.\nThat is 4.\n</think>\n\nThe answer is **4**.",
        msg("The answer is **4**.", thinking="Okay, so 2 + 2.\nThat is 4."),
    ),
    # R1 sometimes writes the opening tag again.
    ("hermes", True, "<think>\nHmm.\n</think>\nYes.", msg("Yes.", thinking="Hmm.")),
    # Llama 3.1: a custom tool call is the whole answer.
    (
        "llama3",
        False,
        '{"name": "get_current_conditions", "parameters": {"location": "San Francisco, CA", '
        '"unit": "Fahrenheit"}}',
        msg(
            "",
            (
                call(
                    "get_current_conditions",
                    {"location": "San Francisco, CA", "unit": "Fahrenheit"},
                ),
            ),
        ),
    ),
    # Llama 3.x after <|python_tag|>, with "arguments", two calls joined by ';'.
    (
        "llama3",
        False,
        '<|python_tag|>{"name": "search", "arguments": {"q": "a"}}; '
        '{"type": "function", "name": "fetch", "parameters": {"url": "https://x.org"}}<|eom_id|>',
        msg(
            "",
            (call("search", {"q": "a"}), call("fetch", {"url": "https://x.org"})),
        ),
    ),
    # Llama: an answer that is JSON but not a call is text.
    ("llama3", False, '{"city": "Oslo", "temp": 4}', msg('{"city": "Oslo", "temp": 4}')),
    ("llama3", False, "The weather is fine.<|eot_id|>", msg("The weather is fine.")),
    # Mistral Nemo (v3): a JSON list of calls with nine-character ids.
    (
        "mistral",
        False,
        '[TOOL_CALLS][{"name": "get_current_weather", "arguments": {"location": "Paris, France", '
        '"format": "celsius"}, "id": "9Vl7YAJMz"}]</s>',
        msg(
            "",
            (
                call(
                    "get_current_weather",
                    {"location": "Paris, France", "format": "celsius"},
                    "9Vl7YAJMz",
                ),
            ),
        ),
    ),
    # Ministral 3 (v11): name[ARGS]{...}, one [TOOL_CALLS] per call, after text.
    (
        "mistral",
        False,
        'I will look both up.[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}'
        '[TOOL_CALLS]get_time[ARGS]{"zone": "CET", "n": ' + str(-BIG) + "}</s>",
        msg(
            "I will look both up.",
            (call("get_weather", {"city": "Paris"}), call("get_time", {"zone": "CET", "n": -BIG})),
        ),
    ),
    # Mistral Small 3.2: name[CALL_ID]id[ARGS]{...}.
    (
        "mistral",
        False,
        '[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{"city": "Paris", "unit": "C"}',
        msg("", (call("get_weather", {"city": "Paris", "unit": "C"}, "a1B2c3D4e"),)),
    ),
    # Magistral / Ministral reasoning: [THINK] ... [/THINK].
    (
        "mistral",
        False,
        "[THINK]The user greets me.[/THINK]Hello! How can I help?",
        msg("Hello! How can I help?", thinking="The user greets me."),
    ),
]


@pytest.mark.parametrize(
    ("style", "in_thinking", "text", "expected"),
    DOCUMENTED,
    ids=[f"{n}-{case[0]}" for n, case in enumerate(DOCUMENTED)],
)
def test_documented_generations_read_back_exactly(
    style: Any, in_thinking: bool, text: str, expected: ct.AssistantMessage
) -> None:
    message = parse_output(text, style=style, in_thinking=in_thinking)
    assert message == expected
    # Key order is kept (equality of dicts does not look at it).
    for got, want in zip(message.tool_calls, expected.tool_calls, strict=True):
        assert list(got.arguments) == list(want.arguments)
    # Reasoning comes back unsigned: it was never a provider's signed block.
    assert all(block.signature is None for block in message.thinking)


def test_text_around_calls_is_kept() -> None:
    text = (
        "Before.\n<tool_call>\n"
        '{"name": "a", "arguments": {}}\n</tool_call>\n  After, with <b>tags</b>.  '
    )
    assert parse_output(text, style="hermes") == msg(
        "Before.\n\nAfter, with <b>tags</b>.", (call("a", {}),)
    )


def test_a_tag_inside_an_argument_string_is_text() -> None:
    # The call ends where its JSON ends, not at the first closing tag.
    text = (
        '<tool_call>{"name": "note", "arguments": {"text": "ends with </tool_call>"}}</tool_call>'
    )
    assert parse_output(text, style="hermes") == msg(
        "", (call("note", {"text": "ends with </tool_call>"}),)
    )
    mistral = '[TOOL_CALLS]note[ARGS]{"text": "[TOOL_CALLS]x[ARGS]{}"} done'
    assert parse_output(mistral, style="mistral") == msg(
        "done", (call("note", {"text": "[TOOL_CALLS]x[ARGS]{}"}),)
    )


def test_arguments_as_a_json_string_and_missing_arguments() -> None:
    text = (
        '<tool_call>{"name": "a", "arguments": "{\\"x\\": [1, 2]}"}</tool_call>'
        '<tool_call>{"name": "b"}</tool_call>'
    )
    assert parse_output(text, style="hermes") == msg("", (call("a", {"x": [1, 2]}), call("b", {})))


def test_a_last_call_left_open_is_read() -> None:
    # A stop sequence of </tool_call> leaves the last call open.
    text = '<tool_call>\n{"name": "a", "arguments": {"k": 1}}\n'
    assert parse_output(text, style="hermes") == msg("", (call("a", {"k": 1}),))
    ended = '<tool_call>\n{"name": "a", "arguments": {"k": 1}}<|im_end|>'
    assert parse_output(ended, style="hermes") == msg("", (call("a", {"k": 1}),))


def test_end_of_turn_tokens_only_at_the_very_end() -> None:
    assert parse_output("Hi<|im_end|><|endoftext|>\n", style="hermes") == msg("Hi")
    # In the middle it is text the model wrote (a strikethrough tag, say).
    assert parse_output("<s>old</s> new</s>", style="mistral") == msg("<s>old</s> new")
    assert parse_output("<think>cut short<|im_end|>", style="hermes") == msg(thinking="cut short")


def test_think_tags_are_only_special_at_the_start() -> None:
    text = "Use <think> and </think> tags."
    assert parse_output(text, style="hermes") == msg(text)
    # A prompt that opened thinking but was not said to: the reasoning is text.
    assert parse_output("hmm\n</think>\n\nYes", style="hermes") == msg("hmm\n</think>\n\nYes")


def test_a_generation_cut_inside_thinking() -> None:
    assert parse_output("<think>\nStill thinking", style="hermes") == msg(thinking="Still thinking")
    assert parse_output("Still thinking", style="hermes", in_thinking=True) == msg(
        thinking="Still thinking"
    )


def test_opens_thinking() -> None:
    assert opens_thinking("<|im_start|>assistant\n<think>\n")  # QwQ, Qwen3.5
    assert opens_thinking("<\uff5cAssistant\uff5c><think>\n")  # DeepSeek-R1
    assert not opens_thinking("<\uff5cAssistant\uff5c><think>\n</think>")  # thinking switched off
    assert not opens_thinking("<think>\nold\n</think>\n\nHi<|im_start|>assistant\n")
    assert opens_thinking("[INST]hi[/INST][THINK]")
    assert not opens_thinking("no tags at all")
    with pytest.raises(TypeError, match="prompt must be a str"):
        opens_thinking(b"<think>")  # type: ignore[arg-type]


# --- what cannot be read -------------------------------------------------------------

MALFORMED: list[tuple[str, str, str, int]] = [
    ("hermes", 'Sure.<tool_call>\n{"name": "f", "arguments": {"a": ', "is cut off", 5),
    ("hermes", '<tool_call>{"name": "f", "arguments": {a: 1}}</tool_call>', "not valid JSON", 0),
    (
        "hermes",
        '<tool_call>{"name": "f", "arguments": {"a": NaN}}</tool_call>',
        "not valid JSON",
        0,
    ),
    ("hermes", 'ok <tool_call>{"arguments": {}}</tool_call>', "has no name", 3),
    ("hermes", '<tool_call>{"name": "f", "arguments": [1]}</tool_call>', "not a JSON object", 0),
    ("hermes", '<tool_call>{"name": "f", "arguments": "{oops"}</tool_call>', "cannot be read", 0),
    ("hermes", '<tool_call>{"name": "f", "id": 7}</tool_call>', "id that is not text", 0),
    ("hermes", "x</tool_call>", "a </tool_call> with no <tool_call> before it", 1),
    ("hermes", "<tool_call>get_weather</tool_call>", "does not hold a JSON object", 0),
    ("hermes", "text <tool_call>  ", "a <tool_call> with nothing after it", 5),
    (
        "hermes",
        '<tool_call>{"name": "f", "arguments": {}} and then',
        "followed by something other than </tool_call>",
        42,
    ),
    ("llama3", '{"name": "f", "parameters": {"a": ', "is cut off", 0),
    ("llama3", '{"name": "f", "parameters": {"a" 1}}', "not valid JSON", 0),
    ("llama3", "<|python_tag|>brave_search.call(query='x')", "expected a JSON tool call after", 14),
    ("llama3", "<|python_tag|>", "<|python_tag|> with no tool call after it", 0),
    ("llama3", '{"name": "f", "parameters": {}}; maybe', "expected a JSON tool call after ';'", 33),
    ("llama3", '<|python_tag|>{"x": 1}', "has no name", 14),
    ("mistral", '[TOOL_CALLS]get_weather[FOO]{"a": 1}', "an unknown tag after the call's name", 23),
    ("mistral", "[TOOL_CALLS][ARGS]{}", "a tool call with no name", 0),
    ("mistral", "[TOOL_CALLS]get weather[ARGS]{}", "whose name holds white space", 0),
    ("mistral", "Sure [TOOL_CALLS]get_weather", "a tool call with no [ARGS]", 5),
    ("mistral", '[TOOL_CALLS]f[ARGS]{"a": 1', "is cut off", 0),
    ("mistral", "[TOOL_CALLS]f[ARGS][1]", "[ARGS] is not followed by a JSON object", 19),
    ("mistral", "[TOOL_CALLS]f[ARGS]", "is cut off after [ARGS]", 0),
    ("mistral", "[TOOL_CALLS][]", "not a list of calls", 0),
    ("mistral", '[TOOL_CALLS][{"arguments": {}}]', "has no name", 0),
    ("mistral", "[TOOL_CALLS]", "[TOOL_CALLS] with no call after it", 0),
    ("mistral", "[TOOL_CALLS]f[CALL_ID][ARGS]{}", "a tool call with an empty id", 0),
    ("mistral", "[TOOL_CALLS]f[CALL_ID]abc[FOO]{}", "unknown tag after the call's id", 25),
]


@pytest.mark.parametrize(
    ("style", "text", "reason", "offset"),
    MALFORMED,
    ids=[f"{n}-{case[0]}" for n, case in enumerate(MALFORMED)],
)
def test_a_malformed_generation_raises_output_error(
    style: Any, text: str, reason: str, offset: int
) -> None:
    with pytest.raises(OutputError) as caught:
        parse_output(text, style=style)
    assert reason in str(caught.value)
    assert caught.value.offset == offset
    assert str(caught.value).endswith(f"(at character {offset})")
    assert isinstance(caught.value, ValueError)


def test_arguments_too_deep_to_keep() -> None:
    deep = "[" * 200 + "]" * 200
    text = '<tool_call>{"name": "f", "arguments": {"a": ' + deep + "}}</tool_call>"
    with pytest.raises(OutputError, match="nests too deeply") as caught:
        parse_output(text, style="hermes")
    assert caught.value.__cause__ is None  # nothing of msgspec's leaks, not even as a cause
    with pytest.raises(OutputError, match="nest deeper"):
        parse_output("[TOOL_CALLS]f[ARGS]{" + '"a":' + deep + "}", style="mistral")


def test_wrong_arguments() -> None:
    with pytest.raises(ValueError, match=r'style= must be the name of a style \(.*"hermes"'):
        parse_output("x", style="qwen")
    with pytest.raises(TypeError, match="text must be the generated text, a str, not bytes"):
        parse_output(b"x", style="hermes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="in_thinking= must be True or False"):
        parse_output("x", style="hermes", in_thinking=1)  # type: ignore[arg-type]
    stream = OutputStream(style="hermes")
    with pytest.raises(TypeError, match="a chunk of generated text must be a str, not bytes"):
        stream.feed(b"x")  # type: ignore[arg-type]
    stream.finish()
    with pytest.raises(ValueError, match="already finished"):
        stream.feed("more")


# --- streaming -------------------------------------------------------------------------

CORPUS: list[tuple[str, bool, str]] = [
    (style, in_thinking, text) for style, in_thinking, text, _ in DOCUMENTED
] + [(style, False, text) for style, text, _, _ in MALFORMED]
CORPUS += [
    (
        "hermes",
        False,
        'Before.\n<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>\n After. ',
    ),
    ("hermes", False, '<tool_call>{"name": "a", "arguments": {"s": "a \\" } ] <tool_call> \\\\"}}'),
    ("hermes", False, "Hi<|im_end|><|endoftext|>\n"),
    ("hermes", False, "<think>cut short<|im_end|>"),
    ("hermes", True, "Still thinking about <think> and </thi"),
    ("llama3", False, '{"a": 1} then text <|python_tag|>{"name": "x", "arguments": {}};'),
    ("llama3", False, '  {"unclosed": [1, 2'),
    (
        "mistral",
        False,
        '<s>old</s> new</s> [THINK] not here [/THINK][TOOL_CALLS][{"name": "n", '
        '"arguments": "{\\"k\\": 1}", "id": "abcdefghi"}] tail',
    ),
    ("mistral", True, "no opener[/THINK]answer"),
]


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(cut, len(text)) for cut in cuts})
    pieces, start = [], 0
    for point in points:
        pieces.append(text[start:point])
        start = point
    pieces.append(text[start:])
    return pieces


def _outcome(run: Any) -> tuple[str, Any]:
    try:
        return ("ok", run())
    except OutputError as err:
        return ("error", (str(err), err.offset))


def _streamed(
    style: Any, in_thinking: bool, pieces: list[str]
) -> tuple[ct.AssistantMessage, list[Any]]:
    stream = OutputStream(style=style, in_thinking=in_thinking)
    deltas: list[Any] = []
    for piece in pieces:
        deltas += stream.feed(piece)
    deltas += stream.finish()
    return stream.result(), deltas


@settings(max_examples=examples(300, 120))
@given(st.sampled_from(CORPUS), st.lists(st.integers(0, 200), max_size=12))
def test_any_split_gives_the_same_message_or_error(
    case: tuple[str, bool, str], cuts: list[int]
) -> None:
    style, in_thinking, text = case
    whole = _outcome(lambda: parse_output(text, style=style, in_thinking=in_thinking))
    pieces = _split(text, cuts)
    streamed = _outcome(lambda: _streamed(style, in_thinking, pieces))
    if whole[0] == "error":
        assert streamed == whole
        return
    assert streamed[0] == "ok"
    message, deltas = streamed[1]
    assert message == whole[1]
    _check_deltas(message, deltas)


def _check_deltas(message: ct.AssistantMessage, deltas: list[Any]) -> None:
    """The deltas add up to the message: its text, its reasoning, its calls."""
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == message.content
    thinking = "".join(d.text for d in deltas if isinstance(d, ThinkingDelta))
    assert thinking == "".join(block.text for block in message.thinking)
    starts = [d for d in deltas if isinstance(d, ToolCallStart)]
    assert [(s.index, s.id, s.name) for s in starts] == [
        (n, c.id, c.name) for n, c in enumerate(message.tool_calls)
    ]
    for n, tool_call in enumerate(message.tool_calls):
        text = "".join(d.arguments for d in deltas if isinstance(d, ToolCallDelta) and d.index == n)
        assert json.loads(text) == tool_call.arguments


def test_every_single_split_point_and_char_by_char() -> None:
    # Exhaustive for the cases where one boundary matters: inside a tag, between
    # a backslash and what it escapes, between a JSON string's quote and a brace.
    for style, in_thinking, text in CORPUS:
        whole = _outcome(lambda: parse_output(text, style=style, in_thinking=in_thinking))  # noqa: B023
        splits = [[text[:at], text[at:]] for at in range(len(text) + 1)] + [list(text)]
        for pieces in splits:
            streamed = _outcome(lambda: _streamed(style, in_thinking, pieces))  # noqa: B023
            if whole[0] == "error":
                assert streamed == whole, (text, pieces)
            else:
                assert streamed[0] == "ok" and streamed[1][0] == whole[1], (text, pieces)


# Generated messages, written out in each syntax as the families write them.
_WORDS = st.text(string.ascii_letters + string.digits + " .,!?'\"é✓\n", min_size=1, max_size=30)
_NAMES = st.text(string.ascii_letters + string.digits + "_-", min_size=1, max_size=12)
_JSON: Any = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
_ARGUMENTS = st.dictionaries(st.text(max_size=6), _JSON, max_size=4)


def _write(style: str, message: ct.AssistantMessage, mistral_form: int) -> str:
    parts = []
    if message.thinking:
        opener, closer = ("[THINK]", "[/THINK]") if style == "mistral" else ("<think>", "</think>")
        parts.append(f"{opener}\n{message.thinking[0].text}\n{closer}\n\n")
    parts.append(message.content)
    calls = message.tool_calls
    if style == "hermes":
        for c in calls:
            body = json.dumps({"name": c.name, "arguments": c.arguments}, ensure_ascii=False)
            parts.append(f"\n<tool_call>\n{body}\n</tool_call>")
    elif style == "llama3" and calls:
        objects = [json.dumps({"name": c.name, "parameters": c.arguments}) for c in calls]
        parts.append("<|python_tag|>" + "; ".join(objects) + "<|eom_id|>")
    elif style == "mistral" and calls:
        if mistral_form == 0:
            listed = [{"name": c.name, "arguments": c.arguments, "id": c.id} for c in calls]
            parts.append("[TOOL_CALLS]" + json.dumps(listed))
        else:
            for c in calls:
                parts.append(f"[TOOL_CALLS]{c.name}[CALL_ID]{c.id}[ARGS]{json.dumps(c.arguments)}")
    return "".join(parts)


@st.composite
def _written(draw: st.DrawFn) -> tuple[str, ct.AssistantMessage, str]:
    style = draw(st.sampled_from(["hermes", "llama3", "mistral"]))
    content = draw(_WORDS).strip()
    thinking = draw(st.none() | _WORDS.map(str.strip).filter(bool))
    count = draw(st.integers(0, 3))
    ids = [f"{n}abcdefgh" for n in range(count)] if style == "mistral" else [None] * count
    calls = tuple(call(draw(_NAMES), draw(_ARGUMENTS), ids[n]) for n in range(count))
    if style == "llama3" and calls:
        content = ""  # Llama writes calls as the whole answer
    message = msg(content, calls, thinking or "")
    return style, message, _write(style, message, draw(st.integers(0, 1)))


@settings(max_examples=100)
@given(_written(), st.lists(st.integers(0, 400), max_size=8))
def test_written_calls_read_back_exactly_whole_and_streamed(
    written: tuple[str, ct.AssistantMessage, str], cuts: list[int]
) -> None:
    style, message, text = written
    parsed = parse_output(text, style=style)
    assert parsed == message
    for got, want in zip(parsed.tool_calls, message.tool_calls, strict=True):
        assert list(got.arguments) == list(want.arguments)
    streamed, deltas = _streamed(style, False, _split(text, cuts))
    assert streamed == message
    _check_deltas(streamed, deltas)


def test_text_streams_promptly() -> None:
    stream = OutputStream(style="hermes")
    shown: list[str] = []
    for char in "The answer is 4":
        shown += [d.text for d in stream.feed(char) if isinstance(d, TextDelta)]
    # Everything but the white space that might end the text is out already.
    assert "".join(shown) == "The answer is 4"
    assert stream.feed(" <t") == []  # could still become <tool_call>
    assert stream.feed("able>") == [TextDelta(text=" <table>")]  # it did not
    assert stream.feed(" <tool_c") == []
    assert stream.partial() == msg("The answer is 4 <table>")
    deltas = stream.feed('all>{"name": "f", "arguments": {}}</tool_call>')
    assert deltas == [
        ToolCallStart(index=0, id=None, name="f"),
        ToolCallDelta(index=0, arguments="{}"),
    ]
    assert stream.finish() == []
    assert stream.result() == msg("The answer is 4 <table>", (call("f", {}),))


def test_thinking_streams_promptly_when_the_prompt_opened_it() -> None:
    stream = OutputStream(style="hermes", in_thinking=True)
    assert stream.feed("Let me") == [ThinkingDelta(text="Let me")]
    assert stream.feed(" think</th") == [ThinkingDelta(text=" think")]
    assert stream.feed("ink>\n\nDone") == [TextDelta(text="Done")]
    assert stream.result() == msg("Done", thinking="Let me think")


def test_mistral_arguments_stream_as_they_come() -> None:
    stream = OutputStream(style="mistral")
    assert stream.feed("[TOOL_CALLS]get_weather[AR") == []
    assert stream.feed('GS]{"city": "Pa') == [
        ToolCallStart(index=0, id=None, name="get_weather"),
        ToolCallDelta(index=0, arguments='{"city": "Pa'),
    ]
    assert stream.partial() == msg()  # a call is kept once its arguments are whole
    assert stream.feed('ris"} and') == [
        ToolCallDelta(index=0, arguments='ris"}'),
        TextDelta(text="and"),
    ]
    assert stream.result() == msg("and", (call("get_weather", {"city": "Paris"}),))


def test_an_error_sticks() -> None:
    stream = OutputStream(style="hermes")
    stream.feed("ok ")
    with pytest.raises(OutputError) as first:
        stream.feed("</tool_call>")
    with pytest.raises(OutputError) as again:
        stream.feed("more")
    with pytest.raises(OutputError) as final:
        stream.result()
    assert first.value is again.value is final.value
    assert stream.partial() == msg("ok")


def test_a_rendered_turn_reads_back() -> None:
    # What a Qwen-style template writes for an assistant turn is what the model
    # is trained to write: reading it back gives the turn (ids aside).
    pytest.importorskip("jinja2")
    from convtypes.dialects.chat_template import render

    template = (
        "{%- for m in messages %}{% if m.role == 'assistant' %}"
        "{{ '<think>\\n' + m.reasoning_content + '\\n</think>\\n\\n' + m.content }}"
        '{% for c in m.tool_calls %}{{ \'\\n<tool_call>\\n{"name": "\' + c.function.name + '
        "'\", \"arguments\": ' + c.function.arguments | tojson + '}\\n</tool_call>' }}"
        "{% endfor %}{% endif %}{% endfor %}"
    )
    turn = msg(
        "Checking.",
        (call("search", {"q": 'caf\u00e9 "x"', "n": BIG, "z": [1.5, None]}),),
        "Search first.",
    )
    prompt = render([turn], template, add_generation_prompt=False)
    assert parse_output(prompt, style="hermes") == turn


# --- defects found reading real generations (issue 27) --------------------------------


def test_opens_thinking_looks_only_at_the_end_of_the_prompt() -> None:
    # Qwen2.5: a user who asks about the tag does not open a block.
    prompt = "<|im_start|>user\nWhat does the <think> tag mean?<|im_end|>\n<|im_start|>assistant\n"
    assert not opens_thinking(prompt)
    answer = "It marks the model's reasoning."
    assert parse_output(answer, style="hermes", in_thinking=opens_thinking(prompt)) == msg(answer)
    assert opens_thinking(prompt + "<think>\n")
    assert not opens_thinking("<think>\nhmm\n</think>\n\n")


@pytest.mark.parametrize("key", ["arguments", "parameters", "args"])
def test_arguments_under_any_key_a_family_uses(key: str) -> None:
    hermes = f'<tool_call>{{"name": "get_weather", "{key}": {{"city": "Oslo"}}}}</tool_call>'
    expected = msg("", (call("get_weather", {"city": "Oslo"}),))
    assert parse_output(hermes, style="hermes") == expected
    mistral = f'[TOOL_CALLS][{{"name": "get_weather", "{key}": {{"city": "Oslo"}}}}]'
    assert parse_output(mistral, style="mistral") == expected
    llama = f'{{"name": "get_weather", "{key}": {{"city": "Oslo"}}}}'
    assert parse_output(llama, style="llama3") == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '<tool_call>{"name": "f", "input": {"city": "Oslo"}}</tool_call>',
            "tool call 'f' has a key 'input' that a call does not have",
        ),
        (
            '<tool_call>{"name": "f", "arguments": {}, "parameters": {"a": 1}}</tool_call>',
            "tool call 'f' has arguments under both 'arguments' and 'parameters'",
        ),
        ('<tool_call>{"name": "f", "type": 1}</tool_call>', "tool call 'f' has a type that"),
    ],
)
def test_a_call_object_with_keys_a_call_does_not_have_raises(text: str, message: str) -> None:
    with pytest.raises(OutputError, match=message) as caught:
        parse_output(text, style="hermes")
    assert caught.value.offset == 0
    bare = text[11:-12]
    if "parameters" in bare:
        # Shaped as a Llama call, wrong as one: an error there too.
        with pytest.raises(OutputError, match=message):
            parse_output(bare, style="llama3")
    else:
        # Not shaped as a call: a Llama answer in JSON.
        assert parse_output(bare, style="llama3") == msg(bare)


@pytest.mark.parametrize(
    ("style", "text", "content"),
    [
        ("hermes", "The answer is 4.<\uff5cend\u2581of\u2581sentence\uff5c>", "The answer is 4."),
        ("llama3", "Paris.<|eot|>", "Paris."),
        ("llama3", "Paris.<|eom|>", "Paris."),
        ("hermes", "Hi<end_of_turn>\n<eos>", "Hi"),
        ("mistral", "Bonjour<|im_end|>", "Bonjour"),
        ("hermes", "a <|eot|> b", "a <|eot|> b"),  # only at the very end
    ],
)
def test_end_of_turn_tokens_of_the_known_families_are_cut_off(
    style: str, text: str, content: str
) -> None:
    assert parse_output(text, style=style).content == content
    stream = OutputStream(style=style)
    for char in text:
        stream.feed(char)
    assert stream.result().content == content


WEATHER = ToolSpec(name="get_weather", parameters={"type": "object"})


def test_llama_json_answers_are_text_when_the_name_was_not_offered() -> None:
    answer = '{"name": "Alice", "arguments": {"age": 30, "city": "Oslo"}}'
    assert parse_output(answer, style="llama3").tool_calls  # tools unknown: a call
    for tools in ([], [WEATHER]):
        assert parse_output(answer, style="llama3", tools=tools) == msg(answer)
    # Cut off at max_tokens: text unless it names an offered tool.
    cut = '{"name": "Alice", "arguments": {"age": 3'
    assert parse_output(cut, style="llama3", tools=[WEATHER]) == msg(cut)
    with pytest.raises(OutputError, match="is cut off"):
        parse_output(cut, style="llama3")
    with pytest.raises(OutputError, match="is cut off"):
        parse_output('{"name": "get_wea', style="llama3", tools=[WEATHER])
    called = '{"name": "get_weather", "parameters": {"city": "Oslo"}}'
    assert parse_output(called, style="llama3", tools=[WEATHER]) == msg(
        "", (call("get_weather", {"city": "Oslo"}),)
    )
    # Tools in the Hugging Face form are understood too.
    hf = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}
    assert parse_output(called, style="llama3", tools=[hf]).tool_calls


def test_a_tagged_call_to_a_tool_not_offered_raises() -> None:
    text = 'Sure. <tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>'
    with pytest.raises(OutputError, match="a call to 'rm_rf', which is not among the tools"):
        parse_output(text, style="hermes", tools=[WEATHER])
    with pytest.raises(OutputError, match="a call to 'rm_rf'") as caught:
        parse_output('[TOOL_CALLS]rm_rf[ARGS]{"a": 1}', style="mistral", tools=[WEATHER])
    assert caught.value.offset == 0
    assert parse_output(text, style="hermes", tools=None).tool_calls[0].name == "rm_rf"


def test_tools_must_be_a_list_of_tools() -> None:
    with pytest.raises(TypeError, match="tools= must be a list of ToolSpec, not ToolSpec"):
        parse_output("x", style="hermes", tools=WEATHER)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"tools\[0\] is not a ToolSpec or a tool in the Hug"):
        OutputStream(style="hermes", tools=[{"type": "function"}])


def test_mismatched_brackets_are_called_so() -> None:
    text = '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city":"Oslo"}]'
    with pytest.raises(OutputError) as caught:
        parse_output(text, style="mistral")
    assert str(caught.value) == (
        "the tool call's brackets do not match: a ']' closes a '{' (at character 0)"
    )
    with pytest.raises(OutputError, match=r"a '\}' closes a '\['"):
        parse_output('<tool_call>{"name": "f", "arguments": {"a": [1}}', style="hermes")


# --- on_error="text": nothing lost on a bad call ------------------------------------------

KEPT: list[tuple[str, str, ct.AssistantMessage]] = [
    # Qwen3.5's XML call read as hermes: its text stays, and so do the thinking
    # and the text before it.
    (
        "hermes",
        "<think>\nCheck the weather.\n</think>\n\nLet me look.\n<tool_call>\n"
        "<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call><|im_end|>",
        msg(
            "Let me look.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n"
            "</parameter>\n</function>\n</tool_call>",
            thinking="Check the weather.",
        ),
    ),
    # Cut off at max_tokens: the call's start is the answer's end.
    (
        "hermes",
        'Sure. <tool_call>\n{"name": "f", "arguments": {"a": ',
        msg('Sure. <tool_call>\n{"name": "f", "arguments": {"a":'),
    ),
    # A good call, then a bad one: the good one stays a call.
    (
        "hermes",
        '<tool_call>{"name": "a", "arguments": {}}</tool_call>\n'
        '<tool_call>{"name": "b", "arguments": {x}}</tool_call> Done.',
        msg('<tool_call>{"name": "b", "arguments": {x}}</tool_call> Done.', (call("a", {}),)),
    ),
    (
        "hermes",
        '<tool_call>{"name": "f", "arguments": {}} and then',
        msg("and then", (call("f", {}),)),
    ),
    (
        "llama3",
        "Searching. <|python_tag|>brave_search.call(query='x')<|eom_id|>",
        msg("Searching. <|python_tag|>brave_search.call(query='x')"),
    ),
    (
        "mistral",
        '[THINK]Paris.[/THINK]On it.[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"',
        msg('On it.[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"', thinking="Paris."),
    ),
    (
        "mistral",
        '[TOOL_CALLS]a[ARGS]{"x": 1}[TOOL_CALLS]b[FOO]{}</s>',
        msg("[TOOL_CALLS]b[FOO]{}", (call("a", {"x": 1}),)),
    ),
]


@pytest.mark.parametrize(
    ("style", "text", "expected"), KEPT, ids=[f"{n}" for n in range(len(KEPT))]
)
def test_on_error_text_keeps_a_bad_call_as_text_with_all_around_it(
    style: str, text: str, expected: ct.AssistantMessage
) -> None:
    with pytest.raises(OutputError):
        parse_output(text, style=style)  # the default raises
    assert parse_output(text, style=style, on_error="text") == expected
    for at in range(len(text) + 1):
        stream = OutputStream(style=style, on_error="text")
        deltas = stream.feed(text[:at]) + stream.feed(text[at:]) + stream.finish()
        assert stream.result() == expected
        _check_deltas(expected, deltas)


def test_on_error_text_announces_a_call_only_once_it_is_whole() -> None:
    stream = OutputStream(style="mistral", on_error="text")
    assert stream.feed('[TOOL_CALLS]get_weather[ARGS]{"city": "Pa') == []
    assert stream.feed('ris"}') == [
        ToolCallStart(0, None, "get_weather"),
        ToolCallDelta(0, '{"city":"Paris"}'),
    ]
    with pytest.raises(ValueError, match='on_error= must be "raise" or "text"'):
        parse_output("x", style="hermes", on_error="ignore")  # type: ignore[arg-type]


@settings(max_examples=examples(300, 100))
@given(st.sampled_from(CORPUS), st.lists(st.integers(0, 200), max_size=8))
def test_on_error_text_never_raises_and_any_split_agrees(
    case: tuple[str, bool, str], cuts: list[int]
) -> None:
    style, in_thinking, text = case
    whole = parse_output(text, style=style, in_thinking=in_thinking, on_error="text")
    stream = OutputStream(style=style, in_thinking=in_thinking, on_error="text")
    deltas: list[Any] = []
    for piece in _split(text, cuts):
        deltas += stream.feed(piece)
    deltas += stream.finish()
    assert stream.result() == whole
    _check_deltas(whole, deltas)
