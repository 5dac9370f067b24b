"""The pieces every dialect shares: a reply's calls ready to answer, cache= read alike,
left_out called alike."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

import pytest

import convtypes as ct
from convtypes.dialects import (
    LeftOut,
    PendingCall,
    Reply,
    UnansweredCall,
    UnmatchedResult,
    Unsupported,
    UnsupportedContent,
    anthropic,
    bedrock,
    cohere,
    gemini,
    mistral,
    ollama,
    openai_chat,
    openai_responses,
)
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


# --- the same surface on every dialect --------------------------------------------------

_DIALECTS = {
    "anthropic": anthropic,
    "openai_chat": openai_chat,
    "openai_responses": openai_responses,
    "gemini": gemini,
    "ollama": ollama,
    "bedrock": bedrock,
    "mistral": mistral,
    "cohere": cohere,
}


class _LeftOut(Protocol):
    """What a backend writes against every dialect's ``left_out`` (mypy checks the modules)."""

    def left_out(
        self, messages: Iterable[ct.Message | ct.UnknownMessage], *, unsupported: Unsupported = ...
    ) -> list[LeftOut]: ...


_TYPED: list[_LeftOut] = [anthropic, openai_chat, openai_responses, gemini, ollama]
_TYPED += [bedrock, mistral, cohere]


@pytest.mark.parametrize("dialect", _TYPED, ids=list(_DIALECTS))
def test_left_out_takes_the_transcript_and_unsupported_as_to_request_does(
    dialect: _LeftOut,
) -> None:
    # A generic backend passes left_out what it passes to_request.
    video = ct.UserMultimodalMessage(
        content=(ct.TextBlock(text="see"), ct.VideoPathBlock(path="/clips/a.mp4"))
    )
    noted = dialect.left_out(messages=[video], unsupported="note")
    assert [(piece.index, piece.what) for piece in noted] == [(0, "video")]
    with pytest.raises(ValueError, match="unsupported"):
        dialect.left_out([video], unsupported="skip")  # type: ignore[arg-type]


_UNSENDABLE: dict[str, tuple[list[ct.LenientMessage], type[Exception]]] = {
    "unknown message": (
        ct.decode_lenient_messages(b'[{"role":"user","content":"q"},{"role":"critic"}]'),
        UnsupportedContent,
    ),
    "unknown block": (
        ct.decode_lenient_messages(b'[{"role":"user_multimodal","content":[{"type":"hologram"}]}]'),
        UnsupportedContent,
    ),
    "unanswered call": (
        [
            ct.UserMessage(content="q"),
            ct.AssistantMessage(tool_calls=(ct.ToolCall(id="a", name="f", arguments={}),)),
            ct.UserMessage(content="r"),
        ],
        UnansweredCall,
    ),
    "unmatched result": (
        [ct.UserMessage(content="q"), ct.ToolResultMessage(tool_use_id="zz", content="r")],
        UnmatchedResult,
    ),
}


# The dialects whose left_out names an unknown message, as to_request(...,
# unknown="skip") leaves it out, instead of refusing it (see
# tests/test_dialects_unknown.py).
_NAMES_UNKNOWN = set(_DIALECTS)


@pytest.mark.parametrize("case", list(_UNSENDABLE))
@pytest.mark.parametrize("name", list(_DIALECTS))
def test_left_out_raises_what_to_request_raises(name: str, case: str) -> None:
    # An empty list would say the whole transcript goes; it does not go at all.
    dialect = _DIALECTS[name]
    transcript, error = _UNSENDABLE[case]
    with pytest.raises(error):
        dialect.to_request(transcript)
    if case == "unknown message" and name in _NAMES_UNKNOWN:
        assert [(p.index, p.what) for p in dialect.left_out(transcript)] == [(1, "unknown")]
        return
    with pytest.raises(error):
        dialect.left_out(transcript)
