"""A whole Chat Completions turn: tools in; deltas, stop reason and usage out; exact replay.

The responses and streams here are written in the shapes the API and
OpenAI-compatible servers send (first delta spelling out its text fields,
a usage chunk without choices at the end, parallel calls with spaced
argument text, refusals, output audio, reasoning_content).
"""

from __future__ import annotations

import copy
import json
from enum import Enum
from typing import Any, Literal, Optional

import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from test_dialects_requests import validate_openai_chat

import convtypes as ct
from convtypes.dialects import (
    Reply,
    StreamError,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStart,
    ToolSchemaError,
    ToolSpec,
    UnmatchedResult,
    Usage,
    openai_chat,
)

# --- builders -------------------------------------------------------------------------


def completion(
    message: dict[str, Any], finish: str | None = "stop", usage: dict[str, Any] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-7",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-test",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
    }
    if usage is not None:
        body["usage"] = usage
    return body


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-7",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-test",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
    }


USAGE: dict[str, Any] = {
    "prompt_tokens": 120,
    "completion_tokens": 40,
    "total_tokens": 160,
    "prompt_tokens_details": {"cached_tokens": 100},
    "completion_tokens_details": {"reasoning_tokens": 12},
}


def usage_chunk(usage: dict[str, Any]) -> dict[str, Any]:
    return {**chunk({}), "choices": [], "usage": usage}


def two_calls_stream() -> list[dict[str, Any]]:
    """Text, then two parallel calls whose argument text arrives in pieces."""
    return [
        chunk({"role": "assistant", "content": "", "refusal": None}),
        chunk({"content": "Checking "}),
        chunk({"content": "both."}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "weather", "arguments": ""},
                    }
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": '}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Oslo"}'}}]}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 1,
                        "id": "call_b",
                        "type": "function",
                        "function": {"name": "time", "arguments": '{"tz":'},
                    }
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 1, "function": {"arguments": ' "CET"}'}}]}),
        chunk({}, "tool_calls"),
        usage_chunk(USAGE),
    ]


def feed_all(accumulator: openai_chat.Accumulator, events: list[Any]) -> list[Any]:
    return [delta for event in events for delta in accumulator.feed(event)]


# --- tools ------------------------------------------------------------------------------


def _validate_with_tools(fields: dict[str, Any]) -> None:
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
    from pydantic import TypeAdapter

    body = {"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}], **fields}
    TypeAdapter(CompletionCreateParamsNonStreaming).validate_python(body)
    json.dumps(body)


class Unit(str, Enum):
    c = "c"
    f = "f"


class Place(BaseModel):
    city: str
    country: Optional[str] = None  # noqa: UP045 - pydantic on 3.10 reads it either way


class Forecast(BaseModel):
    place: Place
    days: list[int]
    unit: Unit = Unit.c
    mode: Literal["brief", "full"] = "brief"


class Tree(BaseModel):
    label: str
    children: list[Tree] = []


SCHEMAS = {
    "nested": Forecast.model_json_schema(),
    "recursive": Tree.model_json_schema(),
    "empty": {"type": "object", "properties": {}},
}


@pytest.mark.parametrize("choice", ["auto", "none", "required", "forecast"])
def test_tools_go_as_function_tools_with_their_object_schema_unchanged(choice: str) -> None:
    tools = [
        ToolSpec(name="forecast", description="Weather ahead.", parameters=SCHEMAS["nested"]),
        ToolSpec(name="tree", parameters=SCHEMAS["recursive"]),
        ToolSpec(name="ping"),
    ]
    fields = openai_chat.tools_to_request(tools, choice=choice)
    _validate_with_tools(fields)
    assert fields["tools"][0] == {
        "type": "function",
        "function": {
            "name": "forecast",
            "description": "Weather ahead.",
            "parameters": SCHEMAS["nested"],
        },
    }
    # No description is sent as none at all, and the default schema is an empty object.
    assert fields["tools"][2] == {
        "type": "function",
        "function": {"name": "ping", "parameters": SCHEMAS["empty"]},
    }
    expected_choice: Any = choice
    if choice == "forecast":
        expected_choice = {"type": "function", "function": {"name": "forecast"}}
    assert fields["tool_choice"] == expected_choice


def test_the_root_of_a_schema_is_made_an_object_as_openai_requires() -> None:
    # OpenAI refuses parameters whose root is not typed "object" (a pydantic
    # recursive model's root is a $ref); the Responses dialect does the same.
    from convtypes.dialects import openai_responses

    tree = SCHEMAS["recursive"]
    untyped = {"properties": {"city": {"type": "string"}}}
    specs = [ToolSpec(name="tree", parameters=tree), ToolSpec(name="city", parameters=untyped)]
    fields = openai_chat.tools_to_request(specs)
    _validate_with_tools(fields)
    parameters = [tool["function"]["parameters"] for tool in fields["tools"]]
    assert parameters[0] == {**tree["$defs"]["Tree"], "$defs": tree["$defs"]}
    assert parameters[1] == {"type": "object", **untyped}
    responses = openai_responses.tools_to_request(specs)["tools"]
    assert [tool["parameters"] for tool in responses] == parameters
    for schema, path in (({"type": "array"}, "/type"), ({"$ref": "#/$defs/No"}, "/$ref")):
        with pytest.raises(ToolSchemaError, match="tool 'rows': ") as caught:
            openai_chat.tools_to_request([ToolSpec(name="rows", parameters=schema)])
        assert (caught.value.tool, caught.value.path) == ("rows", path)


def test_no_tools_adds_no_fields() -> None:
    # The API refuses a tool_choice without tools.
    assert openai_chat.tools_to_request([]) == {}
    assert openai_chat.tools_to_request([], choice="none") == {}


@pytest.mark.parametrize(
    ("tools", "choice", "error", "pattern"),
    [
        ([ToolSpec(name="a b")], "auto", ToolSchemaError, r"tool 'a b': .* takes tool names"),
        ([ToolSpec(name="x" * 65)], "auto", ToolSchemaError, "takes tool names"),
        ([ToolSpec(name="a"), ToolSpec(name="a")], "auto", ToolSchemaError, "given twice"),
        ([ToolSpec(name="a")], "b", ToolSchemaError, r"choice='b' is neither"),
        ([], "required", ToolSchemaError, "needs at least one tool"),
        ([ToolSpec(name="a")], None, TypeError, "choice must be"),
        ([{"name": "a"}], "auto", TypeError, r"tools\[0\] is a dict, not a ToolSpec"),
        (ToolSpec(name="a"), "auto", TypeError, "tools must be a list"),
    ],
)
def test_tools_a_provider_cannot_take_are_refused(
    tools: Any, choice: Any, error: type[Exception], pattern: str
) -> None:
    with pytest.raises(error, match=pattern) as caught:
        openai_chat.tools_to_request(tools, choice=choice)
    if isinstance(caught.value, ToolSchemaError) and "tool '" in str(caught.value):
        assert caught.value.tool == tools[0].name


@pytest.mark.parametrize(
    ("fields", "error", "pattern"),
    [
        ({"name": ""}, ValueError, "must not be empty"),
        ({"name": 3}, TypeError, "name must be a str"),
        ({"name": "a", "description": None}, TypeError, "description must be a str"),
        ({"name": "a", "parameters": []}, TypeError, "must be a JSON Schema object"),
        (
            {"name": "a", "parameters": {"default": float("nan")}},
            ValueError,
            r"not JSON: .* at \$\.parameters\.default",
        ),
        ({"name": "a", "parameters": {1: "x"}}, ValueError, "not JSON"),
    ],
)
def test_a_tool_spec_is_checked_when_built(
    fields: dict[str, Any], error: type[Exception], pattern: str
) -> None:
    with pytest.raises(error, match=pattern):
        ToolSpec(**fields)


# --- replies: stop reason, usage, model, id ---------------------------------------------------


@pytest.mark.parametrize(
    ("message", "finish", "stop"),
    [
        ({"role": "assistant", "content": "Done."}, "stop", "end_turn"),
        ({"role": "assistant", "content": "Once upon"}, "length", "max_tokens"),
        ({"role": "assistant", "content": ""}, "content_filter", "content_filter"),
        ({"role": "assistant", "content": None, "refusal": "I can't."}, "stop", "refusal"),
        (
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
            "tool_calls",
            "tool_use",
        ),
        # Some compatible servers end a turn of calls with "stop".
        (
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
            "stop",
            "tool_use",
        ),
        ({"role": "assistant", "content": "x"}, "insufficient_system_resource", "other"),
        ({"role": "assistant", "content": "x"}, None, "other"),
    ],
)
def test_the_stop_reason_is_read_by_meaning(
    message: dict[str, Any], finish: str | None, stop: str
) -> None:
    reply = openai_chat.read_reply(completion(message, finish))
    assert reply.stop_reason == stop
    assert reply.provider_stop_reason == finish
    assert reply.messages == openai_chat.from_response(completion(message, finish))


def test_usage_counts_cached_and_reasoning_tokens_as_parts_of_the_totals() -> None:
    reply = openai_chat.read_reply(completion({"role": "assistant", "content": "x"}, usage=USAGE))
    assert reply.usage == Usage(
        input_tokens=120,
        output_tokens=40,
        cache_read_tokens=100,
        cache_write_tokens=None,
        reasoning_tokens=12,
        raw=USAGE,
    )
    assert (reply.model, reply.id) == ("gpt-test", "chatcmpl-7")


def test_usage_counts_tokens_written_to_the_cache_where_reported() -> None:
    # The API caches prompts on its own, and reports the tokens it read from
    # the cache and (on newer models) those it wrote to it.
    usage = {**USAGE, "prompt_tokens_details": {"cached_tokens": 64, "cache_write_tokens": 32}}
    reply = openai_chat.read_reply(completion({"role": "assistant", "content": "x"}, usage=usage))
    assert (reply.usage.cache_read_tokens, reply.usage.cache_write_tokens) == (64, 32)


def test_usage_not_reported_is_none_not_zero() -> None:
    bare = completion({"role": "assistant", "content": "x"})
    del bare["model"], bare["id"]
    reply = openai_chat.read_reply(bare)
    assert reply.usage == Usage()
    assert (reply.model, reply.id) == (None, None)
    partial_usage = {"prompt_tokens": 3, "completion_tokens": "many"}
    reply = openai_chat.read_reply(
        completion({"role": "assistant", "content": "x"}, "stop", partial_usage)
    )
    assert reply.usage == Usage(input_tokens=3, raw=partial_usage)


# --- streams: deltas, partial, reply ----------------------------------------------------------


def test_feed_returns_what_each_chunk_added() -> None:
    accumulator = openai_chat.Accumulator()
    deltas = feed_all(accumulator, two_calls_stream())
    assert deltas == [
        TextDelta(text="Checking "),
        TextDelta(text="both."),
        ToolCallStart(index=0, id="call_a", name="weather"),
        ToolCallDelta(index=0, arguments='{"city": '),
        ToolCallDelta(index=0, arguments='"Oslo"}'),
        ToolCallStart(index=1, id="call_b", name="time"),
        ToolCallDelta(index=1, arguments='{"tz":'),
        ToolCallDelta(index=1, arguments=' "CET"}'),
    ]
    assistant = accumulator.result()[-1]
    assert isinstance(assistant, ct.AssistantMessage)
    # Each call's pieces join to its argument text, and the index is its place.
    for index, call in enumerate(assistant.tool_calls):
        text = "".join(
            d.arguments for d in deltas if isinstance(d, ToolCallDelta) and d.index == index
        )
        assert json.loads(text) == call.arguments


def test_the_stream_reply_equals_the_reply_of_the_whole_completion() -> None:
    accumulator = openai_chat.Accumulator()
    feed_all(accumulator, two_calls_stream())
    whole = completion(
        {
            "role": "assistant",
            "content": "Checking both.",
            "tool_calls": [
                {
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city": "Oslo"}'},
                },
                {
                    "id": "call_b",
                    "type": "function",
                    "function": {"name": "time", "arguments": '{"tz": "CET"}'},
                },
            ],
        },
        "tool_calls",
        USAGE,
    )
    reply = accumulator.reply()
    assert reply == openai_chat.read_reply(whole)
    assert reply.stop_reason == "tool_use"
    assert reply.usage.input_tokens == 120
    assert reply.messages == accumulator.result() == accumulator.partial()


def _filter_note(offset: int) -> dict[str, Any]:
    """A choice as Azure OpenAI's asynchronous content filter sends it: no delta at all."""
    safe = {"filtered": False, "severity": "safe"}
    return {
        "index": 0,
        "finish_reason": None,
        "content_filter_results": {"hate": safe, "violence": safe},
        "content_filter_offsets": {"check_offset": 0, "start_offset": 0, "end_offset": offset},
    }


def test_annotations_without_a_delta_add_nothing_before_or_after_the_finish() -> None:
    plain = two_calls_stream()
    noted = [
        {**chunk({}), "choices": [], "prompt_filter_results": [{"prompt_index": 0}]},
        *plain[:3],
        {**chunk({}), "choices": [_filter_note(14)]},
        *plain[3:-1],
        {**chunk({}), "choices": [_filter_note(30)]},
        chunk({"content": ""}, "tool_calls"),  # the finish said again, with nothing new
        plain[-1],
    ]
    accumulator = openai_chat.Accumulator()
    reference = openai_chat.Accumulator()
    assert feed_all(accumulator, noted) == feed_all(reference, plain)
    assert accumulator.reply() == reference.reply()
    # Text after the finish, or another finish, is still refused.
    for late in (chunk({"content": "more"}), chunk({}, "length")):
        again = openai_chat.Accumulator()
        feed_all(again, plain)
        with pytest.raises(StreamError, match="more of the first choice after its finish_reason"):
            again.feed(late)


def test_partial_keeps_text_so_far_and_only_whole_calls() -> None:
    events = two_calls_stream()
    accumulator = openai_chat.Accumulator()
    seen: list[tuple[str, list[str]]] = []
    for event in events:
        accumulator.feed(event)
        assistant = accumulator.partial()[-1]
        assert isinstance(assistant, ct.AssistantMessage)
        seen.append((assistant.content, [call.name for call in assistant.tool_calls]))
    assert seen == [
        ("", []),
        ("Checking ", []),
        ("Checking both.", []),
        ("Checking both.", []),  # weather begun, no arguments yet
        ("Checking both.", []),  # '{"city": ' is not whole
        ("Checking both.", ["weather"]),  # a whole object: the call is complete
        ("Checking both.", ["weather"]),  # time begun
        ("Checking both.", ["weather", "time"]),
        ("Checking both.", ["weather", "time"]),
        ("Checking both.", ["weather", "time"]),
    ]


def test_a_cancelled_stream_keeps_what_arrived() -> None:
    accumulator = openai_chat.Accumulator()
    feed_all(accumulator, two_calls_stream()[:5])
    with pytest.raises(StreamError, match="without a finish_reason"):
        accumulator.result()
    with pytest.raises(StreamError, match="without a finish_reason"):
        accumulator.reply()
    assert accumulator.partial() == [ct.AssistantMessage(content="Checking both.")]
    assert not accumulator.finished


def test_partial_still_answers_after_a_malformed_chunk() -> None:
    accumulator = openai_chat.Accumulator()
    feed_all(accumulator, two_calls_stream()[:3])
    with pytest.raises(StreamError, match="chunk 3: the delta's 'content' is not text"):
        accumulator.feed(chunk({"content": 5}))
    assert accumulator.partial() == [ct.AssistantMessage(content="Checking both.")]


def test_a_stream_cut_at_the_token_limit_in_a_call_keeps_the_call_out_of_the_turn() -> None:
    events = [
        *two_calls_stream()[:7],
        chunk({}, "length"),
        usage_chunk({"prompt_tokens": 5, "completion_tokens": 9}),
    ]
    accumulator = openai_chat.Accumulator()
    feed_all(accumulator, events)
    reply = accumulator.reply()
    assert reply.stop_reason == "max_tokens"
    kept, assistant = reply.messages
    # The cut call is not one a backend could run; it stays as sent in the items.
    assert assistant == ct.AssistantMessage(
        content="Checking both.",
        tool_calls=(ct.ToolCall(id="call_a", name="weather", arguments={"city": "Oslo"}),),
    )
    assert isinstance(kept, ct.ProviderOutputItemsMessage)
    assert kept.items[0]["tool_calls"][1]["function"] == {  # type: ignore[index,call-overload]
        "name": "time",
        "arguments": '{"tz":',
    }
    # The completion the stream adds up to reads the same.
    whole = completion(
        {
            "role": "assistant",
            "content": "Checking both.",
            "tool_calls": [
                {
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city": "Oslo"}'},
                },
                {
                    "id": "call_b",
                    "type": "function",
                    "function": {"name": "time", "arguments": '{"tz":'},
                },
            ],
        },
        "length",
        {"prompt_tokens": 5, "completion_tokens": 9},
    )
    assert openai_chat.read_reply(whole) == reply


_CUT_CALL: dict[str, Any] = {
    "id": "call_b",
    "type": "function",
    "function": {"name": "time", "arguments": '{"tz": "CE'},
}


def test_a_cut_call_is_not_sent_back_and_needs_no_result() -> None:
    whole_call = {
        "id": "call_a",
        "type": "function",
        "function": {"name": "weather", "arguments": '{"city": "Oslo"}'},
    }
    message = {"role": "assistant", "content": "Checking.", "tool_calls": [whole_call, _CUT_CALL]}
    reply = openai_chat.read_reply(completion(message, "length"))
    transcript: list[ct.Message] = [
        ct.UserMessage(content="Weather and time?"),
        *reply.messages,
        ct.ToolResultMessage(tool_use_id="call_a", content="Rain"),
        ct.UserMessage(content="Go on."),  # the cut call needs no result
    ]
    body = openai_chat.to_request(transcript)
    validate_openai_chat(body)
    assert body["messages"][1] == {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [whole_call],
    }
    # Answering the cut call is answering nothing.
    transcript.insert(4, ct.ToolResultMessage(tool_use_id="call_b", content="cut off"))
    with pytest.raises(UnmatchedResult, match="tool result 'call_b' answers no call"):
        openai_chat.to_request(transcript)
    # A reply that held nothing but a cut call sends no assistant turn at all.
    only_cut = {"role": "assistant", "content": None, "tool_calls": [_CUT_CALL]}
    messages = openai_chat.from_response(completion(only_cut, "length"))
    assert messages[-1] == ct.AssistantMessage()
    body = openai_chat.to_request(
        [ct.UserMessage(content="Time?"), *messages, ct.UserMessage(content="Shorter.")]
    )
    assert [turn["role"] for turn in body["messages"]] == ["user", "user"]


def test_a_refusal_streams_as_text_and_stops_as_a_refusal() -> None:
    events = [
        chunk({"role": "assistant", "content": None, "refusal": ""}),
        chunk({"refusal": "I can't "}),
        chunk({"refusal": "help."}),
        chunk({}, "stop"),
    ]
    accumulator = openai_chat.Accumulator()
    assert feed_all(accumulator, events) == [TextDelta(text="I can't "), TextDelta(text="help.")]
    reply = accumulator.reply()
    assert reply.stop_reason == "refusal" and reply.provider_stop_reason == "stop"
    whole = completion({"role": "assistant", "content": None, "refusal": "I can't help."})
    assert openai_chat.read_reply(whole) == reply


# --- reasoning from OpenAI-compatible servers ---------------------------------------------------


@pytest.mark.parametrize("key", ["reasoning_content", "reasoning"])
def test_reasoning_reads_as_unsigned_thinking(key: str) -> None:
    events = [
        chunk({"role": "assistant", "content": ""}),
        chunk({key: "Two cities, "}),
        chunk({key: "two calls."}),
        chunk({"content": "Both are mild."}),
        chunk({}, "stop"),
    ]
    accumulator = openai_chat.Accumulator()
    assert feed_all(accumulator, events) == [
        ThinkingDelta(text="Two cities, "),
        ThinkingDelta(text="two calls."),
        TextDelta(text="Both are mild."),
    ]
    expected = ct.AssistantMessage(
        content="Both are mild.", thinking=(ct.ThinkingBlock(text="Two cities, two calls."),)
    )
    assert accumulator.result() == [expected]
    whole = completion(
        {"role": "assistant", "content": "Both are mild.", key: "Two cities, two calls."}
    )
    assert openai_chat.from_response(whole) == [expected]


def test_reasoning_goes_back_only_where_asked() -> None:
    transcript: list[ct.Message] = [
        ct.UserMessage(content="hi"),
        ct.AssistantMessage(
            content="Hello.",
            thinking=(
                ct.ThinkingBlock(text="Greet "),
                ct.ThinkingBlock(text="back."),
                ct.ThinkingBlock(redacted_data="opaque"),
            ),
        ),
    ]
    assert openai_chat.to_request(transcript)["messages"][1] == {
        "role": "assistant",
        "content": "Hello.",
    }
    keys: list[openai_chat.Reasoning] = ["reasoning_content", "reasoning"]
    for key in keys:
        turn = openai_chat.to_request(transcript, reasoning=key)["messages"][1]
        assert turn == {"role": "assistant", "content": "Hello.", key: "Greet back."}
    with pytest.raises(ValueError, match="reasoning= must be None"):
        openai_chat.to_request(transcript, reasoning="thinking")  # type: ignore[arg-type]


# --- what the turn cannot say, kept and replayed as it came -----------------------------------


def _replay(messages: list[ct.Message], **options: Any) -> list[dict[str, Any]]:
    transcript: list[ct.Message] = [ct.UserMessage(content="q"), *messages]
    body = openai_chat.to_request(transcript, **options)
    validate_openai_chat(body)
    return body["messages"][1:]  # type: ignore[no-any-return]


def test_a_turn_the_flat_message_carries_keeps_no_items() -> None:
    message = {
        "role": "assistant",
        "content": None,
        "refusal": None,
        "annotations": [],
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}
        ],
    }
    messages = openai_chat.from_response(completion(message, "tool_calls"))
    assert messages == [
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="c1", name="f", arguments={"a": 1}),))
    ]
    assert _replay(messages) == [
        {"role": "assistant", "tool_calls": message["tool_calls"]},
    ]


@pytest.mark.parametrize(
    ("message", "replayed"),
    [
        (
            {"role": "assistant", "content": None, "refusal": "No."},
            {"role": "assistant", "content": None, "refusal": "No."},
        ),
        (
            {
                "role": "assistant",
                "content": None,
                "audio": {"id": "audio_1", "data": "UklG", "expires_at": 9, "transcript": "Hi!"},
            },
            {"role": "assistant", "content": None, "audio": {"id": "audio_1"}},
        ),
        (
            {
                "role": "assistant",
                "content": "See [1].",
                "annotations": [
                    {
                        "type": "url_citation",
                        "url_citation": {
                            "url": "https://example.org",
                            "title": "Example",
                            "start_index": 4,
                            "end_index": 7,
                        },
                    }
                ],
            },
            # The API takes no annotations as input: the one thing not sent back.
            {"role": "assistant", "content": "See [1]."},
        ),
        (
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "f", "arguments": '{"a": 1}'},
                    },
                    {
                        "id": "c2",
                        "type": "custom",
                        "custom": {"name": "grep", "input": "TODO src/"},
                    },
                ],
            },
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "f", "arguments": '{"a": 1}'},
                    },
                    {
                        "id": "c2",
                        "type": "custom",
                        "custom": {"name": "grep", "input": "TODO src/"},
                    },
                ],
            },
        ),
    ],
    ids=["refusal", "audio", "annotations", "spacing-and-custom"],
)
def test_what_the_turn_cannot_say_is_kept_and_goes_back_as_it_came(
    message: dict[str, Any], replayed: dict[str, Any]
) -> None:
    kept, assistant = openai_chat.from_response(completion(copy.deepcopy(message)))
    assert kept == ct.ProviderOutputItemsMessage(
        protocol="openai-chat",
        items=({key: value for key, value in message.items() if value is not None},),
    )
    assert isinstance(assistant, ct.AssistantMessage)
    results: list[ct.Message] = [
        ct.ToolResultMessage(tool_use_id=call["id"], content="ok")
        for call in message.get("tool_calls", ())
    ]
    turns = _replay([kept, assistant, *results])
    assert turns[0] == replayed
    # The turn read beside the items is not sent a second time, and results pair.
    assert [turn["role"] for turn in turns] == ["assistant"] + ["tool"] * len(results)


def test_the_flat_turn_is_what_other_dialects_read() -> None:
    message = {
        "role": "assistant",
        "content": None,
        "audio": {"id": "audio_1", "data": "UklG", "expires_at": 9, "transcript": "Hi!"},
    }
    _, assistant = openai_chat.from_response(completion(message))
    assert assistant == ct.AssistantMessage(content="Hi!")
    refused = {"role": "assistant", "content": None, "refusal": "No."}
    assert openai_chat.from_response(completion(refused))[-1] == ct.AssistantMessage(content="No.")


def test_an_edited_turn_after_kept_items_sends_only_what_they_lack() -> None:
    message = {"role": "assistant", "content": None, "refusal": "No."}
    kept, _ = openai_chat.from_response(completion(message))
    edited = ct.AssistantMessage(
        content="No.", tool_calls=(ct.ToolCall(id="c9", name="f", arguments={}),)
    )
    turns = _replay([kept, edited, ct.ToolResultMessage(tool_use_id="c9", content="ok")])
    assert turns == [
        {"role": "assistant", "content": None, "refusal": "No."},
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c9", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c9", "content": "ok"},
    ]


def _id_less_calls(spacing: str) -> dict[str, Any]:
    """A message whose calls carry no id, as some compatible servers (sglang, llama.cpp) send."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"type": "function", "function": {"name": "weather", "arguments": '{"city":"Oslo"}'}},
            {
                "type": "function",
                "function": {"name": "weather", "arguments": f'{{"city":{spacing}"Bergen"}}'},
            },
        ],
    }


def test_calls_without_ids_are_read_and_answered_by_position() -> None:
    reply = openai_chat.read_reply(completion(_id_less_calls(""), "tool_calls"))
    assert reply.stop_reason == "tool_use"
    assert reply.messages == [
        ct.AssistantMessage(
            tool_calls=(
                ct.ToolCall(name="weather", arguments={"city": "Oslo"}),
                ct.ToolCall(name="weather", arguments={"city": "Bergen"}),
            )
        )
    ]
    # Streamed: the second call's first delta has no id (sglang's index > 0).
    events = [
        chunk({"role": "assistant", "content": None}),
        chunk({"tool_calls": [{"index": 0, "type": "function", "function": {"name": "weather"}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city":"Oslo"}'}}]}),
        chunk(
            {
                "tool_calls": [
                    {"index": 1, "id": None, "function": {"name": "weather", "arguments": "{"}}
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 1, "function": {"arguments": '"city":"Bergen"}'}}]}),
        chunk({}, "tool_calls"),
    ]
    accumulator = openai_chat.Accumulator()
    starts = [d for d in feed_all(accumulator, events) if isinstance(d, ToolCallStart)]
    assert starts == [ToolCallStart(0, None, "weather"), ToolCallStart(1, None, "weather")]
    assert accumulator.reply() == reply
    answered: list[ct.Message] = [
        ct.UserMessage(content="Oslo and Bergen?"),
        *reply.messages,
        ct.ToolResultMessage(tool_use_id=ct.positional_call_id(1), content="Sun"),
        ct.ToolResultMessage(tool_use_id=ct.positional_call_id(0), content="Rain"),
        ct.UserMessage(content="Thanks."),
    ]
    body = openai_chat.to_request(answered)
    validate_openai_chat(body)
    sent_ids = [call["id"] for call in body["messages"][1]["tool_calls"]]
    assert sent_ids == ["call_1_0", "call_1_1"]
    assert [(m["tool_call_id"], m["content"]) for m in body["messages"][2:4]] == [
        ("call_1_1", "Sun"),
        ("call_1_0", "Rain"),
    ]


def test_kept_calls_without_ids_go_back_with_ids_and_once() -> None:
    # Spaced argument text keeps the message as an item; its calls still need ids.
    kept, assistant = openai_chat.from_response(completion(_id_less_calls(" "), "tool_calls"))
    assert isinstance(kept, ct.ProviderOutputItemsMessage)
    assert isinstance(assistant, ct.AssistantMessage)
    assert [call.id for call in assistant.tool_calls] == [None, None]
    turns = _replay(
        [
            kept,
            assistant,
            ct.ToolResultMessage(tool_use_id="call_0", content="Rain"),
            ct.ToolResultMessage(tool_use_id="call_1", content="Sun"),
        ]
    )
    sent = turns[0]["tool_calls"]
    assert [call["function"] for call in sent] == [
        call["function"] for call in _id_less_calls(" ")["tool_calls"]
    ]
    assert [call["id"] for call in sent] == ["call_1_0", "call_1_1"]
    assert [turn["role"] for turn in turns] == ["assistant", "tool", "tool"]  # sent once
    assert [turn["tool_call_id"] for turn in turns[1:]] == ["call_1_0", "call_1_1"]
    # The transcript's item is left as it came, without ids.
    item_calls = kept.items[0]["tool_calls"]  # type: ignore[index,call-overload]
    assert item_calls == _id_less_calls(" ")["tool_calls"]


def test_kept_calls_of_two_turns_with_one_id_go_back_with_distinct_ids() -> None:
    # Some compatible servers number each turn's calls from 0.
    def kept_turn(question: str, city: str) -> list[ct.Message]:
        call = {
            "id": "0",
            "type": "function",
            "function": {"name": "weather", "arguments": f'{{"city": "{city}"}}'},
        }
        reply = openai_chat.from_response(
            completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")
        )
        assert isinstance(reply[0], ct.ProviderOutputItemsMessage)  # the spacing keeps it
        return [
            ct.UserMessage(content=question),
            *reply,
            ct.ToolResultMessage(tool_use_id="0", content=f"Rain in {city}"),
        ]

    body = openai_chat.to_request([*kept_turn("Oslo?", "Oslo"), *kept_turn("Bergen?", "Bergen")])
    validate_openai_chat(body)
    calls = [m["tool_calls"][0]["id"] for m in body["messages"] if "tool_calls" in m]
    results = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
    assert calls == results == ["0", "call_5_0"]


def test_other_dialects_drop_chat_items() -> None:
    from convtypes.dialects import anthropic, openai_responses

    kept, assistant = openai_chat.from_response(
        completion({"role": "assistant", "content": None, "refusal": "No."})
    )
    transcript: list[ct.Message] = [ct.UserMessage(content="q"), kept, assistant]
    assert anthropic.to_request(transcript)["messages"][1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "No."}],
    }
    assert openai_responses.to_request(transcript)["input"][1]["role"] == "assistant"


# --- the SDK's objects and helper streams ------------------------------------------------------


def _helper_events(
    events: list[dict[str, Any]], response_format: Any = None
) -> tuple[list[Any], Any]:
    from openai.lib.streaming.chat._completions import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    state: Any = ChatCompletionStreamState(
        input_tools=openai.omit, response_format=response_format or openai.omit
    )
    helper = [
        event
        for raw in events
        for event in state.handle_chunk(ChatCompletionChunk.model_validate(raw))
    ]
    return helper, state


def test_the_sdk_helper_stream_gives_the_same_reply() -> None:
    events = two_calls_stream()
    helper, state = _helper_events(events)
    assert {event.type for event in helper} >= {
        "chunk",
        "content.delta",
        "tool_calls.function.arguments.delta",
    }
    raw = openai_chat.Accumulator()
    raw_deltas = feed_all(raw, events)
    wrapped = openai_chat.Accumulator()
    # The helper's own events repeat what its chunk events say: only chunks add deltas.
    assert feed_all(wrapped, helper) == raw_deltas
    assert wrapped.reply() == raw.reply()
    final = state.get_final_completion()
    assert openai_chat.read_reply(final) == raw.reply()


def test_sdk_additions_never_reach_the_items() -> None:
    class Answer(BaseModel):
        city: str

    citation = {
        "type": "url_citation",
        "url_citation": {
            "url": "https://example.org",
            "title": "E",
            "start_index": 0,
            "end_index": 1,
        },
    }
    events = [
        chunk({"role": "assistant", "content": "", "refusal": None}),
        chunk({"content": '{"city": "Oslo"}'}),
        chunk({"annotations": [citation]}),
        chunk({}, "stop"),
    ]
    _, state = _helper_events(events, Answer)
    final = state.get_final_completion()
    assert final.choices[0].message.parsed == Answer(city="Oslo")
    # The annotations make the message one to keep; the parsed answer is not in it.
    kept, _ = openai_chat.from_response(final)
    assert isinstance(kept, ct.ProviderOutputItemsMessage)
    assert kept.items == (
        {"role": "assistant", "content": '{"city": "Oslo"}', "annotations": [citation]},
    )
    # Parsed tool calls carry parsed_arguments; they do not go back either.
    from openai.lib._parsing._completions import parse_chat_completion
    from openai.types.chat import ChatCompletion

    spaced = completion(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
            ],
        },
        "tool_calls",
    )
    parsed = parse_chat_completion(
        response_format=openai.omit,
        input_tools=[
            {"type": "function", "function": {"name": "f", "parameters": {}, "strict": True}}
        ],
        chat_completion=ChatCompletion.model_validate(spaced),
    )
    calls = parsed.choices[0].message.tool_calls
    assert calls is not None and calls[0].function.parsed_arguments == {"a": 1}
    kept, _ = openai_chat.from_response(parsed)
    assert isinstance(kept, ct.ProviderOutputItemsMessage)
    call = kept.items[0]["tool_calls"][0]  # type: ignore[index,call-overload]
    assert call == {
        "id": "c1",
        "type": "function",
        "function": {"name": "f", "arguments": '{"a": 1}'},
    }


# --- properties --------------------------------------------------------------------------------

_text = st.text(st.characters(codec="utf-8"), max_size=12)


@st.composite
def _streams(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A plausible stream: text and reasoning pieces, whole calls cut anywhere, an end."""
    events = [chunk({"role": "assistant", "content": ""})]
    for piece in draw(
        st.lists(st.tuples(st.sampled_from(["content", "reasoning_content"]), _text), max_size=4)
    ):
        events.append(chunk({piece[0]: piece[1]}))
    for index in range(draw(st.integers(0, 3))):
        arguments = json.dumps(draw(st.dictionaries(_text, st.integers() | _text, max_size=3)))
        cut = draw(st.integers(0, len(arguments)))
        events.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": f"call_{index}",
                            "type": "function",
                            "function": {"name": f"f{index}", "arguments": arguments[:cut]},
                        }
                    ]
                }
            )
        )
        events.append(
            chunk({"tool_calls": [{"index": index, "function": {"arguments": arguments[cut:]}}]})
        )
    events.append(chunk({}, draw(st.sampled_from(["stop", "tool_calls", "length"]))))
    return events


@settings(max_examples=60)
@given(_streams())
def test_deltas_rebuild_the_reply_and_partial_ends_as_result(events: list[dict[str, Any]]) -> None:
    accumulator = openai_chat.Accumulator()
    deltas = feed_all(accumulator, events)
    result = accumulator.result()
    assert accumulator.partial() == result
    assert accumulator.reply().messages == result
    assistant = result[-1]
    assert isinstance(assistant, ct.AssistantMessage)
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == assistant.content
    thinking = "".join(d.text for d in deltas if isinstance(d, ThinkingDelta))
    assert thinking == "".join(block.text for block in assistant.thinking)
    starts = [d for d in deltas if isinstance(d, ToolCallStart)]
    assert [(s.index, s.id, s.name) for s in starts] == [
        (n, call.id, call.name) for n, call in enumerate(assistant.tool_calls)
    ]
    assert isinstance(accumulator.reply(), Reply)
