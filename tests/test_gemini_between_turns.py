"""Gemini between two exchanges: a cancel, calls to answer, what a request leaves out, the sentinel.

The streams here are written for these tests in the shapes Gemini sends
(see test_gemini_turn): thought summaries, text in pieces, whole calls with
their signature, parallel calls of which only the first is signed, code
execution, and the empty signed part that ends many streams. Requests are
validated against google-genai's own types.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from left_out_check import strip_reported, with_fields
from test_dialects_requests import validate_gemini
from test_gemini_turn import (
    CALL_RESPONSE,
    CALL_SIG,
    CALL_STREAM,
    SIG,
    chunk,
    client_with,
    feed,
    response,
    sdk,
    standard,
)

import convtypes as ct
from convtypes import strategies as cst
from convtypes.dialects import (
    LeftOut,
    PendingCall,
    ToolSpec,
    UnansweredCall,
    UnsupportedContent,
    gemini,
)
from convtypes.dialects.gemini import _request as gemini_request

from budget import examples
from ownership import assert_owned

types = pytest.importorskip("google.genai.types")

SENTINEL_BYTES = b"skip_thought_signature_validator"

# --- streams, as Gemini sends them ---------------------------------------------------

TEXT_STREAM = [
    chunk([{"text": "Weighing it up.", "thought": True}]),
    chunk([{"text": "The answer "}]),
    chunk([{"text": "is 42."}]),
    chunk([{"text": "", "thoughtSignature": SIG}], "STOP", usage={"promptTokenCount": 9}),
]
PARALLEL_STREAM = [
    chunk([{"text": "Two cities and a clock.", "thought": True}]),
    chunk(
        [
            {
                "functionCall": {"name": "get_weather", "args": {"city": "Oslo"}},
                "thoughtSignature": CALL_SIG,
            }
        ]
    ),
    chunk(
        [
            {
                "functionCall": {
                    "name": "get_weather",
                    "args": {"city": "Bergen", "units": {"temp": "C", "steps": [1, 2]}},
                }
            }
        ]
    ),
    chunk([{"functionCall": {"name": "get_time", "args": {}}}], "STOP"),
]
CODE_STREAM = [
    chunk([{"executableCode": {"language": "PYTHON", "code": "print(6 * 7)"}}]),
    chunk([{"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "42\n"}}]),
    chunk([{"text": "It is 42."}], "STOP"),
]
# Gemini 3 on some paths gives its calls ids; the text before a call is its own part.
TEXT_THEN_CALL_STREAM = [
    chunk([{"text": "Let me look."}]),
    chunk(
        [
            {
                "functionCall": {"id": "fc-7", "name": "read_file", "args": {"path": "b.txt"}},
                "thoughtSignature": CALL_SIG,
            }
        ]
    ),
    chunk([{"text": ""}], "STOP"),
]
STREAMS = {
    "call": CALL_STREAM,
    "text": TEXT_STREAM,
    "parallel": PARALLEL_STREAM,
    "code": CODE_STREAM,
    "text-then-call": TEXT_THEN_CALL_STREAM,
}

ANTHROPIC_TURN: list[ct.Message] = [
    ct.AssistantMessage(
        content="Checking both.",
        thinking=(ct.ThinkingBlock(text="Two lookups.", signature="EqQBCkYIBxgCKkDs"),),
        tool_calls=(
            ct.ToolCall(id="toolu_01", name="get_weather", arguments={"city": "Oslo"}),
            ct.ToolCall(id="toolu_02", name="get_time", arguments={"zone": {"name": "CET"}}),
        ),
    ),
    ct.ToolResultMessage(tool_use_id="toolu_01", content="Rain", provenance="external"),
    ct.ToolResultMessage(tool_use_id="toolu_02", content="10:00"),
]
HISTORIES: dict[str, list[ct.Message]] = {
    "fresh": [ct.SystemMessage(content="Be brief."), ct.UserMessage(content="Go on.")],
    # The cut reply is the next step of a Gemini tool loop.
    "gemini loop": [
        ct.UserMessage(content="Read a.txt"),
        *gemini.from_response(CALL_RESPONSE),
        ct.ToolResultMessage(tool_use_id="call_0", content="hello", provenance="external"),
    ],
    # ...or of a loop another provider began.
    "switched": [ct.UserMessage(content="Weather and time?"), *ANTHROPIC_TURN],
}


def check_pairing(body: dict[str, Any]) -> None:
    """Gemini's rules: turns alternate, none is empty, every call has its response next.

    The responses of a model turn's calls open the user turn right after
    it, in the calls' order, named after them (and with their id, where
    the call has one).
    """
    contents = body["contents"]
    for number, content in enumerate(contents):
        assert content["parts"], f"content {number} is an empty turn"
        if number:
            assert content["role"] != contents[number - 1]["role"]
        if content["role"] != "model":
            continue
        calls = [part["function_call"] for part in content["parts"] if "function_call" in part]
        if not calls:
            continue
        assert number + 1 < len(contents), "the last model turn's calls have no response"
        answer = contents[number + 1]["parts"]
        responses = [part["function_response"] for part in answer[: len(calls)]]
        assert [r["name"] for r in responses] == [c["name"] for c in calls]
        for made, answered in zip(calls, responses, strict=True):
            assert answered.get("id") == made.get("id")
        assert not any("function_response" in part for part in answer[len(calls) :])


def signature_of(part: dict[str, Any]) -> bytes | None:
    """The signature google-genai reads from a request's part."""
    read: bytes | None = types.Part.model_validate(part).thought_signature
    return read


# --- after a cancel -------------------------------------------------------------------


@settings(max_examples=examples(300, 60))
@given(
    st.sampled_from(sorted(STREAMS)),
    st.sampled_from(sorted(HISTORIES)),
    st.data(),
    st.booleans(),
    st.sampled_from(["keep", "sentinel"]),
)
def test_a_cancel_at_any_chunk_leaves_a_request_gemini_takes(
    stream: str, history: str, data: st.DataObject, as_sdk: bool, unsigned: Any
) -> None:
    events = STREAMS[stream]
    cut = data.draw(st.integers(0, len(events)), label="chunks before the cancel")
    accumulator = gemini.Accumulator()
    for event in events[:cut]:
        accumulator.feed(sdk(event) if as_sdk else event)
    transcript = [*HISTORIES[history], *accumulator.partial()]
    closed = ct.close_open_calls(transcript, "The user cancelled this call.")
    assert ct.open_calls(closed) == []
    sent = [*closed, ct.UserMessage(content="Never mind.")]
    body = gemini.to_request(sent, unsigned_calls=unsigned)
    validate_gemini(body)
    check_pairing(body)
    last = body["contents"][-1]
    assert last["role"] == "user" and last["parts"][-1] == {"text": "Never mind."}
    # What it leaves out: blank parts, the one thing it drops of Gemini's own, and
    # the other provider's thinking.
    assert {piece.what for piece in gemini.left_out(closed)} <= {"text", "thinking"}


def test_a_cancel_before_any_part_sends_no_model_turn() -> None:
    accumulator = gemini.Accumulator()
    transcript = [ct.UserMessage(content="Hi"), *accumulator.partial()]
    body = gemini.to_request([*transcript, ct.UserMessage(content="Hello?")])
    assert body == {"contents": [{"role": "user", "parts": [{"text": "Hi"}, {"text": "Hello?"}]}]}


def test_a_cancel_after_two_of_three_parallel_calls_closes_both() -> None:
    accumulator, _ = feed(PARALLEL_STREAM[:3])
    transcript = [ct.UserMessage(content="Weather?"), *accumulator.partial()]
    assert [call.id for call in ct.open_calls(transcript)] == ["call_0", "call_1"]
    closed = ct.close_open_calls(transcript, "cancelled")
    body = gemini.to_request([*closed, ct.UserMessage(content="Stop.")])
    validate_gemini(body)
    assert body["contents"][2] == {
        "role": "user",
        "parts": [
            {"function_response": {"name": "get_weather", "response": {"output": "cancelled"}}},
            {"function_response": {"name": "get_weather", "response": {"output": "cancelled"}}},
            {"text": "Stop."},
        ],
    }


def test_without_closing_a_cancel_the_request_is_refused() -> None:
    accumulator, _ = feed(CALL_STREAM[:3])
    transcript = [ct.UserMessage(content="Read a.txt"), *accumulator.partial()]
    with pytest.raises(UnansweredCall, match="call_0"):
        gemini.to_request([*transcript, ct.UserMessage(content="Never mind.")])


# --- calls ready to answer ---------------------------------------------------------------


def whole(stream: list[dict[str, Any]]) -> dict[str, Any]:
    """An unstreamed response with the stream's parts, one after another."""
    return response(stream_parts(stream))


def stream_parts(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [part for event in stream for part in event["candidates"][0]["content"]["parts"]]


@pytest.mark.parametrize(
    ("stream", "calls"),
    [
        (CALL_STREAM, [PendingCall(id="call_0", name="read_file", arguments={"path": "a.txt"})]),
        (
            PARALLEL_STREAM,
            [
                PendingCall(id="call_0", name="get_weather", arguments={"city": "Oslo"}),
                PendingCall(
                    id="call_1",
                    name="get_weather",
                    arguments={"city": "Bergen", "units": {"temp": "C", "steps": [1, 2]}},
                ),
                PendingCall(id="call_2", name="get_time", arguments={}),
            ],
        ),
        (
            TEXT_THEN_CALL_STREAM,
            [PendingCall(id="fc-7", name="read_file", arguments={"path": "b.txt"})],
        ),
        (TEXT_STREAM, []),
        (CODE_STREAM, []),
    ],
)
def test_a_reply_s_calls_carry_the_id_gemini_pairs_by(
    stream: list[dict[str, Any]], calls: list[PendingCall]
) -> None:
    accumulator, _ = feed(stream)
    assert accumulator.reply().tool_calls == calls
    assert gemini.read_reply(whole(stream)).tool_calls == calls
    # Each id answers its call: a result per call makes a request Gemini takes.
    results = [ct.ToolResultMessage(tool_use_id=call.id, content="ok") for call in calls]
    body = gemini.to_request([ct.UserMessage(content="Go"), *accumulator.result(), *results])
    validate_gemini(body)
    check_pairing(body)


ToolRun = Callable[[str, dict[str, Any]], str]


def run_tool(name: str, arguments: dict[str, Any]) -> str:
    return f"{name} ran with {sorted(arguments)}"


def tool_loop(replies: list[dict[str, Any]], streamed: bool) -> list[dict[str, Any]]:
    """A backend's generic loop: send, read the reply, answer each call by ``call.id``.

    Returns every request it sent. Nothing in it knows Gemini calls have no ids.
    """
    transcript: list[ct.Message] = [ct.UserMessage(content="Plan my day in Oslo.")]
    sent: list[dict[str, Any]] = []
    for reply_json in replies:
        body = gemini.to_request(transcript)
        sent.append(body)
        if streamed:
            accumulator = gemini.Accumulator()
            for part in reply_json["candidates"][0]["content"]["parts"]:
                accumulator.feed(chunk([part]))
            accumulator.feed(chunk(None, "STOP"))
            reply = accumulator.reply()
        else:
            reply = gemini.read_reply(reply_json)
        transcript += reply.messages
        for call in reply.tool_calls:
            transcript.append(
                ct.ToolResultMessage(
                    tool_use_id=call.id,
                    content=run_tool(call.name, call.arguments),
                    provenance="external",
                )
            )
    sent.append(gemini.to_request(transcript))
    return sent


LOOP_REPLIES = [
    response(
        [
            {
                "functionCall": {"name": "get_weather", "args": {"city": "Oslo"}},
                "thoughtSignature": CALL_SIG,
            },
            {"functionCall": {"name": "get_events", "args": {"city": "Oslo", "day": 1}}},
        ]
    ),
    response(
        [{"functionCall": {"name": "book", "args": {"event": "concert"}}, "thoughtSignature": SIG}]
    ),
    response([{"text": "Rain, so the concert it is: booked."}]),
]


@pytest.mark.parametrize("streamed", [False, True])
def test_a_generic_tool_loop_answers_gemini_s_calls_by_call_id(streamed: bool) -> None:
    requests = tool_loop(LOOP_REPLIES, streamed)
    assert len(requests) == 4
    for body in requests:
        validate_gemini(body)
        check_pairing(body)
    last = requests[-1]["contents"]
    assert [content["role"] for content in last] == ["user", "model"] * 3
    outputs = [
        part["function_response"]["response"]["output"]
        for content in last
        for part in content["parts"]
        if "function_response" in part
    ]
    assert [ct.fence_external(run_tool(n, a)) for n, a in _called(LOOP_REPLIES)] == outputs


def _called(replies: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (part["functionCall"]["name"], part["functionCall"]["args"])
        for reply in replies
        for part in reply["candidates"][0]["content"]["parts"]
        if "functionCall" in part
    ]


# --- the sentinel ---------------------------------------------------------------------


SWITCHED: list[ct.Message] = [
    ct.UserMessage(content="Earlier question."),
    ct.AssistantMessage(
        tool_calls=(ct.ToolCall(id="toolu_00", name="get_time", arguments={}),),
    ),
    ct.ToolResultMessage(tool_use_id="toolu_00", content="09:00"),
    ct.AssistantMessage(content="It was nine."),
    ct.UserMessage(content="Weather and time now?"),
    *ANTHROPIC_TURN,
]


def _calls(body: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    return [
        (number, part)
        for number, content in enumerate(body["contents"])
        for part in content["parts"]
        if "function_call" in part
    ]


def test_the_sentinel_is_google_s_placeholder_as_google_genai_reads_it() -> None:
    assert gemini.SENTINEL_SIGNATURE == base64.b64encode(SENTINEL_BYTES).decode()
    body = gemini.to_request(SWITCHED, unsigned_calls="sentinel")
    validate_gemini(body)
    check_pairing(body)
    calls = _calls(body)
    # The earlier turn is not checked by Gemini: it goes as it is.
    assert "thought_signature" not in calls[0][1]
    # In the current turn, the step's first call gets the placeholder, as bytes
    # google-genai reads it; the second call of that step needs none.
    assert signature_of(calls[1][1]) == SENTINEL_BYTES
    assert "thought_signature" not in calls[2][1]
    # Everything else is the request "keep" sends.
    kept = gemini.to_request(SWITCHED)
    assert kept == gemini.to_request(SWITCHED, unsigned_calls="keep")
    del calls[1][1]["thought_signature"]
    assert body == kept


def test_the_sentinel_goes_out_through_google_genai(monkeypatch: pytest.MonkeyPatch) -> None:
    client, captured = client_with(response([{"text": "Rain, 10:00."}]), monkeypatch)
    body = {
        "model": "gemini-3-pro-preview",
        **gemini.to_request(SWITCHED, unsigned_calls="sentinel"),
    }
    client.models.generate_content(**gemini.to_sdk_request(body))
    model_turn = standard(captured.body["contents"][5])
    assert model_turn["parts"][1] == {
        "functionCall": {"name": "get_weather", "args": {"city": "Oslo"}},
        "thoughtSignature": gemini.SENTINEL_SIGNATURE,
    }


def test_each_step_of_the_current_turn_is_signed_once() -> None:
    # Two steps by another model, then one by a Gemini model that signs nothing (2.5).
    unsigned_items = gemini.from_response(
        response([{"functionCall": {"name": "get_time", "args": {}}}])
    )
    transcript: list[ct.Message] = [
        ct.UserMessage(content="Go."),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="a", name="f", arguments={}),)),
        ct.ToolResultMessage(tool_use_id="a", content="1"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="b", name="g", arguments={}),)),
        ct.ToolResultMessage(tool_use_id="b", content="2"),
        *unsigned_items,
        ct.ToolResultMessage(tool_use_id="call_0", content="3"),
    ]
    body = gemini.to_request(transcript, unsigned_calls="sentinel")
    validate_gemini(body)
    assert [signature_of(part) for _, part in _calls(body)] == [SENTINEL_BYTES] * 3
    # The transcript's parts are not touched: the placeholder is the request's.
    assert (
        unsigned_items[0]
        == gemini.from_response(response([{"functionCall": {"name": "get_time", "args": {}}}]))[0]
    )


def test_results_alone_do_not_start_a_turn_but_any_user_content_does() -> None:
    call = ct.AssistantMessage(tool_calls=(ct.ToolCall(id="a", name="f", arguments={}),))
    image = ct.UserMultimodalMessage(
        content=(ct.ImageBase64Block(data="iVBORw0KGgo=", media_type="image/png"),)
    )
    answered: list[ct.Message] = [call, ct.ToolResultMessage(tool_use_id="a", content="1")]
    body = gemini.to_request([ct.UserMessage(content="Go."), *answered], unsigned_calls="sentinel")
    assert signature_of(_calls(body)[0][1]) == SENTINEL_BYTES
    # An image the user sent after the call begins a new turn: the call is history.
    after: list[ct.Message] = [
        ct.UserMessage(content="Go."),
        *answered,
        image,
        ct.AssistantMessage(content="ok"),
    ]
    body = gemini.to_request(after, unsigned_calls="sentinel")
    assert "thought_signature" not in _calls(body)[0][1]


PARALLEL_REPLY = gemini.from_response(
    {"candidates": [{"content": {"role": "model", "parts": stream_parts(PARALLEL_STREAM)}}]}
)


def test_gemini_s_own_steps_go_as_they_came() -> None:
    # Its parallel calls: the first signed, the others unsigned, as Gemini sent them.
    transcript = [
        ct.UserMessage(content="Weather?"),
        *PARALLEL_REPLY,
        *(ct.ToolResultMessage(tool_use_id=f"call_{n}", content="x") for n in range(3)),
    ]
    keep = gemini.to_request(transcript)
    assert gemini.to_request(transcript, unsigned_calls="sentinel") == keep
    assert [signature_of(part) for _, part in _calls(keep)] == [
        base64.b64decode(CALL_SIG),
        None,
        None,
    ]


@settings(max_examples=examples(200, 40))
@given(
    st.lists(
        st.tuples(st.booleans(), st.one_of(st.none(), st.binary(min_size=1, max_size=24))),
        min_size=1,
        max_size=4,
    ),
    st.booleans(),
)
def test_a_real_signature_is_never_replaced(
    steps: list[tuple[bool, bytes | None]], new_turn: bool
) -> None:
    # Steps of the current turn, each a Gemini reply (its call signed or not) or
    # another model's call; with ``new_turn`` a user message ends them first.
    transcript: list[ct.Message] = [ct.UserMessage(content="Go.")]
    for number, (from_gemini, signature) in enumerate(steps):
        if from_gemini:
            part: dict[str, Any] = {"functionCall": {"name": f"f{number}", "args": {"n": number}}}
            if signature is not None:
                part["thoughtSignature"] = base64.b64encode(signature).decode()
            transcript += gemini.from_response(response([part]))
            transcript.append(ct.ToolResultMessage(tool_use_id="call_0", content="ok"))
        else:
            call = ct.ToolCall(id=f"t{number}", name=f"f{number}", arguments={"n": number})
            transcript += [
                ct.AssistantMessage(tool_calls=(call,)),
                ct.ToolResultMessage(tool_use_id=f"t{number}", content="ok"),
            ]
    if new_turn:
        transcript.append(ct.UserMessage(content="Thanks."))
    before = ct.encode(transcript)
    signed = gemini.to_request(transcript, unsigned_calls="sentinel")
    validate_gemini(signed)
    assert ct.encode(transcript) == before
    read = [signature_of(part) for _, part in _calls(signed)]
    for (from_gemini, signature), got in zip(steps, read, strict=True):
        if from_gemini and signature is not None:
            assert got == signature  # a real signature wins, always
        elif new_turn:
            assert got is None  # no longer the current turn
        else:
            assert got == SENTINEL_BYTES
    # And a request that keeps unsigned calls differs only by the placeholders.
    kept = gemini.to_request(transcript)
    for _, part in _calls(signed):
        if part.get("thought_signature") == gemini.SENTINEL_SIGNATURE:
            del part["thought_signature"]
    assert signed == kept


@pytest.mark.parametrize("value", ["sign", "", None, True])
def test_unsigned_calls_takes_two_words(value: Any) -> None:
    with pytest.raises(ValueError, match='unsigned_calls= must be "keep" or "sentinel"'):
        gemini.to_request([ct.UserMessage(content="u")], unsigned_calls=value)


# --- what a request leaves out ---------------------------------------------------------


def _strip(transcript: list[ct.Message], index: int, **changes: Any) -> list[ct.Message]:
    """``transcript`` with message ``index`` rebuilt with ``changes`` (or removed, with none)."""
    if not changes:
        return [m for n, m in enumerate(transcript) if n != index]
    message = transcript[index]
    fields = {name: getattr(message, name) for name in message.__struct_fields__}
    return [*transcript[:index], type(message)(**{**fields, **changes}), *transcript[index + 1 :]]


THOUGHT = ct.ThinkingBlock(text="Mull it over.")
SIGNED = ct.ThinkingBlock(text="Signed thought.", signature="c2lnbmF0dXJl")
SIGNATURE_ONLY = ct.ThinkingBlock(signature="ZW5jcnlwdGVk")
REDACTED = ct.ThinkingBlock(redacted_data="cmVkYWN0ZWQ=")
IMAGE = ct.ImageUrlBlock(url="https://example.com/a.png", detail="high")
VIDEO = ct.VideoUrlBlock(url="https://example.com/v.mp4", fps=2.0, max_frames=16)
AUDIO = ct.AudioBase64Block(data="UklGRg==", media_type="audio/wav", sample_rate=16000)
LOCAL = ct.VideoPathBlock(path="/tmp/clip.mp4")


def _thinking_case() -> tuple[list[ct.Message], list[LeftOut], list[ct.Message]]:
    transcript: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(content="a", thinking=(THOUGHT, SIGNED, SIGNATURE_ONLY, REDACTED)),
    ]
    expected = [
        LeftOut(1, "thinking", "thinking block 0: Gemini takes back only its own thought parts"),
        LeftOut(1, "thinking", "thinking block 1: Gemini takes back only its own thought parts"),
        LeftOut(1, "signature", "thinking block 2: a signature Gemini cannot check"),
        LeftOut(
            1,
            "redacted-thinking",
            "thinking block 3: redacted thinking only its own provider reads",
        ),
    ]
    return transcript, expected, _strip(transcript, 1, thinking=())


def _items_case() -> tuple[list[ct.Message], list[LeftOut], list[ct.Message]]:
    foreign = ct.ProviderOutputItemsMessage(
        protocol="openai-responses",
        items=[{"type": "reasoning", "id": "rs_1", "summary": []}, {"type": "message"}],
    )
    transcript: list[ct.Message] = [
        ct.UserMessage(content="q"),
        foreign,
        ct.AssistantMessage(content="a"),
    ]
    expected = [
        LeftOut(1, "items", "2 item(s) of protocol 'openai-responses', which Gemini does not read")
    ]
    return transcript, expected, _strip(transcript, 1)


def _text_case() -> tuple[list[ct.Message], list[LeftOut], list[ct.Message]]:
    transcript: list[ct.Message] = [
        ct.SystemMessage(content=""),
        ct.UserMessage(content=""),
        ct.UserMultimodalMessage(content=(ct.TextBlock(text=""), ct.TextBlock(text="hi"))),
    ]
    expected = [
        LeftOut(0, "text", "the system text is empty, and Gemini takes no empty text"),
        LeftOut(1, "text", "Gemini takes no empty text"),
        LeftOut(2, "text", "block 0: Gemini takes no empty text"),
    ]
    stripped = _strip(transcript[1:], 0)
    stripped = _strip(stripped, 0, content=(ct.TextBlock(text="hi"),))
    return transcript, expected, stripped


def _settings_case() -> tuple[list[ct.Message], list[LeftOut], list[ct.Message]]:
    transcript: list[ct.Message] = [ct.UserMultimodalMessage(content=(IMAGE, VIDEO, AUDIO))]
    expected = [
        LeftOut(0, "detail", "block 0: Gemini has no field for an image's detail"),
        LeftOut(0, "max-frames", "block 1: Gemini has no field for a video's max_frames"),
        LeftOut(0, "sample-rate", "block 2: Gemini has no field for audio's sample_rate"),
    ]
    plain = (
        ct.ImageUrlBlock(url=IMAGE.url),
        ct.VideoUrlBlock(url=VIDEO.url, fps=2.0),
        ct.AudioBase64Block(data=AUDIO.data, media_type=AUDIO.media_type),
    )
    return transcript, expected, _strip(transcript, 0, content=plain)


CASES = {
    "thinking": _thinking_case,
    "items": _items_case,
    "text": _text_case,
    "settings": _settings_case,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_left_out_names_exactly_what_the_request_does_not_send(case: str) -> None:
    transcript, expected, stripped = CASES[case]()
    assert gemini.left_out(transcript) == expected
    # Really not sent: without those pieces the request is the same...
    assert gemini.to_request(stripped) == gemini.to_request(transcript)
    # ...and nothing else is missing from it.
    assert gemini.left_out(stripped) == []


def test_a_note_stands_for_media_gemini_cannot_read() -> None:
    transcript: list[ct.Message] = [
        ct.UserMultimodalMessage(content=(LOCAL, ct.TextBlock(text="?")))
    ]
    assert gemini.left_out(transcript, unsupported="note") == [
        LeftOut(0, "video", "block 0: Gemini cannot read a local path; a note stands in its place")
    ]
    # The note is all that goes in the video's place.
    note = ct.TextBlock(text="[video_path attachment not sent: Gemini does not accept it]")
    noted = [ct.UserMultimodalMessage(content=(note, ct.TextBlock(text="?")))]
    assert gemini.to_request(noted) == gemini.to_request(transcript, unsupported="note")
    # Under the default, left_out raises what to_request raises.
    with pytest.raises(UnsupportedContent, match="message 0, block 0"):
        gemini.left_out(transcript)


def test_a_call_without_a_signature_is_not_reported() -> None:
    # Another provider's call never had a Gemini signature: there is none to leave out.
    transcript = [ct.UserMessage(content="q"), *ANTHROPIC_TURN]
    assert [piece.what for piece in gemini.left_out(transcript)] == ["thinking"]


@pytest.mark.parametrize("stream", sorted(STREAMS))
def test_a_transcript_gemini_made_loses_only_its_empty_parts(stream: str) -> None:
    accumulator, _ = feed(STREAMS[stream])
    reply = accumulator.reply()
    transcript = [
        ct.UserMessage(content="Go"),
        *reply.messages,
        *(ct.ToolResultMessage(tool_use_id=call.id, content="ok") for call in reply.tool_calls),
        ct.UserMessage(content="Thanks."),
    ]
    items = reply.messages[0]
    assert isinstance(items, ct.ProviderOutputItemsMessage)
    empty = [
        LeftOut(
            1,
            "text",
            f"item {number}: empty text with no signature, which says nothing and which "
            "Gemini refuses",
        )
        for number, part in enumerate(items.items)
        if part == {"text": ""}
    ]
    assert len(empty) == (stream in ("call", "text-then-call"))
    assert gemini.left_out(transcript) == empty


def test_left_out_costs_to_request_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    # to_request makes no report: a LeftOut that cannot be built does not stop it.
    def refuse(*args: object) -> None:
        raise AssertionError("to_request built a LeftOut")

    transcript, _, _ = _thinking_case()
    monkeypatch.setattr(gemini_request, "LeftOut", refuse)
    gemini.to_request(transcript)
    with pytest.raises(AssertionError, match="built a LeftOut"):
        gemini.left_out(transcript)


# --- a request belongs to the caller -----------------------------------------------------


NESTED = {"filter": {"tags": ["a", {"deep": [1, 2]}]}, "limit": 10**30}
GEMINI_REPLY = gemini.from_response(
    response(
        [
            {"text": "Looking.", "thoughtSignature": SIG},
            {"functionCall": {"name": "search", "args": NESTED}, "thoughtSignature": CALL_SIG},
            {"functionCall": {"name": "search", "args": {"q": ["x"]}}},
            {"executableCode": {"language": "PYTHON", "code": "1"}},
        ]
    )
)
OWNED_TRANSCRIPT: list[ct.Message] = [
    ct.SystemMessage(content="s"),
    ct.UserMessage(content="Find it."),
    *GEMINI_REPLY,
    ct.ToolResultMessage(tool_use_id="call_0", content="r0"),
    ct.ToolResultMessage(tool_use_id="call_1", content="r1"),
    ct.ProviderOutputItemsMessage(protocol="anthropic", items=[{"type": "text", "x": [1]}]),
    ct.AssistantMessage(
        content="More.", tool_calls=(ct.ToolCall(id="t", name="search", arguments=NESTED),)
    ),
]


@pytest.mark.parametrize("unsigned", ["keep", "sentinel"])
def test_the_request_shares_nothing_with_the_transcript(unsigned: Any) -> None:
    assert_owned(
        lambda: gemini.to_request(OWNED_TRANSCRIPT, unsigned_calls=unsigned), OWNED_TRANSCRIPT
    )


def test_the_tools_fields_share_nothing_with_the_tools() -> None:
    tools = [
        ToolSpec(
            name="search",
            parameters={
                "type": "object",
                "properties": {
                    "mode": {"type": "string", "enum": ["a", "b"], "default": "a"},
                    "tags": {"type": "array", "items": {"type": "string"}, "default": ["x"]},
                },
            },
        )
    ]
    assert_owned(lambda: gemini.tools_to_request(tools), tools)
    assert_owned(lambda: gemini.tools_to_request(tools, json_schema=True), tools)


def test_the_sdk_arguments_share_nothing_with_the_transcript_or_the_tools() -> None:
    tools = [ToolSpec(name="search", parameters={"type": "object", "properties": {}})]

    def build() -> dict[str, Any]:
        body = {
            "model": "gemini-2.5-flash",
            **gemini.to_request(OWNED_TRANSCRIPT),
            **gemini.tools_to_request(tools, json_schema=True),
            "generation_config": {"temperature": 0.1},
        }
        return gemini.to_sdk_request(body)

    assert_owned(build, OWNED_TRANSCRIPT, tools)


@st.composite
def with_gemini_items(draw: st.DrawFn) -> list[ct.Message]:
    """A well-formed conversation in which some replies came from Gemini, with their parts."""
    out: list[ct.Message] = []
    for message in draw(cst.conversations()):
        if isinstance(message, ct.AssistantMessage) and draw(st.booleans()):
            parts: list[Any] = [{"text": message.content}] if message.content else []
            for call in message.tool_calls:
                function: dict[str, Any] = {"name": call.name, "args": call.arguments}
                if call.id is not None:
                    function["id"] = call.id
                parts.append({"function_call": function, "thought_signature": "c2ln"})
            out.append(ct.ProviderOutputItemsMessage(protocol="gemini", items=parts))
        out.append(message)
    return out


@settings(max_examples=examples(100, 20))
@given(with_gemini_items(), st.sampled_from(["keep", "sentinel"]))
def test_any_request_shares_nothing_with_its_transcript(
    transcript: list[ct.Message], unsigned: Any
) -> None:
    assert_owned(
        lambda: gemini.to_request(transcript, unsupported="note", unsigned_calls=unsigned),
        transcript,
    )


def test_values_as_deep_as_a_transcript_holds_are_copied() -> None:
    from convtypes._jsonvalue import ARGUMENTS_DEPTH, ITEMS_DEPTH

    arguments: dict[str, Any] = {}
    for _ in range(ARGUMENTS_DEPTH - 1):
        arguments = {"a": arguments}
    nested: list[Any] = []
    for _ in range(ITEMS_DEPTH - 2):
        nested = [nested]
    transcript: list[ct.Message] = [
        ct.UserMessage(content="u"),
        ct.ProviderOutputItemsMessage(protocol="gemini", items=[{"text": "x", "deep": nested}]),
        ct.AssistantMessage(
            content="x", tool_calls=(ct.ToolCall(id="c", name="f", arguments=arguments),)
        ),
    ]
    body = assert_owned(lambda: gemini.to_request(transcript), transcript)
    assert body["contents"][1]["parts"][0]["deep"] == nested
    assert body["contents"][1]["parts"][1]["function_call"]["args"] == arguments


@st.composite
def switched_transcripts(draw: st.DrawFn) -> list[ct.Message]:
    """Conversations from any provider: signed thinking, other items, media, blank text."""
    out: list[ct.Message] = []
    for message in draw(with_gemini_items()):
        if isinstance(message, ct.AssistantMessage) and draw(st.booleans()):
            thinking = draw(st.lists(cst.thinking_blocks(), max_size=2))
            message = with_fields(message, thinking=(*message.thinking, *thinking))
        if draw(st.integers(0, 5)) == 0:
            out.append(
                ct.ProviderOutputItemsMessage(
                    protocol=draw(st.sampled_from(["anthropic", "openai-responses"])),
                    items=draw(st.lists(cst.json_values(4), min_size=1, max_size=2)),
                )
            )
        out.append(message)
    return out


@settings(max_examples=examples(150, 30))
@given(switched_transcripts())
def test_left_out_names_exactly_what_is_not_sent(transcript: list[ct.Message]) -> None:
    report = gemini.left_out(transcript, unsupported="note")
    assert [piece.index for piece in report] == sorted(piece.index for piece in report)
    stripped = strip_reported(transcript, report, "Gemini")
    # Without every piece named, the request is the same: none of them was sent...
    assert gemini.to_request(stripped, unsupported="note") == gemini.to_request(
        transcript, unsupported="note"
    )
    # ...and nothing else was left out.
    assert gemini.left_out(stripped, unsupported="note") == []


def test_left_out_refuses_what_to_request_refuses() -> None:
    with pytest.raises(ValueError, match='unsupported= must be "raise" or "note"'):
        gemini.left_out([], unsupported="drop")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="left_out takes an iterable of messages"):
        gemini.left_out("hi")  # type: ignore[arg-type]
    unknown = ct.decode_lenient_messages(b'[{"role": "critic", "text": "x"}]')
    with pytest.raises(UnsupportedContent, match="message 0"):
        gemini.to_request(unknown)
    # A message a newer writer made is named, as to_request(..., unknown="skip") leaves it out.
    assert [(p.index, p.what) for p in gemini.left_out(unknown)] == [(0, "unknown")]
    with pytest.raises(UnansweredCall, match="toolu_01"):
        gemini.left_out(
            [ct.UserMessage(content="q"), ANTHROPIC_TURN[0], ct.UserMessage(content="?")]
        )
