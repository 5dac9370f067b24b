"""Every way a response or stream can be malformed, and what the error names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from convtypes.dialects import (
    DialectError,
    ResponseError,
    StreamError,
    anthropic,
    gemini,
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
        "a-unknown-event",
        anthropic.Accumulator,
        [START, TEXT_BLOCK, {"type": "content_block_wobble", "index": 0}],
        r"\(content_block_wobble\): is not an event",
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
        "c-no-delta",
        openai_chat.Accumulator,
        [{"choices": [{"index": 0}]}],
        "the choice has no delta",
        0,
    ),
    (
        "c-audio",
        openai_chat.Accumulator,
        [_chunk({"audio": {"id": "a"}})],
        "audio output has no place",
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
        "c-custom-call",
        openai_chat.Accumulator,
        [
            _chunk(
                {
                    "tool_calls": [
                        {"index": 0, "id": "c", "type": "custom", "function": {"name": "f"}}
                    ]
                }
            )
        ],
        "a 'custom' tool call has no place",
        0,
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
        "c-audio",
        openai_chat.from_response,
        {"choices": [{"message": {"audio": {"id": "a"}}}]},
        "audio output has no place",
    ),
    (
        "c-call-not-object",
        openai_chat.from_response,
        {"choices": [{"message": {"tool_calls": [1]}}]},
        r"tool_calls\[0\]: expected an object",
    ),
    (
        "c-custom-call",
        openai_chat.from_response,
        {"choices": [{"message": {"tool_calls": [{"type": "custom", "id": "c"}]}}]},
        "a 'custom' tool call has no place",
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


def test_response_and_stream_errors_are_dialect_errors() -> None:
    assert issubclass(ResponseError, DialectError) and issubclass(StreamError, DialectError)
