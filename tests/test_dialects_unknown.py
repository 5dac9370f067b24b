"""What a newer writer made, on the way to a provider: ``unknown=`` and ``left_out``.

A transcript synced from a newer convtypes holds messages of roles this
version does not know and known messages, blocks and calls with fields it
does not know. ``to_request(..., unknown="skip")`` builds a request without
them, the same request the transcript gives with the unknown messages taken
out, and ``left_out`` names each, with ``what="unknown"``.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest
import test_dialects_readme as readme
from left_out_check import NOTHING
from test_dialects_requests import (
    SESSION,
    validate_anthropic,
    validate_bedrock,
    validate_gemini,
    validate_openai_chat,
    validate_openai_responses,
)

import convtypes as ct
from convtypes.dialects import (
    LEFT_OUT_KINDS,
    LeftOut,
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

from provider_rules import validate_cohere, validate_mistral

DIALECTS: dict[str, ModuleType] = {
    "anthropic": anthropic,
    "openai_chat": openai_chat,
    "openai_responses": openai_responses,
    "gemini": gemini,
    "ollama": ollama,
    "bedrock": bedrock,
    "mistral": mistral,
    "cohere": cohere,
}


def _validate_ollama(body: dict[str, Any]) -> None:
    """Ollama has no SDK request type here: each call's result comes right after its turn.

    A result names its call by id where the call has one, and by the tool's name otherwise.
    """
    calls: list[tuple[str | None, str]] = []
    for message in body["messages"]:
        if message["role"] == "tool":
            key = message.get("tool_call_id")
            match = [c for c in calls if (c[0] == key if key else c[1] == message["tool_name"])]
            assert match, f"a result that answers no open call: {message}"
            calls.remove(match[0])
            continue
        assert not calls, f"calls {calls} unanswered before a {message['role']} message"
        calls = [
            (call.get("id"), call["function"]["name"]) for call in message.get("tool_calls", ())
        ]


VALIDATE = {
    "anthropic": validate_anthropic,
    "openai_chat": validate_openai_chat,
    "openai_responses": validate_openai_responses,
    "gemini": validate_gemini,
    "ollama": _validate_ollama,
    "bedrock": validate_bedrock,
    "mistral": validate_mistral,
    "cohere": validate_cohere,
}

# What a newer writer wrote, and (``_PLAIN``) what this version makes of it
# with the unknown messages taken out and the unknown fields dropped. Each
# unknown piece is named in ``_NAMED`` by index and place.
_CALL = {"id": "call_1", "name": "weather", "arguments": {"city": "Oslo"}}
_NEWER: list[dict[str, Any]] = [
    {"role": "system", "content": "Be brief.", "mood": "calm"},
    {"role": "user", "content": "Weather in Oslo?", "lang": "en"},
    {"role": "critic", "verdict": "fine"},
    {"role": "assistant", "content": "", "tool_calls": [{**_CALL, "confidence": 0.9}]},
    {"role": "planner", "plan": ["a", "b"]},
    {"role": "tool_result", "tool_use_id": "call_1", "content": "sunny", "latency_ms": 12},
    {"role": "assistant", "content": "Sunny.", "mood": "glad"},
    {"role": "user_multimodal", "content": [{"type": "text", "text": "And now?", "lang": "en"}]},
    {"role": "critic", "verdict": "last"},
]
_PLAIN: list[dict[str, Any] | None] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Weather in Oslo?"},
    None,
    {"role": "assistant", "content": "", "tool_calls": [_CALL]},
    None,
    {"role": "tool_result", "tool_use_id": "call_1", "content": "sunny"},
    {"role": "assistant", "content": "Sunny."},
    {"role": "user_multimodal", "content": [{"type": "text", "text": "And now?"}]},
    None,
]
_NAMED = [
    (0, "at /mood"),
    (1, "at /lang"),
    (2, "role 'critic'"),
    (3, "call 0 at /confidence"),
    (4, "role 'planner'"),
    (5, "at /latency_ms"),
    (6, "at /mood"),
    (7, "block 0 at /lang"),
    (8, "role 'critic'"),
]


def _newer() -> list[ct.LenientMessage]:
    return ct.decode_lenient_messages(json.dumps(_NEWER).encode())


def _plain() -> list[ct.Message]:
    """The known messages alone, strictly decoded: what a request can hold.

    Each unknown message leaves :data:`NOTHING` in its place, for a dialect
    makes up the ids of calls it cannot send as they are from their place.
    """
    return [NOTHING if m is None else ct.decode_message(json.dumps(m).encode()) for m in _PLAIN]


def _without_unknown(messages: list[ct.LenientMessage]) -> list[ct.Message]:
    return [NOTHING if isinstance(m, ct.UnknownMessage) else m for m in messages]


def _place(piece: LeftOut) -> str:
    """Where a note for a newer writer's piece is: the text before ``": "``, or the role.

    A whole message has no place (see ``LeftOut``): its note names its role.
    """
    if piece.why.startswith("role "):
        role, rest = piece.why.split(" is unknown to this version of convtypes", 1)
        assert rest == '; with unknown="skip" the message is not sent', piece.why
        return role
    place, reason = piece.why.split(": ", 1)
    assert reason == "a field this version of convtypes does not know is never sent"
    return place


@pytest.mark.parametrize("name", list(DIALECTS))
def test_skip_sends_what_the_known_messages_alone_send(name: str) -> None:
    dialect = DIALECTS[name]
    body = dialect.to_request(_newer(), unknown="skip")
    assert body == dialect.to_request(_plain())
    VALIDATE[name](body)
    # Nothing of the newer writer's went out.
    sent = json.dumps(body)
    for word in ("mood", "lang", "latency_ms", "confidence", "critic", "verdict", "planner"):
        assert word not in sent


@pytest.mark.parametrize("name", list(DIALECTS))
def test_left_out_names_each_unknown_piece_and_nothing_else_changes(name: str) -> None:
    dialect = DIALECTS[name]
    report = dialect.left_out(_newer())
    named = [(piece.index, _place(piece)) for piece in report if piece.what == "unknown"]
    assert named == _NAMED
    assert [p for p in report if p.what != "unknown"] == dialect.left_out(_plain())


@pytest.mark.parametrize("name", list(DIALECTS))
def test_the_default_still_refuses_an_unknown_message(name: str) -> None:
    dialect = DIALECTS[name]
    for options in ({}, {"unknown": "raise"}, {"unknown": "raise", "unsupported": "note"}):
        with pytest.raises(UnsupportedContent, match=r"message 2: role 'critic' is unknown") as err:
            dialect.to_request(_newer(), **options)
        assert err.value.index == 2
        assert isinstance(err.value.block, ct.UnknownMessage)


@pytest.mark.parametrize("name", list(DIALECTS))
def test_unknown_fields_alone_go_as_before(name: str) -> None:
    # Known messages with unknown fields: the default sends them, without the fields.
    dialect = DIALECTS[name]
    newer = _without_unknown(_newer())
    assert dialect.to_request(newer) == dialect.to_request(_plain())
    assert dialect.to_request(newer, unknown="skip") == dialect.to_request(_plain())


@pytest.mark.parametrize("name", list(DIALECTS))
def test_a_transcript_without_newer_pieces_is_sent_as_before(name: str) -> None:
    dialect = DIALECTS[name]
    default = dialect.to_request(SESSION, unsupported="note")
    assert dialect.to_request(SESSION, unsupported="note", unknown="skip") == default
    assert all(p.what != "unknown" for p in dialect.left_out(SESSION, unsupported="note"))


@pytest.mark.parametrize("name", list(DIALECTS))
def test_a_skipped_message_between_a_call_and_its_result_keeps_them_paired(name: str) -> None:
    dialect = DIALECTS[name]
    calls = ct.AssistantMessage(
        content="Checking.",
        tool_calls=(
            ct.ToolCall(id="call_a", name="weather", arguments={"city": "Oslo"}),
            ct.ToolCall(id="call_b", name="weather", arguments={"city": "Bergen"}),
        ),
    )
    unknown = ct.UnknownMessage(role="observer", raw=b'{"role":"observer","seen":true}')
    transcript: list[ct.LenientMessage] = [
        ct.UserMessage(content="Weather?"),
        calls,
        unknown,
        ct.ToolResultMessage(tool_use_id="call_a", content="sunny"),
        unknown,
        ct.ToolResultMessage(tool_use_id="call_b", content="rain"),
        unknown,
        ct.AssistantMessage(content="Sunny and rain."),
        ct.UserMessage(content="Thanks."),
    ]
    body = dialect.to_request(transcript, unknown="skip")
    VALIDATE[name](body)
    assert body == dialect.to_request(_without_unknown(transcript))
    report = dialect.left_out(transcript)
    assert [(p.index, p.what) for p in report] == [(2, "unknown"), (4, "unknown"), (6, "unknown")]


@pytest.mark.parametrize("name", list(DIALECTS))
def test_a_call_only_an_unknown_message_follows_is_still_unanswered(name: str) -> None:
    # A newer role that may answer a call is not a result to this version: the
    # call stands unanswered when the user speaks, as with nothing in between.
    dialect = DIALECTS[name]
    transcript: list[ct.LenientMessage] = [
        ct.UserMessage(content="Weather?"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="c1", name="weather", arguments={}),)),
        ct.UnknownMessage(role="tool_result_v2", raw=b'{"role":"tool_result_v2","id":"c1"}'),
        ct.UserMessage(content="Well?"),
    ]
    with pytest.raises(ct.dialects.UnansweredCall) as err:
        dialect.to_request(transcript, unknown="skip")
    assert (err.value.index, err.value.call_id, err.value.user_index) == (1, "c1", 3)
    with pytest.raises(ct.dialects.UnansweredCall):
        dialect.left_out(transcript)


@pytest.mark.parametrize("name", list(DIALECTS))
def test_thinking_blocks_and_their_unknown_fields_are_named(name: str) -> None:
    dialect = DIALECTS[name]
    (turn,) = ct.decode_lenient_messages(
        b'[{"role":"assistant","content":"Hi.","thinking":[{"text":"hm","tone":1}],'
        b'"tool_calls":[],"v":2}]'
    )
    report = dialect.left_out([ct.UserMessage(content="Hi"), turn])
    unknown = [(p.index, _place(p)) for p in report if p.what == "unknown"]
    assert unknown == [(1, "at /v"), (1, "thinking block 0 at /tone")]


@pytest.mark.parametrize("name", list(DIALECTS))
def test_a_field_name_is_escaped_in_its_place(name: str) -> None:
    dialect = DIALECTS[name]
    (user,) = ct.decode_lenient_messages(b'[{"role":"user","content":"q","a/b~c: d":1}]')
    (piece,) = dialect.left_out([user])
    assert piece.what == "unknown"
    assert piece.why.startswith("at /a~1b~0c%3A%20d: ")


@pytest.mark.parametrize("name", list(DIALECTS))
def test_a_bad_unknown_value_is_refused(name: str) -> None:
    dialect = DIALECTS[name]
    for bad in ("note", "Skip", None, 1):
        with pytest.raises(ValueError, match=r'unknown= must be "raise" or "skip"'):
            dialect.to_request([ct.UserMessage(content="q")], unknown=bad)


def test_unknown_is_a_left_out_kind() -> None:
    assert "unknown" in LEFT_OUT_KINDS


@pytest.mark.parametrize("name", list(DIALECTS))
def test_a_skipped_message_inside_a_kept_reply_changes_nothing(name: str) -> None:
    # A reply each dialect read from its own stream (items kept beside the
    # assistant message where the dialect keeps them), its call answered; an
    # unknown message between every two messages, even between the items and
    # the assistant message they stand for.
    dialect, events = readme.STREAMS[name]
    stream = dialect.Accumulator()
    for event in events():
        stream.feed(event)
    reply = stream.reply()
    known: list[ct.Message] = [ct.UserMessage(content="Weather in Oslo?"), *reply.messages]
    known += [
        ct.ToolResultMessage(tool_use_id=call.id, content="sunny") for call in reply.tool_calls
    ]
    known.append(ct.UserMessage(content="Thanks."))
    if name in ("gemini", "openai_responses"):  # these two keep every reply's items
        assert isinstance(known[1], ct.ProviderOutputItemsMessage)
    unknown = ct.UnknownMessage(role="observer", raw=b'{"role":"observer"}')
    interleaved: list[ct.LenientMessage] = []
    for message in known:
        interleaved += [unknown, message]
    body = dialect.to_request(interleaved, unknown="skip")
    assert body == dialect.to_request(known)
    VALIDATE[name](body)
    report = dialect.left_out(interleaved)
    assert [p for p in report if p.what != "unknown"] == [
        LeftOut(2 * p.index + 1, p.what, p.why) for p in dialect.left_out(known)
    ]
    assert [p.index for p in report if p.what == "unknown"] == list(range(0, 2 * len(known), 2))
