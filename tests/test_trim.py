"""trim: the system message and the longest tail that fits, cut where a conversation may start."""

from __future__ import annotations

import pickle
from collections import Counter
from typing import Any

import pytest
import test_switch_providers as switch
from hypothesis import given, settings
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

from budget import examples

DIALECTS = (anthropic, openai_chat, openai_responses, gemini, ollama, bedrock, mistral, cohere)
SYSTEM = ct.SystemMessage(content="be brief")


def user(text: str = "u") -> ct.UserMessage:
    return ct.UserMessage(content=text)


def asks(*call_ids: str | None) -> ct.AssistantMessage:
    calls = tuple(ct.ToolCall(id=i, name="f", arguments={}) for i in call_ids)
    return ct.AssistantMessage(tool_calls=calls)


def result(call_id: str) -> ct.ToolResultMessage:
    return ct.ToolResultMessage(tool_use_id=call_id, content="r")


def answer(text: str = "a") -> ct.AssistantMessage:
    return ct.AssistantMessage(content=text)


def one(message: Any) -> int:
    return 1


def test_what_fits_whole_comes_back_whole() -> None:
    messages: list[ct.Message] = [SYSTEM, user(), answer()]
    kept = ct.trim(messages, 3, count=one)
    assert kept == messages
    assert kept is not messages


def test_the_system_message_stays_and_counts() -> None:
    messages: list[ct.Message] = [SYSTEM, user("1"), answer(), user("2"), answer()]
    assert ct.trim(messages, 3, count=one) == [SYSTEM, user("2"), answer()]
    assert ct.trim(messages, 4, count=one) == [SYSTEM, user("2"), answer()]
    assert ct.trim(messages, 5, count=one) == messages


def test_never_between_a_call_and_its_result() -> None:
    # A user turn inside a call's span is no place to start.
    tail: list[ct.Message] = [asks("a"), user("inside"), result("a"), answer()]
    messages: list[ct.Message] = [user("1"), *tail]
    assert ct.trim(messages, 5, count=one) == messages
    with pytest.raises(ct.TrimError) as caught:
        ct.trim(messages, 4, count=one)
    assert caught.value.needed == 5
    assert caught.value.budget == 4


def test_calls_answered_by_position_are_paired_in_their_own_turn() -> None:
    messages: list[ct.Message] = [
        user("1"),
        asks(None),
        result("call_0"),
        answer(),
        user("2"),
        asks(None),
        result("call_0"),
        answer(),
    ]
    assert ct.trim(messages, 4, count=one) == messages[4:]


def test_never_starts_with_the_model() -> None:
    messages: list[ct.Message] = [SYSTEM, answer("hello"), user(), answer()]
    assert ct.trim(messages, 10, count=one) == [SYSTEM, user(), answer()]


def test_provider_items_stay_with_their_turn() -> None:
    items = ct.ProviderOutputItemsMessage(protocol="x", items=[{"a": 1}])
    messages: list[ct.Message] = [user("1"), items, answer(), user("2"), items, answer()]
    assert ct.trim(messages, 3, count=one) == messages[3:]
    assert ct.trim(messages, 5, count=one) == messages[3:]


def test_not_even_the_last_turn_fits() -> None:
    messages: list[ct.Message] = [SYSTEM, user(), answer(), user(), answer(), answer()]
    with pytest.raises(ct.TrimError, match="count 4, over the budget of 3") as caught:
        ct.trim(messages, 3, count=one)
    assert isinstance(caught.value, ValueError)
    assert (caught.value.needed, caught.value.budget) == (4, 3)
    copy = pickle.loads(pickle.dumps(caught.value))
    assert (str(copy), copy.needed, copy.budget) == (str(caught.value), 4, 3)


def test_the_system_message_alone_over_the_budget() -> None:
    with pytest.raises(ct.TrimError, match="system message alone counts 1") as caught:
        ct.trim([SYSTEM], 0, count=one)
    assert caught.value.needed == 1
    assert ct.trim([SYSTEM], 1, count=one) == [SYSTEM]
    assert ct.trim([], 0) == []


def test_no_place_to_start() -> None:
    with pytest.raises(ct.TrimError, match="no message of the transcript") as caught:
        ct.trim([SYSTEM, answer()], 100, count=one)
    assert caught.value.needed is None


def test_count_is_asked_once_per_message_and_only_as_far_as_needed() -> None:
    messages: list[ct.Message] = [user(str(i)) for i in range(10)]
    asked: list[int] = []

    def count(message: ct.Message) -> int:
        asked.append(messages.index(message))
        return 1

    assert ct.trim(messages, 3, count=count) == messages[7:]
    assert asked == [9, 8, 7, 6]  # the walk stops at the first message over the budget


def test_the_default_estimate() -> None:
    message = user("x" * 400)
    assert ct.estimate_tokens(message) == (len(ct.encode(message)) + 3) // 4
    assert ct.trim([user("x" * 400)], ct.estimate_tokens(message)) == [message]
    with pytest.raises(ct.TrimError):
        ct.trim([message], ct.estimate_tokens(message) - 1)


@pytest.mark.parametrize("bad", ["text", b"bytes", 3, None, {1, 2}])
def test_not_a_sequence_is_a_type_error(bad: Any) -> None:
    with pytest.raises(TypeError, match="sequence of messages"):
        ct.trim(bad, 10)


def test_an_item_that_is_not_a_message_is_named() -> None:
    with pytest.raises(TypeError, match="item 1 is a dict"):
        ct.trim([user(), {"role": "user"}], 10)  # type: ignore[list-item]


@pytest.mark.parametrize("budget", [1.5, "10", True, None])
def test_the_budget_is_an_int(budget: Any) -> None:
    with pytest.raises(TypeError, match="int budget"):
        ct.trim([user()], budget)


@pytest.mark.parametrize(
    ("size", "error", "text"),
    [
        (1.0, TypeError, "returned float"),
        (True, TypeError, "returned bool"),
        (-1, ValueError, "-1"),
    ],
)
def test_count_must_return_a_count(size: Any, error: type[Exception], text: str) -> None:
    with pytest.raises(error, match=text):
        ct.trim([user()], 10, count=lambda message: size)


@st.composite
def transcripts(draw: st.DrawFn) -> list[ct.Message]:
    """Well-formed conversations with calls (parallel, positional), thinking and provider items."""
    out: list[ct.Message] = []
    for message in draw(cst.conversations(max_exchanges=5)):
        if isinstance(message, (ct.UserMessage, ct.UserMultimodalMessage)):
            # Plain text the providers all take: what is tested is where trim cuts.
            out.append(user(f"u{len(out)}"))
            continue
        if isinstance(message, ct.AssistantMessage) and draw(st.booleans()):
            out.append(ct.ProviderOutputItemsMessage(protocol="elsewhere", items=[{"n": len(out)}]))
        out.append(message)
    return out


def check_trim(messages: list[ct.Message], data: st.DataObject) -> list[ct.Message] | None:
    """Trim ``messages`` at a drawn budget, with drawn counts, and hold the result to
    every promise: the system message and the longest tail that fits and may start
    a conversation, each message counted once, a conversation the check passes.
    ``None`` when not even the last turn fits (and ``trim`` said how much it needs)."""
    costs = data.draw(st.lists(st.integers(0, 5), min_size=len(messages), max_size=len(messages)))
    cost_of = {id(message): cost for message, cost in zip(messages, costs, strict=True)}
    asked: Counter[int] = Counter()

    def count(message: ct.Message) -> int:
        asked[id(message)] += 1
        return cost_of[id(message)]

    budget = data.draw(st.integers(0, sum(costs) + 2))
    first = 1 if isinstance(messages[0], ct.SystemMessage) else 0
    head = messages[:first]

    # The oracle: every start whose tail begins with a user turn and passes the
    # check, by brute force.
    def sendable(start: int) -> bool:
        tail = messages[start:]
        return isinstance(tail[0], (ct.UserMessage, ct.UserMultimodalMessage)) and (
            ct.check_conversation(head + tail) == []
        )

    assert sendable(first), "the drawn conversation should be one the check passes"
    fitting = [
        start
        for start in range(first, len(messages))
        if sendable(start) and sum(costs[:first]) + sum(costs[start:]) <= budget
    ]
    try:
        kept = ct.trim(messages, budget, count=count)
    except ct.TrimError as err:
        assert fitting == []
        last = max(s for s in range(first, len(messages)) if sendable(s))
        assert err.needed == sum(costs[:first]) + sum(costs[last:])
        return None
    assert fitting, "trim returned a tail the oracle says cannot fit"
    assert kept == head + messages[min(fitting) :]
    assert sum(cost_of[id(m)] for m in kept) <= budget
    assert all(times == 1 for times in asked.values())
    assert ct.check_conversation(kept) == []
    return kept


@given(transcripts(), st.data())
def test_trim_keeps_the_longest_sendable_tail_that_fits(
    messages: list[ct.Message], data: st.DataObject
) -> None:
    kept = check_trim(messages, data)
    for dialect in DIALECTS if kept is not None else ():
        dialect.to_request(kept)


@settings(max_examples=examples(100, 15))
@given(st.data())
def test_a_trimmed_conversation_keeps_every_providers_items_with_their_turn(
    data: st.DataObject,
) -> None:
    # Replies read by each dialect (its own items kept beside the message read
    # from them: thinking and signatures, parallel calls, server tools,
    # citations), from several providers in one conversation.
    messages, _ = data.draw(switch.transcripts(*switch.PROVIDERS, turns=4))
    kept = check_trim(messages, data)
    if kept is None:
        return
    for position, message in enumerate(kept):
        if isinstance(message, ct.ProviderOutputItemsMessage):
            # The message read from the items is kept with them.
            assert isinstance(kept[position + 1], ct.AssistantMessage)
    for dialect in switch.PROVIDERS:
        # Each dialect replays its own items from what is kept, and passes over the others'.
        dialect.module.to_request(kept, **dialect.request_options)
