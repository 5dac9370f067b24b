"""Every way a response or stream can be malformed, and what the error names."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

import convtypes as ct
from convtypes.dialects import (
    DialectError,
    ResponseError,
    StreamError,
    anthropic,
    bedrock,
    cohere,
    gemini,
    mistral,
    ollama,
    openai_chat,
    openai_responses,
)

START = {"type": "message_start", "message": {"content": []}}
TEXT_BLOCK = {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}}


def _chunk(delta: dict[str, Any], finish: str | None = None, index: int = 0) -> dict[str, Any]:
    return {"choices": [{"index": index, "delta": delta, "finish_reason": finish}]}


CALL_ITEM: dict[str, Any] = {"type": "function_call", "call_id": "c", "name": "f", "arguments": ""}
ADDED_CALL: dict[str, Any] = {
    "type": "response.output_item.added",
    "output_index": 0,
    "item": CALL_ITEM,
}
ADDED_MESSAGE = {
    "type": "response.output_item.added",
    "output_index": 0,
    "item": {"type": "message", "role": "assistant", "content": []},
}


def _candidate(parts: Any, finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate]}


STREAMS: list[tuple[str, Callable[[], Any], list[Any], str, int]] = [
    # Anthropic
    ("a-second-start", anthropic.Accumulator, [START, START], r"event 1 .*second message_start", 1),
    ("a-before-start", anthropic.Accumulator, [TEXT_BLOCK], r"event 0 .*before message_start", 0),
    (
        "a-no-index",
        anthropic.Accumulator,
        [START, {"type": "content_block_stop"}],
        "no integer index",
        1,
    ),
    (
        "a-started-twice",
        anthropic.Accumulator,
        [START, TEXT_BLOCK, TEXT_BLOCK],
        "block 0 was already started",
        2,
    ),
    (
        "a-no-block",
        anthropic.Accumulator,
        [START, {"type": "content_block_start", "index": 0}],
        "no content_block",
        1,
    ),
    (
        "a-after-stop",
        anthropic.Accumulator,
        [
            START,
            TEXT_BLOCK,
            {"type": "content_block_stop", "index": 0},
            {"type": "content_block_stop", "index": 0},
        ],
        "block 0 was already stopped",
        3,
    ),
    (
        "a-stop-never-started",
        anthropic.Accumulator,
        [START, TEXT_BLOCK, {"type": "content_block_stop", "index": 4}],
        r"event 2 \(content_block_stop\): names content block 4, which was never started",
        2,
    ),
    (
        "a-no-delta",
        anthropic.Accumulator,
        [START, TEXT_BLOCK, {"type": "content_block_delta", "index": 0}],
        "has no delta",
        2,
    ),
    (
        "a-delta-without-text",
        anthropic.Accumulator,
        [
            START,
            TEXT_BLOCK,
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta"}},
        ],
        "the delta has no 'text' text",
        2,
    ),
    (
        "a-after-message-stop",
        anthropic.Accumulator,
        [START, {"type": "message_stop"}, {"type": "ping"}],
        "already ended",
        2,
    ),
    # Chat Completions
    ("c-no-choices", openai_chat.Accumulator, [{"id": "x"}], "chunk 0: has no choices list", 0),
    (
        "c-choice-not-object",
        openai_chat.Accumulator,
        [{"choices": [3]}],
        "a choice is not an object",
        0,
    ),
    (
        "c-delta-not-object",
        openai_chat.Accumulator,
        [{"choices": [{"index": 0, "delta": 3}]}],
        "chunk 0: the choice's delta is not an object: 3",
        0,
    ),
    (
        "c-audio-not-object",
        openai_chat.Accumulator,
        [_chunk({"audio": 3})],
        "chunk 0: the delta's audio is not an object",
        0,
    ),
    (
        "c-reasoning-not-text",
        openai_chat.Accumulator,
        [_chunk({"reasoning_content": ["x"]})],
        "chunk 0: the delta's 'reasoning_content' is not text",
        0,
    ),
    (
        "c-after-finish",
        openai_chat.Accumulator,
        [_chunk({}, "stop"), _chunk({"content": "x"})],
        "chunk 1: more of the first choice",
        1,
    ),
    (
        "c-no-index",
        openai_chat.Accumulator,
        [_chunk({"tool_calls": [{"id": "c"}]})],
        "without an integer index",
        0,
    ),
    (
        "c-call-type-not-text",
        openai_chat.Accumulator,
        [_chunk({"tool_calls": [{"index": 0, "id": "c", "type": 7}]})],
        "chunk 0: tool call 0: the type is not text",
        0,
    ),
    (
        "c-call-type-changes",
        openai_chat.Accumulator,
        [
            _chunk({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f"}}]}),
            _chunk({"tool_calls": [{"index": 0, "type": "custom", "custom": {"input": "x"}}]}),
        ],
        "chunk 1: tool call 0 changes its type",
        1,
    ),
    (
        "c-id-changes",
        openai_chat.Accumulator,
        [
            _chunk({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f"}}]}),
            _chunk({"tool_calls": [{"index": 0, "id": "d", "function": {"arguments": "{}"}}]}),
        ],
        "chunk 1: tool call 0 changes its id",
        1,
    ),
    # Responses
    ("r-no-type", openai_responses.Accumulator, [{"output_index": 0}], "event 0 .*has no type", 0),
    (
        "r-error",
        openai_responses.Accumulator,
        [{"type": "error", "message": "boom"}],
        r"event 0 \(error\): the provider reported an error",
        0,
    ),
    (
        "r-failed",
        openai_responses.Accumulator,
        [{"type": "response.failed", "response": {}}],
        "reported an error",
        0,
    ),
    (
        "r-added-twice",
        openai_responses.Accumulator,
        [ADDED_CALL, ADDED_CALL],
        "output index 0 is not a new integer index",
        1,
    ),
    (
        "r-part-out-of-order",
        openai_responses.Accumulator,
        [
            ADDED_MESSAGE,
            {
                "type": "response.content_part.added",
                "output_index": 0,
                "content_index": 1,
                "part": {"type": "output_text", "text": ""},
            },
        ],
        "content_index 1 is not the next part",
        1,
    ),
    (
        "r-delta-without-part",
        openai_responses.Accumulator,
        [
            ADDED_MESSAGE,
            {
                "type": "response.output_text.delta",
                "output_index": 0,
                "content_index": 0,
                "delta": "x",
            },
        ],
        "content_index 0 names no part of output item 0",
        1,
    ),
    (
        "r-arguments-for-a-message",
        openai_responses.Accumulator,
        [
            ADDED_MESSAGE,
            {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "{"},
        ],
        "output item 0 is not a function call",
        1,
    ),
    (
        "r-done-changes-type",
        openai_responses.Accumulator,
        [
            ADDED_CALL,
            {
                "type": "response.output_item.done",
                "output_index": 0,
                "item": {"type": "message", "content": []},
            },
        ],
        "the done item is of another type",
        1,
    ),
    (
        "r-done-arguments-never-complete",
        openai_responses.Accumulator,
        [
            ADDED_CALL,
            {
                "type": "response.output_item.done",
                "output_index": 0,
                "item": {**CALL_ITEM, "arguments": '{"a":'},
            },
        ],
        "the function call's arguments never complete",
        1,
    ),
    (
        "r-done-text-differs",
        openai_responses.Accumulator,
        [
            ADDED_MESSAGE,
            {
                "type": "response.content_part.added",
                "output_index": 0,
                "content_index": 0,
                "part": {"type": "output_text", "text": ""},
            },
            {
                "type": "response.output_text.delta",
                "output_index": 0,
                "content_index": 0,
                "delta": "hi",
            },
            {
                "type": "response.output_item.done",
                "output_index": 0,
                "item": {"type": "message", "content": [{"type": "output_text", "text": "bye"}]},
            },
        ],
        "text differs from the streamed deltas",
        3,
    ),
    (
        "r-after-completed",
        openai_responses.Accumulator,
        [{"type": "response.completed", "response": {"output": []}}, ADDED_CALL],
        "came after the response completed",
        1,
    ),
    (
        "r-already-done",
        openai_responses.Accumulator,
        [
            ADDED_CALL,
            {
                "type": "response.output_item.done",
                "output_index": 0,
                "item": {**CALL_ITEM, "arguments": "{}"},
            },
            {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "x"},
        ],
        "output item 0 is already done",
        2,
    ),
    (
        "r-call-without-name",
        openai_responses.Accumulator,
        [{**ADDED_CALL, "item": {"type": "function_call", "call_id": "c", "arguments": ""}}],
        r"event 0 \(response.output_item.added\): output item 0: a function call without",
        0,
    ),
    (
        "r-delta-not-text",
        openai_responses.Accumulator,
        [
            ADDED_MESSAGE,
            {
                "type": "response.content_part.added",
                "output_index": 0,
                "content_index": 0,
                "part": {"type": "output_text", "text": ""},
            },
            {
                "type": "response.output_text.delta",
                "output_index": 0,
                "content_index": 0,
                "delta": 5,
            },
        ],
        "event 2 .*the delta is not text: 5",
        2,
    ),
    (
        "r-reasoning-text-without-part",
        openai_responses.Accumulator,
        [
            {**ADDED_MESSAGE, "item": {"type": "reasoning", "summary": []}},
            {
                "type": "response.reasoning_text.delta",
                "output_index": 0,
                "content_index": 0,
                "delta": "x",
            },
        ],
        "content_index 0 names no part of output item 0",
        1,
    ),
    (
        "r-completed-as-failed",
        openai_responses.Accumulator,
        [
            {
                "type": "response.completed",
                "response": {"status": "failed", "error": {"code": "x"}, "output": []},
            }
        ],
        r"event 0: the response failed: \{'code': 'x'\}",
        0,
    ),
    # Gemini
    (
        "g-part-not-object",
        gemini.Accumulator,
        [_candidate([5])],
        "chunk 0: part 0 is not an object",
        0,
    ),
    ("g-parts-not-list", gemini.Accumulator, [_candidate({"text": "x"})], "parts is not a list", 0),
    (
        "g-candidate-not-object",
        gemini.Accumulator,
        [{"candidates": ["x"]}],
        r"candidates\[0\] is not an object",
        0,
    ),
    (
        "g-after-finish",
        gemini.Accumulator,
        [_candidate([{"text": "a"}], "STOP"), _candidate([{"text": "b"}])],
        "chunk 1: more content after the finish reason",
        1,
    ),
    # Mistral
    ("m-no-choices", mistral.Accumulator, [{"id": "x"}], "chunk 0: has no choices list", 0),
    (
        "m-content-number",
        mistral.Accumulator,
        [_chunk({"content": 5})],
        "chunk 0: the delta's content is neither text nor a list",
        0,
    ),
    (
        "m-chunk-without-type",
        mistral.Accumulator,
        [_chunk({"content": [{"text": "x"}]})],
        "chunk 0: a content chunk without a type",
        0,
    ),
    (
        "m-thinking-not-list",
        mistral.Accumulator,
        [_chunk({"content": [{"type": "thinking", "thinking": "x"}]})],
        "a thinking chunk whose thinking is not a list",
        0,
    ),
    (
        "m-text-chunk-without-text",
        mistral.Accumulator,
        [_chunk({"content": [{"type": "text", "text": None}]})],
        "chunk 0: a text chunk without text",
        0,
    ),
    (
        "m-call-index-text",
        mistral.Accumulator,
        [_chunk({"tool_calls": [{"index": "0", "function": {"name": "f"}}]})],
        "a tool call's index is not an integer",
        0,
    ),
    (
        "m-call-arguments-number",
        mistral.Accumulator,
        [_chunk({"tool_calls": [{"id": "Abc123xyZ", "function": {"name": "f", "arguments": 1}}]})],
        "arguments are neither text nor an object",
        0,
    ),
    (
        "m-whole-then-pieces",
        mistral.Accumulator,
        [
            _chunk(
                {"tool_calls": [{"id": "Abc123xyZ", "function": {"name": "f", "arguments": {}}}]}
            ),
            _chunk({"tool_calls": [{"id": "Abc123xyZ", "function": {"arguments": "{"}}]}),
        ],
        "chunk 1: tool call 0 had whole arguments and gets more",
        1,
    ),
    (
        "m-after-finish",
        mistral.Accumulator,
        [_chunk({}, "stop"), _chunk({"content": "x"})],
        "chunk 1: more of the first choice",
        1,
    ),
    # Cohere
    ("k-no-type", cohere.Accumulator, [{"index": 0}], r"event 0 \(None\): has no type", 0),
    (
        "k-no-index",
        cohere.Accumulator,
        [{"type": "content-start", "delta": {"message": {"content": {"type": "text"}}}}],
        r"event 0 \(content-start\): has no integer index",
        0,
    ),
    (
        "k-started-twice",
        cohere.Accumulator,
        [
            {"type": "content-start", "index": 0, "delta": {"message": {"content": {"text": ""}}}},
            {"type": "content-start", "index": 0, "delta": {"message": {"content": {"text": ""}}}},
        ],
        "content 0 was already started",
        1,
    ),
    (
        "k-unknown-content",
        cohere.Accumulator,
        [{"type": "content-start", "index": 0, "delta": {"message": {"content": {"type": "x"}}}}],
        "content of a type this version does not know",
        0,
    ),
    (
        "k-text-number",
        cohere.Accumulator,
        [
            {"type": "content-start", "index": 0, "delta": {"message": {"content": {"text": ""}}}},
            {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": 5}}}},
        ],
        "event 1 .*the content's 'text' is not text: 5",
        1,
    ),
    (
        "k-kind-changes",
        cohere.Accumulator,
        [
            {"type": "content-start", "index": 0, "delta": {"message": {"content": {"text": ""}}}},
            {
                "type": "content-delta",
                "index": 0,
                "delta": {"message": {"content": {"thinking": "x"}}},
            },
        ],
        "event 1 .*content 0 is text, and this piece is thinking",
        1,
    ),
    (
        "k-plan-number",
        cohere.Accumulator,
        [{"type": "tool-plan-delta", "delta": {"message": {"tool_plan": 5}}}],
        "the tool plan is not text: 5",
        0,
    ),
    (
        "k-call-never-started",
        cohere.Accumulator,
        [{"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {}}}}],
        "names tool call 0, which was never started",
        0,
    ),
    (
        "k-delta-not-object",
        cohere.Accumulator,
        [{"type": "citation-start", "index": 0, "delta": 3}],
        "the delta is not an object: 3",
        0,
    ),
    (
        "k-citation-not-object",
        cohere.Accumulator,
        [{"type": "citation-start", "index": 0, "delta": {"message": {"citations": [1]}}}],
        "the citation is not an object",
        0,
    ),
    (
        "k-after-end",
        cohere.Accumulator,
        [{"type": "message-end", "delta": {"finish_reason": "COMPLETE"}}, {"type": "content-end"}],
        "event 1 .*came after message-end",
        1,
    ),
]


@pytest.mark.parametrize(
    ("accumulator", "events", "pattern", "at"),
    [s[1:] for s in STREAMS],
    ids=[s[0] for s in STREAMS],
)
def test_a_malformed_stream_names_the_event(
    accumulator: Callable[[], Any], events: list[Any], pattern: str, at: int
) -> None:
    target = accumulator()
    with pytest.raises(StreamError, match=pattern) as caught:
        for event in events:
            target.feed(event)
        target.result()
    assert caught.value.index == at
    assert caught.value.event is events[at]


def test_a_call_without_a_name_fails_at_the_end() -> None:
    target = gemini.Accumulator()
    target.feed(_candidate([{"functionCall": {"args": {}}}], "STOP"))
    with pytest.raises(StreamError, match=r"parts\[0\]: a function call without a name"):
        target.result()


RESPONSES: list[tuple[str, Callable[[Any], Any], Any, str]] = [
    (
        "a-no-content",
        anthropic.from_response,
        {"role": "assistant"},
        "the response: missing 'content'",
    ),
    (
        "a-block-not-object",
        anthropic.from_response,
        {"content": ["x"]},
        r"response.content\[0\]: expected an object",
    ),
    (
        "a-tool-without-id",
        anthropic.from_response,
        {"content": [{"type": "tool_use", "name": "f", "input": {}}]},
        r"content\[0\]: missing 'id'",
    ),
    (
        "a-input-not-object",
        anthropic.from_response,
        {"content": [{"type": "tool_use", "id": "t", "name": "f", "input": []}]},
        r"'input' should be dict",
    ),
    (
        "c-message-missing",
        openai_chat.from_response,
        {"choices": [{"index": 0}]},
        r"choices\[0\]: missing 'message'",
    ),
    (
        "c-audio-not-object",
        openai_chat.from_response,
        {"choices": [{"message": {"audio": "a"}}]},
        r"choices\[0\].message: 'audio' should be dict",
    ),
    (
        "c-reasoning-not-text",
        openai_chat.from_response,
        {"choices": [{"message": {"reasoning": 1}}]},
        r"choices\[0\].message: 'reasoning' should be str",
    ),
    (
        "c-call-not-object",
        openai_chat.from_response,
        {"choices": [{"message": {"tool_calls": [1]}}]},
        r"tool_calls\[0\]: expected an object",
    ),
    (
        "c-bad-json",
        openai_chat.from_response,
        {
            "choices": [
                {
                    "message": {
                        "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{"}}]
                    }
                }
            ]
        },
        r"tool_calls\[0\]: arguments are not valid JSON",
    ),
    (
        "c-content-not-text",
        openai_chat.from_response,
        {"choices": [{"message": {"content": 5}}]},
        "'content' should be str",
    ),
    ("r-no-output", openai_responses.from_response, {"status": "completed"}, "missing 'output'"),
    (
        "r-item-not-object",
        openai_responses.from_response,
        {"output": [1]},
        r"output\[0\]: expected an object",
    ),
    (
        "r-bad-arguments",
        openai_responses.from_response,
        {"output": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": "[]"}]},
        r"output\[0\]: arguments are JSON but not an object",
    ),
    (
        "r-reasoning-content-number",
        openai_responses.from_response,
        {"output": [{"type": "reasoning", "summary": [], "content": 5}]},
        r"output\[0\]: 'content' should be list",
    ),
    (
        "r-call-without-call-id",
        openai_responses.from_response,
        {"output": [{"type": "function_call", "name": "f", "arguments": "{}"}]},
        r"output\[0\]: missing 'call_id'",
    ),
    (
        "r-summary-part-not-object",
        openai_responses.from_response,
        {"output": [{"type": "reasoning", "summary": ["x"]}]},
        r"output\[0\].summary\[0\]: expected an object",
    ),
    (
        "g-call-id-not-text",
        gemini.from_response,
        _candidate([{"functionCall": {"name": "f", "id": 5}}]),
        "a function call id that is not text",
    ),
    ("g-part-not-object", gemini.from_response, _candidate(["x"]), "part 0 is not an object"),
]


@pytest.mark.parametrize(
    ("read", "response", "pattern"), [r[1:] for r in RESPONSES], ids=[r[0] for r in RESPONSES]
)
def test_a_malformed_response_names_what_is_wrong(
    read: Callable[[Any], Any], response: Any, pattern: str
) -> None:
    with pytest.raises(ResponseError, match=pattern):
        read(response)


# The error bodies the providers send, over HTTP or as the last line of a
# stream that fails part-way (vLLM, OpenRouter, Gemini's streamGenerateContent).
ERROR_BODIES = [
    (
        anthropic,
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    ),
    (openai_chat, {"error": {"message": "Request timed out", "type": "server_error"}}),
    (openai_responses, {"error": {"message": "Request timed out", "type": "server_error"}}),
    (gemini, {"error": {"code": 503, "message": "Overloaded", "status": "UNAVAILABLE"}}),
    (ollama, {"error": "model requires more system memory"}),
    # An exception event, as ConverseStream sends one part-way.
    (bedrock, {"serviceUnavailableException": {"message": "Overloaded"}}),
    (mistral, {"object": "error", "message": "Service tier capacity exceeded: Overloaded"}),
    (cohere, {"id": "7d5e", "message": "Overloaded: please retry"}),
]


@pytest.mark.parametrize(
    ("module", "body"), ERROR_BODIES, ids=[m.__name__.rsplit(".")[-1] for m, _ in ERROR_BODIES]
)
def test_an_error_body_says_the_providers_words(module: Any, body: dict[str, Any]) -> None:
    words = "Overloaded|timed out|system memory"
    with pytest.raises(ResponseError, match=f"reported an error: .*({words})"):
        module.from_response(body)
    accumulator = module.Accumulator()
    with pytest.raises(StreamError, match=f"^(chunk|event) 0.*reported an error: .*({words})"):
        accumulator.feed(body)


def test_response_and_stream_errors_are_dialect_errors() -> None:
    assert issubclass(ResponseError, DialectError) and issubclass(StreamError, DialectError)


# --- what the review found leaking, one by one ------------------------------------------

_NAN_INPUT: Any = json.loads('{"x": NaN}')  # stdlib json reads NaN, and so may a caller


def _deep_input(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


LEAKED_STREAMS: list[tuple[str, Callable[[], Any], list[Any], int | None, str]] = [
    (
        "a-text-none",
        anthropic.Accumulator,
        [
            START,
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": None},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "x"},
            },
        ],
        2,
        "content block 0 has a 'text' that is not text",
    ),
    (
        "a-type-a-list",
        anthropic.Accumulator,
        [START, {"type": ["ping"]}],
        1,
        "has no type",
    ),
    (
        "c-function-text",
        openai_chat.Accumulator,
        [_chunk({"tool_calls": [{"index": 0, "id": "c", "function": "oops"}]})],
        0,
        "'function' is not an object",
    ),
    (
        "c-arguments-number",
        openai_chat.Accumulator,
        [
            _chunk(
                {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": 1}}]}
            )
        ],
        0,
        "the arguments are not text",
    ),
    (
        "c-tool-calls-number",
        openai_chat.Accumulator,
        [_chunk({"tool_calls": 5})],
        0,
        "tool_calls is not a list",
    ),
    (
        "c-content-number",
        openai_chat.Accumulator,
        [_chunk({"content": 5})],
        0,
        "'content' is not text",
    ),
    (
        "r-content-text",
        openai_responses.Accumulator,
        [
            {**ADDED_MESSAGE, "item": {"type": "message", "content": "oops"}},
            {
                "type": "response.content_part.added",
                "output_index": 0,
                "content_index": 0,
                "part": {"type": "output_text", "text": ""},
            },
        ],
        1,
        "has a 'content' that is not a list",
    ),
    (
        "r-arguments-number",
        openai_responses.Accumulator,
        [
            {**ADDED_CALL, "item": {**CALL_ITEM, "arguments": 1}},
            {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "{"},
        ],
        1,
        "arguments that are not text",
    ),
    (
        "g-candidates-object",
        gemini.Accumulator,
        [{"candidates": {"0": {}}}],
        0,
        "candidates is not a list",
    ),
    (
        "g-text-number-then-text",
        gemini.Accumulator,
        [_candidate([{"text": 5}]), _candidate([{"text": "a"}], "STOP")],
        None,
        "",
    ),
]


@pytest.mark.parametrize(
    ("accumulator", "events", "at", "pattern"),
    [s[1:] for s in LEAKED_STREAMS],
    ids=[s[0] for s in LEAKED_STREAMS],
)
def test_what_leaked_from_a_stream_is_a_stream_error(
    accumulator: Callable[[], Any], events: list[Any], at: int | None, pattern: str
) -> None:
    target = accumulator()
    if at is None:  # taken as it is: the stream reads, no TypeError on the way
        for event in events:
            target.feed(event)
        assert target.result()
        return
    with pytest.raises(StreamError, match=pattern) as caught:
        for event in events:
            target.feed(event)
    assert caught.value.index == at and caught.value.event is events[at]


def test_a_responses_item_without_content_takes_its_parts() -> None:
    # The review's case: "content": None, then content_part.added (a TypeError before).
    target = openai_responses.Accumulator()
    target.feed({**ADDED_MESSAGE, "item": {"type": "message", "content": None}})
    target.feed(
        {
            "type": "response.content_part.added",
            "output_index": 0,
            "content_index": 0,
            "part": {"type": "output_text", "text": "hi"},
        }
    )
    done = {"type": "message", "content": [{"type": "output_text", "text": "hi"}]}
    target.feed({"type": "response.output_item.done", "output_index": 0, "item": done})
    target.feed({"type": "response.completed", "response": {}})
    assert target.result()[1] == ct.AssistantMessage(content="hi")


LEAKED_RESPONSES: list[tuple[str, Callable[[Any], Any], Any, str]] = [
    (
        "c-choice-none",
        openai_chat.from_response,
        {"choices": [None]},
        "choices\\[0\\]: expected an",
    ),
    ("g-candidates-object", gemini.from_response, {"candidates": {"0": {}}}, "not a list"),
    (
        "r-content-number",
        openai_responses.from_response,
        {"output": [{"type": "message", "content": 5}]},
        r"output\[0\]: 'content' should be list",
    ),
    (
        "r-summary-number",
        openai_responses.from_response,
        {"output": [{"type": "reasoning", "summary": 5}]},
        r"output\[0\]: 'summary' should be list",
    ),
    (
        "a-kind-deep",
        anthropic.from_response,
        {"content": [{"type": _deep_input(5000)}]},
        "a block without a type",
    ),
]


@pytest.mark.parametrize(
    ("read", "response", "pattern"),
    [r[1:] for r in LEAKED_RESPONSES],
    ids=[r[0] for r in LEAKED_RESPONSES],
)
def test_what_leaked_from_a_response_is_a_response_error(
    read: Callable[[Any], Any], response: Any, pattern: str
) -> None:
    with pytest.raises(ResponseError, match=pattern):
        read(response)


def _tool_responses(arguments: Any) -> dict[str, Any]:
    """A response of each dialect with one tool call of these arguments."""
    text = json.dumps(arguments)  # NaN as the bare word, as stdlib json writes it
    return {
        "anthropic": {
            "content": [{"type": "tool_use", "id": "t", "name": "f", "input": arguments}]
        },
        "openai_chat": {
            "choices": [
                {
                    "message": {
                        "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": text}}]
                    }
                }
            ]
        },
        "openai_responses": {
            "output": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": text}]
        },
        "gemini": _candidate([{"functionCall": {"name": "f", "args": arguments}}], "STOP"),
        "mistral": {
            "choices": [
                {
                    "message": {
                        "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": text}}]
                    }
                }
            ]
        },
        "ollama": {
            "message": {
                "role": "assistant",
                "tool_calls": [{"function": {"name": "f", "arguments": arguments}}],
            },
            "done": True,
        },
        "bedrock": {
            "output": {
                "message": {
                    "role": "assistant",
                    "content": [{"toolUse": {"toolUseId": "t", "name": "f", "input": arguments}}],
                }
            },
            "stopReason": "tool_use",
        },
        "cohere": {
            "message": {"tool_calls": [{"id": "c", "function": {"name": "f", "arguments": text}}]},
            "finish_reason": "TOOL_CALL",
        },
    }


READERS = {
    "anthropic": anthropic,
    "bedrock": bedrock,
    "openai_chat": openai_chat,
    "openai_responses": openai_responses,
    "gemini": gemini,
    "ollama": ollama,
    "mistral": mistral,
    "cohere": cohere,
}


@pytest.mark.parametrize("name", sorted(READERS))
@pytest.mark.parametrize(
    ("arguments", "pattern"),
    [
        (_NAN_INPUT, "finite number|not valid JSON"),
        (_deep_input(200), "nested|nest deeper"),
    ],
    ids=["nan", "deep"],
)
def test_tool_input_a_message_cannot_hold_is_a_response_error(
    name: str, arguments: Any, pattern: str
) -> None:
    # It raised convtypes.WireError (a ValueError, but no DialectError) before.
    with pytest.raises(ResponseError, match=pattern):
        READERS[name].from_response(_tool_responses(arguments)[name])


@pytest.mark.parametrize("name", ["anthropic", "gemini"])
def test_tool_input_a_message_cannot_hold_is_a_stream_error(name: str) -> None:
    if name == "anthropic":
        block = {"type": "tool_use", "id": "t", "name": "f", "input": _NAN_INPUT}
        events = [
            START,
            {"type": "content_block_start", "index": 0, "content_block": block},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_stop"},
        ]
    else:
        events = [_candidate([{"functionCall": {"name": "f", "args": _NAN_INPUT}}], "STOP")]
    target = READERS[name].Accumulator()
    for event in events:
        target.feed(event)
    with pytest.raises(StreamError, match="finite number") as caught:
        target.result()
    assert caught.value.index is None


class _BrokenDump:
    """An SDK-like object whose ``model_dump`` raises."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def model_dump(self, **options: Any) -> Any:
        raise self.error


@pytest.mark.parametrize("name", sorted(READERS))
def test_the_boundary_names_the_event_and_keeps_the_cause(name: str) -> None:
    module = READERS[name]
    cause = TypeError("cannot dump")
    with pytest.raises(ResponseError, match="TypeError: 'cannot dump'") as read:
        module.from_response(_BrokenDump(cause))
    assert read.value.__cause__ is cause
    target = module.Accumulator()
    event = _BrokenDump(cause)
    with pytest.raises(StreamError, match=r"(event|chunk) 0: .*cannot dump") as fed:
        target.feed(event)
    assert fed.value.__cause__ is cause
    assert fed.value.index == 0 and fed.value.event is event


@pytest.mark.parametrize("name", sorted(READERS))
@pytest.mark.parametrize("error", [KeyboardInterrupt, MemoryError, SystemExit])
def test_the_boundary_does_not_swallow_what_is_no_bad_input(
    name: str, error: type[BaseException]
) -> None:
    module = READERS[name]
    with pytest.raises(error):
        module.from_response(_BrokenDump(error()))
    with pytest.raises(error):
        module.Accumulator().feed(_BrokenDump(error()))


@pytest.mark.parametrize(
    "value", [_NAN_INPUT, _deep_input(200), {"k": b"bytes"}], ids=["nan", "deep", "bytes"]
)
def test_items_a_message_cannot_hold_are_a_response_error(value: Any) -> None:
    # Responses and Gemini keep their output verbatim as provider items.
    with pytest.raises(ResponseError, match=r"nested|finite number|JSON value") as caught:
        openai_responses.from_response({"output": [{"type": "web_search_call", "v": value}]})
    assert caught.value.__cause__ is not None
    gemini_response = _candidate([{"executableCode": {"code": value}}], "STOP")
    if isinstance(value, dict) and isinstance(value.get("k"), bytes):
        # Gemini reads a dict from the SDK's model_dump(), where bytes stand
        # for the base64 text the API sent: they are kept as that text.
        items = gemini.from_response(gemini_response)[0]
        assert items == ct.ProviderOutputItemsMessage(
            protocol="gemini", items=({"executable_code": {"code": {"k": "Ynl0ZXM="}}},)
        )
        return
    with pytest.raises(ResponseError, match=r"nested|finite number|JSON value"):
        gemini.from_response(gemini_response)
