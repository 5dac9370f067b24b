"""Between two Chat Completions turns: a cancel, the request's ownership, what is left out.

After a cancel, the transcript (the partial reply, its open calls closed,
the user's next message) must make a request the API takes: every
``tool_call`` answered by a ``tool`` message before the next user message,
and no assistant turn that says nothing (a cut reply holding only a cut
call sends no turn). The request belongs to the caller, and ``left_out``
names exactly what it does not send.

The streams are drawn in the shapes the turn tests carry: a first delta
spelling out its fields, text or refusal pieces, ``reasoning_content``,
parallel calls with or without ids and argument text cut anywhere, a stop
at the token limit, a usage chunk. Requests are validated against the
openai SDK's message types.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from left_out_check import place_of, strip_reported
from test_dialects_requests import validate_openai_chat
from test_openai_chat_turn import USAGE, chunk, completion, two_calls_stream, usage_chunk

import convtypes as ct
from convtypes import strategies as cst
from convtypes.dialects import LEFT_OUT_KINDS, LeftOut, ToolSpec, UnansweredCall, openai_chat
from convtypes.dialects.openai_chat import _left_out as omitted

from budget import examples
from ownership import assert_owned

C = openai_chat
QUESTION = ct.UserMessage(content="Weather in Oslo, and the time?")
NEVER_MIND = ct.UserMessage(content="Never mind.")


def feed(events: list[dict[str, Any]]) -> openai_chat.Accumulator:
    accumulator = openai_chat.Accumulator()
    for event in events:
        accumulator.feed(event)
    return accumulator


# --- streams of every shape -----------------------------------------------------------


def _pieces(draw: st.DrawFn, text: str) -> list[str]:
    """``text`` cut at a few drawn places."""
    if len(text) < 2:
        return [text]
    points = sorted(draw(st.sets(st.integers(1, len(text) - 1), max_size=3)))
    edges = [0, *points, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(edges)]


@st.composite
def streams(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A Chat Completions stream as servers send it, drawn to hold every shape."""
    events = [chunk({"role": "assistant", "content": "", "refusal": None})]
    for piece in _pieces(draw, "Weighing the two asks.") if draw(st.booleans()) else ():
        events.append(chunk({"reasoning_content": piece}))
    said = draw(st.sampled_from(["content", "refusal", None]))
    if said is not None:
        for piece in _pieces(draw, "Checking both." if said == "content" else "I can't."):
            events.append(chunk({said: piece}))
    calls = draw(st.integers(0, 3)) if said != "refusal" else 0
    with_ids = draw(st.booleans())
    for index in range(calls):
        arguments = json.dumps({"city": "Oslo", "n": [index, {"deep": None}]})
        if draw(st.booleans()):
            arguments = arguments.replace(" ", "")  # spelled as convtypes spells it
        first, *rest = _pieces(draw, arguments)
        call: dict[str, Any] = {
            "index": index,
            "type": "function",
            "function": {"name": f"tool{index}", "arguments": first},
        }
        if with_ids:
            call["id"] = f"call_{index}"
        events.append(chunk({"tool_calls": [call]}))
        events += [
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            for piece in rest
        ]
    finish = draw(st.sampled_from(["stop", "length"] if calls == 0 else ["tool_calls", "length"]))
    if finish == "length" and calls and draw(st.booleans()):
        # Cut at the token limit in the middle of the last call.
        events.append(
            chunk({"tool_calls": [{"index": calls - 1, "function": {"arguments": ', "cut'}}]})
        )
    events.append(chunk({}, finish))
    if draw(st.booleans()):
        events.append(usage_chunk(USAGE))
    return events


# --- the provider's rules, checked on a request ----------------------------------------


def check_rules(body: dict[str, Any]) -> None:
    """Every ``tool_call`` is answered by a ``tool`` message before the next user
    message; no ``tool`` message answers nothing; no assistant turn says nothing
    (reasoning asked for with ``reasoning=`` counts: the server reads it)."""
    waiting: dict[str, bool] = {}
    for at, message in enumerate(body["messages"]):
        role = message["role"]
        if role == "user":
            assert all(waiting.values()), f"messages[{at}]: a call has no result before it"
            waiting = {}
        elif role == "assistant":
            said = (
                message.get(key)
                for key in ("content", "refusal", "audio", "tool_calls", "reasoning_content")
            )
            assert any(said), f"messages[{at}]: an assistant turn that says nothing"
            for call in message.get("tool_calls") or ():
                assert call["id"] not in waiting, f"messages[{at}]: a call id given twice"
                waiting[call["id"]] = False
        elif role == "tool":
            assert waiting.get(message["tool_call_id"]) is False, f"messages[{at}]: answers nothing"
            waiting[message["tool_call_id"]] = True
    assert all(waiting.values())


# --- after a cancel, the next request is one the API takes -----------------------------


@settings(max_examples=examples(150, 25), deadline=None)
@given(streams(), st.sampled_from([None, "reasoning_content"]))
def test_a_stream_cut_after_any_event_makes_a_request_the_api_takes(
    events: list[dict[str, Any]], reasoning: openai_chat.Reasoning | None
) -> None:
    history: list[ct.Message] = [ct.SystemMessage(content="Be brief."), QUESTION]
    for stop in range(len(events) + 1):
        accumulator = feed(events[:stop])
        transcript = ct.close_open_calls([*history, *accumulator.partial()], "cancelled")
        transcript.append(NEVER_MIND)
        body = C.to_request(transcript, reasoning=reasoning)
        validate_openai_chat(body)
        check_rules(body)
        # What is left out is the partial reply's own: its thinking (unless
        # asked for), a call cut off at the token limit.
        for note in C.left_out(transcript, reasoning=reasoning):
            assert note.index in (len(history), len(history) + 1)
            assert note.what in ("thinking", "call")


def test_a_cut_reply_holding_only_a_cut_call_sends_no_turn() -> None:
    events = [
        chunk({"role": "assistant", "content": None}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "weather", "arguments": '{"ci'},
                    }
                ]
            }
        ),
    ]
    partial = feed(events).partial()
    assert partial == [ct.AssistantMessage()]  # what arrived: no whole call, no text
    transcript = ct.close_open_calls([QUESTION, *partial], "cancelled")
    body = C.to_request([*transcript, NEVER_MIND])
    validate_openai_chat(body)
    assert body["messages"] == [
        {"role": "user", "content": QUESTION.content},
        {"role": "user", "content": "Never mind."},
    ]
    assert C.left_out(transcript) == []
    # Cut at the token limit instead, the call is kept in the items and not sent.
    accumulator = feed([*events, chunk({}, "length")])
    transcript = [QUESTION, *accumulator.result()]
    body = C.to_request([*transcript, NEVER_MIND])
    assert [turn["role"] for turn in body["messages"]] == ["user", "user"]
    assert C.left_out(transcript) == [
        LeftOut(1, "call", f"item 0 at /tool_calls/0: {omitted._CUT_CALL}")
    ]


def test_a_kept_message_with_an_empty_calls_list_sends_none() -> None:
    # The API refuses "tool_calls": [] ("empty array"); vLLM writes one, and a
    # stored message (or one whose cut calls were taken out) may hold it.
    kept = ct.ProviderOutputItemsMessage(
        protocol="openai-chat",
        items=({"role": "assistant", "content": "Hi.", "tool_calls": [], "annotations": []},),
    )
    transcript: list[ct.Message] = [QUESTION, kept, ct.AssistantMessage(content="Hi."), NEVER_MIND]
    body = C.to_request(transcript)
    validate_openai_chat(body)
    assert body["messages"][1] == {"role": "assistant", "content": "Hi."}
    assert C.left_out(transcript) == []
    # With nothing else to say, it sends no turn at all.
    silent = ct.ProviderOutputItemsMessage(
        protocol="openai-chat", items=({"role": "assistant", "content": None, "tool_calls": []},)
    )
    body = C.to_request([QUESTION, silent, ct.AssistantMessage(), NEVER_MIND])
    assert [message["role"] for message in body["messages"]] == ["user", "user"]


def test_an_empty_assistant_message_sends_no_turn_but_reasoning_asked_for_does() -> None:
    thought = ct.AssistantMessage(thinking=(ct.ThinkingBlock(text="Hmm."),))
    assert C.to_request([QUESTION, ct.AssistantMessage(), NEVER_MIND])["messages"] == [
        {"role": "user", "content": QUESTION.content},
        {"role": "user", "content": "Never mind."},
    ]
    body = C.to_request([QUESTION, thought, NEVER_MIND], reasoning="reasoning_content")
    assert body["messages"][1] == {
        "role": "assistant",
        "content": "",
        "reasoning_content": "Hmm.",
    }
    assert len(C.to_request([QUESTION, thought, NEVER_MIND])["messages"]) == 2
    # White space is text: it goes.
    spaced = C.to_request([QUESTION, ct.AssistantMessage(content=" "), NEVER_MIND])
    assert spaced["messages"][1] == {"role": "assistant", "content": " "}


def test_complete_calls_left_open_by_a_cancel_are_closed_then_answered() -> None:
    accumulator = feed(two_calls_stream()[:7])  # the first call whole, the second begun
    transcript = [QUESTION, *accumulator.partial()]
    with pytest.raises(UnansweredCall):
        C.to_request([*transcript, NEVER_MIND])
    assert [call.id for call in ct.open_calls(transcript)] == ["call_a"]
    closed = ct.close_open_calls(transcript, "cancelled")
    body = C.to_request([*closed, NEVER_MIND])
    check_rules(body)
    assert body["messages"][2] == {"role": "tool", "tool_call_id": "call_a", "content": "cancelled"}


# --- the request belongs to the caller ----------------------------------------------------


_KEPT = {
    "role": "assistant",
    "content": "See [1].",
    "annotations": [{"type": "url_citation", "url_citation": {"url": "https://x.test"}}],
    "audio": {"id": "audio_1", "data": "UklG", "transcript": "See one."},
    "reasoning_content": "Looked it up.",
    "tool_calls": [
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "f", "arguments": '{"a": {"b": [1]}}'},
        },
        {"id": "c2", "type": "custom", "custom": {"name": "grep", "input": "TODO"}},
        {"type": "function", "function": {"name": "g", "arguments": "{}"}},
    ],
}


def _kept_transcript() -> list[ct.Message]:
    reply = C.read_reply(completion(json.loads(json.dumps(_KEPT)), "tool_calls"))
    return [
        ct.SystemMessage(content="s"),
        QUESTION,
        *reply.messages,
        # The custom call (c2) is among the reply's calls, answered as the others.
        *[ct.ToolResultMessage(tool_use_id=call.id, content="ok") for call in reply.tool_calls],
        ct.AssistantMessage(
            content="More.",
            tool_calls=(ct.ToolCall(id="c9", name="h", arguments={"deep": {"l": [{"x": 1}]}}),),
            thinking=(ct.ThinkingBlock(text="t", signature="sig"),),
        ),
        ct.ToolResultMessage(tool_use_id="c9", content="ok"),
        ct.UserMultimodalMessage(
            content=(ct.TextBlock(text="see"), ct.ImageUrlBlock(url="https://x.test/a.png"))
        ),
    ]


def test_the_request_shares_nothing_with_the_transcript() -> None:
    transcript = _kept_transcript()
    for reasoning in (None, "reasoning_content", "reasoning"):

        def build(reasoning: Any = reasoning) -> dict[str, Any]:
            return C.to_request(transcript, reasoning=reasoning)

        body = assert_owned(build, transcript)
        validate_openai_chat(body)


def test_the_tools_request_shares_nothing_with_the_specs() -> None:
    specs = [
        ToolSpec(
            name="lookup",
            parameters={
                "type": "object",
                "properties": {"where": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
                "required": ["where"],
            },
        ),
        ToolSpec(name="tree", parameters={"$ref": "#/$defs/N", "$defs": {"N": {"type": "object"}}}),
    ]
    assert_owned(lambda: C.tools_to_request(specs, choice="tree"), specs)


def _with_items(messages: list[ct.Message], items: list[dict[str, Any]]) -> list[ct.Message]:
    """The conversation with a Chat items message holding ``items`` at its end."""
    stored = ct.ProviderOutputItemsMessage(protocol="openai-chat", items=tuple(items))
    return [*messages, stored]


@settings(max_examples=examples(100, 25), deadline=None)
@given(
    cst.conversations(),
    st.lists(
        st.dictionaries(st.sampled_from(["content", "refusal", "name", "x"]), cst.json_values(8)),
        max_size=2,
    ),
)
def test_any_request_shares_nothing_with_its_transcript(
    messages: list[ct.Message], items: list[dict[str, Any]]
) -> None:
    transcript = _with_items(messages, items)

    def build() -> dict[str, Any]:
        return C.to_request(transcript, unsupported="note", reasoning="reasoning_content")

    assert_owned(build, transcript)


# --- calls ready to answer ------------------------------------------------------------------


@settings(max_examples=examples(100, 25), deadline=None)
@given(streams())
def test_a_replys_calls_carry_the_id_their_result_needs(events: list[dict[str, Any]]) -> None:
    accumulator = feed(events)
    reply = accumulator.reply()
    calls = reply.tool_calls
    assistant = reply.messages[-1]
    assert isinstance(assistant, ct.AssistantMessage)
    assert [(c.name, c.arguments) for c in calls] == [
        (c.name, c.arguments) for c in assistant.tool_calls
    ]
    # The provider's id, or the positional one for a call that came without.
    assert [c.id for c in calls] == [
        call.id if call.id is not None else ct.positional_call_id(at)
        for at, call in enumerate(assistant.tool_calls)
    ]
    results = [ct.ToolResultMessage(tool_use_id=c.id, content=f"r{n}") for n, c in enumerate(calls)]
    transcript = [QUESTION, *reply.messages, *results]
    body = C.to_request([*transcript, NEVER_MIND])
    validate_openai_chat(body)
    check_rules(body)
    # Each result goes out with the id its call went out with.
    sent = [m for m in body["messages"] if m["role"] == "assistant" and m.get("tool_calls")]
    out_ids = [call["id"] for turn in sent for call in turn["tool_calls"]]
    answers = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
    assert answers == out_ids
    # The reply read whole is the same.
    assert C.read_reply(_whole(events)).tool_calls == calls


def _whole(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The completion a stream adds up to (the accumulator's own message, as sent)."""
    accumulator = feed(events)
    message = accumulator._message(final=True)
    return completion(message, accumulator._reason)


# --- left_out: exactly what is not sent ----------------------------------------------------


def _same_request(first: list[ct.Message], second: list[ct.Message], **options: Any) -> None:
    assert C.to_request(first, **options) == C.to_request(second, **options)


def test_left_out_names_each_kind_and_removing_it_changes_nothing() -> None:
    signed = ct.ThinkingBlock(text="Anthropic's thought.", signature="c2ln")
    redacted = ct.ThinkingBlock(redacted_data="b3BhcXVl")
    foreign = ct.ProviderOutputItemsMessage(protocol="anthropic", items=({"type": "x"},))
    video = ct.VideoUrlBlock(url="https://x.test/v.mp4")
    transcript: list[ct.Message] = [
        ct.UserMultimodalMessage(content=(ct.TextBlock(text="look"), video)),
        foreign,
        ct.AssistantMessage(content="Seen.", thinking=(signed, redacted)),
        NEVER_MIND,
    ]
    assert C.left_out(transcript, unsupported="note") == [
        LeftOut(0, "video", "block 1: OpenAI Chat Completions has no part for video"),
        LeftOut(
            1, "items", "items of protocol 'anthropic' mean nothing to OpenAI Chat Completions"
        ),
        LeftOut(2, "thinking", f"thinking block 0: {omitted._REASONING_NOT_SENT}"),
        LeftOut(2, "redacted-thinking", f"thinking block 1: {omitted._REDACTED}"),
    ]
    # With reasoning= the text goes; its signature and the redacted block do not.
    assert C.left_out(transcript, unsupported="note", reasoning="reasoning_content")[2:] == [
        LeftOut(2, "signature", f"thinking block 0: {omitted._SIGNATURE}"),
        LeftOut(2, "redacted-thinking", f"thinking block 1: {omitted._REDACTED}"),
    ]
    note_text = C.to_request(transcript, unsupported="note")["messages"][0]["content"][1]["text"]
    removed: list[ct.Message] = [
        ct.UserMultimodalMessage(content=(ct.TextBlock(text="look"), ct.TextBlock(text=note_text))),
        ct.ProviderOutputItemsMessage(protocol="anthropic", items=()),
        ct.AssistantMessage(content="Seen."),
        NEVER_MIND,
    ]
    _same_request(transcript, removed, unsupported="note")
    assert C.left_out(removed, unsupported="note") == []
    for at, message in enumerate(removed):
        _same_request(
            transcript, [*transcript[:at], message, *transcript[at + 1 :]], unsupported="note"
        )
    unsigned = [
        *removed[:2],
        ct.AssistantMessage(content="Seen.", thinking=(ct.ThinkingBlock(text=signed.text),)),
        NEVER_MIND,
    ]
    _same_request(transcript, unsigned, unsupported="note", reasoning="reasoning_content")
    with pytest.raises(ct.dialects.UnsupportedContent):
        C.left_out(transcript)


def test_left_out_names_what_a_kept_reply_does_not_send_back() -> None:
    transcript = _kept_transcript()
    # Annotations have no input field; reasoning goes only when asked for.
    assert C.left_out(transcript[:5]) == [
        LeftOut(2, "annotations", f"item 0 at /annotations: {omitted._ANNOTATIONS}"),
        LeftOut(2, "thinking", f"item 0 at /reasoning_content: {omitted._REASONING_NOT_SENT}"),
    ]
    assert C.left_out(transcript[:5], reasoning="reasoning") == [
        LeftOut(2, "annotations", f"item 0 at /annotations: {omitted._ANNOTATIONS}"),
    ]
    # Removing both from the kept message changes nothing that is sent.
    kept = transcript[2]
    assert isinstance(kept, ct.ProviderOutputItemsMessage)
    first = kept.items[0]
    assert isinstance(first, dict)
    item = {k: v for k, v in first.items() if k not in ("annotations", "reasoning_content")}
    bare = ct.ProviderOutputItemsMessage(protocol="openai-chat", items=(item,))
    _same_request(transcript, [*transcript[:2], bare, *transcript[3:]])


def test_left_out_names_only_the_thinking_a_kept_reply_does_not_hold() -> None:
    kept, read = C.from_response(
        completion({"role": "assistant", "content": None, "refusal": "No.", "reasoning": "Why."})
    )
    assert isinstance(read, ct.AssistantMessage)
    added = ct.ThinkingBlock(text="Added later.")
    edited = ct.AssistantMessage(content=read.content, thinking=(*read.thinking, added))
    # The reply's own reasoning is named once, at the item; the block added here, here.
    assert C.left_out([QUESTION, kept, edited]) == [
        LeftOut(1, "thinking", f"item 0 at /reasoning: {omitted._REASONING_NOT_SENT}"),
        LeftOut(2, "thinking", f"thinking block 1: {omitted._EDITED_THINKING}"),
    ]
    assert C.left_out([QUESTION, kept, edited], reasoning="reasoning") == [
        LeftOut(2, "thinking", f"thinking block 1: {omitted._EDITED_THINKING}"),
    ]
    _same_request([QUESTION, kept, edited], [QUESTION, kept, read], reasoning="reasoning")


def test_a_field_is_named_by_a_pointer_that_reads_back_whatever_its_key() -> None:
    key = "odd/key~: with space"
    odd = ct.ProviderOutputItemsMessage(
        protocol="openai-chat", items=({"role": "assistant", "content": "Hi.", key: 1},)
    )
    transcript: list[ct.Message] = [QUESTION, odd, ct.AssistantMessage(content="Hi.")]
    [piece] = C.left_out(transcript)
    assert piece.why.startswith("item 0 at /odd~1key~0%3A%20with%20space: ")
    assert place_of(piece) == ("item", 0, (key,))
    without = strip_reported(transcript, [piece], "OpenAI Chat Completions")
    _same_request(transcript, without)
    assert C.left_out(without) == []


def test_left_out_names_the_sample_rate_input_audio_has_no_field_for() -> None:
    audio = ct.AudioBase64Block(data="UklGRgAAAAA=", media_type="audio/wav", sample_rate=16000)
    transcript: list[ct.Message] = [
        ct.UserMultimodalMessage(content=(ct.TextBlock(text="Hear"), audio))
    ]
    assert C.left_out(transcript) == [
        LeftOut(0, "sample-rate", "block 1: input_audio has no field for a sample rate")
    ]
    plain = ct.AudioBase64Block(data=audio.data, media_type=audio.media_type)
    without: list[ct.Message] = [
        ct.UserMultimodalMessage(content=(ct.TextBlock(text="Hear"), plain))
    ]
    _same_request(transcript, without)
    assert C.left_out(without) == []


def test_left_out_names_an_unknown_detail_and_unknown_fields() -> None:
    image = ct.ImageUrlBlock(url="https://x.test/a.png", detail="original")
    odd = ct.ProviderOutputItemsMessage(
        protocol="openai-chat",
        items=(
            {"role": "assistant", "content": "Hi.", "provider_fields": {"k": 1}},
            "not a message",
        ),
    )
    transcript: list[ct.Message] = [ct.UserMultimodalMessage(content=(image,)), odd]
    assert C.left_out(transcript) == [
        LeftOut(0, "detail", "block 0: the API knows no image detail 'original'; it is left out"),
        LeftOut(
            1,
            "items",
            "item 0 at /provider_fields: the API takes no such field on an assistant message",
        ),
        LeftOut(
            1, "items", "item 1: an item that is not a message object has no place in the request"
        ),
    ]
    assert all(note.what in LEFT_OUT_KINDS for note in C.left_out(transcript))


def test_left_out_is_empty_for_a_transcript_this_dialect_made() -> None:
    accumulator = feed(two_calls_stream())
    reply = accumulator.reply()
    transcript = [
        QUESTION,
        *reply.messages,
        *[ct.ToolResultMessage(tool_use_id=call.id, content="ok") for call in reply.tool_calls],
        NEVER_MIND,
    ]
    assert C.left_out(transcript) == []
    refused = C.from_response(completion({"role": "assistant", "content": None, "refusal": "No."}))
    assert C.left_out([QUESTION, *refused, NEVER_MIND]) == []


def test_left_out_raises_what_to_request_raises() -> None:
    unanswered: list[ct.Message] = [
        QUESTION,
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="c1", name="f", arguments={}),)),
        NEVER_MIND,
    ]
    with pytest.raises(UnansweredCall):
        C.left_out(unanswered)
    with pytest.raises(ValueError, match="reasoning= must be None"):
        C.left_out([QUESTION], reasoning="thinking")  # type: ignore[arg-type]
