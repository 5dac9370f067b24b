"""Custom tool calls (OpenAI's free-text tools): every call the next request owes an answer
is one the program is shown.

A custom call carries free text, not a JSON object. It is read as a
``ToolCall`` whose ``arguments`` are ``{"input": <the text>}``, so that it
is among ``Reply.tool_calls`` and ``open_calls``; the provider's own form
is kept in the items and goes back byte for byte; a ``ToolResultMessage``
answering it goes back as the result kind the API pairs with it. Built
from the openai SDK's own types.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai._models import construct_type
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.chat.chat_completion_message_custom_tool_call import (
    ChatCompletionMessageCustomToolCall,
)
from openai.types.responses import Response, ResponseCustomToolCall, ResponseStreamEvent
from test_dialects_requests import validate_openai_chat, validate_openai_responses
from test_openai_chat_turn import chunk, completion
from test_openai_responses_turn import response, stream_of

import convtypes as ct
from convtypes.dialects import (
    PendingCall,
    StreamError,
    ToolCallDelta,
    ToolCallStart,
    UnansweredCall,
    openai_chat,
    openai_responses,
)

QUESTION = ct.UserMessage(content="Find the TODOs.")
AFTER = ct.UserMessage(content="Thanks. And the FIXMEs?")

# A patch: free text with newlines, quotes and a trailing space, which no JSON
# object would carry as it is.
PATCH = '*** Begin Patch\n*** Update File: a.py\n-x = "1" \n+x = 2\n*** End Patch'

# --- OpenAI Chat ---------------------------------------------------------------------------

CHAT_CALL = ChatCompletionMessageCustomToolCall.model_validate(
    {"id": "call_c1", "type": "custom", "custom": {"name": "apply_patch", "input": PATCH}}
)
CHAT_FUNCTION = {
    "id": "call_f1",
    "type": "function",
    "function": {"name": "grep", "arguments": '{"word": "TODO"}'},
}


def chat_completion() -> ChatCompletion:
    """A reply with a function call and a custom call, as the SDK's own object."""
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [CHAT_FUNCTION, CHAT_CALL.model_dump()],
    }
    return ChatCompletion.model_validate(completion(message, "tool_calls"))


def test_a_chat_custom_call_is_among_the_reply_calls_and_the_open_calls() -> None:
    reply = openai_chat.read_reply(chat_completion())
    expected = [
        PendingCall(id="call_f1", name="grep", arguments={"word": "TODO"}),
        PendingCall(id="call_c1", name="apply_patch", arguments={"input": PATCH}),
    ]
    assert reply.tool_calls == expected
    assert reply.stop_reason == "tool_use"
    assert ct.open_calls([QUESTION, *reply.messages]) == expected


def test_a_chat_custom_call_goes_back_as_it_came_and_its_result_as_a_tool_message() -> None:
    reply = openai_chat.read_reply(chat_completion())
    transcript: list[ct.Message] = [
        QUESTION,
        *reply.messages,
        *[ct.ToolResultMessage(tool_use_id=call.id, content="done") for call in reply.tool_calls],
        AFTER,
    ]
    assert ct.open_calls(transcript) == []
    body = openai_chat.to_request(transcript)
    validate_openai_chat(body)
    turn = body["messages"][1]
    assert turn["tool_calls"] == [CHAT_FUNCTION, CHAT_CALL.model_dump()]
    # The text replays byte for byte, trailing space and all.
    assert json.dumps(turn["tool_calls"][1]) == json.dumps(CHAT_CALL.model_dump())
    assert body["messages"][2:4] == [
        {"role": "tool", "tool_call_id": "call_f1", "content": "done"},
        {"role": "tool", "tool_call_id": "call_c1", "content": "done"},
    ]


def test_a_chat_custom_call_left_unanswered_is_refused_and_named() -> None:
    reply = openai_chat.read_reply(chat_completion())
    answered_one = [
        QUESTION,
        *reply.messages,
        ct.ToolResultMessage(tool_use_id="call_f1", content="done"),
        AFTER,
    ]
    # The one call the program has not answered is the one it is shown.
    assert [call.id for call in ct.open_calls(answered_one)] == ["call_c1"]
    with pytest.raises(UnansweredCall, match="call_c1") as caught:
        openai_chat.to_request(answered_one)
    assert caught.value.call_id == "call_c1"
    closed = ct.close_open_calls(answered_one[:-1], "cancelled")
    validate_openai_chat(openai_chat.to_request([*closed, AFTER]))


def _chat_stream() -> list[dict[str, Any]]:
    """The reply of :func:`chat_completion`, streamed: the custom input in three pieces."""
    start = {"index": 1, "id": "call_c1", "type": "custom"}
    return [
        chunk({"role": "assistant", "content": None}),
        chunk({"tool_calls": [{"index": 0, **CHAT_FUNCTION}]}),
        chunk({"tool_calls": [{**start, "custom": {"name": "apply_patch", "input": ""}}]}),
        chunk({"tool_calls": [{"index": 1, "custom": {"input": PATCH[:10]}}]}),
        chunk({"tool_calls": [{"index": 1, "custom": {"input": PATCH[10:30]}}]}),
        chunk({"tool_calls": [{"index": 1, "custom": {"input": PATCH[30:]}}]}),
        chunk({}, "tool_calls"),
    ]


@pytest.mark.parametrize("form", ["dict", "sdk"])
def test_a_streamed_chat_custom_call_reads_as_the_whole_reply(form: str) -> None:
    events: list[Any] = _chat_stream()
    if form == "sdk":  # what the SDK's stream yields: its objects, built without checks
        events = [construct_type(type_=ChatCompletionChunk, value=event) for event in events]
    accumulator = openai_chat.Accumulator()
    deltas = [delta for event in events for delta in accumulator.feed(event)]
    assert accumulator.reply() == openai_chat.read_reply(chat_completion())
    assert deltas[:2] == [
        ToolCallStart(0, "call_f1", "grep"),
        ToolCallDelta(0, '{"word": "TODO"}'),
    ]
    # The custom call is call 1, as in the reply's tool_calls; its pieces are of its text.
    assert deltas[2] == ToolCallStart(1, "call_c1", "apply_patch")
    pieces = [delta for delta in deltas[3:] if isinstance(delta, ToolCallDelta)]
    assert all(piece.index == 1 for piece in pieces)
    assert "".join(piece.arguments for piece in pieces) == PATCH


def test_a_chat_custom_call_is_a_call_for_every_other_dialect() -> None:
    reply = openai_chat.read_reply(chat_completion())
    assistant = reply.messages[-1]
    assert isinstance(assistant, ct.AssistantMessage)
    assert assistant.tool_calls[1] == ct.ToolCall(
        id="call_c1", name="apply_patch", arguments={"input": PATCH}
    )


# --- OpenAI Responses ----------------------------------------------------------------------

RESPONSES_CALL = ResponseCustomToolCall.model_validate(
    {
        "type": "custom_tool_call",
        "id": "ctc_1",
        "call_id": "call_c2",
        "name": "apply_patch",
        "input": PATCH,
    }
).model_dump(exclude_none=True, by_alias=True)
RESPONSES_FUNCTION = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_f2",
    "name": "grep",
    "arguments": '{"word": "TODO"}',
    "status": "completed",
}


def responses_reply() -> Response:
    return Response.model_validate(response([RESPONSES_FUNCTION, RESPONSES_CALL]))


def test_a_responses_custom_call_is_among_the_reply_calls_and_the_open_calls() -> None:
    reply = openai_responses.read_reply(responses_reply())
    expected = [
        PendingCall(id="call_f2", name="grep", arguments={"word": "TODO"}),
        PendingCall(id="call_c2", name="apply_patch", arguments={"input": PATCH}),
    ]
    assert reply.tool_calls == expected
    assert reply.stop_reason == "tool_use"
    assert ct.open_calls([QUESTION, *reply.messages]) == expected


def test_a_responses_custom_call_is_answered_by_a_custom_tool_call_output() -> None:
    reply = openai_responses.read_reply(responses_reply())
    transcript: list[ct.Message] = [
        QUESTION,
        *reply.messages,
        *[ct.ToolResultMessage(tool_use_id=call.id, content="done") for call in reply.tool_calls],
        AFTER,
    ]
    body = openai_responses.to_request(transcript)
    validate_openai_responses(body)
    sent = body["input"]
    # The items go back as they came, once: the assistant message adds no call of its own.
    assert sent[1:3] == [RESPONSES_FUNCTION, RESPONSES_CALL]
    assert sent[3:5] == [
        {"type": "function_call_output", "call_id": "call_f2", "output": "done"},
        {"type": "custom_tool_call_output", "call_id": "call_c2", "output": "done"},
    ]
    assert sent[5] == {"role": "user", "content": AFTER.content}
    assert openai_responses.left_out(transcript) == []


def test_a_responses_custom_call_left_unanswered_is_refused_and_named() -> None:
    reply = openai_responses.read_reply(responses_reply())
    answered_one = [
        QUESTION,
        *reply.messages,
        ct.ToolResultMessage(tool_use_id="call_f2", content="done"),
        AFTER,
    ]
    assert [call.id for call in ct.open_calls(answered_one)] == ["call_c2"]
    with pytest.raises(UnansweredCall, match="call_c2") as caught:
        openai_responses.to_request(answered_one)
    assert caught.value.call_id == "call_c2"
    closed = ct.close_open_calls(answered_one[:-1], "cancelled")
    body = openai_responses.to_request([*closed, AFTER])
    assert body["input"][4] == {
        "type": "custom_tool_call_output",
        "call_id": "call_c2",
        "output": "cancelled",
    }


def test_a_streamed_responses_custom_call_reads_as_the_whole_reply() -> None:
    whole = response([RESPONSES_FUNCTION, RESPONSES_CALL])
    events = stream_of(whole, cut=lambda text: [text[:7], text[7:19], text[19:]])
    for form in ("dict", "sdk"):
        accumulator = openai_responses.Accumulator()
        fed: list[Any] = (
            events
            if form == "dict"
            else [construct_type(type_=ResponseStreamEvent, value=event) for event in events]
        )
        deltas = [delta for event in fed for delta in accumulator.feed(event)]
        assert accumulator.reply() == openai_responses.read_reply(whole), form
        assert ToolCallStart(1, "call_c2", "apply_patch") in deltas
        pieces = [d for d in deltas if isinstance(d, ToolCallDelta) and d.index == 1]
        assert "".join(piece.arguments for piece in pieces) == PATCH


def test_a_responses_custom_call_still_arriving_is_no_call_yet() -> None:
    whole = response([RESPONSES_FUNCTION, RESPONSES_CALL])
    events = stream_of(whole, cut=lambda text: [text[:7], text[7:]])
    accumulator = openai_responses.Accumulator()
    for event in events:
        accumulator.feed(event)
        if event["type"] == "response.custom_tool_call_input.delta":
            break
    partial = accumulator.partial()
    assert [call.id for call in ct.open_calls(partial)] == ["call_f2"]


def test_a_custom_input_delta_for_a_function_call_is_refused() -> None:
    whole = response([RESPONSES_FUNCTION])
    events = stream_of(whole)
    wrong = {
        "type": "response.custom_tool_call_input.delta",
        "item_id": "fc_1",
        "output_index": 0,
        "delta": "x",
        "sequence_number": 99,
    }
    accumulator = openai_responses.Accumulator()
    accumulator.feed(events[0])
    accumulator.feed(events[1])
    with pytest.raises(StreamError, match="not a custom tool call"):
        accumulator.feed(wrong)


@pytest.mark.parametrize(("execution", "stop"), [("client", "tool_use"), ("server", "end_turn")])
def test_a_tool_search_the_client_runs_stops_for_tool_use(execution: str, stop: str) -> None:
    item = {
        "type": "tool_search_call",
        "id": "tsc_1",
        "call_id": "call_t1",
        "arguments": {"query": "calendar"},
        "execution": execution,
        "status": "completed",
    }
    reply = openai_responses.read_reply(Response.model_validate(response([item])))
    assert reply.stop_reason == stop
    # Its answer is a tool_search_output item, not a text result: it is no ToolCall.
    assert reply.tool_calls == []
