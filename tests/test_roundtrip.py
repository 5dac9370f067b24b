"""Round trips: what convtypes writes it reads back equal, and re-saves unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import convtypes as ct
from convtypes import strategies as cst

VALUES: dict[str, tuple[st.SearchStrategy[Any], Any]] = {
    "message": (cst.messages(), ct.Message),
    "content_block": (cst.content_blocks(), ct.ContentBlock),
    "tool_call": (cst.tool_calls(), ct.ToolCall),
    "thinking_block": (cst.thinking_blocks(), ct.ThinkingBlock),
    "provenance": (cst.provenances(), ct.Provenance),
    "transcript": (cst.transcripts(), list[ct.Message]),
}


def _roundtrip(value: Any, tp: Any) -> None:
    data = ct.encode(value)
    back = ct.decode(data, tp)
    assert back == value
    assert type(back) is type(value)
    assert ct.encode(back) == data


@given(cst.messages())
def test_message_round_trip(message: ct.Message) -> None:
    _roundtrip(message, ct.Message)
    assert ct.decode_message(ct.encode(message)) == message


@given(cst.content_blocks())
def test_content_block_round_trip(block: ct.ContentBlock) -> None:
    _roundtrip(block, ct.ContentBlock)
    # A variant class decodes its own documents too.
    _roundtrip(block, type(block))


@given(cst.tool_calls())
def test_tool_call_round_trip(call: ct.ToolCall) -> None:
    _roundtrip(call, ct.ToolCall)


@given(cst.thinking_blocks())
def test_thinking_block_round_trip(block: ct.ThinkingBlock) -> None:
    _roundtrip(block, ct.ThinkingBlock)


@given(cst.provenances())
def test_provenance_round_trip(provenance: ct.Provenance) -> None:
    _roundtrip(provenance, ct.Provenance)


@given(cst.transcripts())
def test_transcript_round_trip(messages: list[ct.Message]) -> None:
    _roundtrip(messages, list[ct.Message])
    assert ct.decode_messages(ct.encode(messages)) == messages


@given(cst.messages(roles=(ct.AssistantMessage, ct.ProviderOutputItemsMessage)))
def test_json_values_keep_key_order_and_exact_integers(message: ct.Message) -> None:
    back = ct.decode_message(ct.encode(message))
    if isinstance(message, ct.AssistantMessage):
        assert isinstance(back, ct.AssistantMessage)
        for before, after in zip(message.tool_calls, back.tool_calls, strict=True):
            assert list(before.arguments) == list(after.arguments)
            assert repr(before.arguments) == repr(after.arguments)
    else:
        assert repr(back) == repr(message)


def test_huge_integers_and_key_order_survive() -> None:
    doc = (
        b'{"name":"n","arguments":'
        b'{"z":1,"a":123456789012345678901234567890,"m":-18446744073709551617}}'
    )
    call = ct.decode(doc, ct.ToolCall)
    assert list(call.arguments) == ["z", "a", "m"]
    assert call.arguments["a"] == 123456789012345678901234567890
    assert ct.encode(call) == doc


def test_values_are_frozen() -> None:
    message = ct.UserMessage(content="hi")
    with pytest.raises(AttributeError):
        setattr(message, "content", "changed")  # noqa: B010 - bypass the static check on purpose

    changed = ct.replace(message, content="changed")
    assert changed == ct.UserMessage(content="changed")
    assert message.content == "hi"
