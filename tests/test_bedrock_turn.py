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
import json
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

from bedrock_replies import (
    REDACTED,
    SIGNATURE,
    b64,
    block_events,
    cached_usage,
    citation,
    cited_reply,
    code_interpreter,
    events_of,
    halves,
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
    out = json.loads(json.dumps(blocks))
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
        LeftOut(1, "thinking", "reasoning without a signature, which the API refuses"),
        LeftOut(1, "thinking", "reasoning without a signature, which the API refuses"),
        LeftOut(3, "thinking", "an assistant turn of reasoning alone, which newer models refuse"),
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
        LeftOut(1, "redacted-thinking", "redacted data that is not base64 text")
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
        LeftOut(1, "cache-control", "a cache point kept by an older version")
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
        LeftOut(1, "items", "a block boto3 could not read, whose content it dropped")
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
