"""check_conversation: every code, and no false alarm on well-formed input."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

import convtypes as ct
from convtypes import strategies as cst

U = ct.UserMessage(content="u")
A = ct.AssistantMessage(content="a")


def call(call_id: str | None, name: str = "f") -> ct.ToolCall:
    return ct.ToolCall(id=call_id, name=name, arguments={})


def asks(*calls: ct.ToolCall, thinking: tuple[ct.ThinkingBlock, ...] = ()) -> ct.AssistantMessage:
    return ct.AssistantMessage(tool_calls=calls, thinking=thinking)


def result(call_id: str, content: str = "r") -> ct.ToolResultMessage:
    return ct.ToolResultMessage(tool_use_id=call_id, content=content)


def codes(messages: Sequence[Any]) -> list[tuple[int, str]]:
    return [(p.index, p.code) for p in ct.check_conversation(messages)]


@given(cst.conversations())
def test_well_formed_conversations_have_no_problem(messages: list[ct.Message]) -> None:
    assert ct.check_conversation(messages) == []


def test_empty() -> None:
    assert codes([]) == [(-1, "empty")]


def test_system_must_be_first_and_single() -> None:
    system = ct.SystemMessage(content="s")
    assert codes([U, system]) == [(1, "system-not-first")]
    assert codes([system, U, system]) == [(2, "system-repeated")]


def test_result_must_answer_an_earlier_call() -> None:
    assert codes([U, result("toolu_1")]) == [(1, "unknown-call")]
    assert codes([U, result("c1"), asks(call("c1")), result("c1")]) == [(1, "unknown-call")]


def test_calls_must_be_answered_before_the_next_user_turn() -> None:
    messages: list[ct.Message] = [U, asks(call("c1"), call("c2")), result("c2"), U]
    problems = ct.check_conversation(messages)
    assert [(p.index, p.code) for p in problems] == [(1, "unanswered-call")]
    assert "'c1'" in problems[0].text
    # Still open at the end: the caller may be about to run it.
    assert codes([U, asks(call("c1"))]) == []


def test_call_ids_must_be_unique() -> None:
    again = asks(call("c1", name="g"))
    messages = [U, asks(call("c1")), result("c1"), again, result("c1")]
    assert codes(messages) == [(3, "duplicate-call-id")]
    # An assistant message alone is no copy, even equal: the id is reused.
    copied: list[ct.Message] = [U, asks(call("c1")), result("c1"), asks(call("c1")), result("c1")]
    assert codes(copied) == [(3, "duplicate-call-id")]
    # A result stored twice is a copy, sent once: a warning.
    assert codes([U, asks(call("c1")), result("c1"), result("c1")]) == [(3, "duplicate-result")]


def test_a_call_is_answered_once() -> None:
    answered_twice = [U, asks(call("c1")), result("c1"), result("c1", "other")]
    assert codes(answered_twice) == [(3, "repeated-result")]
    assert codes([U, asks(call("c1")), result("c1"), result("c1")]) == [(3, "duplicate-result")]


def test_calls_without_ids_are_answered_by_position() -> None:
    messages = [U, asks(call(None), call(None)), result("call_1"), result("call_0"), A]
    assert codes(messages) == []
    assert ct.positional_call_id(1) == "call_1"
    # Positions restart every turn, so call_0 may come back without a clash.
    again = [*messages, U, asks(call(None)), result("call_0")]
    assert codes(again) == []
    assert codes([U, asks(call(None)), result("call_1"), U]) == [
        (1, "unanswered-call"),
        (2, "unknown-call"),
    ]


def test_unsigned_thinking_beside_signed_thinking() -> None:
    signed = ct.ThinkingBlock(text="t", signature="sig")
    redacted = ct.ThinkingBlock(redacted_data="opaque")
    bare = ct.ThinkingBlock(text="t")
    messages = [U, asks(thinking=(signed,)), U, asks(thinking=(bare, redacted))]
    assert codes(messages) == [(3, "unsigned-thinking")]
    # With no signed block anywhere there is nothing to replay, so no problem.
    assert codes([U, asks(thinking=(bare,))]) == []


def test_thinking_is_judged_message_by_message() -> None:
    # What convtypes' own dialects make: an Anthropic turn with signed
    # thinking, then a Responses reply whose summaries are unsigned. Each
    # dialect replays only what it can, so a replay refuses nothing.
    anthropic_turn = asks(call("toolu_1"), thinking=(ct.ThinkingBlock(text="t", signature="s"),))
    items = ct.ProviderOutputItemsMessage(protocol="openai-responses", items=[{"id": "rs_1"}])
    summaries = ct.AssistantMessage(content="done", thinking=(ct.ThinkingBlock(text="summary"),))
    messages = [U, anthropic_turn, result("toolu_1"), U, items, summaries]
    assert codes(messages) == []
    # Signed in part, within one message: that turn's thinking was altered.
    part = asks(thinking=(ct.ThinkingBlock(text="t", signature="s"), ct.ThinkingBlock(text="u")))
    assert codes([U, part]) == [(1, "unsigned-thinking")]
    assert ct.check_conversation([U, part])[0].text == (
        "1 of the message's 2 thinking blocks have no signature or redacted data, "
        "beside signed ones"
    )


def test_an_empty_signature_signs_nothing() -> None:
    empty = ct.ThinkingBlock(text="t", signature="")
    signed = ct.ThinkingBlock(text="t", signature="s")
    redacted = ct.ThinkingBlock(redacted_data="")
    assert codes([U, asks(thinking=(signed, empty))]) == [(1, "unsigned-thinking")]
    assert codes([U, asks(thinking=(empty,))]) == []
    # Redacted data is sent as it is, empty or not, as the dialect sends it.
    assert codes([U, asks(thinking=(redacted, signed))]) == []


_THINKING = st.lists(
    st.builds(
        ct.ThinkingBlock,
        text=st.just("t"),
        signature=st.sampled_from([None, "", "sig"]),
        redacted_data=st.sampled_from([None, None, "", "opaque"]),
    ),
    max_size=4,
)


@given(_THINKING)
def test_unsigned_thinking_is_what_the_anthropic_dialect_would_cut(
    thinking: list[ct.ThinkingBlock],
) -> None:
    from convtypes.dialects import anthropic

    message = ct.AssistantMessage(content="a", thinking=tuple(thinking))
    request = anthropic.to_request([U, message])
    sent = [
        block
        for block in request["messages"][1]["content"]
        if block["type"] in ("thinking", "redacted_thinking")
    ]
    cut = 0 < len(sent) < len(thinking)
    assert (codes([U, message]) == [(1, "unsigned-thinking")]) is cut


def _items(*ids: str, protocol: str = "openai-responses") -> ct.ProviderOutputItemsMessage:
    # Server tool calls, which the Responses request always sends back (a
    # reasoning item goes only beside the item that followed it).
    return ct.ProviderOutputItemsMessage(
        protocol=protocol,
        items=[{"type": "web_search_call", "id": i, "status": "completed"} for i in ids],
    )


def test_provider_items_stored_twice() -> None:
    reply = _items("rs_1", "msg_1")
    answer = ct.AssistantMessage(content="a")
    merged: list[ct.Message] = [U, reply, answer, U, reply, answer]
    # A copy of the whole reply is sent once: a warning for each message.
    assert codes(merged) == [(4, "duplicate-reply"), (5, "duplicate-reply")]
    assert [p.severity for p in ct.check_conversation(merged)] == ["warning", "warning"]
    # Items that repeat ids beside new ones are no copy: the request would
    # send the ids twice.
    mixed: list[ct.Message] = [U, reply, answer, U, _items("rs_1", "msg_1", "ws_2"), answer]
    assert codes(mixed) == [(4, "duplicate-item-id"), (4, "duplicate-item-id")]
    assert ct.check_conversation(mixed)[0].text == "provider item id 'rs_1' is sent again"
    # Another protocol's items are not sent to the Responses API, so their
    # ids are no error; stored twice they are a copy all the same, sent once.
    gemini = [U, _items("p1", protocol="gemini"), U, _items("p1", protocol="gemini")]
    assert codes(gemini) == [(3, "duplicate-reply")]
    # Items without an id have nothing to repeat.
    bare = ct.ProviderOutputItemsMessage(protocol="openai-responses", items=[{"type": "x"}, 7])
    assert codes([U, bare, U, bare]) == []


@given(st.lists(st.sampled_from(["rs_1", "rs_2", "msg_1", "fc_1"]), max_size=6), st.data())
def test_duplicate_item_ids_are_what_the_responses_request_repeats(
    ids: list[str], data: st.DataObject
) -> None:
    from convtypes.dialects import openai_responses

    cuts = sorted(data.draw(st.lists(st.integers(0, len(ids)), max_size=3)))
    messages: list[ct.LenientMessage] = [U]
    for start, stop in zip([0, *cuts], [*cuts, len(ids)], strict=True):
        messages += [_items(*ids[start:stop]), U]
    sent = [item["id"] for item in openai_responses.to_request(messages)["input"] if "id" in item]
    repeated = len(sent) - len(set(sent))
    assert sum(code == "duplicate-item-id" for _, code in codes(messages)) == repeated


@given(
    st.from_type(ct.ToolCall),
    st.from_type(cast(Any, ct.Message)),
    st.from_type(cast(Any, ct.ContentBlock)),
)
def test_strategies_are_registered_with_hypothesis(
    call_: ct.ToolCall, message: ct.Message, block: ct.ContentBlock
) -> None:
    # Registered through the package's hypothesis entry point, with no import.
    assert isinstance(call_, ct.ToolCall)
    for value in (call_, message, block):
        assert ct.decode(ct.encode(value), type(value)) == value


@given(
    cst.for_type(ct.UnknownProvenance),
    st.from_type(ct.UnknownProvenance),
    st.from_type(cast(Any, ct.LenientProvenance)),
)
def test_unknown_provenances_have_a_strategy_of_their_own(
    drawn: ct.UnknownProvenance, registered: ct.UnknownProvenance, lenient: ct.LenientProvenance
) -> None:
    # Hypothesis would otherwise build one from any text, "internal" (a
    # constant it finds in convtypes' code) included, which the class refuses.
    for value in (drawn, registered):
        assert isinstance(value, ct.UnknownProvenance)
        assert value.value not in ("internal", "external") and not value.is_internal()
    stored = ct.ToolResultMessage(tool_use_id="t", content="x", provenance=lenient)
    assert ct.decode_lenient_message(ct.encode(stored)) == stored


def test_strategies_module_is_not_imported_by_convtypes() -> None:
    import subprocess
    import sys

    code = (
        "import sys, convtypes; "
        "print('hypothesis' in sys.modules, 'convtypes.strategies' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        ([A, U], [(0, "assistant-first")]),
        ([ct.SystemMessage(content="s"), A], [(1, "assistant-first")]),
        ([ct.SystemMessage(content="s")], [(-1, "no-turn")]),
        ([ct.UserMessage(content="  "), A], [(1, "assistant-first")]),
        ([ct.UserMessage(content="  ")], [(-1, "no-turn")]),
        # Thinking alone makes no turn: the dialects leave it out.
        ([asks(thinking=(ct.ThinkingBlock(text="t", signature="s"),)), U], []),
        ([ct.SystemMessage(content="s"), U, A], []),
    ],
)
def test_the_first_turn_is_the_users(
    messages: list[ct.Message], expected: list[tuple[int, str]]
) -> None:
    # Anthropic and Bedrock refuse a conversation that begins with the
    # assistant, or has no turn at all; every other dialect sends it.
    from convtypes.dialects import DialectError, anthropic, bedrock

    assert codes(messages) == expected
    for dialect in (anthropic, bedrock):
        if expected:
            with pytest.raises(DialectError):
                dialect.to_request(messages)
        else:
            dialect.to_request(messages)
