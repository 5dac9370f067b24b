"""``from_response`` and ``Accumulator`` of every dialect, on the SDKs' own types.

No network. Each response is written as the REST JSON, validated into the
official SDK's response type, and cut into the stream events the API would
send (also validated into the SDK's event types). Both the objects and their
dicts are fed; the accumulated messages must equal ``from_response``.
"""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_dialects_requests import (
    validate_anthropic,
    validate_gemini,
    validate_openai_chat,
    validate_openai_responses,
)

import convtypes as ct
from convtypes import strategies as cst
from convtypes.dialects import (
    ResponseError,
    StreamError,
    anthropic,
    gemini,
    openai_chat,
    openai_responses,
)

sdk_anthropic = pytest.importorskip("anthropic")
sdk_openai = pytest.importorskip("openai")
genai_types = pytest.importorskip("google.genai.types")

from pydantic import TypeAdapter  # noqa: E402  (after the SDKs are known to be there)

Pieces = Callable[[str], list[str]]


def _cut(data: st.DataObject) -> Pieces:
    """A function that cuts text into random deltas (each kept non-empty)."""

    def cut(text: str) -> list[str]:
        if len(text) < 2:
            return [text]
        points = data.draw(
            st.lists(st.integers(1, len(text) - 1), max_size=6, unique=True).map(sorted)
        )
        edges = [0, *points, len(text)]
        return [text[a:b] for a, b in itertools.pairwise(edges)]

    return cut


def _whole(text: str) -> list[str]:
    return [text]


def _accumulate(accumulator: Any, events: list[Any]) -> list[ct.Message]:
    for event in events:
        accumulator.feed(event)
    result: list[ct.Message] = accumulator.result()
    return result


_arguments = st.dictionaries(cst.texts(8), cst.json_values(6), max_size=4)
_calls = st.lists(st.tuples(cst.texts(12), _arguments), max_size=3)


# --- Anthropic ----------------------------------------------------------------

_ANTHROPIC_EVENT = TypeAdapter(sdk_anthropic.types.RawMessageStreamEvent)


def anthropic_message(content: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": content,
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 20},
    }


def anthropic_content(
    thinking: str, signature: str, text: str, calls: list[tuple[str, dict[str, Any]]]
) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = [
        {"type": "thinking", "thinking": thinking, "signature": signature},
        {"type": "redacted_thinking", "data": "cmVkYWN0ZWQ="},
    ]
    if text:
        content.append({"type": "text", "text": text, "citations": None})
    for number, (name, arguments) in enumerate(calls):
        content.append(
            {"type": "tool_use", "id": f"toolu_{number:02d}", "name": name, "input": arguments}
        )
    return content


def anthropic_events(message: dict[str, Any], cut: Pieces) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {**message, "content": [], "stop_reason": None}}
    ]
    for index, block in enumerate(message["content"]):
        kind = block["type"]
        deltas: list[dict[str, Any]] = []
        if kind == "text":
            start = {**block, "text": ""}
            deltas = [{"type": "text_delta", "text": t} for t in cut(block["text"])]
        elif kind == "thinking":
            start = {**block, "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": t} for t in cut(block["thinking"])]
            deltas += [{"type": "signature_delta", "signature": s} for s in cut(block["signature"])]
        elif kind == "tool_use":
            start = {**block, "input": {}}
            text = json.dumps(block["input"])
            deltas = [{"type": "input_json_delta", "partial_json": t} for t in cut(text)]
        else:
            start = block
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events.extend({"type": "content_block_delta", "index": index, "delta": d} for d in deltas)
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 20},
        }
    )
    events.append({"type": "message_stop"})
    return events


def _check_anthropic(message: dict[str, Any], events: list[dict[str, Any]]) -> list[ct.Message]:
    response = sdk_anthropic.types.Message.model_validate(message)
    objects = [_ANTHROPIC_EVENT.validate_python(event) for event in events]
    expected = anthropic.from_response(response)
    assert anthropic.from_response(message) == expected
    assert _accumulate(anthropic.Accumulator(), objects) == expected
    assert _accumulate(anthropic.Accumulator(), events) == expected
    return expected


@settings(max_examples=60)
@given(cst.texts(), cst.texts(24).filter(bool), cst.texts(), _calls, st.data())
def test_anthropic_stream_equals_the_response(
    thinking: str,
    signature: str,
    text: str,
    calls: list[tuple[str, dict[str, Any]]],
    data: st.DataObject,
) -> None:
    message = anthropic_message(anthropic_content(thinking, signature, text, calls))
    [assistant] = _check_anthropic(message, anthropic_events(message, _cut(data)))
    assert assistant == ct.AssistantMessage(
        content=text,
        tool_calls=tuple(
            ct.ToolCall(id=f"toolu_{n:02d}", name=name, arguments=arguments)
            for n, (name, arguments) in enumerate(calls)
        ),
        thinking=(
            ct.ThinkingBlock(text=thinking, signature=signature),
            ct.ThinkingBlock(redacted_data="cmVkYWN0ZWQ="),
        ),
    )


def test_anthropic_response_replays_as_it_came() -> None:
    message = anthropic_message(
        anthropic_content("plan", "c2ln", "Looking.", [("search", {"q": "x", "n": 2**65})])
    )
    reply = _check_anthropic(message, anthropic_events(message, _whole))
    transcript: list[ct.Message] = [ct.UserMessage(content="find x"), *reply]
    transcript.append(ct.ToolResultMessage(tool_use_id="toolu_00", content="found"))
    body = anthropic.to_request(transcript)
    validate_anthropic(body)
    # The same blocks, in the same order, go back (a null citations is no field).
    sent = body["messages"][1]["content"]
    assert sent == [
        {"type": "thinking", "thinking": "plan", "signature": "c2ln"},
        {"type": "redacted_thinking", "data": "cmVkYWN0ZWQ="},
        {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": "toolu_00", "name": "search", "input": {"q": "x", "n": 2**65}},
    ]


# --- OpenAI Chat Completions ------------------------------------------------------


def chat_completion(
    text: str | None, calls: list[tuple[str, dict[str, Any]]], refusal: str | None = None
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": refusal}
    if calls:
        message["tool_calls"] = [
            {
                "id": f"call_{n}abc",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            for n, (name, arguments) in enumerate(calls)
        ]
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if calls else "stop",
                "logprobs": None,
            }
        ],
    }


def chat_chunks(completion: dict[str, Any], cut: Pieces) -> list[dict[str, Any]]:
    message = completion["choices"][0]["message"]
    # As the API does, the first delta spells out (as "") each text field the
    # message will have, and leaves the others null.
    content, refusal = message["content"], message["refusal"]
    deltas: list[dict[str, Any]] = [
        {
            "role": "assistant",
            "content": None if content is None else "",
            "refusal": None if refusal is None else "",
        }
    ]
    deltas += [{"content": t} for t in cut(content) if t] if content else []
    deltas += [{"refusal": t} for t in cut(refusal) if t] if refusal else []
    for index, call in enumerate(message.get("tool_calls", ())):
        function = call["function"]
        first, *rest = cut(function["arguments"])
        deltas.append(
            {
                "tool_calls": [
                    {
                        "index": index,
                        "id": call["id"],
                        "type": "function",
                        "function": {"name": function["name"], "arguments": first},
                    }
                ]
            }
        )
        deltas += [
            {"tool_calls": [{"index": index, "function": {"arguments": piece}}]} for piece in rest
        ]
    chunks: list[dict[str, Any]] = [
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt-4o",
            "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
        }
        for delta in deltas
    ]
    chunks[-1]["choices"][0]["finish_reason"] = completion["choices"][0]["finish_reason"]
    # The usage chunk that ends a stream with include_usage has no choices.
    chunks.append({**chunks[0], "choices": [], "usage": None})
    return chunks


def _check_chat(completion: dict[str, Any], chunks: list[dict[str, Any]]) -> list[ct.Message]:
    types = sdk_openai.types.chat
    response = types.ChatCompletion.model_validate(completion)
    objects = [types.ChatCompletionChunk.model_validate(chunk) for chunk in chunks]
    expected = openai_chat.from_response(response)
    assert openai_chat.from_response(completion) == expected
    assert _accumulate(openai_chat.Accumulator(), objects) == expected
    assert _accumulate(openai_chat.Accumulator(), chunks) == expected
    return expected


@settings(max_examples=60)
@given(st.none() | cst.texts(), _calls, st.data())
def test_chat_stream_equals_the_response(
    text: str | None, calls: list[tuple[str, dict[str, Any]]], data: st.DataObject
) -> None:
    completion = chat_completion(text, calls)
    *kept, assistant = _check_chat(completion, chat_chunks(completion, _cut(data)))
    # Argument text spelled otherwise than convtypes would write it is kept
    # as sent, in an items message before the turn; the turn is the same.
    spelled_otherwise = any(
        json.dumps(arguments) != msgspec.json.encode(arguments).decode() for _, arguments in calls
    )
    if spelled_otherwise:
        sent = completion["choices"][0]["message"]
        assert kept == [
            ct.ProviderOutputItemsMessage(
                protocol=openai_chat.PROTOCOL,
                items=({key: value for key, value in sent.items() if value is not None},),
            )
        ]
    else:
        assert kept == []
    assert assistant == ct.AssistantMessage(
        content=text or "",
        tool_calls=tuple(
            ct.ToolCall(id=f"call_{n}abc", name=name, arguments=arguments)
            for n, (name, arguments) in enumerate(calls)
        ),
    )


def test_chat_refusal_becomes_the_text() -> None:
    completion = chat_completion(None, [], refusal="I can't help with that.")
    kept, assistant = _check_chat(completion, chat_chunks(completion, _whole))
    assert assistant == ct.AssistantMessage(content="I can't help with that.")
    # The refusal is kept as sent, so that it goes back as a refusal.
    assert kept == ct.ProviderOutputItemsMessage(
        protocol="openai-chat",
        items=({"role": "assistant", "refusal": "I can't help with that."},),
    )


def test_chat_arguments_keep_order_and_big_integers() -> None:
    completion = chat_completion("", [("f", {})])
    completion["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = (
        '{"z":1,"a":123456789012345678901234567890}'
    )
    [assistant] = _check_chat(completion, chat_chunks(completion, _whole))
    assert isinstance(assistant, ct.AssistantMessage)
    arguments = assistant.tool_calls[0].arguments
    assert list(arguments) == ["z", "a"] and arguments["a"] == 123456789012345678901234567890


def test_chat_response_replays() -> None:
    reply = openai_chat.from_response(chat_completion("Sure.", [("f", {"x": [1, 2]})]))
    transcript: list[ct.Message] = [ct.UserMessage(content="do f"), *reply]
    transcript.append(ct.ToolResultMessage(tool_use_id="call_0abc", content="ok"))
    body = openai_chat.to_request(transcript)
    validate_openai_chat(body)
    assert body["messages"][1:] == [
        {
            "role": "assistant",
            "content": "Sure.",
            "tool_calls": [
                {
                    "id": "call_0abc",
                    "type": "function",
                    # As the provider spelled it, not as convtypes would.
                    "function": {"name": "f", "arguments": '{"x": [1, 2]}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_0abc", "content": "ok"},
    ]


# --- OpenAI Responses ---------------------------------------------------------------

_RESPONSES_EVENT = TypeAdapter(sdk_openai.types.responses.ResponseStreamEvent)


def responses_output(
    summary: str, text: str, calls: list[tuple[str, dict[str, Any]]]
) -> list[dict[str, Any]]:
    output: list[dict[str, Any]] = [
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": summary}] if summary else [],
            "encrypted_content": "gAAAAB-opaque",
        },
        {
            "type": "web_search_call",
            "id": "ws_1",
            "status": "completed",
            "action": {"type": "search", "query": "q"},
        },
    ]
    if text:
        output.append(
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )
    for number, (name, arguments) in enumerate(calls):
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{number}",
                "call_id": f"call_{number}xyz",
                "name": name,
                "arguments": json.dumps(arguments),
                "status": "completed",
            }
        )
    return output


def responses_response(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1.0,
        "model": "gpt-5",
        "status": "completed",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }


def responses_events(response: dict[str, Any], cut: Pieces) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**response, "output": [], "status": "queued"}}
    ]
    for at, item in enumerate(response["output"]):
        if item["type"] == "message":
            part = item["content"][0]
            events.append(
                {
                    "type": "response.output_item.added",
                    "output_index": at,
                    "item": {**item, "content": [], "status": "in_progress"},
                }
            )
            events.append(
                {
                    "type": "response.content_part.added",
                    "item_id": item["id"],
                    "output_index": at,
                    "content_index": 0,
                    "part": {**part, "text": ""},
                }
            )
            events.extend(
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": at,
                    "content_index": 0,
                    "delta": piece,
                    "logprobs": [],
                }
                for piece in cut(part["text"])
            )
        elif item["type"] == "function_call":
            events.append(
                {
                    "type": "response.output_item.added",
                    "output_index": at,
                    "item": {**item, "arguments": "", "status": "in_progress"},
                }
            )
            events.extend(
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": item["id"],
                    "output_index": at,
                    "delta": piece,
                }
                for piece in cut(item["arguments"])
            )
        else:
            events.append({"type": "response.output_item.added", "output_index": at, "item": item})
        events.append({"type": "response.output_item.done", "output_index": at, "item": item})
    events.append({"type": "response.completed", "response": response})
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events


def _check_responses(response: dict[str, Any], events: list[dict[str, Any]]) -> list[ct.Message]:
    sdk = sdk_openai.types.responses.Response.model_validate(response)
    objects = [_RESPONSES_EVENT.validate_python(event) for event in events]
    expected = openai_responses.from_response(sdk)
    assert openai_responses.from_response(response) == expected
    assert _accumulate(openai_responses.Accumulator(), objects) == expected
    assert _accumulate(openai_responses.Accumulator(), events) == expected
    return expected


@settings(max_examples=60)
@given(cst.texts(), cst.texts(), _calls, st.data())
def test_responses_stream_equals_the_response(
    summary: str, text: str, calls: list[tuple[str, dict[str, Any]]], data: st.DataObject
) -> None:
    output = responses_output(summary, text, calls)
    response = responses_response(output)
    items, assistant = _check_responses(response, responses_events(response, _cut(data)))
    assert items == ct.ProviderOutputItemsMessage(protocol="openai-responses", items=tuple(output))
    assert assistant == ct.AssistantMessage(
        content=text,
        tool_calls=tuple(
            ct.ToolCall(id=f"call_{n}xyz", name=name, arguments=arguments)
            for n, (name, arguments) in enumerate(calls)
        ),
        thinking=(ct.ThinkingBlock(text=summary),) if summary else (),
    )


def test_responses_replays_items_once_and_nothing_twice() -> None:
    output = responses_output("why", "Calling f.", [("f", {"a": 1})])
    response = responses_response(output)
    reply = _check_responses(response, responses_events(response, _whole))
    transcript: list[ct.Message] = [ct.UserMessage(content="go"), *reply]
    transcript.append(ct.ToolResultMessage(tool_use_id="call_0xyz", content="done"))
    body = openai_responses.to_request(transcript)
    validate_openai_responses(body)
    assert body["input"] == [
        {"role": "user", "content": "go"},
        *output,
        {"type": "function_call_output", "call_id": "call_0xyz", "output": "done"},
    ]


def test_responses_sends_what_the_items_do_not_carry() -> None:
    output = responses_output("", "Calling f.", [("f", {"a": 1})])
    items = ct.ProviderOutputItemsMessage(protocol="openai-responses", items=tuple(output))
    edited = ct.AssistantMessage(
        content="Calling f and g.",
        tool_calls=(
            ct.ToolCall(id="call_0xyz", name="f", arguments={"a": 1}),
            ct.ToolCall(name="g", arguments={}),
        ),
    )
    body = openai_responses.to_request([ct.UserMessage(content="go"), items, edited])
    validate_openai_responses(body)
    assert body["input"][-2:] == [
        {"role": "assistant", "content": "Calling f and g."},
        {"type": "function_call", "call_id": "call_2_1", "name": "g", "arguments": "{}"},
    ]


def _refusal_events(response: dict[str, Any]) -> list[dict[str, Any]]:
    item = response["output"][0]
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**response, "output": [], "status": "queued"}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**item, "content": [], "status": "in_progress"},
        },
        {
            "type": "response.content_part.added",
            "item_id": item["id"],
            "output_index": 0,
            "content_index": 0,
            "part": {"type": "refusal", "refusal": ""},
        },
        *(
            {
                "type": "response.refusal.delta",
                "item_id": item["id"],
                "output_index": 0,
                "content_index": 0,
                "delta": piece,
            }
            for piece in ("I can't ", "help with that.")
        ),
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": response},
    ]
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events


def test_responses_sends_a_refusal_once() -> None:
    refusal: dict[str, Any] = {"type": "refusal", "refusal": "I can't help with that."}
    item: dict[str, Any] = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [refusal],
    }
    response = responses_response([item])
    reply = _check_responses(response, _refusal_events(response))
    assert reply[1] == ct.AssistantMessage(content="I can't help with that.")
    transcript: list[ct.Message] = [ct.UserMessage(content="q"), *reply]
    body = openai_responses.to_request(transcript)
    validate_openai_responses(body)
    # The item carries the refusal: it is not sent again as assistant text.
    assert body["input"] == [{"role": "user", "content": "q"}, item]
    # Text beside a refusal is what the assistant message reads, and is carried too.
    text = {"type": "output_text", "text": "Partly: ", "annotations": []}
    both = {**item, "content": [text, refusal]}
    reply = openai_responses.from_response(responses_response([both]))
    assert reply[1] == ct.AssistantMessage(content="Partly: ")
    body = openai_responses.to_request([ct.UserMessage(content="q"), *reply])
    assert body["input"] == [{"role": "user", "content": "q"}, both]
    # An edited answer is not what the items carry, and goes out.
    edited = ct.AssistantMessage(content="I can help after all.")
    body = openai_responses.to_request([ct.UserMessage(content="q"), reply[0], edited])
    assert body["input"][-1] == {"role": "assistant", "content": "I can help after all."}


def test_other_dialects_read_the_responses_assistant_message() -> None:
    output = responses_output("why", "Calling f.", [("f", {"a": 1})])
    reply = openai_responses.from_response(responses_response(output))
    transcript: list[ct.Message] = [ct.UserMessage(content="go"), *reply]
    transcript.append(ct.ToolResultMessage(tool_use_id="call_0xyz", content="done"))
    claude = anthropic.to_request(transcript)
    validate_anthropic(claude)
    # The reasoning summary is unsigned: Anthropic cannot take it back.
    assert claude["messages"][1]["content"] == [
        {"type": "text", "text": "Calling f."},
        {"type": "tool_use", "id": "call_0xyz", "name": "f", "input": {"a": 1}},
    ]
    chat = openai_chat.to_request(transcript)
    validate_openai_chat(chat)
    assert "encrypted_content" not in json.dumps(chat)


# --- Gemini ---------------------------------------------------------------------------


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def gemini_parts(
    thought: str, text: str, calls: list[tuple[str, dict[str, Any]]], signature: bytes
) -> list[dict[str, Any]]:
    """REST parts: a thought summary, text with a signature, signed calls."""
    parts: list[dict[str, Any]] = []
    if thought:
        parts.append({"text": thought, "thought": True})
    if text:
        parts.append({"text": text, "thoughtSignature": _b64(signature)})
    for number, (name, arguments) in enumerate(calls):
        part: dict[str, Any] = {"functionCall": {"name": name, "args": arguments}}
        if number == 0:
            part["thoughtSignature"] = _b64(signature + b"call")
        parts.append(part)
    return parts


def gemini_response(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 3, "totalTokenCount": 9},
        "modelVersion": "gemini-2.5-pro",
    }


def gemini_chunks(parts: list[dict[str, Any]], cut: Pieces) -> list[dict[str, Any]]:
    streamed: list[dict[str, Any]] = []
    for part in parts:
        if "text" in part:
            first, *rest = cut(part["text"])
            streamed.append({**part, "text": first})
            extra = {"thought": True} if part.get("thought") else {}
            streamed += [{"text": piece, **extra} for piece in rest]
        else:
            streamed.append(part)
    chunks: list[dict[str, Any]] = [
        {"candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}]}
        for part in streamed
    ]
    if not chunks:
        chunks = [{"candidates": [{"content": {"role": "model", "parts": []}, "index": 0}]}]
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    chunks.append({"usageMetadata": {"promptTokenCount": 3, "totalTokenCount": 9}})
    return chunks


def _check_gemini(response: dict[str, Any], chunks: list[dict[str, Any]]) -> list[ct.Message]:
    sdk = genai_types.GenerateContentResponse.model_validate(response)
    objects = [genai_types.GenerateContentResponse.model_validate(chunk) for chunk in chunks]
    expected = gemini.from_response(sdk)
    assert gemini.from_response(response) == expected
    assert _accumulate(gemini.Accumulator(), objects) == expected
    assert _accumulate(gemini.Accumulator(), chunks) == expected
    return expected


def _snake_part(part: dict[str, Any]) -> dict[str, Any]:
    names = {"thoughtSignature": "thought_signature", "functionCall": "function_call"}
    return {names.get(key, key): value for key, value in part.items()}


@settings(max_examples=60)
@given(cst.texts(), cst.texts(), _calls, st.binary(min_size=1, max_size=24), st.data())
def test_gemini_stream_equals_the_response(
    thought: str,
    text: str,
    calls: list[tuple[str, dict[str, Any]]],
    signature: bytes,
    data: st.DataObject,
) -> None:
    parts = gemini_parts(thought, text, calls, signature)
    response = gemini_response(parts)
    items, assistant = _check_gemini(response, gemini_chunks(parts, _cut(data)))
    assert items == ct.ProviderOutputItemsMessage(
        protocol="gemini", items=tuple(_snake_part(part) for part in parts)
    )
    assert assistant == ct.AssistantMessage(
        content=text,
        tool_calls=tuple(ct.ToolCall(name=name, arguments=arguments) for name, arguments in calls),
        thinking=(ct.ThinkingBlock(text=thought),) if thought else (),
    )


def test_gemini_signatures_go_back_on_their_parts() -> None:
    signature = b"\xfb\xff\xfe-sig"  # base64 with + and /, which must stay standard
    parts = gemini_parts("hmm", "Let me look.", [("look", {"at": "x"}), ("see", {})], signature)
    response = gemini_response(parts)
    reply = _check_gemini(response, gemini_chunks(parts, _whole))
    transcript: list[ct.Message] = [ct.UserMessage(content="go"), *reply]
    transcript += [
        ct.ToolResultMessage(tool_use_id="call_0", content="x is 1"),
        ct.ToolResultMessage(
            tool_use_id="call_1", content="seen", provenance=ct.Provenance.EXTERNAL
        ),
    ]
    body = gemini.to_request(transcript)
    validate_gemini(body)
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "go"}]},
        {
            "role": "model",
            "parts": [
                {"text": "hmm", "thought": True},
                {"text": "Let me look.", "thought_signature": _b64(signature)},
                {
                    "function_call": {"name": "look", "args": {"at": "x"}},
                    "thought_signature": _b64(signature + b"call"),
                },
                {"function_call": {"name": "see", "args": {}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"function_response": {"name": "look", "response": {"output": "x is 1"}}},
                {
                    "function_response": {
                        "name": "see",
                        "response": {"output": ct.fence_external("seen")},
                    }
                },
            ],
        },
    ]
    assert "+" in _b64(signature) or "/" in _b64(signature)


def test_gemini_ids_go_back_where_gemini_gave_them() -> None:
    parts = [{"functionCall": {"id": "fc-7", "name": "f", "args": {"k": 1}}}]
    reply = gemini.from_response(gemini_response(parts))
    assert isinstance(reply[1], ct.AssistantMessage)
    assert reply[1].tool_calls == (ct.ToolCall(id="fc-7", name="f", arguments={"k": 1}),)
    transcript: list[ct.Message] = [ct.UserMessage(content="go"), *reply]
    transcript.append(ct.ToolResultMessage(tool_use_id="fc-7", content="r"))
    body = gemini.to_request(transcript)
    validate_gemini(body)
    assert body["contents"][2]["parts"] == [
        {"function_response": {"name": "f", "response": {"output": "r"}, "id": "fc-7"}}
    ]


def test_a_streamed_signature_on_an_empty_last_part_stays_there() -> None:
    chunks = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hel"}]}}]},
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "lo"}]}}]},
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [{"text": "", "thoughtSignature": "c2ln"}],
                    },
                    "finishReason": "STOP",
                }
            ]
        },
    ]
    items, assistant = _accumulate(gemini.Accumulator(), chunks)
    assert items == ct.ProviderOutputItemsMessage(
        protocol="gemini", items=({"text": "Hello"}, {"text": "", "thought_signature": "c2ln"})
    )
    assert assistant == ct.AssistantMessage(content="Hello")
    body = gemini.to_request([ct.UserMessage(content="hi"), items, assistant])
    validate_gemini(body)
    assert isinstance(items, ct.ProviderOutputItemsMessage)
    assert body["contents"][1]["parts"] == list(items.items)


def test_other_dialects_read_the_gemini_assistant_message() -> None:
    parts = gemini_parts("hmm", "Let me look.", [("look", {"at": "x"})], b"sig")
    reply = gemini.from_response(gemini_response(parts))
    transcript: list[ct.Message] = [ct.UserMessage(content="go"), *reply]
    transcript.append(ct.ToolResultMessage(tool_use_id="call_0", content="x is 1"))
    for to_request, validate in (
        (anthropic.to_request, validate_anthropic),
        (openai_chat.to_request, validate_openai_chat),
        (openai_responses.to_request, validate_openai_responses),
    ):
        body = to_request(transcript)
        validate(body)
        text = json.dumps(body)
        assert _b64(b"sig") not in text and "Let me look." in text


# --- malformed responses and streams ------------------------------------------------


def test_anthropic_refuses_a_block_without_a_type() -> None:
    # A block of a type this version does not know is kept (as items); one
    # with no type at all is not a block.
    message = anthropic_message([{"id": "srvtoolu_1", "name": "web_search", "input": {}}])
    with pytest.raises(ResponseError, match=r"response.content\[0\]: a block without a type"):
        anthropic.from_response(message)


def test_a_response_that_is_neither_dict_nor_sdk_object_is_refused() -> None:
    for module in (anthropic, openai_chat, openai_responses, gemini):
        with pytest.raises(ResponseError, match="as a dict or an SDK object, got str"):
            module.from_response("not a response")


def test_anthropic_stream_errors_name_the_event() -> None:
    message = anthropic_message(anthropic_content("t", "s", "", [("f", {"a": 1})]))
    events = anthropic_events(message, _whole)
    # A delta for a block that never started.
    bad = [*events[:1], {"type": "content_block_delta", "index": 9, "delta": events[2]["delta"]}]
    with pytest.raises(StreamError, match=r"event 1 \(content_block_delta\): .*block 9") as caught:
        _accumulate(anthropic.Accumulator(), bad)
    assert caught.value.index == 1 and caught.value.event == bad[1]
    # Partial JSON that never completes.
    tool_at = next(i for i, e in enumerate(events) if e.get("delta", {}).get("partial_json"))
    cut_json = [dict(e) for e in events]
    cut_json[tool_at] = {
        **events[tool_at],
        "delta": {"type": "input_json_delta", "partial_json": '{"a": '},
    }
    with pytest.raises(
        StreamError,
        match=r"event 9 \(content_block_stop\): the tool input of block 2 does not parse",
    ):
        _accumulate(anthropic.Accumulator(), cut_json)
    # A stream that stops early.
    with pytest.raises(StreamError, match="without message_stop"):
        _accumulate(anthropic.Accumulator(), events[:-1])
    # A block never stopped.
    unstopped = [e for e in events if e != {"type": "content_block_stop", "index": 2}]
    with pytest.raises(StreamError, match="content block 2 was never stopped"):
        _accumulate(anthropic.Accumulator(), unstopped)
    # A delta of the wrong kind for its block.
    wrong = [dict(e) for e in events]
    wrong[2] = {**events[2], "delta": {"type": "text_delta", "text": "x"}}
    with pytest.raises(StreamError, match="'text_delta' delta cannot apply to a 'thinking'"):
        _accumulate(anthropic.Accumulator(), wrong)
    with pytest.raises(StreamError, match="reported an error"):
        _accumulate(anthropic.Accumulator(), [events[0], {"type": "error", "error": {}}])


def test_chat_stream_errors_name_the_chunk() -> None:
    completion = chat_completion("", [("f", {"a": 1})])
    chunks = chat_chunks(completion, lambda text: [text[:3], text[3:]])
    start = next(n for n, c in enumerate(chunks) if "tool_calls" in c["choices"][0]["delta"])
    # A call delta for an index that never started.
    orphan = json.loads(json.dumps(chunks))
    orphan[start + 1]["choices"][0]["delta"]["tool_calls"][0]["index"] = 5
    with pytest.raises(StreamError, match=f"chunk {start + 1}: tool call 5 starts without a name"):
        _accumulate(openai_chat.Accumulator(), orphan)
    # Arguments that never complete.
    broken = json.loads(json.dumps(chunks))
    broken[start + 1]["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] = ""
    with pytest.raises(
        StreamError, match=rf"tool call 0 \(started in chunk {start}\): .*not valid JSON"
    ):
        _accumulate(openai_chat.Accumulator(), broken)
    with pytest.raises(StreamError, match="without a finish_reason"):
        _accumulate(openai_chat.Accumulator(), chunks[:2])


def test_chat_response_errors_name_the_call() -> None:
    completion = chat_completion("", [("f", {})])
    completion["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = "[1]"
    with pytest.raises(ResponseError, match=r"tool_calls\[0\]: arguments are JSON but not an"):
        openai_chat.from_response(completion)
    with pytest.raises(ResponseError, match="no choices"):
        openai_chat.from_response({**completion, "choices": []})


def test_responses_stream_errors_name_the_event() -> None:
    response = responses_response(responses_output("", "hi", [("f", {"a": 1})]))
    events = responses_events(response, _whole)
    delta_at = next(
        i for i, e in enumerate(events) if e["type"] == "response.function_call_arguments.delta"
    )
    orphan = [dict(e) for e in events]
    orphan[delta_at] = {**events[delta_at], "output_index": 42}
    with pytest.raises(StreamError, match=r"\(response.function_call_arguments.delta\): .*42"):
        _accumulate(openai_responses.Accumulator(), orphan)
    # The item is never done, and the end does not list the output: its
    # arguments never complete. (An end that lists it is read from it.)
    unfinished = [
        e
        for e in events
        if not (e["type"] == "response.output_item.done" and e["output_index"] == 3)
    ]
    unfinished[-1] = {**unfinished[-1], "response": {**response, "output": None}}
    with pytest.raises(StreamError, match="output item 3 was never done"):
        _accumulate(openai_responses.Accumulator(), unfinished)
    # The done item disagrees with the streamed deltas.
    done_at = max(i for i, e in enumerate(events) if e["type"] == "response.output_item.done")
    lying = [dict(e) for e in events]
    lying[done_at] = {**events[done_at], "item": {**events[done_at]["item"], "arguments": "{}"}}
    with pytest.raises(StreamError, match="arguments differ from the streamed deltas"):
        _accumulate(openai_responses.Accumulator(), lying)
    with pytest.raises(StreamError, match=r"without response\.completed"):
        _accumulate(openai_responses.Accumulator(), events[:-1])
    with pytest.raises(ResponseError, match="the response failed"):
        openai_responses.from_response({**response, "status": "failed", "error": {"code": "x"}})


def test_gemini_errors_name_the_reason() -> None:
    # A blocked prompt and a candidate without content are replies, not errors
    # (see test_gemini_turn.py); what no reply can be made of names its place.
    with pytest.raises(ResponseError, match="no first candidate, and no prompt feedback"):
        gemini.from_response({"usageMetadata": {"promptTokenCount": 3}})
    with pytest.raises(ResponseError, match=r"candidates\[0\].index is not an integer"):
        gemini.from_response({"candidates": [{"index": "0"}]})
    with pytest.raises(StreamError, match="chunk 0: the finish reason is not text"):
        gemini.Accumulator().feed({"candidates": [{"finishReason": 3}]})
    accumulator = gemini.Accumulator()
    accumulator.feed({"candidates": [{"content": {"role": "model", "parts": [{"text": "a"}]}}]})
    with pytest.raises(StreamError, match="without a finish reason"):
        accumulator.result()
