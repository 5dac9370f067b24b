"""open_calls and close_open_calls: what a cancel leaves open, closed where every dialect looks."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import convtypes as ct
from convtypes import strategies as cst
from convtypes.dialects import (
    anthropic,
    bedrock,
    cohere,
    gemini,
    mistral,
    ollama,
    openai_chat,
    openai_responses,
)

U = ct.UserMessage(content="u")
DIALECTS = (anthropic, openai_chat, openai_responses, gemini, ollama, bedrock, mistral, cohere)


def call(call_id: str | None, name: str = "f") -> ct.ToolCall:
    return ct.ToolCall(id=call_id, name=name, arguments={"q": 1})


def pending(call_id: str, name: str = "f") -> ct.PendingCall:
    """What open_calls gives for ``call(call_id, name)``: a call whose id is text."""
    return ct.PendingCall(id=call_id, name=name, arguments={"q": 1})


def asks(*calls: ct.ToolCall) -> ct.AssistantMessage:
    return ct.AssistantMessage(tool_calls=calls)


def result(call_id: str, content: str = "r") -> ct.ToolResultMessage:
    return ct.ToolResultMessage(tool_use_id=call_id, content=content)


def closing(call_id: str) -> ct.ToolResultMessage:
    return result(call_id, "cancelled")


def test_nothing_open() -> None:
    messages: list[ct.Message] = [U, asks(call("a")), result("a"), ct.AssistantMessage(content="x")]
    assert ct.open_calls(messages) == []
    closed = ct.close_open_calls(messages, "cancelled")
    assert closed == messages
    assert closed is not messages
    assert ct.open_calls([]) == []
    assert ct.close_open_calls([], "x") == []


def test_calls_without_a_result_are_open_in_order() -> None:
    turn = asks(call("a", "f"), call("b", "g"), call("c", "h"))
    messages: list[ct.Message] = [U, turn, result("b")]
    assert ct.open_calls(messages) == [pending("a", "f"), pending("c", "h")]
    assert ct.close_open_calls(messages, "cancelled") == [
        *messages,
        closing("a"),
        closing("c"),
    ]


def test_a_call_without_an_id_gets_its_positional_id() -> None:
    messages: list[ct.Message] = [U, asks(call(None, "f"), call(None, "g")), result("call_0")]
    assert ct.open_calls(messages) == [pending("call_1", "g")]
    closed = ct.close_open_calls(messages, "stop")
    last = closed[-1]
    assert last == result("call_1", "stop")
    assert isinstance(last, ct.ToolResultMessage)
    assert last.provenance is ct.Provenance.INTERNAL


def test_results_go_after_their_own_turn() -> None:
    # Two turns of calls: the first's open call is closed before the second turn.
    first = asks(call("a"), call("b"))
    second = asks(call("c"))
    messages: list[ct.Message] = [U, first, result("a"), second]
    assert ct.close_open_calls(messages, "x") == [
        U,
        first,
        result("a"),
        result("b", "x"),
        second,
        result("c", "x"),
    ]


def test_provider_items_and_assistant_messages_of_one_turn_share_its_results() -> None:
    items = ct.ProviderOutputItemsMessage(protocol="p", items=[{"type": "x"}])
    first = asks(call("a"))
    second = asks(call("b"))
    messages: list[ct.Message] = [U, items, first, items, second, result("b")]
    assert ct.close_open_calls(messages, "x") == [*messages, result("a", "x")]


def test_a_result_after_a_user_message_answers_nothing() -> None:
    messages: list[ct.Message] = [U, asks(call("a")), U, result("a")]
    assert ct.open_calls(messages) == [pending("a")]
    assert ct.close_open_calls(messages, "x")[:3] == [U, asks(call("a")), result("a", "x")]


def test_repeated_ids_answer_the_latest_call() -> None:
    # Positional ids restart in every turn: each turn's result answers its own call.
    messages: list[ct.Message] = [
        U,
        asks(call(None)),
        result("call_0"),
        U,
        asks(call(None)),
    ]
    assert ct.open_calls(messages) == [pending("call_0")]
    assert ct.close_open_calls(messages, "x")[-1] == result("call_0", "x")


def test_lenient_messages_pass_through() -> None:
    unknown = ct.UnknownMessage(role="critic", raw=b'{"role":"critic","note":1}')
    messages: list[Any] = [U, asks(call("a")), unknown]
    assert ct.open_calls(messages) == [pending("a")]
    assert ct.close_open_calls(messages, "x") == [U, asks(call("a")), result("a", "x"), unknown]


@pytest.mark.parametrize("bad", ["text", b"bytes", {"role": "user"}, 3, None])
def test_not_a_transcript_is_a_type_error(bad: Any) -> None:
    with pytest.raises(TypeError, match="iterable of messages"):
        ct.open_calls(bad)
    with pytest.raises(TypeError, match="iterable of messages"):
        ct.close_open_calls(bad, "x")


def test_an_item_that_is_not_a_message_is_named() -> None:
    with pytest.raises(TypeError, match="item 1 is a dict"):
        ct.open_calls([U, {"role": "user", "content": "x"}])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="item 0 is a str"):
        ct.close_open_calls(["u"], "x")  # type: ignore[list-item]


def test_content_must_be_text() -> None:
    with pytest.raises(TypeError, match="content as text, got int"):
        ct.close_open_calls([U], 3)  # type: ignore[call-overload]
    with pytest.raises(ct.WireError, match="surrogate"):
        ct.close_open_calls([U, asks(call("a"))], "\ud800")


@st.composite
def cancelled(draw: st.DrawFn) -> list[ct.Message]:
    """A well-formed conversation with some results taken out, as a cancel leaves it."""
    messages = [
        # Plain user text: what is tested is the pairing of calls and results,
        # not which media or blank text each provider takes.
        U if isinstance(message, (ct.UserMessage, ct.UserMultimodalMessage)) else message
        for message in draw(cst.conversations(max_exchanges=3))
    ]
    keep = [
        not isinstance(message, ct.ToolResultMessage) or draw(st.booleans()) for message in messages
    ]
    return [message for message, kept in zip(messages, keep, strict=True) if kept]


@given(cancelled())
def test_closed_transcripts_pass_the_check_and_every_dialect(messages: list[ct.Message]) -> None:
    closed = ct.close_open_calls(messages, "cancelled")
    assert ct.open_calls(closed) == []
    # Only results were added, each for a call that was open.
    given_ids = {id(message) for message in messages}
    added = [message for message in closed if id(message) not in given_ids]
    assert sorted(m.tool_use_id for m in added if isinstance(m, ct.ToolResultMessage)) == sorted(
        c.id for c in ct.open_calls(messages)
    )
    assert [m for m in closed if id(m) in given_ids] == messages
    follow = [*closed, ct.UserMessage(content="never mind")]
    assert ct.check_conversation(follow) == []
    for dialect in DIALECTS:
        dialect.to_request(follow)


def test_calls_one_result_could_not_tell_apart_are_closed_in_turns_of_their_own() -> None:
    # Two replies in a row, each with a call answered by position (call_0):
    # the first reply's result goes before the second reply and its items.
    items = ct.ProviderOutputItemsMessage(protocol="gemini", items=[{"text": "x"}])
    first = asks(call(None, "f"), call(None, "g"))
    second = asks(call(None, "h"))
    messages: list[ct.Message] = [U, first, items, second]
    closed = ct.close_open_calls(messages, "x")
    assert closed == [
        U,
        first,
        result("call_0", "x"),
        result("call_1", "x"),
        items,
        second,
        result("call_0", "x"),
    ]
    assert ct.check_conversation(closed) == []
