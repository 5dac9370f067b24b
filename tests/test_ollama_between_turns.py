"""Ollama between two exchanges: a cancel, calls to answer, what a request leaves out.

The chunks are the NDJSON lines Ollama streams (see test_ollama): thinking
and text in pieces, each call whole, and a last chunk with the counts and
any field the message holds beyond those. Requests are checked against the
``ollama`` package's own types.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from left_out_check import strip_reported, with_fields
from test_ollama import WEATHER, _words, chunks, message, response, validate

import convtypes as ct
from convtypes import strategies as cst
from convtypes.dialects import (
    LeftOut,
    PendingCall,
    ToolSpec,
    UnansweredCall,
    UnsupportedContent,
    ollama,
)

from budget import examples
from ownership import assert_owned

IMAGE_PNG = "iVBORw0KGgo="

REPLIES: dict[str, dict[str, Any]] = {
    "text": response(message("Rayleigh scattering.", thinking="A simple question.")),
    "calls": response(message("", thinking="Two cities.", calls=WEATHER)),
    "calls without ids": response(message("", calls=WEATHER, ids=False)),
    "text and a call": response(message("Let me check. ", calls=WEATHER[:1])),
    # Kept as an item: what the turn cannot say.
    "images": response({**message("Here is a cat."), "images": [IMAGE_PNG]}),
    "unknown field": response({**message("Hi there."), "mood": "cheerful"}),
}
STREAMS = {name: chunks(reply, _words) for name, reply in REPLIES.items()}

HISTORIES: dict[str, list[ct.Message]] = {
    "fresh": [ct.SystemMessage(content="Be brief."), ct.UserMessage(content="Go on.")],
    "ollama loop": [
        ct.UserMessage(content="Weather in Oslo and Bergen?"),
        *ollama.from_response(REPLIES["calls"]),
        ct.ToolResultMessage(tool_use_id="call_00000000", content="Rain", provenance="external"),
        ct.ToolResultMessage(tool_use_id="call_00000001", content="Sun", provenance="external"),
    ],
    "switched": [
        ct.UserMessage(content="Time?"),
        ct.AssistantMessage(
            thinking=(ct.ThinkingBlock(text="A clock.", signature="EqQBCkYIBxgC"),),
            tool_calls=(ct.ToolCall(id="toolu_01", name="get_time", arguments={"tz": "CET"}),),
        ),
        ct.ToolResultMessage(tool_use_id="toolu_01", content="10:00"),
    ],
}


def check_pairing(body: dict[str, Any]) -> None:
    """Every call of a turn is answered by a tool message after it, before anything else.

    A turn is a run of assistant messages (a kept item and the message read
    from it); its results follow it in the calls' order, named after them,
    with the call's id where it has one. No assistant message is empty.
    """
    messages = body["messages"]
    number = 0
    while number < len(messages):
        if messages[number]["role"] != "assistant":
            assert messages[number]["role"] != "tool", f"message {number} answers no call"
            number += 1
            continue
        calls: list[dict[str, Any]] = []
        while number < len(messages) and messages[number]["role"] == "assistant":
            turn = messages[number]
            assert any(value for key, value in turn.items() if key != "role"), "an empty turn"
            calls += turn.get("tool_calls", [])
            number += 1
        answers = messages[number : number + len(calls)]
        assert [m["role"] for m in answers] == ["tool"] * len(calls)
        assert [m["tool_name"] for m in answers] == [c["function"]["name"] for c in calls]
        for call, answer in zip(calls, answers, strict=True):
            assert answer.get("tool_call_id") == call.get("id")
        number += len(calls)
        assert number == len(messages) or messages[number]["role"] != "tool"


# --- after a cancel -------------------------------------------------------------------


@settings(max_examples=examples(300, 60))
@given(
    st.sampled_from(sorted(STREAMS)),
    st.sampled_from(sorted(HISTORIES)),
    st.data(),
    st.booleans(),
)
def test_a_cancel_at_any_chunk_leaves_a_request_ollama_takes(
    stream: str, history: str, data: st.DataObject, thinking: bool
) -> None:
    events = STREAMS[stream]
    cut = data.draw(st.integers(0, len(events)), label="chunks before the cancel")
    accumulator = ollama.Accumulator()
    for event in events[:cut]:
        accumulator.feed(event)
    transcript = [*HISTORIES[history], *accumulator.partial()]
    closed = ct.close_open_calls(transcript, "The user cancelled this call.")
    assert ct.open_calls(closed) == []
    body = ollama.to_request([*closed, ct.UserMessage(content="Never mind.")], thinking=thinking)
    if stream != "unknown field":  # a field the package does not know goes back as it came
        validate(body)
    check_pairing(body)
    assert body["messages"][-1] == {"role": "user", "content": "Never mind."}


def test_a_cancel_before_any_chunk_sends_no_assistant_turn() -> None:
    accumulator = ollama.Accumulator()
    assert accumulator.partial() == [ct.AssistantMessage()]
    transcript = [ct.UserMessage(content="Hi"), *accumulator.partial()]
    assert ollama.to_request([*transcript, ct.UserMessage(content="Hello?")]) == {
        "messages": [{"role": "user", "content": "Hi"}, {"role": "user", "content": "Hello?"}]
    }
    assert ollama.left_out(transcript) == []  # an empty message holds nothing to leave out


def test_a_cancel_after_the_first_call_closes_it_by_its_id() -> None:
    events = STREAMS["calls"]
    first_call = next(n for n, e in enumerate(events) if e["message"].get("tool_calls"))
    accumulator = ollama.Accumulator()
    for event in events[: first_call + 1]:
        accumulator.feed(event)
    transcript = [ct.UserMessage(content="Weather?"), *accumulator.partial()]
    closed = ct.close_open_calls(transcript, "cancelled")
    body = ollama.to_request([*closed, ct.UserMessage(content="Stop.")])
    validate(body)
    assert body["messages"][1:] == [
        {
            "role": "assistant",
            "content": "",
            "thinking": "Two cities.",
            "tool_calls": [
                {
                    "id": "call_00000000",
                    "function": {"name": "get_weather", "arguments": WEATHER[0][1]},
                }
            ],
        },
        {
            "role": "tool",
            "content": "cancelled",
            "tool_name": "get_weather",
            "tool_call_id": "call_00000000",
        },
        {"role": "user", "content": "Stop."},
    ]
    with pytest.raises(UnansweredCall, match="call_00000000"):
        ollama.to_request([*transcript, ct.UserMessage(content="Stop.")])


def test_an_empty_reply_sends_no_turn() -> None:
    # A reply of nothing (a model that only loaded, say) holds nothing to send.
    loaded = ollama.from_response(
        {"model": "m", "message": message(), "done": True, "done_reason": "load"}
    )
    assert loaded == [ct.AssistantMessage()]
    body = ollama.to_request([ct.UserMessage(content="q"), *loaded])
    assert body == {"messages": [{"role": "user", "content": "q"}]}
    # Thinking alone is something to send, unless asked not to.
    thought: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(thinking=(ct.ThinkingBlock(text="t"),)),
    ]
    assert len(ollama.to_request(thought)["messages"]) == 2
    assert len(ollama.to_request(thought, thinking=False)["messages"]) == 1


# --- calls ready to answer ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "ids"),
    [
        ("calls", ["call_00000000", "call_00000001"]),
        ("calls without ids", ["call_0", "call_1"]),
        ("text and a call", ["call_00000000"]),
        ("text", []),
        ("images", []),
    ],
)
def test_a_reply_s_calls_carry_the_id_ollama_pairs_by(name: str, ids: list[str]) -> None:
    reply = ollama.read_reply(REPLIES[name])
    accumulator = ollama.Accumulator()
    for event in STREAMS[name]:
        accumulator.feed(event)
    calls = [
        PendingCall(id=call_id, name=called, arguments=arguments)
        for call_id, (called, arguments) in zip(ids, WEATHER, strict=False)
    ]
    assert reply.tool_calls == calls
    assert accumulator.reply().tool_calls == calls
    results = [ct.ToolResultMessage(tool_use_id=c.id, content="ok") for c in reply.tool_calls]
    body = ollama.to_request([ct.UserMessage(content="Go"), *reply.messages, *results])
    validate(body)
    check_pairing(body)


def test_a_generic_tool_loop_answers_ollama_s_calls_by_call_id() -> None:
    replies = [
        response(message("", calls=WEATHER, ids=False)),  # an older server: no ids
        response(message("", calls=[("get_time", {"tz": "CET"})])),
        response(message("Rain in Oslo, sun in Bergen, ten o'clock.")),
    ]
    transcript: list[ct.Message] = [ct.UserMessage(content="Weather and time?")]
    for whole in replies:
        body = ollama.to_request(transcript)
        validate(body)
        check_pairing(body)
        accumulator = ollama.Accumulator()
        for event in chunks(whole, _words):
            accumulator.feed(event)
        reply = accumulator.reply()
        transcript += reply.messages
        transcript += [
            ct.ToolResultMessage(tool_use_id=call.id, content=f"{call.name}: ok")
            for call in reply.tool_calls
        ]
    final = ollama.to_request(transcript)
    validate(final)
    check_pairing(final)
    assert [m["role"] for m in final["messages"]] == [
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]


# --- what a request leaves out ---------------------------------------------------------

THOUGHT = ct.ThinkingBlock(text="Mull it over.")
SIGNED = ct.ThinkingBlock(text="Signed thought.", signature="c2lnbmF0dXJl")
SIGNATURE_ONLY = ct.ThinkingBlock(signature="ZW5jcnlwdGVk")
REDACTED = ct.ThinkingBlock(text="shown?", redacted_data="cmVkYWN0ZWQ=")
ALL_THINKING = (THOUGHT, SIGNED, SIGNATURE_ONLY, REDACTED)


def _with(message: Any, **changes: Any) -> Any:
    fields = {name: getattr(message, name) for name in message.__struct_fields__}
    return type(message)(**{**fields, **changes})


def test_thinking_goes_and_what_its_field_cannot_hold_is_named() -> None:
    transcript: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(content="a", thinking=ALL_THINKING),
    ]
    assert ollama.left_out(transcript) == [
        LeftOut(1, "signature", "thinking block 1: Ollama's thinking has no signature field"),
        LeftOut(1, "signature", "thinking block 2: Ollama's thinking has no signature field"),
        LeftOut(1, "redacted-thinking", "thinking block 3: redacted thinking has no text to send"),
    ]
    stripped = [
        transcript[0],
        _with(transcript[1], thinking=(THOUGHT, ct.ThinkingBlock(text="Signed thought."))),
    ]
    assert ollama.to_request(stripped) == ollama.to_request(transcript)
    assert ollama.left_out(stripped) == []


def test_thinking_false_leaves_all_thinking_out() -> None:
    item = {**message("Hi.", thinking="Greet."), "images": [IMAGE_PNG]}
    kept = ollama.from_response(response(item))
    transcript: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(content="a", thinking=ALL_THINKING),
        ct.UserMessage(content="again"),
        *kept,
    ]
    assert ollama.left_out(transcript, thinking=False) == [
        LeftOut(1, "thinking", "thinking block 0: thinking=False leaves it out"),
        LeftOut(1, "thinking", "thinking block 1: thinking=False leaves it out"),
        LeftOut(1, "signature", "thinking block 2: Ollama's thinking has no signature field"),
        LeftOut(1, "redacted-thinking", "thinking block 3: redacted thinking has no text to send"),
        LeftOut(3, "thinking", "item 0 at /thinking: thinking=False leaves it out"),
        LeftOut(4, "thinking", "thinking block 0: thinking=False leaves it out"),
    ]
    without_thinking = {k: v for k, v in item.items() if k != "thinking"}
    stripped = [
        transcript[0],
        _with(transcript[1], thinking=()),
        transcript[2],
        ct.ProviderOutputItemsMessage(protocol="ollama", items=(without_thinking,)),
        _with(kept[1], thinking=()),
    ]
    assert ollama.to_request(stripped, thinking=False) == ollama.to_request(
        transcript, thinking=False
    )
    assert ollama.left_out(stripped, thinking=False) == []
    # With thinking, the item's thinking goes, and what the message read from it says
    # is the item's own: nothing is left out.
    assert [piece.index for piece in ollama.left_out(transcript)] == [1, 1, 1]


def test_items_ollama_cannot_send() -> None:
    sent = message("Hi.")
    transcript: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.ProviderOutputItemsMessage(protocol="openai-responses", items=[{"type": "reasoning"}]),
        ct.ProviderOutputItemsMessage(protocol="ollama", items=[sent, "not a message"]),
        ct.AssistantMessage(content="Hi."),
    ]
    assert ollama.left_out(transcript) == [
        LeftOut(1, "items", "1 item(s) of protocol 'openai-responses', which Ollama does not read"),
        LeftOut(2, "items", "item 1: not a message object"),
    ]
    stripped = [
        transcript[0],
        ct.ProviderOutputItemsMessage(protocol="ollama", items=[sent]),
        transcript[3],
    ]
    assert ollama.to_request(stripped) == ollama.to_request(transcript)
    assert ollama.left_out(stripped) == []


def test_text_and_image_settings_ollama_cannot_send() -> None:
    image = ct.ImageUrlBlock(url=f"data:image/png;base64,{IMAGE_PNG}", detail="low")
    transcript: list[ct.Message] = [
        ct.UserMultimodalMessage(content=(ct.TextBlock(text=""), image, ct.TextBlock(text="?")))
    ]
    assert ollama.left_out(transcript) == [
        LeftOut(0, "text", "block 0: empty text, which adds nothing"),
        LeftOut(0, "detail", "block 1: Ollama has no field for an image's detail"),
    ]
    plain = ct.UserMultimodalMessage(
        content=(ct.ImageUrlBlock(url=image.url), ct.TextBlock(text="?"))
    )
    assert ollama.to_request([plain]) == ollama.to_request(transcript)
    assert ollama.left_out([plain]) == []


@pytest.mark.parametrize(
    ("block", "what", "why"),
    [
        (ct.ImageUrlBlock(url="https://example.com/a.png"), "image", "fetches no image by URL"),
        (
            ct.AudioBase64Block(data="UklGRg==", media_type="audio/wav"),
            "audio",
            "has no field for audio",
        ),
        (ct.VideoUrlBlock(url="https://example.com/v.mp4"), "video", "has no field for video"),
    ],
)
def test_a_note_stands_for_media_ollama_cannot_take(block: Any, what: str, why: str) -> None:
    transcript: list[ct.Message] = [ct.UserMultimodalMessage(content=(block,))]
    (piece,) = ollama.left_out(transcript, unsupported="note")
    assert (piece.index, piece.what) == (0, what)
    assert piece.why.startswith(f"block 0: Ollama {why}") and piece.why.endswith("in its place")
    body = ollama.to_request(transcript, unsupported="note")
    note = ct.TextBlock(text=body["messages"][0]["content"])
    assert ollama.to_request([ct.UserMultimodalMessage(content=(note,))]) == body


@pytest.mark.parametrize("name", sorted(REPLIES))
def test_a_transcript_ollama_made_loses_nothing(name: str) -> None:
    reply = ollama.read_reply(REPLIES[name])
    transcript = [
        ct.SystemMessage(content="s"),
        ct.UserMessage(content="Go"),
        *reply.messages,
        *(ct.ToolResultMessage(tool_use_id=call.id, content="ok") for call in reply.tool_calls),
        ct.UserMessage(content="Thanks."),
    ]
    assert ollama.left_out(transcript) == []


# --- a request belongs to the caller -----------------------------------------------------

NESTED = {"filter": {"tags": ["a", {"deep": [1, 2]}]}, "limit": 10**30}


def _owned_transcript() -> list[ct.Message]:
    kept = ollama.from_response(
        response(
            {
                **message("Found.", thinking="Search.", calls=[("search", NESTED)]),
                "images": [IMAGE_PNG],
                "extra": {"nested": [1, {"x": 2}]},
            }
        )
    )
    return [
        ct.SystemMessage(content="s"),
        ct.UserMessage(content="Find it."),
        *kept,
        ct.ToolResultMessage(tool_use_id="call_00000000", content="r0"),
        ct.AssistantMessage(
            content="More.", tool_calls=(ct.ToolCall(id="t", name="search", arguments=NESTED),)
        ),
    ]


@pytest.mark.parametrize("thinking", [True, False])
def test_the_request_shares_nothing_with_the_transcript(thinking: bool) -> None:
    transcript = _owned_transcript()
    assert_owned(lambda: ollama.to_request(transcript, thinking=thinking), transcript)


def test_the_tools_field_shares_nothing_with_the_tools() -> None:
    tools = [
        ToolSpec(
            name="search",
            parameters={
                "type": "object",
                "properties": {
                    "mode": {"type": "string", "enum": ["a", "b"], "default": "a"},
                    "tags": {"type": "array", "items": {"type": "string"}, "default": ["x"]},
                    "where": {"$ref": "#/$defs/Place"},
                },
                "$defs": {"Place": {"type": "object", "properties": {"city": {"type": "string"}}}},
            },
        )
    ]
    assert_owned(lambda: ollama.tools_to_request(tools), tools)


@settings(max_examples=examples(100, 20))
@given(cst.conversations(), st.booleans())
def test_any_request_shares_nothing_with_its_transcript(
    transcript: list[ct.Message], thinking: bool
) -> None:
    assert_owned(
        lambda: ollama.to_request(transcript, unsupported="note", thinking=thinking), transcript
    )


@st.composite
def switched_transcripts(draw: st.DrawFn) -> list[ct.Message]:
    """Conversations from any provider, some replies kept as Ollama items, some not."""
    out: list[ct.Message] = []
    for turn in draw(cst.conversations()):
        if isinstance(turn, ct.AssistantMessage):
            if draw(st.booleans()):
                thinking = draw(st.lists(cst.thinking_blocks(), max_size=2))
                turn = with_fields(turn, thinking=(*turn.thinking, *thinking))
            if draw(st.booleans()):
                item: dict[str, Any] = {"role": "assistant", "content": turn.content}
                thought = "".join(b.text for b in turn.thinking if b.redacted_data is None)
                if thought and draw(st.booleans()):
                    item["thinking"] = thought
                if turn.tool_calls:
                    item["tool_calls"] = [
                        {
                            **({"id": call.id} if call.id is not None else {}),
                            "function": {"name": call.name, "arguments": call.arguments},
                        }
                        for call in turn.tool_calls
                    ]
                item["images"] = [IMAGE_PNG]
                # Now and then something no reader writes: an item that is no message.
                extra = draw(st.lists(st.sampled_from(["junk", 7, None, [1]]), max_size=1))
                out.append(ct.ProviderOutputItemsMessage(protocol="ollama", items=[item, *extra]))
        if draw(st.integers(0, 5)) == 0:
            out.append(
                ct.ProviderOutputItemsMessage(
                    protocol=draw(st.sampled_from(["gemini", "openai-responses"])),
                    items=draw(st.lists(cst.json_values(4), min_size=1, max_size=2)),
                )
            )
        out.append(turn)
    return out


@settings(max_examples=examples(150, 30))
@given(switched_transcripts(), st.booleans())
def test_left_out_names_exactly_what_is_not_sent(
    transcript: list[ct.Message], thinking: bool
) -> None:
    options: dict[str, Any] = {"unsupported": "note", "thinking": thinking}
    report = ollama.left_out(transcript, **options)
    assert [piece.index for piece in report] == sorted(piece.index for piece in report)
    stripped = strip_reported(transcript, report, "Ollama")
    # Without every piece named, the request is the same: none of them was sent...
    assert ollama.to_request(stripped, **options) == ollama.to_request(transcript, **options)
    # ...and nothing else was left out.
    assert ollama.left_out(stripped, **options) == []


def test_left_out_refuses_what_to_request_refuses() -> None:
    with pytest.raises(ValueError, match='unsupported= must be "raise" or "note"'):
        ollama.left_out([], unsupported="drop")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="thinking= must be True or False"):
        ollama.left_out([], thinking="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="left_out takes an iterable of messages"):
        ollama.left_out(b"[]")  # type: ignore[arg-type]
    audio = ct.UserMultimodalMessage(content=(ct.AudioUrlBlock(url="https://x/a.wav"),))
    with pytest.raises(UnsupportedContent, match="message 0, block 0"):
        ollama.left_out([audio])
