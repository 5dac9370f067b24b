"""``Reply.details``: what a provider says about its reply beside the messages is kept.

Anthropic's ``stop_details`` (a refusal's category and explanation), the
stop sequence met and the container; Responses' ``incomplete_details`` and
the output audio a stream brings; Gemini's safety ratings and prompt
feedback. A stream's final reply holds the same as the reply read whole,
and no message gains a field: the details are never sent back. Built from
the SDKs' own types.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from anthropic.types import Message as AnthropicMessage
from google.genai import types as genai
from openai._models import construct_type
from openai.types.responses import Response, ResponseStreamEvent
from test_anthropic_turn import feed_all, reply_of, sdk_events
from test_anthropic_turn import stream_of as anthropic_stream
from test_gemini_turn import chunk as gemini_chunk
from test_gemini_turn import every_form
from test_gemini_turn import feed as gemini_feed
from test_gemini_turn import response as gemini_response
from test_openai_responses_turn import response as responses_response
from test_openai_responses_turn import stream_of as responses_stream

import convtypes as ct
from convtypes.dialects import Reply, anthropic, gemini, openai_responses

# --- Anthropic -----------------------------------------------------------------------------

REFUSAL = {
    "type": "refusal",
    "category": "cyber",
    "explanation": "The request asks for a working exploit.",
}


def _refused() -> dict[str, Any]:
    reply = reply_of([{"type": "text", "text": "I can't help with that."}], "refusal")
    reply["stop_details"] = REFUSAL
    return reply


def _refused_stream() -> list[dict[str, Any]]:
    """As the API streams it: the start says nothing of it; the message_delta brings it."""
    events = anthropic_stream({**_refused(), "stop_details": None})
    delta = next(event for event in events if event["type"] == "message_delta")
    delta["delta"]["stop_details"] = REFUSAL
    return events


def test_anthropic_stop_details_are_kept_whole_and_streamed() -> None:
    whole = _refused()
    expected = anthropic.read_reply(whole)
    assert expected.stop_reason == "refusal"
    assert expected.details == {"stop_details": REFUSAL}
    assert anthropic.read_reply(AnthropicMessage.model_validate(whole)) == expected
    for events in (_refused_stream(), sdk_events(_refused_stream())):
        accumulator, _ = feed_all(events)
        assert accumulator.reply() == expected


def test_anthropic_stop_sequence_is_kept() -> None:
    whole = {**reply_of([{"type": "text", "text": "1, 2, 3"}], "stop_sequence")}
    whole["stop_sequence"] = "4"
    expected = anthropic.read_reply(AnthropicMessage.model_validate(whole))
    assert expected.details == {"stop_sequence": "4"}
    events = anthropic_stream({**whole, "stop_sequence": None})
    events[-2]["delta"]["stop_sequence"] = "4"
    for form in (events, sdk_events(events)):
        accumulator, _ = feed_all(form)
        assert accumulator.reply() == expected


def test_anthropic_container_is_kept_to_name_in_the_next_request() -> None:
    whole = reply_of([{"type": "text", "text": "Ran it."}])
    whole["container"] = {"id": "container_011", "expires_at": "2026-12-02T05:00:00Z"}
    expected = anthropic.read_reply(AnthropicMessage.model_validate(whole))
    assert expected.details == {"container": whole["container"]}
    events = anthropic_stream(whole)  # the container comes in message_start
    for form in (events, sdk_events(events)):
        accumulator, _ = feed_all(form)
        assert accumulator.reply() == expected


def test_an_ordinary_anthropic_reply_has_no_details() -> None:
    whole = reply_of([{"type": "text", "text": "Hi."}])
    assert anthropic.read_reply(AnthropicMessage.model_validate(whole)).details == {}
    accumulator, _ = feed_all(sdk_events(anthropic_stream(whole)))
    assert accumulator.reply().details == {}


def test_details_are_never_sent_back() -> None:
    reply = anthropic.read_reply(_refused())
    body = anthropic.to_request([ct.UserMessage(content="q"), *reply.messages])
    assert "stop_details" not in str(body) and "cyber" not in str(body)


# --- OpenAI Responses ----------------------------------------------------------------------

MESSAGE = {
    "type": "message",
    "id": "msg_1",
    "role": "assistant",
    "status": "incomplete",
    "content": [{"type": "output_text", "text": "The first half", "annotations": []}],
}


def test_responses_incomplete_details_are_kept_whole_and_streamed() -> None:
    whole = responses_response([MESSAGE], "incomplete", "max_output_tokens")
    expected = openai_responses.read_reply(Response.model_validate(whole))
    assert expected.details == {"incomplete_details": {"reason": "max_output_tokens"}}
    events = responses_stream(whole)
    for form in (events, [construct_type(type_=ResponseStreamEvent, value=e) for e in events]):
        accumulator = openai_responses.Accumulator()
        for event in form:
            accumulator.feed(event)
        assert accumulator.reply() == expected


def _with_audio(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``events`` with output audio and its transcript streamed before the end."""
    audio = [
        {"type": "response.audio.transcript.delta", "delta": "The first "},
        {"type": "response.audio.delta", "delta": "UklGRiQA"},
        {"type": "response.audio.transcript.delta", "delta": "half"},
        {"type": "response.audio.delta", "delta": "AABXQVZF"},
        {"type": "response.audio.done"},
        {"type": "response.audio.transcript.done"},
    ]
    out = [*events[:-1], *audio, events[-1]]
    return [{**event, "sequence_number": number} for number, event in enumerate(out)]


def test_responses_audio_is_kept_in_the_stream_reply_and_never_replayed() -> None:
    done = {**MESSAGE, "status": "completed"}
    whole = responses_response([done])
    events = _with_audio(responses_stream(whole))
    for form in (events, [construct_type(type_=ResponseStreamEvent, value=e) for e in events]):
        accumulator = openai_responses.Accumulator()
        for event in form:
            accumulator.feed(event)
        reply = accumulator.reply()
        assert reply.details == {
            "audio": {"transcript": "The first half", "data": "UklGRiQAAABXQVZF"}
        }
        assert reply.messages == openai_responses.read_reply(whole).messages
        body = openai_responses.to_request([ct.UserMessage(content="q"), *reply.messages])
        assert "UklGRiQA" not in str(body)


def test_a_responses_audio_delta_that_is_not_text_is_refused() -> None:
    events = _with_audio(responses_stream(responses_response([{**MESSAGE, "status": "completed"}])))
    at = next(n for n, e in enumerate(events) if e["type"] == "response.audio.delta")
    events[at] = {**events[at], "delta": 7}
    accumulator = openai_responses.Accumulator()
    with pytest.raises(ct.dialects.StreamError, match=r"event \d+ \(response.audio.delta\)"):
        for event in events:
            accumulator.feed(event)


# --- Gemini --------------------------------------------------------------------------------

RATINGS = [
    {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "LOW"},
    {"category": "HARM_CATEGORY_HARASSMENT", "probability": "NEGLIGIBLE"},
]


def test_gemini_safety_ratings_and_prompt_feedback_are_kept_in_every_form() -> None:
    whole = gemini_response([{"text": "Mix them slowly."}])
    whole["candidates"][0]["safetyRatings"] = RATINGS
    whole["promptFeedback"] = {"safetyRatings": RATINGS}
    expected = {"safety_ratings": RATINGS, "prompt_feedback": {"safety_ratings": RATINGS}}
    for form in every_form(whole):
        assert gemini.read_reply(form).details == expected


def test_gemini_stream_keeps_the_latest_safety_ratings_as_the_whole_reply() -> None:
    first = gemini_chunk([{"text": "Mix them "}])
    last = gemini_chunk([{"text": "slowly."}], "STOP")
    last["candidates"][0]["safetyRatings"] = RATINGS
    whole = gemini_response([{"text": "Mix them slowly."}])
    whole["candidates"][0]["safetyRatings"] = RATINGS
    expected = gemini.read_reply(whole)
    assert expected.details == {"safety_ratings": RATINGS}
    for events in (
        [first, last],
        [
            genai.GenerateContentResponse.model_validate(first),
            genai.GenerateContentResponse.model_validate(last),
        ],
    ):
        accumulator, _ = gemini_feed(events)
        assert accumulator.reply() == expected


# --- the Reply -----------------------------------------------------------------------------


def test_details_are_checked_when_built() -> None:
    with pytest.raises(ct.WireError) as caught:
        Reply(messages=[], stop_reason="end_turn", details=[])  # type: ignore[arg-type]
    assert caught.value.path == "$.details"
    with pytest.raises(ct.WireError) as caught:
        Reply(messages=[], stop_reason="end_turn", details={1: "x"})  # type: ignore[dict-item]
    assert caught.value.path == "$.details"


def test_details_compare_and_hash_as_json() -> None:
    one = Reply(
        messages=[], stop_reason="refusal", details={"stop_details": copy.deepcopy(REFUSAL)}
    )
    two = Reply(messages=[], stop_reason="refusal", details={"stop_details": dict(REFUSAL)})
    assert one == two and hash(one) == hash(two)
    other = Reply(messages=[], stop_reason="refusal")
    assert one != other and other.details == {}
