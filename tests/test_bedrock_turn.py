# ruff: noqa: E501
"""A whole turn through the Bedrock dialect, checked by boto3 itself.

Tools in; deltas, stop reason and usage out; a partial reply on cancel;
what the flat message cannot say (server tools, citations, block order,
unknown blocks) kept as ``bedrock-converse`` items and sent back block for
block. Every request is checked with botocore's own validator and the
rules of the service model it leaves to the service (``bedrock_sdk``);
every reply is read both as the REST JSON and as boto3 returns it (its own
parser, its own event-stream reader). Where each reply's shape comes from
(a live recording in pydantic-ai's suite, or the API reference) is said in
``bedrock_replies``.
"""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import convtypes as ct
from convtypes import strategies as cst
from convtypes.dialects import (
    DialectError,
    LeftOut,
    ResponseError,
    StreamError,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStart,
    ToolSchemaError,
    ToolSpec,
    UnansweredCall,
    UnsupportedContent,
    Usage,
    anthropic,
    bedrock,
    openai_chat,
)
from convtypes.dialects._tools import spelled_name

from bedrock_replies import (
    REDACTED,
    SIGNATURE,
    b64,
    cached_usage,
    citation,
    cited_reply,
    code_interpreter,
    events_of,
    padded,
    redacted_stream,
    redacted_then_text,
    reply_of,
    thinking_stream,
    thinking_then_call,
    whole,
)
from bedrock_sdk import (
    RequestInvalid,
    client,
    parsed_event,
    parsed_events,
    parsed_response,
    validate,
    validate_tools,
)
from budget import examples
from ownership import assert_owned

WEATHER = ToolSpec(
    name="get_weather",
    description="The forecast for a city.",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"],
    },
)


def _feed(events: list[Any]) -> bedrock.Accumulator:
    accumulator = bedrock.Accumulator()
    for event in events:
        accumulator.feed(event)
    return accumulator


def _both_ways(reply: dict[str, Any], events: list[dict[str, Any]]) -> list[ct.Message]:
    """The reply read four ways (JSON, boto3; whole, streamed): one result."""
    expected = bedrock.from_response(reply)
    assert bedrock.from_response(parsed_response(reply)) == expected
    assert _feed(events).result() == expected
    assert _feed(parsed_events(events)).result() == expected
    assert _feed(events).reply() == bedrock.read_reply(reply)
    return expected


def _sent(reply_messages: list[ct.Message]) -> list[dict[str, Any]]:
    """What the next request sends back for a reply, validated."""
    transcript: list[ct.Message] = [ct.UserMessage(content="q"), *reply_messages]
    body = bedrock.to_request(transcript)
    validate(body, bedrock.tools_to_request([ToolSpec(name="f")]))
    content: list[dict[str, Any]] = body["messages"][1]["content"]
    return content


def _wire(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Content blocks as boto3 takes them: the REST JSON's base64 text as bytes."""
    out: list[dict[str, Any]] = json.loads(json.dumps(blocks))
    for block in out:
        reasoning = block.get("reasoningContent", {})
        if "redactedContent" in reasoning:
            reasoning["redactedContent"] = base64.b64decode(reasoning["redactedContent"])
        use = block.get("toolUse", {})
        if use.get("type") == "tool_use":
            del use["type"]
    return out


# --- tools --------------------------------------------------------------------------


def test_tools_go_as_tool_specs_and_boto3_takes_them() -> None:
    fields = bedrock.tools_to_request([WEATHER])
    assert fields == {
        "toolConfig": {
            "tools": [
                {
                    "toolSpec": {
                        "name": "get_weather",
                        "description": "The forecast for a city.",
                        "inputSchema": {"json": WEATHER.parameters},
                    }
                }
            ]
        }
    }
    validate_tools(fields)


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("auto", None),
        ("required", {"any": {}}),
        ("get_weather", {"tool": {"name": "get_weather"}}),
    ],
)
def test_tool_choice_by_meaning(choice: str, expected: dict[str, Any] | None) -> None:
    fields = bedrock.tools_to_request([WEATHER, ToolSpec(name="other")], choice=choice)
    validate_tools(fields)
    assert fields["toolConfig"].get("toolChoice") == expected


def test_no_tools_and_none_give_no_fields() -> None:
    # Converse cannot forbid calls: "none" offers no tools at all.
    assert bedrock.tools_to_request([]) == {}
    assert bedrock.tools_to_request([WEATHER], choice="none") == {}
    assert bedrock.tools_to_request([WEATHER], choice="none", cache=True) == {}


def test_a_blank_description_is_no_field_and_a_root_gets_its_type() -> None:
    fields = bedrock.tools_to_request(
        [ToolSpec(name="a", description="  ", parameters={"properties": {}})]
    )
    validate_tools(fields)
    assert fields["toolConfig"]["tools"] == [
        {"toolSpec": {"name": "a", "inputSchema": {"json": {"type": "object", "properties": {}}}}}
    ]


def test_pydantic_schemas_go_with_their_root_inlined() -> None:
    from pydantic import BaseModel

    class Person(BaseModel):
        name: str
        friends: list[Person] = []

    fields = bedrock.tools_to_request(
        [ToolSpec(name="save", parameters=Person.model_json_schema())]
    )
    validate_tools(fields)
    schema = fields["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"]["json"]
    assert schema["type"] == "object" and "friends" in schema["properties"]


@pytest.mark.parametrize(
    ("tools", "choice", "pattern", "path"),
    [
        ([ToolSpec(name="has space")], "auto", "tool names matching", ""),
        ([ToolSpec(name="a.b")], "auto", "tool names matching", ""),
        ([ToolSpec(name="x" * 65)], "auto", "tool names matching", ""),
        ([ToolSpec(name="a"), ToolSpec(name="a")], "auto", "given twice", ""),
        ([ToolSpec(name="a")], "b", "nor the name of a tool", ""),
        ([ToolSpec(name="a", parameters={"type": "array"})], "auto", "object schema", "/type"),
    ],
)
def test_tools_the_api_refuses_are_refused(
    tools: list[ToolSpec], choice: str, pattern: str, path: str
) -> None:
    with pytest.raises(ToolSchemaError, match=pattern) as caught:
        bedrock.tools_to_request(tools, choice=choice)
    assert caught.value.path == path


# --- requests -----------------------------------------------------------------------


def test_a_turn_of_calls_and_results_in_boto3_shapes() -> None:
    messages: list[ct.Message] = [
        ct.SystemMessage(content="Be terse."),
        ct.SystemMessage(content="Metric units."),
        ct.UserMessage(content="Weather in Oslo?"),
        ct.AssistantMessage(
            content="Checking.",
            tool_calls=(
                ct.ToolCall(id="tooluse_1", name="get_weather", arguments={"city": "Oslo"}),
            ),
            thinking=(ct.ThinkingBlock(text="Need the forecast.", signature=SIGNATURE),),
        ),
        ct.ToolResultMessage(tool_use_id="tooluse_1", content="Rain, 4 C"),
        ct.UserMessage(content="And tomorrow?"),
    ]
    body = bedrock.to_request(messages)
    validate(body, bedrock.tools_to_request([WEATHER]))
    assert body == {
        "system": [{"text": "Be terse."}, {"text": "Metric units."}],
        "messages": [
            {"role": "user", "content": [{"text": "Weather in Oslo?"}]},
            {
                "role": "assistant",
                "content": [
                    {
                        "reasoningContent": {
                            "reasoningText": {"text": "Need the forecast.", "signature": SIGNATURE}
                        }
                    },
                    {"text": "Checking."},
                    {
                        "toolUse": {
                            "toolUseId": "tooluse_1",
                            "name": "get_weather",
                            "input": {"city": "Oslo"},
                        }
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {"toolResult": {"toolUseId": "tooluse_1", "content": [{"text": "Rain, 4 C"}]}},
                    {"text": "And tomorrow?"},
                ],
            },
        ],
    }


def test_the_request_goes_through_a_real_client() -> None:
    made, transport = client()
    transport.reply_json(reply_of([{"text": "Rain."}]))
    messages: list[ct.Message] = [ct.UserMessage(content="Weather?")]
    response = made.converse(
        modelId="anthropic.claude-sonnet-4-5-20250929-v1:0",
        **bedrock.to_request(messages, cache=True),
        **bedrock.tools_to_request([WEATHER], cache="1h"),
        inferenceConfig={"maxTokens": 512},
        additionalModelRequestFields={"thinking": {"type": "enabled", "budget_tokens": 1024}},
    )
    reply = bedrock.read_reply(response)
    assert reply.messages == [ct.AssistantMessage(content="Rain.")]
    assert reply.id == "req-0001"  # boto3's ResponseMetadata.RequestId
    sent = transport.sent[0]
    assert sent["messages"] == [
        {"role": "user", "content": [{"text": "Weather?"}, {"cachePoint": {"type": "default"}}]}
    ]
    assert sent["toolConfig"]["tools"][-1] == {"cachePoint": {"type": "default", "ttl": "1h"}}
    assert sent["additionalModelRequestFields"] == {
        "thinking": {"type": "enabled", "budget_tokens": 1024}
    }


def test_ids_the_api_refuses_are_replaced_and_results_follow() -> None:
    messages: list[ct.Message] = [
        ct.UserMessage(content="go"),
        ct.AssistantMessage(
            tool_calls=(
                ct.ToolCall(id="has space", name="f", arguments={}),
                ct.ToolCall(id="x" * 65, name="f", arguments={}),
                ct.ToolCall(id="functions.lookup:0", name="lookup", arguments={}),
                ct.ToolCall(name="f", arguments={}),
            )
        ),
        ct.ToolResultMessage(tool_use_id="has space", content="a"),
        ct.ToolResultMessage(tool_use_id="x" * 65, content="b"),
        ct.ToolResultMessage(tool_use_id="functions.lookup:0", content="c"),
        ct.ToolResultMessage(tool_use_id="call_3", content="d"),
    ]
    body = bedrock.to_request(messages)
    validate(body)
    calls = [b["toolUse"]["toolUseId"] for b in body["messages"][1]["content"]]
    results = [b["toolResult"]["toolUseId"] for b in body["messages"][2]["content"]]
    # A Kimi-style id ("functions.name:0") fits the API's own pattern and goes as it came.
    assert calls == ["call_1_0", "call_1_1", "functions.lookup:0", "call_1_3"]
    assert results == calls


def test_a_tool_name_the_api_refuses_is_spelled_its_way() -> None:
    messages: list[ct.Message] = [
        ct.UserMessage(content="go"),
        ct.AssistantMessage(
            tool_calls=(
                ct.ToolCall(id="a", name="web.search", arguments={}),
                ct.ToolCall(id="b", name="", arguments={}),
                ct.ToolCall(id="c", name="é" * 70, arguments={}),
            )
        ),
    ]
    body = bedrock.to_request(messages)
    validate(body)
    names = [b["toolUse"]["name"] for b in body["messages"][1]["content"]]
    assert names == ["web_search", "_", "_" * 64]


def test_blank_text_and_turns_left_with_nothing_are_left_out() -> None:
    messages: list[ct.Message] = [
        ct.SystemMessage(content=" "),
        ct.UserMessage(content="hi"),
        ct.UserMultimodalMessage(content=(ct.TextBlock(text=""), ct.TextBlock(text="there"))),
        ct.AssistantMessage(content="  "),
        ct.UserMessage(content="\n"),
        ct.AssistantMessage(content="ok"),
    ]
    body = bedrock.to_request(messages)
    validate(body)
    assert body == {
        "messages": [
            {"role": "user", "content": [{"text": "hi"}, {"text": "there"}]},
            {"role": "assistant", "content": [{"text": "ok"}]},
        ]
    }
    assert bedrock.left_out(messages) == [
        LeftOut(0, "text", "a blank system prompt, which the API refuses"),
        LeftOut(2, "text", "block 0: blank text, which the API refuses"),
        LeftOut(3, "text", "blank text, which the API refuses"),
        LeftOut(4, "text", "blank text, which the API refuses"),
    ]


@pytest.mark.parametrize("messages", [[], [ct.SystemMessage(content="Be terse.")]])
def test_a_transcript_with_no_turn_is_refused(messages: list[ct.Message]) -> None:
    with pytest.raises(DialectError, match="no turn to send"):
        bedrock.to_request(messages)


def test_the_first_turn_must_be_the_users() -> None:
    messages: list[ct.Message] = [ct.UserMessage(content=""), ct.AssistantMessage(content="Hi.")]
    with pytest.raises(DialectError, match="start with a user message") as caught:
        bedrock.to_request(messages)
    assert caught.value.index == 1


def test_unsigned_reasoning_is_left_out_and_a_turn_of_reasoning_alone_too() -> None:
    messages: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(
            content="a",
            thinking=(
                ct.ThinkingBlock(text="another provider's"),
                ct.ThinkingBlock(text="x", signature=""),
            ),
        ),
        ct.UserMessage(content="r"),
        ct.AssistantMessage(thinking=(ct.ThinkingBlock(text="cut here", signature=SIGNATURE),)),
        ct.UserMessage(content="s"),
    ]
    body = bedrock.to_request(messages)
    validate(body)
    assert body["messages"] == [
        {"role": "user", "content": [{"text": "q"}]},
        {"role": "assistant", "content": [{"text": "a"}]},
        {"role": "user", "content": [{"text": "r"}, {"text": "s"}]},
    ]
    assert bedrock.left_out(messages) == [
        LeftOut(
            1, "thinking", "thinking block 0: reasoning without a signature, which the API refuses"
        ),
        LeftOut(
            1, "thinking", "thinking block 1: reasoning without a signature, which the API refuses"
        ),
        LeftOut(
            3,
            "thinking",
            "thinking block 0: an assistant turn of reasoning alone, which newer models refuse",
        ),
    ]


def test_redacted_reasoning_goes_back_as_bytes() -> None:
    raw = base64.b64decode(REDACTED)
    messages: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(content="a", thinking=(ct.ThinkingBlock(redacted_data=REDACTED),)),
        ct.UserMessage(content="r"),
    ]
    body = bedrock.to_request(messages)
    validate(body)
    assert body["messages"][1]["content"][0] == {"reasoningContent": {"redactedContent": raw}}
    assert bedrock.left_out(messages) == []


def test_redacted_data_that_is_not_base64_is_left_out() -> None:
    messages: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(content="a", thinking=(ct.ThinkingBlock(redacted_data="not base64!"),)),
    ]
    body = bedrock.to_request(messages)
    validate(body)
    assert body["messages"][1]["content"] == [{"text": "a"}]
    assert bedrock.left_out(messages) == [
        LeftOut(1, "redacted-thinking", "thinking block 0: redacted data that is not base64 text")
    ]


# --- cache points -----------------------------------------------------------------------


def _points(body: dict[str, Any]) -> list[tuple[str, int, int]]:
    """Where the cache points are: (place, message, block)."""
    found = [("system", -1, at) for at, b in enumerate(body.get("system", ())) if "cachePoint" in b]
    for number, message in enumerate(body["messages"]):
        found += [
            ("messages", number, at)
            for at, block in enumerate(message["content"])
            if "cachePoint" in block
        ]
    return found


CACHED: list[ct.Message] = [
    ct.SystemMessage(content="Be terse."),
    ct.UserMessage(content="one"),
    ct.AssistantMessage(content="1"),
    ct.UserMessage(content="two"),
    ct.AssistantMessage(
        thinking=(ct.ThinkingBlock(text="t", signature=SIGNATURE),),
        tool_calls=(ct.ToolCall(id="c1", name="f", arguments={}),),
    ),
    ct.ToolResultMessage(tool_use_id="c1", content="r"),
    ct.UserMultimodalMessage(
        content=(
            ct.TextBlock(text="three"),
            ct.VideoBase64Block(data=b64(b"\x00\x00\x00 ftypmp4"), media_type="video/mp4"),
        )
    ),
]


@pytest.mark.parametrize("cache", [True, "5m", "1h"])
def test_cache_marks_the_system_prompt_and_the_last_two_user_turns(cache: Any) -> None:
    body = bedrock.to_request(CACHED, cache=cache)
    tools = bedrock.tools_to_request([ToolSpec(name="f")], cache=cache)
    validate(body, tools)
    point = {"type": "default", "ttl": "1h"} if cache == "1h" else {"type": "default"}
    assert body["system"][-1] == {"cachePoint": point}
    assert tools["toolConfig"]["tools"][-1] == {"cachePoint": point}
    # The last user turn ends with a video, which no cache point may follow:
    # the point goes after the text before it.
    last = body["messages"][-1]["content"]
    assert [next(iter(b)) for b in last] == ["toolResult", "text", "cachePoint", "video"]
    assert _points(body) == [("system", -1, 1), ("messages", 2, 1), ("messages", 4, 2)]
    assert len(_points(body)) + 1 <= 4


def test_no_cache_marks_nothing_and_a_user_turn_of_video_alone_gets_no_mark() -> None:
    assert _points(bedrock.to_request(CACHED)) == []
    video = ct.VideoBase64Block(data=b64(b"mp4"), media_type="video/mp4")
    messages: list[ct.Message] = [ct.UserMultimodalMessage(content=(video,))]
    body = bedrock.to_request(messages, cache=True)
    validate(body)
    assert _points(body) == []


@pytest.mark.parametrize(
    ("cache", "error"), [("2h", ValueError), (5, TypeError), (None, TypeError)]
)
def test_a_cache_value_that_means_nothing_is_refused(cache: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="cache="):
        bedrock.to_request(CACHED, cache=cache)
    with pytest.raises(error, match="cache="):
        bedrock.tools_to_request([WEATHER], cache=cache)


def test_a_cache_point_kept_in_old_items_is_not_sent() -> None:
    items = ct.ProviderOutputItemsMessage(
        protocol="bedrock-converse",
        items=({"text": "kept"}, {"cachePoint": {"type": "default"}}),
    )
    messages: list[ct.Message] = [
        ct.UserMessage(content="q"),
        items,
        ct.AssistantMessage(content="kept"),
        ct.UserMessage(content="r"),
    ]
    for cache in (False, True):
        body = bedrock.to_request(messages, cache=cache)
        validate(body)
        assert body["messages"][1]["content"] == [{"text": "kept"}]
        assert len(_points(body)) == (2 if cache else 0)
    assert bedrock.left_out(messages) == [
        LeftOut(1, "cache-control", "item 1: a cache point kept by an older version")
    ]


# --- stop reasons, usage, model, id --------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "ours"),
    [
        ("end_turn", "end_turn"),
        ("tool_use", "tool_use"),
        ("max_tokens", "max_tokens"),
        ("model_context_window_exceeded", "max_tokens"),
        ("stop_sequence", "stop_sequence"),
        ("guardrail_intervened", "content_filter"),
        ("content_filtered", "content_filter"),
        ("malformed_model_output", "other"),
        ("malformed_tool_use", "other"),
        ("something_new", "other"),
    ],
)
def test_stop_reasons_by_meaning(provider: str, ours: str) -> None:
    reply = reply_of([{"text": "x"}], stop=provider)
    assert bedrock.read_reply(reply).stop_reason == ours
    assert bedrock.read_reply(reply).provider_stop_reason == provider
    assert _feed(events_of(reply)).reply().stop_reason == ours


def test_a_reply_that_ends_in_calls_is_tool_use_whatever_it_says() -> None:
    reply = thinking_then_call()
    reply["stopReason"] = "end_turn"
    assert bedrock.read_reply(reply).stop_reason == "tool_use"


def test_usage_counts_the_whole_prompt() -> None:
    usage = cached_usage()
    reply = reply_of([{"text": "21"}], usage=usage)
    expected = Usage(
        input_tokens=2 + 1322,
        output_tokens=5,
        cache_read_tokens=0,
        cache_write_tokens=1322,
        raw=usage,
    )
    assert bedrock.read_reply(reply).usage == expected
    assert _feed(events_of(reply)).reply().usage == expected
    assert expected.input_tokens is not None and expected.output_tokens is not None
    assert expected.input_tokens + expected.output_tokens == usage["totalTokens"]
    # boto3 drops the counters its model does not list.
    boto = bedrock.read_reply(parsed_response(reply)).usage
    assert (boto.input_tokens, boto.cache_write_tokens) == (1324, 1322)
    assert boto.raw is not None and "cacheWriteInputTokenCount" not in boto.raw


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({}, Usage(raw={})),
        ({"outputTokens": 3}, Usage(output_tokens=3, raw={"outputTokens": 3})),
        (
            {"inputTokens": 4, "cacheReadInputTokens": 6},
            Usage(
                input_tokens=10,
                cache_read_tokens=6,
                raw={"inputTokens": 4, "cacheReadInputTokens": 6},
            ),
        ),
        ({"inputTokens": "4"}, Usage(raw={"inputTokens": "4"})),
    ],
)
def test_usage_leaves_what_was_not_reported_none(usage: dict[str, Any], expected: Usage) -> None:
    assert bedrock.read_reply(reply_of([{"text": "x"}], usage=usage)).usage == expected


def test_no_usage_is_no_count() -> None:
    reply = reply_of([{"text": "x"}])
    del reply["usage"]
    assert bedrock.read_reply(reply).usage == Usage()


def test_the_model_a_prompt_router_chose_and_the_request_id() -> None:
    arn = "arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0"
    reply = reply_of([{"text": "x"}], trace={"promptRouter": {"invokedModelId": arn}})
    assert bedrock.read_reply(reply).model == arn
    assert _feed(events_of(reply)).reply().model == arn
    boto = bedrock.read_reply(parsed_response(reply, request_id="r-42"))
    assert (boto.model, boto.id) == (arn, "r-42")
    # A stream's events name neither the request nor, without a router, the model.
    assert _feed(events_of(reply_of([{"text": "x"}]))).reply().model is None
    assert _feed(events_of(reply)).reply().id is None


# --- recorded replies: read four ways, replayed as they came -----------------------------------


def test_signed_reasoning_text_and_a_call() -> None:
    reply = thinking_then_call()
    messages = _both_ways(reply, events_of(reply))
    # type "tool_use" is how the service spells a client call; its request
    # model does not list it, and the call goes back without it: no items.
    assert messages == [
        ct.AssistantMessage(
            content="Let me look up your country first.",
            tool_calls=(
                ct.ToolCall(
                    id="tooluse_4Lo0VSxFT5yev_QskOCQdw", name="get_user_country", arguments={}
                ),
            ),
            thinking=(
                ct.ThinkingBlock(
                    text="The user asks about their city; I need their country first.",
                    signature=SIGNATURE,
                ),
            ),
        )
    ]
    sent = _sent(
        [
            *messages,
            ct.ToolResultMessage(tool_use_id="tooluse_4Lo0VSxFT5yev_QskOCQdw", content="Mexico"),
        ]
    )
    assert sent == _wire(reply["output"]["message"]["content"])
    reply_ = bedrock.read_reply(reply)
    assert [(c.id, c.name) for c in reply_.tool_calls] == [
        ("tooluse_4Lo0VSxFT5yev_QskOCQdw", "get_user_country")
    ]
    assert reply_.usage.input_tokens == 397 and reply_.stop_reason == "tool_use"


def test_redacted_reasoning_is_kept_as_the_base64_the_json_sends() -> None:
    reply = redacted_then_text()
    messages = _both_ways(reply, events_of(reply))
    assert messages == [
        ct.AssistantMessage(
            content="I have no hidden modes. What would you like to talk about?",
            thinking=(ct.ThinkingBlock(redacted_data=REDACTED),),
        )
    ]
    # boto3 reads the bytes; they go back as the same bytes.
    boto = parsed_response(reply)
    assert boto["output"]["message"]["content"][0]["reasoningContent"]["redactedContent"] == (
        base64.b64decode(REDACTED)
    )
    assert _sent(messages) == _wire(reply["output"]["message"]["content"])


def test_the_recorded_redacted_stream() -> None:
    events = redacted_stream()
    # No block is started: text and reasoning begin with their first delta.
    assert not any("contentBlockStart" in event for event in events)
    accumulator = bedrock.Accumulator()
    deltas = [delta for event in events for delta in accumulator.feed(event)]
    # boto3 reads the same messages (and drops the usage counters its model lacks).
    assert _feed(parsed_events(events)).result() == accumulator.result()
    [assistant] = accumulator.result()
    assert isinstance(assistant, ct.AssistantMessage)
    assert [t.redacted_data for t in assistant.thinking] == [
        REDACTED,
        base64.b64encode(b"ErgBCkgICxABGAIqQGFub3RoZXItcmVkYWN0ZWQtYmxvY2s=").decode(),
        REDACTED,
    ]
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == assistant.content
    assert accumulator.reply().usage.output_tokens == 173
    assert _sent([assistant])[:3] == [
        {"reasoningContent": {"redactedContent": base64.b64decode(t.redacted_data or "")}}
        for t in assistant.thinking
    ]


def test_the_recorded_thinking_stream() -> None:
    events = thinking_stream()
    accumulator = bedrock.Accumulator()
    deltas = [delta for event in events for delta in accumulator.feed(event)]
    assert deltas == [
        ThinkingDelta("The user"),
        ThinkingDelta(" said hello."),
        ThinkingDelta(" A short, warm reply."),
        TextDelta("Hello! How"),
        TextDelta(" can I help today?"),
    ]
    assert accumulator.result() == [
        ct.AssistantMessage(
            content="Hello! How can I help today?",
            thinking=(
                ct.ThinkingBlock(
                    text="The user said hello. A short, warm reply.", signature=SIGNATURE
                ),
            ),
        )
    ]
    assert _feed(parsed_events(events)).result() == accumulator.result()


def test_a_server_tool_keeps_its_blocks_and_replays_them() -> None:
    reply = code_interpreter()
    messages = _both_ways(reply, events_of(reply))
    items, assistant = messages
    assert items == ct.ProviderOutputItemsMessage(
        protocol="bedrock-converse", items=tuple(reply["output"]["message"]["content"])
    )
    # The server's own call is no call to run; the client's is.
    assert assistant == ct.AssistantMessage(
        tool_calls=(
            ct.ToolCall(
                id="tooluse_owdFRfkTTQabYjvP3GM_vQ",
                name="final_result",
                arguments={"result": 7006652.0},
            ),
        )
    )
    assert [c.id for c in bedrock.read_reply(reply).tool_calls] == [
        "tooluse_owdFRfkTTQabYjvP3GM_vQ"
    ]
    result = ct.ToolResultMessage(tool_use_id="tooluse_owdFRfkTTQabYjvP3GM_vQ", content="done")
    sent = _sent([*messages, result])
    assert sent == _wire(reply["output"]["message"]["content"])
    assert bedrock.left_out([ct.UserMessage(content="q"), *messages, result]) == []


def test_citations_are_text_and_kept_as_items() -> None:
    reply = cited_reply()
    messages = _both_ways(reply, events_of(reply))
    items, assistant = messages
    assert assistant == ct.AssistantMessage(
        content="In short: replace now runs __post_init__. That is all."
    )
    assert isinstance(items, ct.ProviderOutputItemsMessage)
    assert _sent(messages) == _wire(reply["output"]["message"]["content"])
    # Another dialect sends the text without the citations.
    body = openai_chat.to_request([ct.UserMessage(content="q"), *messages])
    assert body["messages"][1] == {"role": "assistant", "content": assistant.content}


def test_citations_stream_before_or_after_their_text() -> None:
    reply = cited_reply()
    events = events_of(reply)
    # The service may send the text of a cited block before its citation.
    at = next(
        n
        for n, e in enumerate(events)
        if "citation" in e.get("contentBlockDelta", {}).get("delta", {})
    )
    moved = events[:at] + events[at + 1 : at + 3] + [events[at]] + events[at + 3 :]
    assert _feed(moved).result() == bedrock.from_response(reply)


def test_block_order_the_flat_message_cannot_keep_is_kept() -> None:
    content = [
        {"text": "Before."},
        {"toolUse": {"toolUseId": "t1", "name": "f", "input": {"k": 1}}},
        {"text": "After."},
    ]
    reply = reply_of(content, stop="tool_use")
    items, assistant = _both_ways(reply, events_of(reply))
    assert assistant == ct.AssistantMessage(
        content="Before.\n\nAfter.",
        tool_calls=(ct.ToolCall(id="t1", name="f", arguments={"k": 1}),),
    )
    assert _sent([items, assistant, ct.ToolResultMessage(tool_use_id="t1", content="r")]) == content


def test_a_block_type_never_seen_is_kept_and_goes_back_as_it_came() -> None:
    content = [{"futureBlock": {"x": [1, 2]}}, {"text": "ok"}]
    reply = reply_of(content)
    items, assistant = bedrock.from_response(reply)
    assert items == ct.ProviderOutputItemsMessage(protocol="bedrock-converse", items=tuple(content))
    assert _feed(events_of(reply_of([{"text": "ok"}]))).result() == [assistant]
    transcript: list[ct.Message] = [ct.UserMessage(content="q"), items, assistant]
    assert bedrock.to_request(transcript)["messages"][1]["content"] == content


def test_a_block_boto3_could_not_read_is_not_sent() -> None:
    # botocore reads a union member newer than its model as SDK_UNKNOWN_MEMBER,
    # and drops what it held: nothing of it can go back.
    content = [{"SDK_UNKNOWN_MEMBER": {"name": "futureBlock"}}, {"text": "ok"}]
    messages = bedrock.from_response(reply_of(content))
    assert len(messages) == 2
    transcript: list[ct.Message] = [ct.UserMessage(content="q"), *messages]
    body = bedrock.to_request(transcript)
    validate(body)
    assert body["messages"][1]["content"] == [{"text": "ok"}]
    assert bedrock.left_out(transcript) == [
        LeftOut(1, "items", "item 0: a block boto3 could not read, whose content it dropped")
    ]


def test_an_image_in_a_reply_is_kept_as_base64_and_goes_back_as_bytes() -> None:
    png = b"\x89PNG\r\n\x1a\nrest"
    content = [{"image": {"format": "png", "source": {"bytes": b64(png)}}}, {"text": "Here."}]
    reply = reply_of(content)
    messages = _both_ways(reply, events_of(reply))
    assert isinstance(messages[0], ct.ProviderOutputItemsMessage)
    sent = _sent(messages)
    assert sent[0] == {"image": {"format": "png", "source": {"bytes": png}}}


def test_items_of_other_protocols_are_dropped_and_other_dialects_drop_these() -> None:
    reply = code_interpreter()
    messages = bedrock.from_response(reply)
    result = ct.ToolResultMessage(tool_use_id="tooluse_owdFRfkTTQabYjvP3GM_vQ", content="done")
    transcript: list[ct.Message] = [ct.UserMessage(content="q"), *messages, result]
    claude = anthropic.to_request(transcript)
    assert [b["type"] for b in claude["messages"][1]["content"]] == ["tool_use"]
    foreign = ct.ProviderOutputItemsMessage(
        protocol="anthropic", items=({"type": "text", "text": "x"},)
    )
    other: list[ct.Message] = [
        ct.UserMessage(content="q"),
        foreign,
        ct.AssistantMessage(content="x"),
    ]
    assert bedrock.to_request(other)["messages"][1]["content"] == [{"text": "x"}]
    assert bedrock.left_out(other) == [LeftOut(1, "items", "items of protocol anthropic")]
    # No items, no loss: nothing is named (as every other dialect has it).
    other[1] = ct.ProviderOutputItemsMessage(protocol="anthropic", items=())
    assert bedrock.left_out(other) == []


def test_items_go_back_once_and_the_message_after_them_adds_only_what_they_lack() -> None:
    reply = code_interpreter()
    items, assistant = bedrock.from_response(reply)
    assert isinstance(assistant, ct.AssistantMessage)
    extra = ct.ToolCall(id="tooluse_extra", name="g", arguments={})
    grown = ct.AssistantMessage(content="Also this.", tool_calls=(*assistant.tool_calls, extra))
    transcript: list[ct.Message] = [
        ct.UserMessage(content="q"),
        items,
        grown,
        ct.ToolResultMessage(tool_use_id="tooluse_owdFRfkTTQabYjvP3GM_vQ", content="a"),
        ct.ToolResultMessage(tool_use_id="tooluse_extra", content="b"),
    ]
    body = bedrock.to_request(transcript)
    validate(body)
    sent = body["messages"][1]["content"]
    assert sent[:3] == _wire(reply["output"]["message"]["content"])
    assert sent[3:] == [
        {"text": "Also this."},
        {"toolUse": {"toolUseId": "tooluse_extra", "name": "g", "input": {}}},
    ]


def test_kept_bytes_that_are_not_base64_are_refused_naming_the_message() -> None:
    items = ct.ProviderOutputItemsMessage(
        protocol="bedrock-converse",
        items=({"image": {"format": "png", "source": {"bytes": "not base64!"}}},),
    )
    transcript: list[ct.Message] = [ct.UserMessage(content="q"), items, ct.AssistantMessage()]
    with pytest.raises(
        DialectError, match="message 1: a kept image block cannot be sent"
    ) as caught:
        bedrock.to_request(transcript)
    assert caught.value.index == 1


# --- streams ------------------------------------------------------------------------------


def test_deltas_show_reasoning_text_and_calls_as_they_come() -> None:
    reply = thinking_then_call()
    reply["output"]["message"]["content"][2]["toolUse"]["input"] = {"city": "Oslo"}
    accumulator = bedrock.Accumulator()
    deltas = [d for event in events_of(reply) for d in accumulator.feed(event)]
    thought = "The user asks about their city; I need their country first."
    text = "Let me look up your country first."
    arguments = json.dumps({"city": "Oslo"})
    assert deltas == [
        ThinkingDelta(thought[: len(thought) // 2]),
        ThinkingDelta(thought[len(thought) // 2 :]),
        TextDelta(text[: len(text) // 2]),
        TextDelta(text[len(text) // 2 :]),
        ToolCallStart(0, "tooluse_4Lo0VSxFT5yev_QskOCQdw", "get_user_country"),
        ToolCallDelta(0, arguments[: len(arguments) // 2]),
        ToolCallDelta(0, arguments[len(arguments) // 2 :]),
    ]


def test_texts_other_blocks_separate_are_a_blank_line_apart() -> None:
    reply = reply_of(
        [
            {"text": "Before."},
            {"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}},
            {"reasoningContent": {"reasoningText": {"text": "hm", "signature": "s"}}},
            {"text": "After."},
        ],
        stop="tool_use",
    )
    accumulator = bedrock.Accumulator()
    texts = [
        d.text
        for event in events_of(reply, whole)
        for d in accumulator.feed(event)
        if isinstance(d, TextDelta)
    ]
    assert texts == ["Before.", "\n\nAfter."]
    assert "".join(texts) == bedrock.from_response(reply)[-1].content  # type: ignore[union-attr]


def test_a_server_call_gives_no_call_deltas() -> None:
    accumulator = bedrock.Accumulator()
    deltas = [d for event in events_of(code_interpreter()) for d in accumulator.feed(event)]
    starts = [d for d in deltas if isinstance(d, ToolCallStart)]
    assert starts == [ToolCallStart(0, "tooluse_owdFRfkTTQabYjvP3GM_vQ", "final_result")]
    assert all(d.index == 0 for d in deltas if isinstance(d, ToolCallDelta))


def _unique_calls(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Blocks with every toolUse id made unique, each server call followed by its result."""
    out: list[dict[str, Any]] = []
    for number, block in enumerate(content):
        if "toolUse" in block:
            use = {**block["toolUse"], "toolUseId": f"tooluse_{number:03d}"}
            out.append({"toolUse": use})
            if use.get("type") == "server_tool_use":
                result = {
                    "toolUseId": use["toolUseId"],
                    "type": "nova_code_interpreter_result",
                    "status": "success",
                    "content": [{"json": {"stdOut": "1"}}],
                }
                out.append({"toolResult": result})
        else:
            out.append(block)
    return out


_arguments = st.dictionaries(cst.texts(8), cst.json_values(6), max_size=3)
_blocks = st.one_of(
    cst.texts().map(lambda text: {"text": text}),
    st.tuples(cst.texts(), cst.texts(16).filter(bool)).map(
        lambda p: {"reasoningContent": {"reasoningText": {"text": p[0], "signature": p[1]}}}
    ),
    cst.texts().map(lambda text: {"reasoningContent": {"reasoningText": {"text": text}}}),
    st.binary(min_size=1, max_size=12).map(
        lambda raw: {"reasoningContent": {"redactedContent": b64(raw)}}
    ),
    st.tuples(st.sampled_from(["f", "g_1", "h-2"]), _arguments).map(
        lambda p: {"toolUse": {"toolUseId": "x", "name": p[0], "input": p[1]}}
    ),
    _arguments.map(
        lambda a: {
            "toolUse": {
                "toolUseId": "x",
                "name": "nova_code_interpreter",
                "input": a,
                "type": "server_tool_use",
            }
        }
    ),
    cst.texts().map(
        lambda text: {
            "citationsContent": {"content": [{"text": text}], "citations": [citation(0, 3)]}
        }
    ),
)
_contents = st.lists(_blocks, max_size=6).map(_unique_calls)


def _pieces(data: st.DataObject) -> Any:
    def cut(text: str) -> list[str]:
        if len(text) < 2:
            return [text]
        points = sorted(data.draw(st.sets(st.integers(1, len(text) - 1), max_size=4)))
        edges = [0, *points, len(text)]
        return [text[a:b] for a, b in itertools.pairwise(edges)]

    return cut


@settings(max_examples=examples(150, 30), deadline=None)
@given(_contents, st.data())
def test_deltas_add_up_to_the_reply(content: list[dict[str, Any]], data: st.DataObject) -> None:
    reply = reply_of(content, stop="tool_use")
    events = events_of(reply, _pieces(data))
    if data.draw(st.booleans()):
        events = parsed_events(events)  # as boto3 yields them: bytes, no padding
    accumulator = bedrock.Accumulator()
    deltas = [d for event in events for d in accumulator.feed(event)]
    messages = bedrock.from_response(reply)
    assert accumulator.result() == messages
    assistant = messages[-1]
    assert isinstance(assistant, ct.AssistantMessage)
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == assistant.content
    thoughts = "".join(t.text for t in assistant.thinking)
    assert "".join(d.text for d in deltas if isinstance(d, ThinkingDelta)) == thoughts
    starts = [d for d in deltas if isinstance(d, ToolCallStart)]
    assert [(s.id, s.name) for s in starts] == [(c.id, c.name) for c in assistant.tool_calls]
    for position, call in enumerate(assistant.tool_calls):
        text = "".join(
            d.arguments for d in deltas if isinstance(d, ToolCallDelta) and d.index == position
        )
        assert json.loads(text) == call.arguments


def _replayable_wire(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What of a reply's content the API takes back, as boto3 takes it."""
    out = []
    for block in _wire(content):
        text = block.get("text")
        if isinstance(text, str) and (text == "" or text.isspace()):
            continue
        reasoning = block.get("reasoningContent", {}).get("reasoningText")
        if reasoning is not None and not reasoning.get("signature"):
            continue
        out.append(block)
    if all("reasoningContent" in block for block in out):
        return []  # a turn of reasoning alone is not sent
    return out


@settings(max_examples=examples(150, 30), deadline=None)
@given(_contents)
def test_every_reply_replays_as_it_came(content: list[dict[str, Any]]) -> None:
    reply = reply_of(content, stop="tool_use")
    messages = bedrock.from_response(reply)
    results = [
        ct.ToolResultMessage(tool_use_id=call.id, content="ok")
        for call in bedrock.read_reply(reply).tool_calls
    ]
    transcript: list[ct.Message] = [ct.UserMessage(content="q"), *messages, *results]
    body = bedrock.to_request(transcript)
    validate(body, bedrock.tools_to_request([ToolSpec(name="f")]))
    expected = _replayable_wire(content)
    if expected:
        assert body["messages"][1]["content"] == expected
    else:
        assert body["messages"] == [{"role": "user", "content": [{"text": "q"}]}]
    # left_out names one piece for each block the transcript stored (the
    # items, or the flat message's thinking, text and calls) that did not go.
    noted = bedrock.left_out(transcript)
    assert all(note.index in (1, len(messages)) for note in noted)
    assistant = messages[-1]
    assert isinstance(assistant, ct.AssistantMessage)
    if len(messages) == 2:
        stored = len(messages[0].items)  # type: ignore[union-attr]
    else:
        stored = len(assistant.thinking) + bool(assistant.content) + len(assistant.tool_calls)
    sent = len(body["messages"][1]["content"]) if len(body["messages"]) > 1 else 0
    assert len(noted) == stored - sent


# --- a cut stream, a cancel, and the next request ---------------------------------------------


def _parallel_calls() -> dict[str, Any]:
    """Reference: text, then two client calls (Claude's parallel tool use)."""
    return reply_of(
        [
            {"text": "Checking both."},
            {
                "toolUse": {
                    "toolUseId": "tooluse_a1",
                    "name": "get_weather",
                    "input": {"city": "Oslo"},
                    "type": "tool_use",
                }
            },
            {
                "toolUse": {
                    "toolUseId": "tooluse_b2",
                    "name": "get_weather",
                    "input": {"city": "Rome"},
                    "type": "tool_use",
                }
            },
        ],
        stop="tool_use",
    )


STREAMS: dict[str, Callable[[], list[dict[str, Any]]]] = {
    "thinking-then-call": lambda: events_of(thinking_then_call()),
    "redacted": redacted_stream,
    "thinking": thinking_stream,
    "server-tool": lambda: padded(events_of(code_interpreter())),
    "citations": lambda: events_of(cited_reply()),
    "parallel-calls": lambda: events_of(_parallel_calls()),
    "block-order": lambda: events_of(
        reply_of(
            [
                {"reasoningContent": {"reasoningText": {"text": "plan", "signature": SIGNATURE}}},
                {"text": "A"},
                {"toolUse": {"toolUseId": "t1", "name": "f", "input": {"k": [1, 2]}}},
                {"text": "B"},
            ],
            stop="tool_use",
        )
    ),
}


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_a_cancel_after_any_event_leaves_a_request_the_api_takes(name: str) -> None:
    events = STREAMS[name]()
    tools = bedrock.tools_to_request(
        [
            ToolSpec(name="f"),
            WEATHER,
            ToolSpec(name="get_user_country"),
            ToolSpec(name="final_result"),
        ]
    )
    for cut in range(len(events) + 1):
        accumulator = _feed(events[:cut])
        history: list[ct.Message] = [ct.UserMessage(content="go"), *accumulator.partial()]
        closed = ct.close_open_calls(history, "cancelled")
        transcript = [*closed, ct.UserMessage(content="never mind")]
        body = bedrock.to_request(transcript)
        try:
            validate(body, tools)
        except RequestInvalid as err:
            raise AssertionError(f"cut after {cut} events: {err}") from None
        # A reply that holds nothing sendable sends no turn.
        if len(body["messages"]) == 1:
            assert body["messages"][0]["content"] == [{"text": "go"}, {"text": "never mind"}]
        assert ct.open_calls(transcript) == []


def test_a_cut_call_is_kept_but_neither_run_nor_sent() -> None:
    reply = _parallel_calls()
    events = events_of(reply, whole)
    # Cut at the token limit inside the second call: its input never completes.
    second = [
        n
        for n, e in enumerate(events)
        if e.get("contentBlockDelta", {}).get("contentBlockIndex") == 2
    ]
    events = events[: second[0]]
    events.append(
        {
            "contentBlockDelta": {
                "contentBlockIndex": 2,
                "delta": {"toolUse": {"input": '{"city": "Ro'}},
            }
        }
    )
    events.append({"messageStop": {"stopReason": "max_tokens"}})
    accumulator = _feed(events)
    items, assistant = accumulator.result()
    assert isinstance(items, ct.ProviderOutputItemsMessage)
    assert items.items[2] == {
        "toolUse": {
            "toolUseId": "tooluse_b2",
            "name": "get_weather",
            "input": {},
            "type": "tool_use",
        }
    }
    assert [c.id for c in accumulator.reply().tool_calls] == ["tooluse_a1"]
    assert accumulator.reply().stop_reason == "max_tokens"
    transcript: list[ct.Message] = [
        ct.UserMessage(content="q"),
        items,
        assistant,
        ct.ToolResultMessage(tool_use_id="tooluse_a1", content="Rain"),
    ]
    body = bedrock.to_request(transcript)
    validate(body, bedrock.tools_to_request([WEATHER]))
    assert [next(iter(b)) for b in body["messages"][1]["content"]] == ["text", "toolUse"]
    assert bedrock.left_out(transcript) == [
        LeftOut(1, "call", "item 2: a tool call cut off at the token limit")
    ]


def test_a_whole_last_call_of_a_cut_reply_is_not_run_either() -> None:
    reply = _parallel_calls()
    reply["stopReason"] = "max_tokens"
    assert [c.id for c in bedrock.read_reply(reply).tool_calls] == ["tooluse_a1"]
    assert [c.id for c in _feed(events_of(reply)).reply().tool_calls] == ["tooluse_a1"]


def test_partial_keeps_what_arrived_and_only_whole_calls() -> None:
    events = events_of(_parallel_calls(), whole)
    accumulator = bedrock.Accumulator()
    for event in events[:4]:  # start, the text, its stop, the first call's start
        accumulator.feed(event)
    # The call that began is kept in the items, but no call is run before its input is whole.
    items, assistant = accumulator.partial()
    assert assistant == ct.AssistantMessage(content="Checking both.")
    assert isinstance(items, ct.ProviderOutputItemsMessage) and len(items.items) == 2
    for event in events[4:7]:
        accumulator.feed(event)
    last = accumulator.partial()[-1]
    assert isinstance(last, ct.AssistantMessage)
    assert [c.id for c in last.tool_calls] == ["tooluse_a1"]
    with pytest.raises(StreamError, match="without messageStop"):
        accumulator.result()


def test_partial_after_a_call_whose_input_does_not_parse() -> None:
    events = [
        {"messageStart": {"role": "assistant"}},
        {
            "contentBlockStart": {
                "contentBlockIndex": 0,
                "start": {"toolUse": {"toolUseId": "t", "name": "f"}},
            }
        },
        {
            "contentBlockDelta": {
                "contentBlockIndex": 0,
                "delta": {"toolUse": {"input": '{"a": tru'}},
            }
        },
        {"contentBlockStop": {"contentBlockIndex": 0}},
    ]
    accumulator = bedrock.Accumulator()
    for event in events[:3]:
        accumulator.feed(event)
    with pytest.raises(
        StreamError, match=r"event 3 \(contentBlockStop\): the tool input of block 0 does not parse"
    ) as caught:
        accumulator.feed(events[3])
    assert caught.value.index == 3
    partial = accumulator.partial()
    assert [m.tool_calls for m in partial if isinstance(m, ct.AssistantMessage)] == [()]


# --- the real client: a streamed turn, then the next request ----------------------------------


def test_a_streamed_turn_through_a_real_client() -> None:
    made, transport = client()
    transport.reply_stream(padded(events_of(_parallel_calls())))
    transport.reply_json(reply_of([{"text": "Rain in Oslo, sun in Rome."}]))
    tools = bedrock.tools_to_request([WEATHER], cache=True)
    transcript: list[ct.Message] = [ct.UserMessage(content="Oslo and Rome?")]
    response = made.converse_stream(modelId="m", **bedrock.to_request(transcript), **tools)
    accumulator = bedrock.Accumulator()
    for event in response["stream"]:
        accumulator.feed(event)
    reply = accumulator.reply()
    transcript += reply.messages
    transcript += [ct.ToolResultMessage(tool_use_id=c.id, content="Rain") for c in reply.tool_calls]
    # The client validates the request itself before it sends it.
    final = made.converse(modelId="m", **bedrock.to_request(transcript, cache=True), **tools)
    assert bedrock.from_response(final) == [
        ct.AssistantMessage(content="Rain in Oslo, sun in Rome.")
    ]
    sent = transport.sent[1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert [next(iter(b)) for b in sent[2]["content"]] == ["toolResult", "toolResult", "cachePoint"]


def test_an_exception_in_a_live_stream_is_botocores_and_the_dict_form_is_ours() -> None:
    from botocore.exceptions import EventStreamError  # type: ignore[import-untyped]

    events = [
        {"messageStart": {"role": "assistant"}},
        {"throttlingException": {"message": "Too many tokens, slow down"}},
    ]
    with pytest.raises(EventStreamError, match="slow down"):
        parsed_events(events)
    for form in (events[1], parsed_event(events[1])):
        accumulator = _feed(events[:1])
        with pytest.raises(
            StreamError,
            match=r"^event 1 \((throttlingException|Error)\): the provider reported an error: .*slow down",
        ):
            accumulator.feed(form)


@pytest.mark.parametrize(
    "name",
    [
        "internalServerException",
        "modelStreamErrorException",
        "validationException",
        "throttlingException",
        "serviceUnavailableException",
    ],
)
def test_every_exception_event_is_the_providers_error(name: str) -> None:
    body = (
        {"message": "Overloaded", "originalStatusCode": 529}
        if name.startswith("model")
        else {"message": "Overloaded"}
    )
    accumulator = _feed(
        [
            {"messageStart": {"role": "assistant"}},
            {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "a"}}},
        ]
    )
    with pytest.raises(
        StreamError, match=f"event 2 \\({name}\\): the provider reported an error: .*Overloaded"
    ) as caught:
        accumulator.feed({name: body})
    assert caught.value.index == 2
    assert accumulator.partial() == [ct.AssistantMessage(content="a")]


# --- malformed streams and replies ------------------------------------------------------------

START = {"messageStart": {"role": "assistant"}}


def _delta(index: Any, delta: Any) -> dict[str, Any]:
    return {"contentBlockDelta": {"contentBlockIndex": index, "delta": delta}}


BAD_STREAMS: list[tuple[str, list[Any], str, int]] = [
    (
        "two-events-in-one",
        [{"messageStart": {}, "messageStop": {}}],
        "expected one event keyed by its name",
        0,
    ),
    (
        "raw-payload",
        [{"contentBlockIndex": 0, "delta": {"text": "a"}}],
        "expected one event keyed by its name",
        0,
    ),
    (
        "before-start",
        [_delta(0, {"text": "a"})],
        r"event 0 \(contentBlockDelta\): came before messageStart",
        0,
    ),
    ("second-start", [START, START], "a second messageStart", 1),
    ("body-not-object", [START, {"contentBlockStop": 3}], "is not an object", 1),
    ("no-index", [START, _delta(None, {"text": "a"})], "has no contentBlockIndex", 1),
    (
        "negative-index",
        [START, {"contentBlockStop": {"contentBlockIndex": -1}}],
        "has no contentBlockIndex",
        1,
    ),
    (
        "two-members",
        [START, _delta(0, {"text": "a", "toolUse": {}})],
        "has no delta holding one member",
        1,
    ),
    ("text-not-text", [START, _delta(0, {"text": 5})], "the text is not text", 1),
    (
        "stop-never-began",
        [START, {"contentBlockStop": {"contentBlockIndex": 4}}],
        "names content block 4, which never began",
        1,
    ),
    (
        "tool-delta-never-began",
        [START, _delta(0, {"toolUse": {"input": "{}"}})],
        "names content block 0, which never began",
        1,
    ),
    (
        "text-to-reasoning",
        [START, _delta(0, {"reasoningContent": {"text": "a"}}), _delta(0, {"text": "b"})],
        "a text delta cannot apply to a reasoning block",
        2,
    ),
    (
        "tool-input-to-text",
        [START, _delta(0, {"text": "a"}), _delta(0, {"toolUse": {"input": "{"}})],
        "names content block 0|cannot apply to a text block",
        2,
    ),
    (
        "after-stop",
        [
            START,
            _delta(0, {"text": "a"}),
            {"contentBlockStop": {"contentBlockIndex": 0}},
            _delta(0, {"text": "b"}),
        ],
        "content block 0 was already stopped",
        3,
    ),
    (
        "started-twice",
        [
            START,
            {
                "contentBlockStart": {
                    "contentBlockIndex": 0,
                    "start": {"toolUse": {"toolUseId": "t", "name": "f"}},
                }
            },
        ]
        * 1
        + [
            {
                "contentBlockStart": {
                    "contentBlockIndex": 0,
                    "start": {"toolUse": {"toolUseId": "t", "name": "f"}},
                }
            }
        ],
        "content block 0 was already started",
        2,
    ),
    (
        "call-without-id",
        [
            START,
            {"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"name": "f"}}}},
        ],
        "a toolUse without a toolUseId and a name",
        1,
    ),
    (
        "start-of-nothing",
        [START, {"contentBlockStart": {"contentBlockIndex": 0, "start": {}}}],
        "has no start holding one member",
        1,
    ),
    (
        "redacted-not-base64",
        [START, _delta(0, {"reasoningContent": {"redactedContent": "not base64!"}})],
        "the redacted content: its bytes are not base64 text",
        1,
    ),
    (
        "redacted-after-text",
        [
            START,
            _delta(0, {"reasoningContent": {"text": "a"}}),
            _delta(0, {"reasoningContent": {"redactedContent": "YQ=="}}),
        ],
        "redacted content after reasoning text",
        2,
    ),
    ("stop-without-reason", [START, {"messageStop": {}}], "has no stopReason", 1),
    (
        "open-block-at-stop",
        [
            START,
            _delta(0, {"text": "a"}),
            _delta(1, {"text": "b"}),
            {"contentBlockStop": {"contentBlockIndex": 1}},
            {"messageStop": {"stopReason": "end_turn"}},
        ],
        "content block 0 was never stopped",
        4,
    ),
    (
        "after-message-stop",
        [START, {"messageStop": {"stopReason": "end_turn"}}, _delta(0, {"text": "a"})],
        "the stream already ended with messageStop",
        2,
    ),
    ("usage-not-object", [START, {"metadata": {"usage": [1]}}], "the usage is not an object", 1),
    ("not-a-dict", [START, ["contentBlockDelta"]], "expected an event as a dict", 1),
]


@pytest.mark.parametrize(
    ("events", "pattern", "at"), [s[1:] for s in BAD_STREAMS], ids=[s[0] for s in BAD_STREAMS]
)
def test_a_malformed_stream_names_the_event(events: list[Any], pattern: str, at: int) -> None:
    accumulator = bedrock.Accumulator()
    with pytest.raises(StreamError, match=pattern) as caught:
        for event in events:
            accumulator.feed(event)
    assert caught.value.index == at and caught.value.event is events[at]
    accumulator.partial()  # still readable


def test_event_and_delta_types_newer_than_this_version_pass() -> None:
    events = [
        START,
        {"somethingNew": {"x": 1}},
        _delta(0, {"text": "a"}),
        _delta(0, {"futureDelta": {"y": 2}}),
        _delta(1, {"reasoningContent": {"text": "t"}}),
        _delta(1, {"reasoningContent": {"futureMember": "z"}}),
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"contentBlockStop": {"contentBlockIndex": 1}},
        {"messageStop": {"stopReason": "end_turn"}},
        {"metadata": {"usage": {"inputTokens": 1, "outputTokens": 2}}},
        {"somethingNewer": {}},
    ]
    accumulator = _feed(events)
    assert accumulator.finished
    assert accumulator.result() == [
        ct.AssistantMessage(content="a", thinking=(ct.ThinkingBlock(text="t"),))
    ]


def test_the_stream_cut_at_the_limit_may_leave_its_last_block_open() -> None:
    events = [START, _delta(0, {"text": "a"}), {"messageStop": {"stopReason": "max_tokens"}}]
    assert _feed(events).result() == [ct.AssistantMessage(content="a")]
    cut_inside = [
        START,
        {
            "contentBlockStart": {
                "contentBlockIndex": 0,
                "start": {"toolUse": {"toolUseId": "t", "name": "f"}},
            }
        },
        _delta(0, {"toolUse": {"input": '{"a": [1, 2'}}),
        {"messageStop": {"stopReason": "max_tokens"}},
    ]
    items, assistant = _feed(cut_inside).result()
    assert isinstance(items, ct.ProviderOutputItemsMessage)
    assert items.items == ({"toolUse": {"toolUseId": "t", "name": "f", "input": {"a": [1, 2]}}},)
    assert assistant == ct.AssistantMessage()
    unreadable = [*cut_inside[:2], _delta(0, {"toolUse": {"input": '{"a": x'}}), cut_inside[3]]
    accumulator = _feed(unreadable[:3])
    assert accumulator.partial()[-1] == ct.AssistantMessage()  # before the end: no call
    accumulator.feed(unreadable[3])
    with pytest.raises(StreamError, match="cut off where it cannot be read") as caught:
        accumulator.result()
    assert caught.value.index == 1


BAD_REPLIES: list[tuple[str, Any, str]] = [
    ("no-output", {"stopReason": "end_turn"}, "the response: missing 'output'"),
    ("output-without-message", {"output": {}}, "missing 'message'"),
    ("content-not-list", {"output": {"message": {"content": {}}}}, "'content' should be list"),
    ("block-not-object", reply_of(["x"]), r"response.content\[0\]: expected an object"),
    ("two-members", reply_of([{"text": "a", "toolUse": {}}]), "holds one member"),
    ("empty-block", reply_of([{}]), "holds one member"),
    ("text-not-text", reply_of([{"text": 3}]), "'text' should be str"),
    ("call-without-id", reply_of([{"toolUse": {"name": "f", "input": {}}}]), "missing 'toolUseId'"),
    (
        "input-not-object",
        reply_of([{"toolUse": {"toolUseId": "t", "name": "f", "input": []}}]),
        "'input' should be dict",
    ),
    (
        "reasoning-not-object",
        reply_of([{"reasoningContent": "x"}]),
        "reasoningContent should be an object",
    ),
    (
        "reasoning-without-text",
        reply_of([{"reasoningContent": {"reasoningText": {}}}]),
        "missing 'text'",
    ),
    (
        "signature-not-text",
        reply_of([{"reasoningContent": {"reasoningText": {"text": "a", "signature": 1}}}]),
        "'signature' should be str",
    ),
    (
        "redacted-not-bytes",
        reply_of([{"reasoningContent": {"redactedContent": 5}}]),
        "redactedContent should be bytes",
    ),
    (
        "cited-not-object",
        reply_of([{"citationsContent": []}]),
        "citationsContent should be an object",
    ),
    (
        "cited-content-not-list",
        reply_of([{"citationsContent": {"content": "x"}}]),
        "citationsContent.content should be a list",
    ),
    (
        "client-error",
        {
            "Error": {"Code": "ThrottlingException", "Message": "Too many requests"},
            "ResponseMetadata": {},
        },
        "reported an error: .*Too many requests",
    ),
    (
        "rest-error-body",
        {"message": "The provided model identifier is invalid."},
        "reported an error: .*model identifier",
    ),
    (
        "exception-shape",
        {"validationException": {"message": "Malformed input"}},
        "reported an error: .*Malformed input",
    ),
    ("not-a-dict", [1], "expected the response as a dict"),
]


@pytest.mark.parametrize(
    ("response", "pattern"), [r[1:] for r in BAD_REPLIES], ids=[r[0] for r in BAD_REPLIES]
)
def test_a_malformed_reply_names_what_is_wrong(response: Any, pattern: str) -> None:
    with pytest.raises(ResponseError, match=pattern):
        bedrock.from_response(response)


# --- media ---------------------------------------------------------------------------------

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


def _media(*blocks: Any, unsupported: Any = "raise") -> list[dict[str, Any]]:
    messages: list[ct.Message] = [
        ct.UserMultimodalMessage(content=(ct.TextBlock(text="see"), *blocks))
    ]
    body = bedrock.to_request(messages, unsupported=unsupported)
    validate(body)
    content: list[dict[str, Any]] = body["messages"][0]["content"][1:]
    return content


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (
            ct.ImageBase64Block(data=b64(PNG), media_type="image/png"),
            {"image": {"format": "png", "source": {"bytes": PNG}}},
        ),
        (
            ct.ImageBase64Block(data=b64(PNG), media_type="IMAGE/JPG"),
            {"image": {"format": "jpeg", "source": {"bytes": PNG}}},
        ),
        (
            ct.ImageUrlBlock(url="data:image/webp;base64," + b64(PNG)),
            {"image": {"format": "webp", "source": {"bytes": PNG}}},
        ),
        (
            ct.ImageUrlBlock(url="s3://my-bucket/charts/q3.PNG"),
            {
                "image": {
                    "format": "png",
                    "source": {"s3Location": {"uri": "s3://my-bucket/charts/q3.PNG"}},
                }
            },
        ),
        (
            ct.VideoBase64Block(data=b64(b"vid"), media_type="video/quicktime"),
            {"video": {"format": "mov", "source": {"bytes": b"vid"}}},
        ),
        (
            ct.VideoUrlBlock(url="s3://my-bucket/clip.3gp"),
            {
                "video": {
                    "format": "three_gp",
                    "source": {"s3Location": {"uri": "s3://my-bucket/clip.3gp"}},
                }
            },
        ),
        (
            ct.AudioBase64Block(data=b64(b"RIFF"), media_type="audio/x-wav"),
            {"audio": {"format": "wav", "source": {"bytes": b"RIFF"}}},
        ),
        (
            ct.AudioUrlBlock(url="data:audio/mpeg;base64," + b64(b"ID3")),
            {"audio": {"format": "mp3", "source": {"bytes": b"ID3"}}},
        ),
    ],
)
def test_media_go_as_bytes_or_from_s3(block: Any, expected: dict[str, Any]) -> None:
    assert _media(block) == [expected]


@pytest.mark.parametrize(
    ("block", "why"),
    [
        (ct.ImageUrlBlock(url="https://example.com/a.png"), "cannot fetch image from a URL"),
        (ct.ImageUrlBlock(url="data:image/png,%89PNG"), "takes a data: URL only in base64"),
        (
            ct.ImageBase64Block(data=b64(PNG), media_type="image/heic"),
            "takes no 'image/heic' image",
        ),
        (ct.ImageBase64Block(data="%%%", media_type="image/png"), "base64 is empty or malformed"),
        (ct.ImageBase64Block(data="", media_type="image/png"), "base64 is empty or malformed"),
        (ct.ImageUrlBlock(url="s3://My_Bucket/a.png"), "S3 locations of the form"),
        (ct.ImageUrlBlock(url="s3://my-bucket/a"), "cannot tell this S3 object's image format"),
        (ct.VideoPathBlock(path="/tmp/a.mp4"), "cannot read a local path"),
        (ct.AudioPathBlock(path="/tmp/a.wav"), "cannot read a local path"),
        (ct.AudioUrlBlock(url="https://example.com/a.wav"), "cannot fetch audio from a URL"),
        (ct.VideoBase64Block(data=b64(b"v"), media_type="video/ogg"), "takes no 'video/ogg' video"),
    ],
)
def test_media_the_api_cannot_take_are_refused_or_noted(block: Any, why: str) -> None:
    with pytest.raises(
        UnsupportedContent, match=r"message 0, block 1 \(\w+\): Bedrock .*" + why
    ) as caught:
        _media(block)
    assert caught.value.index == 0 and caught.value.block == block
    [note] = _media(block, unsupported="note")
    assert note["text"].endswith("attachment not sent: Bedrock does not accept it]")
    kind = (
        "image"
        if "Image" in type(block).__name__
        else "video"
        if "Video" in type(block).__name__
        else "audio"
    )
    messages: list[ct.Message] = [
        ct.UserMultimodalMessage(content=(ct.TextBlock(text="see"), block))
    ]
    [left] = bedrock.left_out(messages)
    assert (left.index, left.what) == (0, kind) and why in left.why


def test_an_unknown_block_is_never_sent_even_with_notes() -> None:
    block = ct.UnknownBlock(type="hologram", raw=b'{"type":"hologram"}')
    messages: list[Any] = [ct.UserMultimodalMessage(content=(block,))]
    for unsupported in ("raise", "note"):
        with pytest.raises(UnsupportedContent, match="hologram"):
            bedrock.to_request(messages, unsupported=unsupported)


# --- left_out: every kind, exact, and really not sent ---------------------------------------

VIDEO = ct.VideoBase64Block(data=b64(b"vid"), media_type="video/mp4")


def _request(messages: list[ct.Message]) -> dict[str, Any]:
    body = bedrock.to_request(messages)
    validate(body)
    return body


@pytest.mark.parametrize(
    ("given", "without", "expected"),
    [
        (
            ct.UserMultimodalMessage(
                content=(
                    ct.TextBlock(text="a"),
                    ct.ImageUrlBlock(url="s3://b-1/x.png", detail="high"),
                )
            ),
            ct.UserMultimodalMessage(
                content=(ct.TextBlock(text="a"), ct.ImageUrlBlock(url="s3://b-1/x.png"))
            ),
            [LeftOut(0, "detail", "block 1: Converse has no image detail")],
        ),
        (
            ct.UserMultimodalMessage(
                content=(
                    ct.TextBlock(text="a"),
                    ct.VideoBase64Block(
                        data=VIDEO.data, media_type="video/mp4", fps=2.0, max_frames=30
                    ),
                )
            ),
            ct.UserMultimodalMessage(content=(ct.TextBlock(text="a"), VIDEO)),
            [
                LeftOut(0, "fps", "block 1: Converse cannot be told a frame rate"),
                LeftOut(0, "max-frames", "block 1: Converse cannot be told a frame count"),
            ],
        ),
        (
            ct.UserMultimodalMessage(
                content=(
                    ct.TextBlock(text="a"),
                    ct.AudioUrlBlock(url="s3://b-1/x.wav", sample_rate=16000),
                )
            ),
            ct.UserMultimodalMessage(
                content=(ct.TextBlock(text="a"), ct.AudioUrlBlock(url="s3://b-1/x.wav"))
            ),
            [LeftOut(0, "sample-rate", "block 1: Converse cannot be told a sample rate")],
        ),
        (
            ct.UserMultimodalMessage(content=(ct.TextBlock(text="a"), ct.TextBlock(text=" "))),
            ct.UserMultimodalMessage(content=(ct.TextBlock(text="a"),)),
            [LeftOut(0, "text", "block 1: blank text, which the API refuses")],
        ),
    ],
)
def test_left_out_names_the_fields_media_go_without(
    given: ct.Message, without: ct.Message, expected: list[LeftOut]
) -> None:
    assert bedrock.left_out([given]) == expected
    assert _request([given]) == _request([without])
    assert bedrock.left_out([without]) == []


def _transcript_of_every_kind() -> list[ct.Message]:
    return [
        ct.SystemMessage(content=""),  # 0: text
        ct.UserMessage(content="q"),
        ct.AssistantMessage(  # 2: thinking (unsigned), redacted-thinking (not base64)
            content="a",
            thinking=(ct.ThinkingBlock(text="unsigned"), ct.ThinkingBlock(redacted_data="?")),
        ),
        ct.ProviderOutputItemsMessage(
            protocol="openai-responses", items=({"type": "reasoning"},)
        ),  # 3: items
        ct.UserMessage(content="r"),
        ct.ProviderOutputItemsMessage(  # 5: cache-control, call, items, text, thinking
            protocol="bedrock-converse",
            items=(
                {"text": "kept"},
                {"cachePoint": {"type": "default"}},
                {"toolUse": {"toolUseId": "cut", "name": "f", "input": {}}},
                {"SDK_UNKNOWN_MEMBER": {"name": "x"}},
                {"text": " "},
                {"reasoningContent": {"reasoningText": {"text": "x"}}},
                {
                    "toolUse": {
                        "toolUseId": "srv",
                        "name": "s",
                        "input": {},
                        "type": "server_tool_use",
                    }
                },
                "not a block",
            ),
        ),
        # The text the items' blocks read as (texts other blocks separate, a blank line apart).
        ct.AssistantMessage(content="kept\n\n "),
        ct.UserMessage(content="s"),
        ct.AssistantMessage(
            thinking=(ct.ThinkingBlock(text="t", signature=SIGNATURE),)
        ),  # 8: a turn of reasoning alone
        ct.UserMultimodalMessage(
            content=(ct.TextBlock(text="t"), ct.ImageUrlBlock(url="https://x/y.png"))
        ),  # 9: image
    ]


def test_left_out_names_every_kind_in_transcript_order() -> None:
    messages = _transcript_of_every_kind()
    assert bedrock.left_out(messages) == [
        LeftOut(0, "text", "a blank system prompt, which the API refuses"),
        LeftOut(
            2, "thinking", "thinking block 0: reasoning without a signature, which the API refuses"
        ),
        LeftOut(2, "redacted-thinking", "thinking block 1: redacted data that is not base64 text"),
        LeftOut(3, "items", "items of protocol openai-responses"),
        LeftOut(5, "cache-control", "item 1: a cache point kept by an older version"),
        LeftOut(5, "call", "item 2: a tool call cut off at the token limit"),
        LeftOut(5, "items", "item 3: a block boto3 could not read, whose content it dropped"),
        LeftOut(5, "text", "item 4: blank text, which the API refuses"),
        LeftOut(5, "thinking", "item 5: reasoning without a signature, which the API refuses"),
        LeftOut(5, "call", "item 6: a server tool's use whose result never came"),
        LeftOut(5, "items", "item 7: an item that is not one Converse content block"),
        LeftOut(
            8,
            "thinking",
            "thinking block 0: an assistant turn of reasoning alone, which newer models refuse",
        ),
        LeftOut(
            9,
            "image",
            "block 1: Bedrock cannot fetch image from a URL; it reads s3:// locations and data: URLs",
        ),
    ]


def test_what_left_out_names_is_really_not_sent() -> None:
    messages = _transcript_of_every_kind()
    body = bedrock.to_request(messages, unsupported="note")
    validate(body)
    # Without every piece named, the request is the same (the image's note aside).
    trimmed: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(content="a"),
        ct.UserMessage(content="r"),
        ct.ProviderOutputItemsMessage(protocol="bedrock-converse", items=({"text": "kept"},)),
        ct.AssistantMessage(content="kept"),
        ct.UserMessage(content="s"),
        ct.UserMultimodalMessage(content=(ct.TextBlock(text="t"),)),
    ]
    expected = bedrock.to_request(trimmed)
    expected["messages"][-1]["content"].append(
        {"text": "[image_url attachment not sent: Bedrock does not accept it]"}
    )
    assert body == expected
    assert bedrock.left_out(trimmed) == []


def test_left_out_of_a_transcript_this_dialect_wrote_is_empty() -> None:
    transcript: list[ct.Message] = [ct.SystemMessage(content="s"), ct.UserMessage(content="q")]
    for reply in (thinking_then_call(), code_interpreter(), cited_reply(), redacted_then_text()):
        read = bedrock.read_reply(reply)
        transcript += read.messages
        transcript += [
            ct.ToolResultMessage(tool_use_id=c.id, content="ok") for c in read.tool_calls
        ]
        transcript.append(ct.UserMessage(content="next"))
    validate(bedrock.to_request(transcript), bedrock.tools_to_request([ToolSpec(name="f")]))
    assert bedrock.left_out(transcript) == []


def test_left_out_raises_what_to_request_raises() -> None:
    unanswered: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="a", name="f", arguments={}),)),
        ct.UserMessage(content="r"),
    ]
    with pytest.raises(UnansweredCall):
        bedrock.to_request(unanswered)
    with pytest.raises(UnansweredCall):
        bedrock.left_out(unanswered)
    with pytest.raises(TypeError, match="iterable of messages"):
        bedrock.left_out("q")  # type: ignore[arg-type]


def test_an_anthropic_transcript_goes_to_bedrock_with_what_is_left_out_named() -> None:
    # Anthropic's server tool, citations and signed thinking, then a switch.
    reply = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": [
            {"type": "thinking", "thinking": "search first", "signature": "c2ln"},
            {
                "type": "server_tool_use",
                "id": "srvtoolu_1",
                "name": "web_search",
                "input": {"query": "x"},
            },
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
            {
                "type": "text",
                "text": "Found it.",
                "citations": [
                    {
                        "type": "web_search_result_location",
                        "url": "https://x",
                        "title": "X",
                        "cited_text": "x",
                        "encrypted_index": "aQ==",
                    }
                ],
            },
        ],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    transcript: list[ct.Message] = [
        ct.UserMessage(content="q"),
        *anthropic.from_response(reply),
        ct.UserMessage(content="more"),
    ]
    body = bedrock.to_request(transcript)
    validate(body)
    assert body["messages"][1]["content"] == [
        {"reasoningContent": {"reasoningText": {"text": "search first", "signature": "c2ln"}}},
        {"text": "Found it."},
    ]
    assert bedrock.left_out(transcript) == [LeftOut(1, "items", "items of protocol anthropic")]


# --- the request belongs to the caller --------------------------------------------------------


def test_a_request_shares_nothing_with_the_transcript_or_the_tools() -> None:
    reply = code_interpreter()
    messages = bedrock.from_response(reply)
    transcript: list[ct.Message] = [
        ct.SystemMessage(content="s"),
        ct.UserMessage(content="q"),
        *messages,
        ct.ToolResultMessage(tool_use_id="tooluse_owdFRfkTTQabYjvP3GM_vQ", content="done"),
        ct.AssistantMessage(
            content="more",
            tool_calls=(
                ct.ToolCall(id="n1", name="f", arguments={"deep": {"list": [1, {"x": [2]}]}}),
            ),
        ),
    ]
    assert_owned(lambda: bedrock.to_request(transcript, cache=True), transcript)
    nested = ToolSpec(
        name="f",
        parameters={
            "type": "object",
            "properties": {"a": {"type": "array", "items": {"type": "string"}}},
        },
    )
    assert_owned(
        lambda: bedrock.tools_to_request([nested, WEATHER], choice="f", cache="1h"),
        [nested, WEATHER],
    )


@settings(max_examples=examples(100, 25), deadline=None)
@given(cst.conversations())
def test_a_generated_request_shares_nothing(messages: list[ct.Message]) -> None:
    try:
        bedrock.to_request(messages, unsupported="note")
    except DialectError:
        return
    assert_owned(lambda: bedrock.to_request(messages, unsupported="note"), messages)


# --- generated transcripts ---------------------------------------------------------------------


def _blank(text: str) -> bool:
    return text == "" or text.isspace()


@settings(max_examples=examples(300, 40), deadline=None)
@given(cst.conversations(), st.sampled_from([False, True, "1h"]))
def test_any_well_formed_conversation_makes_a_request_boto3_takes(
    messages: list[ct.Message], cache: Any
) -> None:
    try:
        body = bedrock.to_request(messages, unsupported="note", cache=cache)
    except DialectError as err:
        # Like Anthropic's, Converse needs a user turn first: a first user
        # turn of blank text leaves the assistant first, or nothing at all.
        first = next(m for m in messages if not isinstance(m, ct.SystemMessage))
        blocks = (
            [first.content]
            if isinstance(first, ct.UserMessage)
            else [
                b.text if isinstance(b, ct.TextBlock) else "x"
                for b in first.content  # type: ignore[union-attr]
            ]
        )
        assert all(_blank(text) for text in blocks), err
        return
    names = sorted(
        {call.name for m in messages if isinstance(m, ct.AssistantMessage) for call in m.tool_calls}
    )
    specs = [ToolSpec(name=spelled_name(name)) for name in names] or [ToolSpec(name="f")]
    unique = list({spec.name: spec for spec in specs}.values())
    validate(body, bedrock.tools_to_request(unique, cache=cache))
    calls = [b["toolUse"] for m in body["messages"] for b in m["content"] if "toolUse" in b]
    assert len(calls) == sum(
        len(m.tool_calls) for m in messages if isinstance(m, ct.AssistantMessage)
    )


@settings(max_examples=examples(300, 40), deadline=None)
@given(cst.transcripts())
def test_any_transcript_is_sent_or_refused_as_a_dialect_error(messages: list[ct.Message]) -> None:
    try:
        body = bedrock.to_request(messages, unsupported="note")
    except DialectError:
        with pytest.raises(DialectError):
            bedrock.left_out(messages)
        return
    validate(body, bedrock.tools_to_request([ToolSpec(name="f")]))
    noted = bedrock.left_out(messages)
    assert [note.index for note in noted] == sorted(note.index for note in noted)


def test_a_made_up_id_steps_aside_for_one_the_items_carry_later() -> None:
    # The first call's id is unusable, and the place-made id call_1_0 is the
    # id of a server tool's call a later kept reply carries (no message
    # holds it as a call): the made-up one must step aside.
    kept = ct.ProviderOutputItemsMessage(
        protocol="bedrock-converse",
        items=(
            {
                "toolUse": {
                    "toolUseId": "call_1_0",
                    "name": "s",
                    "input": {},
                    "type": "server_tool_use",
                }
            },
            {"toolResult": {"toolUseId": "call_1_0", "content": [{"text": "2"}], "type": "x"}},
            {"text": "Done."},
        ),
    )
    messages: list[ct.Message] = [
        ct.UserMessage(content="go"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="bad id", name="f", arguments={}),)),
        ct.ToolResultMessage(tool_use_id="bad id", content="a"),
        kept,
        ct.AssistantMessage(content="Done."),
    ]
    body = bedrock.to_request(messages)
    validate(body)
    calls = [
        b["toolUse"]["toolUseId"] for m in body["messages"] for b in m["content"] if "toolUse" in b
    ]
    assert calls == ["call_1_0_1", "call_1_0"]


_names = st.text(st.sampled_from("abcXYZ019_-"), min_size=1, max_size=64)


@settings(max_examples=examples(150, 30), deadline=None)
@given(
    st.lists(
        st.builds(
            ToolSpec,
            name=_names,
            description=cst.texts(),
            parameters=st.dictionaries(cst.texts(8), cst.json_values(6), max_size=3).map(
                lambda extra: {"type": "object", **{k: v for k, v in extra.items() if k != "type"}}
            ),
        ),
        max_size=4,
        unique_by=lambda spec: spec.name,
    ),
    st.sampled_from(["auto", "none", "required", "first"]),
    st.sampled_from([False, True, "1h"]),
)
def test_any_tools_the_api_takes_make_a_config_boto3_takes(
    tools: list[ToolSpec], choice: str, cache: Any
) -> None:
    if choice == "first":
        if not tools:
            return
        choice = tools[0].name
    if choice == "required" and not tools:
        return
    fields = bedrock.tools_to_request(tools, choice=choice, cache=cache)
    if not tools or choice == "none":
        assert fields == {}
        return
    validate_tools(fields)
    specs = [t["toolSpec"] for t in fields["toolConfig"]["tools"] if "toolSpec" in t]
    assert [s["name"] for s in specs] == [t.name for t in tools]
    assert [s["inputSchema"]["json"] for s in specs] == [t.parameters for t in tools]
