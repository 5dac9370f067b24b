"""What every style's tests check, written once: a generation reads as expected, whole and streamed.

Each style has a test module (``test_style_<name>.py``) of realistic
generations, written from the family's chat template and vLLM's parser
tests, with the message each must give written out by hand. The checks
here hold each one to the promises of ``parse_output`` and
``OutputStream``:

- the whole text gives the message (or the error, at its offset);
- every split in two, and one character at a time, gives the same, and
  the stream's deltas add up to the message;
- with ``on_error="text"`` nothing raises, and any split agrees too.

:func:`any_split` is the property test each module runs over its cases.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import strategies as st

import convtypes as ct
from convtypes.dialects import TextDelta, ThinkingDelta, ToolCallDelta, ToolCallStart, ToolSpec
from convtypes.dialects.chat_template import OnError, OutputError, OutputStream, parse_output

Tools = Sequence[ToolSpec | dict[str, Any]] | None


def msg(
    content: str = "", calls: tuple[ct.ToolCall, ...] = (), thinking: str = ""
) -> ct.AssistantMessage:
    blocks = (ct.ThinkingBlock(text=thinking),) if thinking else ()
    return ct.AssistantMessage(content=content, tool_calls=calls, thinking=blocks)


def call(name: str, arguments: dict[str, Any], call_id: str | None = None) -> ct.ToolCall:
    return ct.ToolCall(id=call_id, name=name, arguments=arguments)


def split(text: str, cuts: Sequence[int]) -> list[str]:
    """``text`` cut at each of ``cuts`` (clipped to its length)."""
    points = sorted({min(cut, len(text)) for cut in cuts})
    pieces, start = [], 0
    for point in points:
        pieces.append(text[start:point])
        start = point
    pieces.append(text[start:])
    return pieces


def outcome(
    style: str,
    pieces: Sequence[str],
    *,
    in_thinking: bool = False,
    tools: Tools = None,
    on_error: OnError = "raise",
) -> tuple[str, Any]:
    """What a stream fed ``pieces`` gives: ``("ok", message)`` or ``("error", (text, offset))``.

    The deltas are checked against the message on the way.
    """
    stream = OutputStream(style=style, in_thinking=in_thinking, tools=tools, on_error=on_error)
    deltas: list[Any] = []
    try:
        for piece in pieces:
            deltas += stream.feed(piece)
        deltas += stream.finish()
    except OutputError as err:
        return ("error", (str(err), err.offset))
    message = stream.result()
    check_deltas(message, deltas)
    return ("ok", message)


def check_deltas(message: ct.AssistantMessage, deltas: list[Any]) -> None:
    """The deltas add up to the message: its text, its reasoning, its calls."""
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == message.content
    thinking = "".join(d.text for d in deltas if isinstance(d, ThinkingDelta))
    assert thinking == "".join(block.text for block in message.thinking)
    starts = [d for d in deltas if isinstance(d, ToolCallStart)]
    assert [(s.index, s.id, s.name) for s in starts] == [
        (n, c.id, c.name) for n, c in enumerate(message.tool_calls)
    ]
    for n, made in enumerate(message.tool_calls):
        text = "".join(d.arguments for d in deltas if isinstance(d, ToolCallDelta) and d.index == n)
        assert json.loads(text) == made.arguments


def assert_reads(
    style: str,
    text: str,
    expected: ct.AssistantMessage,
    *,
    in_thinking: bool = False,
    tools: Tools = None,
) -> None:
    """``text`` reads as ``expected``, whole and split anyhow, key order kept."""
    got = parse_output(text, style=style, in_thinking=in_thinking, tools=tools)
    assert got == expected
    for read, want in zip(got.tool_calls, expected.tool_calls, strict=True):
        assert list(read.arguments) == list(want.arguments)
    assert all(block.signature is None for block in got.thinking)
    _every_split(style, text, ("ok", expected), in_thinking=in_thinking, tools=tools)
    # Nothing goes wrong, so keeping errors as text changes nothing.
    kept = parse_output(text, style=style, in_thinking=in_thinking, tools=tools, on_error="text")
    assert kept == expected


def assert_fails(
    style: str,
    text: str,
    reason: str,
    offset: int,
    *,
    in_thinking: bool = False,
    tools: Tools = None,
) -> ct.AssistantMessage:
    """``text`` raises ``OutputError`` saying ``reason`` at ``offset``, however split.

    Returns what ``on_error="text"`` makes of it (the same for any split).
    """
    with pytest.raises(OutputError) as caught:
        parse_output(text, style=style, in_thinking=in_thinking, tools=tools)
    assert reason in str(caught.value), str(caught.value)
    assert caught.value.offset == offset, str(caught.value)
    assert isinstance(caught.value, ValueError)
    _every_split(
        style, text, ("error", (str(caught.value), offset)), in_thinking=in_thinking, tools=tools
    )
    kept = parse_output(text, style=style, in_thinking=in_thinking, tools=tools, on_error="text")
    for at in range(len(text) + 1):
        pieces = [text[:at], text[at:]]
        again = outcome(style, pieces, in_thinking=in_thinking, tools=tools, on_error="text")
        assert again == ("ok", kept), pieces
    return kept


def _every_split(
    style: str, text: str, expected: tuple[str, Any], *, in_thinking: bool, tools: Tools
) -> None:
    splits = [[text[:at], text[at:]] for at in range(len(text) + 1)] + [list(text)]
    for pieces in splits:
        got = outcome(style, pieces, in_thinking=in_thinking, tools=tools)
        assert got == expected, pieces


CUTS = st.lists(st.integers(0, 400), max_size=10)
"""Where to cut a generation, for :func:`any_split`."""


def any_split(
    style: str, text: str, cuts: Sequence[int], *, in_thinking: bool = False, tools: Tools = None
) -> None:
    """The property: any split streams to what the whole text gives, in both error modes."""
    pieces = split(text, cuts)
    for on_error in ("raise", "text"):
        whole = outcome(style, [text], in_thinking=in_thinking, tools=tools, on_error=on_error)
        streamed = outcome(style, pieces, in_thinking=in_thinking, tools=tools, on_error=on_error)
        assert streamed == whole, pieces
        if on_error == "text":
            assert whole[0] == "ok"
