"""The style protocol: ``register_style``, ``Style`` and the ``Cursor`` a style reads with.

A family of our own invention is registered here, written only with the
cursor's methods, to show what the protocol promises a program that adds
one: the reading around its markers (thinking, text runs, end tokens) is
the library's, any split of a generation streams to the same message or
error, and a mistake in a style shows as an error rather than a hang.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import convtypes as ct
from convtypes.dialects import TextDelta, ToolCallDelta, ToolCallStart
from convtypes.dialects.chat_template import (
    COMMON_ENDS,
    STYLES,
    Cursor,
    OutputError,
    OutputStream,
    Reading,
    Style,
    parse_output,
    register_style,
)

from budget import examples


def msg(
    content: str = "", calls: tuple[ct.ToolCall, ...] = (), thinking: str = ""
) -> ct.AssistantMessage:
    blocks = (ct.ThinkingBlock(text=thinking),) if thinking else ()
    return ct.AssistantMessage(content=content, tool_calls=calls, thinking=blocks)


def call(name: str, arguments: dict[str, Any], call_id: str | None = None) -> ct.ToolCall:
    return ct.ToolCall(id=call_id, name=name, arguments=arguments)


# --- a family of our own: <call>name {"json": "arguments"}</call> ---------------------


def read_toy_call(cur: Cursor, marker: str) -> Reading:
    name, space = yield from cur.until(" ", "</call>")
    if space != " ":
        raise cur.error("a call with no arguments")
    if (yield from cur.peek(1)) != "{":
        raise cur.error("a call whose arguments are not an object", cur.offset)
    cur.announce(name)
    raw = yield from cur.json(stream=True)
    if raw is None:
        raise cur.error("the call is cut off")
    cur.add_call(name, cur.loads(raw, levels=1))
    if not (yield from cur.startswith("</call>")):
        raise cur.error("a call that does not end with </call>", cur.offset)
    cur.take(len("</call>"))


def read_toy_bare(cur: Cursor, marker: str) -> Reading:
    """An answer that is ``{"call": name, "with": {...}}`` is a call; other JSON is text."""
    if (yield from cur.peek(1)) != "{":
        return
    raw = yield from cur.json()
    if raw is None:
        raise cur.not_a_call()
    value = json.loads(raw)
    if not isinstance(value, dict) or set(value) != {"call", "with"}:
        raise cur.not_a_call()
    cur.add_call(value["call"], value["with"])


TOY = register_style(
    "test_toy",
    calls={"<call>": read_toy_call},
    thinking={"<<think>>": "<</think>>"},
    ends=("<END>",),
    opening=read_toy_bare,
    marks=("<call>name",),
)

TOY_CASES: list[tuple[str, bool, str, ct.AssistantMessage]] = [
    (
        '<<think>> Look it up. <</think>> Sure. <call>get {"city": "Oslo"}</call> Done.<END>',
        False,
        "",
        msg("Sure.\n\nDone.", (call("get", {"city": "Oslo"}),), "Look it up."),
    ),
    ("hmm <</think>>Yes<END><END>", True, "", msg("Yes", thinking="hmm")),
    (
        '{"call": "f", "with": {"n": 1}} and more',
        False,
        "",
        msg("and more", (call("f", {"n": 1}),)),
    ),
    ('{"answer": 42}', False, "", msg('{"answer": 42}')),
    ('  {"unclosed": [', False, "", msg('{"unclosed": [')),
    (
        '<call>f {}</call><call>g {"a": [1, {}]}</call>',
        False,
        "",
        msg("", (call("f", {}), call("g", {"a": [1, {}]}))),
    ),
    ("<call>f</call>", False, "a call with no arguments (at character 0)", msg()),
    (
        "ok <call>f [1]</call>",
        False,
        "a call whose arguments are not an object (at character 11)",
        msg(),
    ),
    ('<call>f {"a": 1', False, "the call is cut off (at character 0)", msg()),
    (
        '<call>f {"a": [1}}',
        False,
        "the tool call's brackets do not match: a '}' closes a '[' (at character 0)",
        msg(),
    ),
    ("<call>f {} tail", False, "a call that does not end with </call> (at character 10)", msg()),
    ('<call>f {"a": NaN}</call>', False, "not valid JSON", msg()),
]


@pytest.mark.parametrize(("text", "in_thinking", "error", "expected"), TOY_CASES)
def test_a_registered_style_reads_by_name_and_as_a_value(
    text: str, in_thinking: bool, error: str, expected: ct.AssistantMessage
) -> None:
    for style in ("test_toy", TOY):
        if error:
            with pytest.raises(OutputError) as caught:
                parse_output(text, style=style, in_thinking=in_thinking)
            assert error in str(caught.value)
        else:
            assert parse_output(text, style=style, in_thinking=in_thinking) == expected


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(cut, len(text)) for cut in cuts})
    pieces, start = [], 0
    for point in points:
        pieces.append(text[start:point])
        start = point
    pieces.append(text[start:])
    return pieces


def _outcome(style: str | Style, in_thinking: bool, pieces: list[str]) -> tuple[str, Any]:
    stream = OutputStream(style=style, in_thinking=in_thinking)
    deltas: list[Any] = []
    try:
        for piece in pieces:
            deltas += stream.feed(piece)
        deltas += stream.finish()
    except OutputError as err:
        return ("error", (str(err), err.offset))
    message = stream.result()
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == message.content
    for n, made in enumerate(message.tool_calls):
        starts = [d for d in deltas if isinstance(d, ToolCallStart) and d.index == n]
        assert [(s.name, s.id) for s in starts] == [(made.name, made.id)]
        pieces_of = [d.arguments for d in deltas if isinstance(d, ToolCallDelta) and d.index == n]
        assert json.loads("".join(pieces_of)) == made.arguments
    return ("ok", message)


@settings(max_examples=examples(200, 80))
@given(st.sampled_from(TOY_CASES), st.lists(st.integers(0, 120), max_size=10))
def test_a_registered_style_streams_the_same_for_any_split(
    case: tuple[str, bool, str, ct.AssistantMessage], cuts: list[int]
) -> None:
    text, in_thinking, _, _ = case
    assert _outcome(TOY, in_thinking, _split(text, cuts)) == _outcome(TOY, in_thinking, [text])


def test_a_streamed_call_is_announced_then_its_arguments_come_as_they_are_written() -> None:
    stream = OutputStream(style="test_toy")
    assert stream.feed('Hi <call>get {"ci') == [
        TextDelta("Hi"),
        ToolCallStart(0, None, "get"),
        ToolCallDelta(0, '{"ci'),
    ]
    assert stream.feed('ty": 1}</call>') == [ToolCallDelta(0, 'ty": 1}')]
    assert stream.result() == msg("Hi", (call("get", {"city": 1}),))


# --- what registering checks ------------------------------------------------------------


def test_names_already_known_are_refused() -> None:
    with pytest.raises(ValueError, match="a style named 'test_toy' is already registered"):
        register_style("test_toy")
    with pytest.raises(ValueError, match="a style named 'hermes' is already registered"):
        register_style("hermes")
    assert "hermes" in STYLES and "test_toy" not in STYLES


@pytest.mark.parametrize(
    ("fields", "error", "message"),
    [
        ({"name": ""}, TypeError, "a style's name must be a non-empty str"),
        ({"name": "two words"}, ValueError, "a style's name has no white space"),
        ({"calls": [("<x>", read_toy_call)]}, TypeError, "calls must map markers to readers"),
        ({"calls": {"": read_toy_call}}, TypeError, "a call marker must be a non-empty str"),
        ({"calls": {"<x>": "read"}}, TypeError, "the reader of '<x>' is not callable"),
        ({"thinking": "<think>"}, TypeError, "thinking must map openers to closers"),
        ({"thinking": {"<t>": ""}}, TypeError, "a thinking closer must be a non-empty str"),
        ({"ends": "<END>"}, TypeError, "ends must be a tuple of str"),
        ({"ends": ("<END>", 3)}, TypeError, r"ends\[1\] must be a non-empty str"),
        ({"opening": 1}, TypeError, "opening must be callable or None"),
        ({"read": "x"}, TypeError, "read must be callable or None"),
        ({"marks": ("",)}, TypeError, r"marks\[0\] must be a non-empty str"),
        ({"outranks": "hermes"}, TypeError, "outranks must be a tuple of str"),
    ],
)
def test_a_style_is_checked_when_made(fields: dict[str, Any], error: type, message: str) -> None:
    name = fields.pop("name", "checked")
    with pytest.raises(error, match=message):
        Style(name, **fields)


def test_a_style_is_immutable_and_lists_the_common_end_tokens_after_its_own() -> None:
    assert TOY.name == "test_toy" and TOY.ends[0] == "<END>"
    assert TOY.ends[1:] == COMMON_ENDS
    assert dict(TOY.thinking) == {"<<think>>": "<</think>>"}
    assert TOY.opening is read_toy_bare and TOY.marks == ("<call>name",)
    with pytest.raises(AttributeError):
        TOY.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        TOY.calls["<x>"] = read_toy_call  # type: ignore[index]
    assert repr(TOY) == "Style('test_toy')"


def test_wrong_style_arguments() -> None:
    with pytest.raises(TypeError, match="style= must be a style's name or a Style, not int"):
        parse_output("x", style=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r'style= must be the name of a style \(.*"test_toy"'):
        OutputStream(style="nobody")


# --- a style's mistakes show ----------------------------------------------------------


def test_a_style_that_waits_after_the_end_is_a_runtime_error() -> None:
    def forever(style: Style, cur: Cursor) -> Reading:
        while True:
            yield

    with pytest.raises(RuntimeError, match="the style 'stuck' waited for text after the end"):
        parse_output("text", style=Style("stuck", read=forever))


def test_what_a_style_leaves_unread_is_text() -> None:
    def thinking_only(style: Style, cur: Cursor) -> Reading:
        yield from cur.thinking_until("|")

    style = Style("half", read=thinking_only)
    assert parse_output("reason | answer<|im_end|>", style=style) == msg(
        "answer", thinking="reason"
    )


def test_cursor_methods_refuse_what_they_cannot_do() -> None:
    seen: list[str] = []

    def misuse(style: Style, cur: Cursor) -> Reading:
        with pytest.raises(ValueError, match=r"take\(5\) goes past the text a method returned"):
            cur.take(5)
        with pytest.raises(ValueError, match=r"since\(0\) is outside the call being read"):
            cur.since(0)
        seen.append((yield from cur.peek(10)))
        seen.append((yield from cur.peek_to(">", 10)))
        seen.append((yield from cur.startswith("ab", "abc", "x")))
        seen.append(cur.take(3))
        with pytest.raises(ValueError, match=r"take\(1\) goes past the text a method returned"):
            cur.take(1)
        yield from cur.text_until()

    parse_output("abc>de", style=Style("misused", read=misuse))
    assert seen == ["abc>de", "abc>", "abc", "abc"]


def test_a_call_with_a_name_or_arguments_a_call_cannot_have() -> None:
    def bad(what: str) -> Style:
        def read(cur: Cursor, marker: str) -> Reading:
            yield from cur.skip_space()
            if what == "name":
                cur.add_call("", {})
            elif what == "arguments":
                cur.add_call("f", [1])  # type: ignore[arg-type]
            else:
                cur.add_call("f", {}, 7)  # type: ignore[arg-type]

        return Style(f"bad_{what}", calls={"@": read})

    for what, message in [
        ("name", "a tool call has no name"),
        ("arguments", "the arguments of tool call 'f' are not a JSON object"),
        ("id", "tool call 'f' has an id that is not text"),
    ]:
        with pytest.raises(OutputError, match=message) as caught:
            parse_output("x @", style=bad(what))
        assert caught.value.offset == 2


# --- the built-in styles ---------------------------------------------------------------


def test_each_builtin_style_is_a_module_of_its_name() -> None:
    import importlib

    for name in STYLES:
        module = importlib.import_module(f"convtypes.dialects._styles.{name}")
        assert isinstance(module.STYLE, Style) and module.STYLE.name == name
        assert module.__doc__, name


def test_styles_are_imported_when_first_used() -> None:
    code = textwrap.dedent(
        """
        import sys
        import convtypes
        assert not any(m.startswith("convtypes.dialects") for m in sys.modules)
        from convtypes.dialects import chat_template
        assert not any(".dialects._styles." in m for m in sys.modules), "a style imported"
        chat_template.parse_output("hi", style="mistral")
        assert "convtypes.dialects._styles.mistral" in sys.modules
        assert "convtypes.dialects._styles.hermes" not in sys.modules
        assert "jinja2" not in sys.modules
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True)
