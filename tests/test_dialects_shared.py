"""The pieces every dialect shares: a reply's calls ready to answer, cache= read alike."""

from __future__ import annotations

from typing import Any

import pytest

import convtypes as ct
from convtypes.dialects import PendingCall, Reply
from convtypes.dialects._cache import cache_ttl


def test_reply_tool_calls_carry_the_id_their_result_needs() -> None:
    items = ct.ProviderOutputItemsMessage(protocol="gemini", items=[{"text": "x"}])
    first = ct.AssistantMessage(
        tool_calls=(
            ct.ToolCall(name="f", arguments={"a": 1}),
            ct.ToolCall(id="toolu_1", name="g", arguments={}),
            ct.ToolCall(name="h", arguments={}),
        )
    )
    reply = Reply(messages=[items, first], stop_reason="tool_use")
    assert reply.tool_calls == [
        PendingCall(id="call_0", name="f", arguments={"a": 1}),
        PendingCall(id="toolu_1", name="g", arguments={}),
        PendingCall(id="call_2", name="h", arguments={}),
    ]
    # Each answers its call by the pairing check_conversation (and every dialect) uses.
    results = [ct.ToolResultMessage(tool_use_id=c.id, content="ok") for c in reply.tool_calls]
    assert ct.check_conversation([ct.UserMessage(content="u"), first, *results]) == []
    assert (
        Reply(messages=[ct.AssistantMessage(content="hi")], stop_reason="end_turn").tool_calls == []
    )


@pytest.mark.parametrize(
    ("cache", "ttl"), [(False, None), (True, "5m"), ("5m", "5m"), ("1h", "1h")]
)
def test_cache_values(cache: Any, ttl: str | None) -> None:
    assert cache_ttl(cache) == ttl


@pytest.mark.parametrize(
    ("cache", "error"), [("2h", ValueError), (1, TypeError), (None, TypeError)]
)
def test_cache_refuses_other_values(cache: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match='cache= must be False, True, "5m" or "1h"'):
        cache_ttl(cache)


def test_the_ownership_check_finds_a_shared_dict() -> None:
    # The check itself must fail on a builder that hands out what the transcript holds.
    from ownership import assert_owned

    items = ct.ProviderOutputItemsMessage(protocol="p", items=[{"type": "x", "n": [1]}])

    def leaky() -> dict[str, Any]:
        return {"input": list(items.items)}

    with pytest.raises(AssertionError):
        assert_owned(leaky, [items])

    def owned() -> dict[str, Any]:
        return {"input": [{"type": "x", "n": [1]}]}

    assert assert_owned(owned, [items]) == owned()
