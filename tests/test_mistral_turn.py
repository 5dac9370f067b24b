"""A whole Mistral chat turn: tools in; deltas, stop reason and usage out; exact replay.

Where the shapes come from (the fixtures below are written here, in those shapes):

- The ``mistralai`` SDK's own tests (mistralai/client-python): a completion
  with usage (tests/unit/conftest.py, written by the SDK's authors), chunks
  that repeat ``"role"`` in every delta, a first chunk without ``object`` and
  ``created``, and a reply to a prefix request whose message spells every
  unused field as ``null`` (tests/utils.py, which looks recorded). The SDK's
  examples describe a reasoning stream: thinking arrives as lists of
  ``thinking`` chunks, then text as plain strings, and one chunk may close
  the thinking and open the text (examples/mistral/chat/reasoning_with_streaming.py).
- Recordings of the live API kept by the Vercel AI SDK's Mistral provider
  (packages/mistral/src/__fixtures__): a reasoning reply whose thinking chunk
  says ``"closed": true``; a Magistral stream whose content is lists of
  chunks; a tool call sent whole in one chunk, without ``index`` or ``type``,
  its arguments spaced as Python's ``json.dumps`` spaces them, with the
  usage on the last chunk; chunks padded with a ``"p"`` field.
- The API reference and the SDK's models, where no recording has the
  shape: reference chunks, signed thinking, parallel calls, a call streamed
  in pieces, ``model_length`` and ``error`` finishes, error bodies.

The rules a request must obey beyond the SDK's types are Mistral's own,
as its validator (mistral-common's ``MistralRequestValidator``, serving
mode) states them, and as the API's 400 answers quote them: see
:func:`mistral_rules`.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from left_out_check import strip_reported

import convtypes as ct
from convtypes import strategies as cst
from convtypes.dialects import (
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
    mistral,
)

from budget import examples
from ownership import assert_owned
from provider_rules import calls_and_results, mistral_rules, validate_mistral
from strict_models import StrictError

sdk = pytest.importorskip("mistralai.client.models")


def test_the_validation_catches_what_the_sdk_would_ignore() -> None:
    body = {"messages": [{"role": "user", "content": "hi"}]}
    validate_mistral(body)
    with pytest.raises(StrictError, match=r"\$\.messages\[0\]: UserMessage has no field 'nmae'"):
        validate_mistral({"messages": [{"role": "user", "content": "hi", "nmae": "x"}]})
    odd_chunk = {"role": "user", "content": [{"type": "video_url", "url": "x"}]}
    with pytest.raises(StrictError, match="a variant the SDK does not know"):
        validate_mistral({"messages": [odd_chunk]})
    with pytest.raises(Exception, match="validation error"):
        validate_mistral({"messages": [{"role": "user", "content": 5}]})
    with pytest.raises(StrictError, match="not one of the values"):
        validate_mistral(body, {"tool_choice": "sometimes"})


@pytest.mark.parametrize(
    ("messages", "error"),
    [
        ([{"role": "assistant", "content": "x"}], "a lone message"),
        ([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}], "last role"),
        (
            [
                {"role": "user", "content": "q"},
                {"role": "assistant", "tool_calls": [{"id": "abcdefghi"}]},
                {"role": "tool", "tool_call_id": "abcdefghi", "content": "r"},
                {"role": "user", "content": "q"},
            ],
            "Unexpected role 'user' after role 'tool'",
        ),
        (
            [
                {"role": "user", "content": "q"},
                {"role": "assistant", "tool_calls": [{"id": "abcdefghi"}, {"id": "abcdefghj"}]},
                {"role": "tool", "tool_call_id": "abcdefghi", "content": "r"},
                {"role": "assistant", "content": "a", "prefix": True},
            ],
            "Not the same number",
        ),
        (
            [
                {"role": "user", "content": "q"},
                {"role": "assistant", "tool_calls": [{"id": "call_1"}]},
                {"role": "tool", "tool_call_id": "call_1", "content": "r"},
            ],
            "Tool call id was call_1",
        ),
        (
            [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": "a", "prefix": True},
                {"role": "user", "content": "q"},
            ],
            "prefix must be last",
        ),
        ([{"role": "system", "content": "s"}, {"role": "tool", "content": "r"}], "after role"),
    ],
)
def test_the_rules_refuse_what_mistral_refuses(messages: list[Any], error: str) -> None:
    with pytest.raises(AssertionError, match=error):
        mistral_rules(messages)


# --- builders -------------------------------------------------------------------------


def completion(
    message: dict[str, Any], finish: str | None = "stop", usage: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "id": "9f0c2d41a7b84c3e",
        "object": "chat.completion",
        "created": 1760000000,
        "model": "mistral-medium-2508",
        "usage": usage if usage is not None else {"prompt_tokens": 12, "completion_tokens": 7},
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }


def chunk(
    delta: dict[str, Any], finish: str | None = None, usage: dict[str, Any] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "9f0c2d41a7b84c3e",
        "object": "chat.completion.chunk",
        "created": 1760000000,
        "model": "mistral-medium-2508",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    if usage is not None:
        body["usage"] = usage
    return body


def thinking(*texts: str, **extra: Any) -> dict[str, Any]:
    return {"type": "thinking", "thinking": [{"type": "text", "text": t} for t in texts], **extra}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


USAGE = {
    "prompt_tokens": 40,
    "completion_tokens": 25,
    "total_tokens": 65,
    "prompt_tokens_details": {"cached_tokens": 32},
}

# A reasoning reply, as the live API sends it: the thinking says it is closed.
REASONED = {
    "role": "assistant",
    "tool_calls": None,
    "content": [thinking("17 * 23: 340 + 51 = 391.", closed=True), text("391")],
}

WEATHER_CALL = {
    "id": "Hq3xK9pLm",
    "function": {"name": "weather", "arguments": '{"city": "Oslo", "days": 2}'},
}
TIME_CALL = {
    "id": "Zt7Rb2QwE",
    "function": {"name": "clock", "arguments": '{"tz": "CET"}'},
}


def reasoning_stream() -> list[dict[str, Any]]:
    """Thinking as lists of chunks, a chunk that closes it and opens the text, text as strings."""
    return [
        chunk({"role": "assistant", "content": [thinking("17 * 23: ")]}),
        chunk({"content": [thinking("340 + 51")]}),
        chunk({"content": [thinking(" = 391."), text("39")]}),
        chunk({"content": "1"}),
        chunk({"content": ""}, "stop", USAGE),
    ]


def calls_stream() -> list[dict[str, Any]]:
    """Text, then two calls, each whole in its own chunk (no index, no type), padded chunks."""
    return [
        chunk({"role": "assistant", "content": ""}),
        {**chunk({"content": "Checking "}), "p": "abcdefghijklmnop"},
        chunk({"content": "both."}),
        chunk({"content": None, "tool_calls": [WEATHER_CALL]}),
        chunk({"content": None, "tool_calls": [TIME_CALL]}),
        {**chunk({"content": ""}, "tool_calls", USAGE), "p": "abc"},
    ]


def feed_all(accumulator: mistral.Accumulator, events: list[Any]) -> list[Any]:
    return [delta for event in events for delta in accumulator.feed(event)]


def as_sdk_events(events: list[dict[str, Any]]) -> list[Any]:
    """The stream as ``chat.stream`` yields it: ``CompletionEvent`` objects."""
    return [sdk.CompletionEvent.model_validate({"data": event}) for event in events]


def replay(messages: list[ct.Message], tools: dict[str, Any] | None = None) -> dict[str, Any]:
    """The next request after ``messages``, checked, with a user turn before them."""
    body = mistral.to_request([ct.UserMessage(content="q"), *messages])
    validate_mistral(body, tools)
    return body


# --- tools ------------------------------------------------------------------------------

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city"],
}


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "any"),
        ("weather", {"type": "function", "function": {"name": "weather"}}),
    ],
)
def test_tools_go_as_function_tools(choice: str, sent: Any) -> None:
    tools = [
        ToolSpec(name="weather", description="The forecast.", parameters=SCHEMA),
        ToolSpec(name="ping"),
    ]
    fields = mistral.tools_to_request(tools, choice=choice)
    validate_mistral({"messages": [{"role": "user", "content": "hi"}]}, fields)
    assert fields["tools"] == [
        {
            "type": "function",
            "function": {"name": "weather", "description": "The forecast.", "parameters": SCHEMA},
        },
        {
            "type": "function",
            "function": {"name": "ping", "parameters": {"type": "object", "properties": {}}},
        },
    ]
    assert fields["tool_choice"] == sent
    assert_owned(lambda: mistral.tools_to_request(tools, choice=choice), tools)


def test_a_schemas_labels_are_left_out_and_its_constraints_kept() -> None:
    labelled = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "urn:w", **SCHEMA}
    fields = mistral.tools_to_request([ToolSpec(name="weather", parameters=labelled)])
    validate_mistral({"messages": [{"role": "user", "content": "hi"}]}, fields)
    assert fields["tools"][0]["function"]["parameters"] == SCHEMA


@pytest.mark.parametrize(
    ("name", "sent"),
    [
        ("github.search_issues", "github_search_issues"),  # Gemini takes dots and colons
        ("ns:lookup", "ns_lookup"),
        ("a" * 100, "a" * 64),  # Anthropic takes names up to 128
        ("", "_"),
    ],
)
def test_a_call_name_mistral_refuses_is_spelled_its_way(name: str, sent: str) -> None:
    # Mistral's validator refuses a call's name, and a tool message's, outside
    # [A-Za-z0-9_-]{1,64}; a transcript from another provider may hold one.
    transcript: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="Abc123xyZ", name=name, arguments={}),)),
        ct.ToolResultMessage(tool_use_id="Abc123xyZ", content="r"),
        ct.UserMessage(content="next"),
    ]
    body = mistral.to_request(transcript)
    validate_mistral(body)
    assert body["messages"][1]["tool_calls"][0]["function"]["name"] == sent
    assert body["messages"][2] == {
        "role": "tool",
        "tool_call_id": "Abc123xyZ",
        "name": sent,
        "content": "r",
    }
    assert mistral.left_out(transcript) == []  # the call goes, under the name Mistral takes


def test_tools_mistral_cannot_take_are_refused() -> None:
    assert mistral.tools_to_request([]) == {}
    with pytest.raises(ToolSchemaError, match="tool 'a b': Mistral takes tool names"):
        mistral.tools_to_request([ToolSpec(name="a b")])
    with pytest.raises(ToolSchemaError, match="only an object schema") as caught:
        mistral.tools_to_request([ToolSpec(name="rows", parameters={"type": "array"})])
    assert (caught.value.tool, caught.value.path) == ("rows", "/type")
    with pytest.raises(ToolSchemaError, match="choice='nope' is neither"):
        mistral.tools_to_request([ToolSpec(name="a")], choice="nope")


# --- replies: stop reason, usage, model, id -------------------------------------------------


@pytest.mark.parametrize(
    ("message", "finish", "stop"),
    [
        ({"role": "assistant", "content": "Done."}, "stop", "end_turn"),
        ({"role": "assistant", "content": "Once upon"}, "length", "max_tokens"),
        ({"role": "assistant", "content": "Once upon"}, "model_length", "max_tokens"),
        ({"role": "assistant", "content": "Once"}, "error", "other"),
        (
            {"role": "assistant", "content": "", "tool_calls": [WEATHER_CALL]},
            "tool_calls",
            "tool_use",
        ),
        ({"role": "assistant", "content": "", "tool_calls": [WEATHER_CALL]}, "stop", "tool_use"),
        ({"role": "assistant", "content": "x"}, None, "other"),
    ],
)
def test_the_stop_reason_is_read_by_meaning(
    message: dict[str, Any], finish: str | None, stop: str
) -> None:
    reply = mistral.read_reply(completion(message, finish))
    assert reply.stop_reason == stop
    assert reply.provider_stop_reason == finish
    assert reply.messages == mistral.from_response(completion(message, finish))
    assert (reply.model, reply.id) == ("mistral-medium-2508", "9f0c2d41a7b84c3e")


def test_usage_counts_cached_and_reasoning_tokens_as_parts_of_the_totals() -> None:
    raw = {**USAGE, "completion_tokens_details": {"reasoning_tokens": 18}}
    reply = mistral.read_reply(completion({"role": "assistant", "content": "x"}, usage=raw))
    assert reply.usage == Usage(
        input_tokens=40, output_tokens=25, cache_read_tokens=32, reasoning_tokens=18, raw=raw
    )
    # Older replies count cached tokens at the top level.
    older = {"prompt_tokens": 9, "completion_tokens": 1, "num_cached_tokens": 4}
    reply = mistral.read_reply(completion({"role": "assistant", "content": "x"}, usage=older))
    assert reply.usage == Usage(input_tokens=9, output_tokens=1, cache_read_tokens=4, raw=older)
    reply = mistral.read_reply(completion({"role": "assistant", "content": "x"}, usage={}))
    assert reply.usage == Usage(raw={})


def test_a_plain_reply_keeps_no_items_and_goes_back_as_it_came() -> None:
    # The SDK tests' reply to a prefix request: every unused field spelled null.
    message = {
        "role": "assistant",
        "content": "The capital of ",
        "name": None,
        "tool_calls": None,
        "tool_call_id": None,
        "prefix": None,
    }
    messages = mistral.from_response(completion(message))
    assert messages == [ct.AssistantMessage(content="The capital of ")]
    body = replay([*messages, ct.UserMessage(content="Go on.")])
    assert body["messages"][1] == {"role": "assistant", "content": "The capital of "}


# --- thinking ------------------------------------------------------------------------------


def test_reasoning_reads_as_thinking_and_goes_back_as_thinking_chunks() -> None:
    reply = mistral.read_reply(completion(REASONED, usage=USAGE))
    assert reply.messages == [
        ct.AssistantMessage(
            content="391", thinking=(ct.ThinkingBlock(text="17 * 23: 340 + 51 = 391."),)
        )
    ]
    body = replay([*reply.messages, ct.UserMessage(content="Times 3?")])
    assert body["messages"][1] == {
        "role": "assistant",
        "content": [thinking("17 * 23: 340 + 51 = 391."), text("391")],
    }


# Content a turn cannot say, so that the message is kept, and why.
KEPT_CONTENT: list[tuple[list[dict[str, Any]], str]] = [
    ([thinking("half", closed=False), text("x")], "thinking still open"),
    ([thinking("plan", signature="c2lnbmVk"), text("x")], "a signature"),
    ([text("x"), thinking("after")], "thinking after the text"),
    ([thinking("a"), text("x"), thinking("b"), text("y")], "thinking between texts"),
    (
        [text("Oslo [1]"), {"type": "reference", "reference_ids": [1]}, text(".")],
        "a reference chunk",
    ),
    (
        [
            {
                "type": "thinking",
                "thinking": [
                    text("Searching."),
                    {"type": "tool_reference", "tool": "web_search", "title": "T"},
                ],
                "closed": True,
            },
            text("Found it."),
        ],
        "a tool reference in the thinking",
    ),
]


@pytest.mark.parametrize(("content", "why"), KEPT_CONTENT)
def test_content_the_turn_cannot_say_is_kept_and_replayed_as_it_came(
    content: list[dict[str, Any]], why: str
) -> None:
    messages = mistral.from_response(completion({"role": "assistant", "content": content}))
    kept, assistant = messages
    assert isinstance(kept, ct.ProviderOutputItemsMessage), why
    assert isinstance(assistant, ct.AssistantMessage)
    # "closed": true is what every finished chunk says, and is not kept.
    as_kept = [{k: v for k, v in c.items() if not (k == "closed" and v is True)} for c in content]
    assert kept.items == ({"role": "assistant", "content": as_kept},)
    body = replay([*messages, ct.UserMessage(content="And?")])
    assert body["messages"][1] == {"role": "assistant", "content": as_kept}
    assert [turn["role"] for turn in body["messages"]] == ["user", "assistant", "user"]


def test_the_flat_turn_is_what_other_dialects_read() -> None:
    from convtypes.dialects import anthropic, openai_chat

    content = [
        thinking("plan", signature="c2lnbmVk"),
        text("Oslo [1]"),
        {"type": "reference", "reference_ids": [1]},
    ]
    kept, assistant = mistral.from_response(completion({"role": "assistant", "content": content}))
    # Mistral's signature stays in the item: the flat thinking is unsigned, so
    # Anthropic leaves it out rather than sending a signature it did not make.
    assert assistant == ct.AssistantMessage(
        content="Oslo [1]", thinking=(ct.ThinkingBlock(text="plan"),)
    )
    transcript: list[ct.Message] = [ct.UserMessage(content="q"), kept, assistant]
    assert anthropic.to_request(transcript)["messages"][1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Oslo [1]"}],
    }
    assert openai_chat.to_request(transcript)["messages"][1] == {
        "role": "assistant",
        "content": "Oslo [1]",
    }


def test_thinking_of_other_providers_goes_as_text_without_its_signature() -> None:
    transcript: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(
            content="a",
            thinking=(
                ct.ThinkingBlock(text="signed", signature="c2ln"),
                ct.ThinkingBlock(redacted_data="b3BhcXVl"),
                ct.ThinkingBlock(text="", signature="aGlkZGVu"),
            ),
        ),
        ct.UserMessage(content="next"),
    ]
    body = mistral.to_request(transcript)
    validate_mistral(body)
    assert body["messages"][1] == {"role": "assistant", "content": [thinking("signed"), text("a")]}
    assert mistral.left_out(transcript) == [
        LeftOut(
            1,
            "signature",
            "thinking block 0: the thinking goes as a Mistral thinking chunk, "
            "without its signature",
        ),
        LeftOut(1, "redacted-thinking", "thinking block 1: Mistral cannot read redacted thinking"),
        LeftOut(1, "signature", "thinking block 2: Mistral has no place for a thinking signature"),
    ]
    without = strip_reported(transcript, mistral.left_out(transcript), "Mistral")
    assert mistral.to_request(without) == body
    assert mistral.left_out(without) == []


# --- calls and their ids ------------------------------------------------------------------


def test_spaced_arguments_are_kept_and_go_back_as_they_came() -> None:
    message = {"role": "assistant", "content": "", "tool_calls": [WEATHER_CALL, TIME_CALL]}
    reply = mistral.read_reply(completion(message, "tool_calls"))
    kept, assistant = reply.messages
    assert isinstance(assistant, ct.AssistantMessage) and assistant.content == ""
    assert kept == ct.ProviderOutputItemsMessage(
        protocol="mistral",
        items=({"role": "assistant", "tool_calls": [WEATHER_CALL, TIME_CALL]},),
    )
    assert reply.tool_calls[0].id == "Hq3xK9pLm" and reply.tool_calls[1].name == "clock"
    results = [
        ct.ToolResultMessage(tool_use_id=c.id, content=f"{c.name} ok") for c in reply.tool_calls
    ]
    body = replay([*reply.messages, *results[::-1]])
    assert body["messages"][1:] == [
        {"role": "assistant", "tool_calls": [WEATHER_CALL, TIME_CALL]},
        {"role": "tool", "tool_call_id": "Zt7Rb2QwE", "name": "clock", "content": "clock ok"},
        {"role": "tool", "tool_call_id": "Hq3xK9pLm", "name": "weather", "content": "weather ok"},
    ]


def test_ids_of_another_shape_are_planned_and_results_follow_them() -> None:
    transcript: list[ct.Message] = [
        ct.UserMessage(content="go"),
        ct.AssistantMessage(
            tool_calls=(
                ct.ToolCall(id="toolu_01A", name="f", arguments={"n": 1}),
                ct.ToolCall(name="g", arguments={}),
                ct.ToolCall(id="Abc123xyZ", name="h", arguments={}),
            )
        ),
        ct.ToolResultMessage(tool_use_id="call_1", content="g"),
        ct.ToolResultMessage(tool_use_id="Abc123xyZ", content="h"),
        ct.ToolResultMessage(tool_use_id="toolu_01A", content="f"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="Abc123xyZ", name="h", arguments={}),)),
        ct.ToolResultMessage(tool_use_id="Abc123xyZ", content="h again"),
    ]
    body = mistral.to_request(transcript)
    validate_mistral(body)
    calls, results = calls_and_results(body)
    # The id of nine letters and digits is kept; the others get one made from their place.
    assert calls == ["c00001000", "c00001001", "Abc123xyZ", "c00005000"]
    assert results == ["c00001001", "Abc123xyZ", "c00001000", "c00005000"]
    assert mistral.to_request(transcript) == body  # the same transcript, the same ids


def test_a_run_of_assistant_messages_goes_as_one_so_its_calls_are_answered_in_time() -> None:
    transcript: list[ct.Message] = [
        ct.SystemMessage(content="Be brief."),
        ct.UserMessage(content="Weather?"),
        ct.AssistantMessage(
            content="Let me look.", tool_calls=(ct.ToolCall(id="a", name="w", arguments={}),)
        ),
        ct.SystemMessage(content="Use metric units."),
        ct.AssistantMessage(content="One moment."),
        ct.ToolResultMessage(tool_use_id="a", content="rain"),
        ct.UserMessage(content="Thanks."),
        ct.AssistantMessage(content="You are welcome"),
    ]
    body = mistral.to_request(transcript)
    validate_mistral(body)
    assert body["messages"] == [
        {"role": "system", "content": "Be brief.\n\nUse metric units."},
        {"role": "user", "content": "Weather?"},
        {
            "role": "assistant",
            "content": [text("Let me look."), text("One moment.")],
            "tool_calls": [
                {
                    "id": "c00002000",
                    "type": "function",
                    "function": {"name": "w", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c00002000", "name": "w", "content": "rain"},
        {"role": "assistant", "content": mistral.BRIDGE},
        {"role": "user", "content": "Thanks."},
        {"role": "assistant", "content": "You are welcome", "prefix": True},
    ]


def test_a_prefix_goes_last_and_a_turn_with_nothing_goes_not_at_all() -> None:
    body = mistral.to_request(
        [ct.UserMessage(content="Capital?"), ct.AssistantMessage(content="The")]
    )
    validate_mistral(body)
    assert body["messages"][-1] == {"role": "assistant", "content": "The", "prefix": True}
    # An empty turn sends nothing, and open calls at the end are no prefix.
    assert mistral.to_request([ct.UserMessage(content="q"), ct.AssistantMessage()]) == {
        "messages": [{"role": "user", "content": "q"}]
    }
    open_call = ct.AssistantMessage(
        tool_calls=(ct.ToolCall(id="Abc123xyZ", name="f", arguments={}),)
    )
    last = mistral.to_request([ct.UserMessage(content="q"), open_call])["messages"][-1]
    assert "prefix" not in last
    with pytest.raises(UnansweredCall, match="Mistral refuses a call without its result"):
        mistral.to_request([ct.UserMessage(content="q"), open_call, ct.UserMessage(content="x")])


def test_media_mistral_takes_and_refuses() -> None:
    blocks = (
        ct.TextBlock(text="Look:"),
        ct.ImageUrlBlock(url="https://x.test/a.png", detail="low"),
        ct.ImageUrlBlock(url="https://x.test/b.png", detail="sharp"),
        ct.ImageBase64Block(data="QUJD", media_type="image/JPG"),
        ct.AudioBase64Block(data="UklG", media_type="audio/wav", sample_rate=16000),
    )
    transcript: list[ct.Message] = [ct.UserMultimodalMessage(content=blocks)]
    body = mistral.to_request(transcript)
    validate_mistral(body)
    assert body["messages"][0]["content"] == [
        text("Look:"),
        {"type": "image_url", "image_url": {"url": "https://x.test/a.png", "detail": "low"}},
        {"type": "image_url", "image_url": {"url": "https://x.test/b.png"}},
        {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,QUJD"}},
        {"type": "input_audio", "input_audio": "UklG"},
    ]
    assert mistral.left_out(transcript) == [
        LeftOut(0, "detail", "block 2: Mistral knows no image detail 'sharp'"),
        # The WAV says its own rate, which may differ.
        LeftOut(0, "sample-rate", "block 4: input_audio has no field for a sample rate"),
    ]
    video = ct.UserMultimodalMessage(content=(ct.VideoUrlBlock(url="https://x.test/v.mp4"),))
    with pytest.raises(
        UnsupportedContent, match=r"message 0, block 0 \(video_url\): Mistral has no chunk"
    ):
        mistral.to_request([video])
    noted = mistral.to_request([video], unsupported="note")
    assert noted["messages"][0]["content"] == [
        text("[video_url attachment not sent: Mistral does not accept it]")
    ]
    assert mistral.left_out([video]) == [
        LeftOut(0, "video", "block 0: Mistral has no chunk for video")
    ]


# --- streams -------------------------------------------------------------------------------


def test_a_reasoning_stream_gives_thinking_then_text() -> None:
    accumulator = mistral.Accumulator()
    assert feed_all(accumulator, reasoning_stream()) == [
        ThinkingDelta("17 * 23: "),
        ThinkingDelta("340 + 51"),
        ThinkingDelta(" = 391."),
        TextDelta("39"),
        TextDelta("1"),
    ]
    reply = accumulator.reply()
    assert reply == mistral.read_reply(completion(REASONED, usage=USAGE))
    assert reply.usage.cache_read_tokens == 32
    sdk_accumulator = mistral.Accumulator()
    assert feed_all(sdk_accumulator, as_sdk_events(reasoning_stream())) == feed_all(
        mistral.Accumulator(), reasoning_stream()
    )
    assert sdk_accumulator.reply() == reply


@pytest.mark.parametrize(
    "spoil",
    [{"id": 5}, {"model": None}, {"id": b"cmpl"}, {}],
    ids=["id-a-number", "model-none", "id-bytes", "as-made"],
)
def test_the_first_chunk_gives_the_id_and_model_its_dump_gives(spoil: dict[str, Any]) -> None:
    """The first chunk's id and model are read from the object only when its dump says the same."""
    from convtypes.dialects._json import plain

    for stream in (reasoning_stream(), calls_stream()):
        events = as_sdk_events(stream)
        for key, value in spoil.items():
            setattr(events[0].data, key, value)  # what no validated chunk holds

        def outcome(given: list[Any]) -> Any:
            accumulator = mistral.Accumulator()
            try:
                deltas = feed_all(accumulator, given)
                return deltas, accumulator.reply()
            except StreamError as err:
                return str(err)

        dumps = [plain(event, "a chunk") for event in events]
        assert outcome(events) == outcome(dumps)
        if not spoil:
            assert outcome(events)[1].id == stream[0]["id"]


def test_a_first_chunk_not_given_its_id_reads_as_its_dump() -> None:
    """A field the chunk was not given is not in its dump: the id and model are then None."""
    from convtypes.dialects._json import plain

    events = as_sdk_events(reasoning_stream())
    events[0].data.__pydantic_fields_set__.difference_update({"id", "model"})
    dumps = [plain(event, "a chunk") for event in events]
    read, dumped = mistral.Accumulator(), mistral.Accumulator()
    assert feed_all(read, events) == feed_all(dumped, dumps)
    assert read.reply() == dumped.reply()
    assert read.reply().id is None


def test_thinking_read_from_objects_keeps_the_key_order_of_their_dump(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What is kept of a thinking chunk read by field is written as its dump writes it."""
    # An empty thinking chunk has no thinking block to hold it: it is kept as sent.
    empty = {"type": "thinking", "thinking": []}
    kept = [chunk({"role": "assistant", "content": [empty]}), chunk({"content": "a"}, "stop")]
    # Thinking after text cannot go back before it: it is kept as sent too.
    mixed = [
        chunk({"role": "assistant", "content": [thinking("a")]}),
        chunk({"content": [text("b")]}),
        chunk({"content": [thinking("c")]}),
        chunk({"content": ""}, "stop"),
    ]
    for stream in (kept, mixed):
        events = as_sdk_events(stream)
        quick = mistral.Accumulator()
        feed_all(quick, events)
        with monkeypatch.context() as patch:
            patch.setattr(mistral.Accumulator, "_fast", lambda self, event: None)
            general = mistral.Accumulator()
            feed_all(general, events)
        assert repr(quick.reply()) == repr(general.reply())
        assert repr(quick.partial()) == repr(general.partial())


def test_calls_sent_whole_stream_as_one_start_and_one_delta_each() -> None:
    accumulator = mistral.Accumulator()
    assert feed_all(accumulator, calls_stream()) == [
        TextDelta("Checking "),
        TextDelta("both."),
        ToolCallStart(0, "Hq3xK9pLm", "weather"),
        ToolCallDelta(0, '{"city": "Oslo", "days": 2}'),
        ToolCallStart(1, "Zt7Rb2QwE", "clock"),
        ToolCallDelta(1, '{"tz": "CET"}'),
    ]
    whole = completion(
        {"role": "assistant", "content": "Checking both.", "tool_calls": [WEATHER_CALL, TIME_CALL]},
        "tool_calls",
        USAGE,
    )
    reply = accumulator.reply()
    assert reply == mistral.read_reply(whole)
    assert reply.stop_reason == "tool_use"
    sdk_accumulator = mistral.Accumulator()
    feed_all(sdk_accumulator, as_sdk_events(calls_stream()))
    assert sdk_accumulator.reply() == reply
    # The SDK's chunks without their event wrapper read the same.
    chunks = [event.data for event in as_sdk_events(calls_stream())]
    bare = mistral.Accumulator()
    feed_all(bare, chunks)
    assert bare.reply() == reply


def test_a_call_streamed_in_pieces_and_calls_without_ids() -> None:
    events = [
        chunk({"role": "assistant", "content": ""}),
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "Abc123xyZ", "function": {"name": "f", "arguments": '{"a"'}}
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"name": "", "arguments": ": 1}"}}]}),
        # Two calls sent whole without ids: each names its tool, so each is a call.
        chunk({"tool_calls": [{"function": {"name": "g", "arguments": {"b": 2}}}]}),
        chunk({"tool_calls": [{"function": {"name": "g", "arguments": "{}"}}]}),
        chunk({}, "tool_calls"),
    ]
    accumulator = mistral.Accumulator()
    deltas = feed_all(accumulator, events)
    assert [d for d in deltas if isinstance(d, ToolCallStart)] == [
        ToolCallStart(0, "Abc123xyZ", "f"),
        ToolCallStart(1, None, "g"),
        ToolCallStart(2, None, "g"),
    ]
    assert [d.arguments for d in deltas if isinstance(d, ToolCallDelta)] == [
        '{"a"',
        ": 1}",
        '{"b":2}',
        "{}",
    ]
    assistant = accumulator.result()[-1]
    assert isinstance(assistant, ct.AssistantMessage)
    assert [(c.id, c.name, c.arguments) for c in assistant.tool_calls] == [
        ("Abc123xyZ", "f", {"a": 1}),
        (None, "g", {"b": 2}),
        (None, "g", {}),
    ]
    # Calls without ids are answered by position, and go out with ids of their own.
    assert [c.id for c in accumulator.reply().tool_calls] == ["Abc123xyZ", "call_1", "call_2"]
    transcript = [
        *accumulator.result(),
        ct.ToolResultMessage(tool_use_id="Abc123xyZ", content="1"),
        ct.ToolResultMessage(tool_use_id="call_1", content="2"),
        ct.ToolResultMessage(tool_use_id="call_2", content="3"),
    ]
    calls, results = calls_and_results(replay(transcript))
    assert calls == results and len(set(calls)) == 3


def test_partial_keeps_what_arrived_and_only_whole_calls() -> None:
    accumulator = mistral.Accumulator()
    seen = []
    for event in calls_stream()[:4]:
        accumulator.feed(event)
        assistant = accumulator.partial()[-1]
        assert isinstance(assistant, ct.AssistantMessage)
        seen.append((assistant.content, [c.name for c in assistant.tool_calls]))
    assert seen == [
        ("", []),
        ("Checking ", []),
        ("Checking both.", []),
        ("Checking both.", ["weather"]),
    ]
    with pytest.raises(StreamError, match="without a finish_reason"):
        accumulator.result()
    cut = mistral.Accumulator()
    feed_all(cut, reasoning_stream()[:2])
    assert cut.partial() == [
        ct.AssistantMessage(thinking=(ct.ThinkingBlock(text="17 * 23: 340 + 51"),))
    ]


def cut_call_stream() -> list[dict[str, Any]]:
    """Text and a call, then a second call cut off at the token limit."""
    return [
        chunk({"role": "assistant", "content": "Checking."}),
        chunk({"tool_calls": [WEATHER_CALL]}),
        chunk(
            {
                "tool_calls": [
                    {"id": "Zt7Rb2QwE", "function": {"name": "clock", "arguments": '{"tz": "CE'}}
                ]
            }
        ),
        chunk({}, "length", USAGE),
    ]


def test_a_stream_cut_in_a_call_at_the_token_limit_keeps_the_call_out_of_the_turn() -> None:
    accumulator = mistral.Accumulator()
    feed_all(accumulator, cut_call_stream())
    reply = accumulator.reply()
    assert reply.stop_reason == "max_tokens"
    kept, assistant = reply.messages
    assert isinstance(assistant, ct.AssistantMessage)
    assert [c.name for c in assistant.tool_calls] == ["weather"]
    assert isinstance(kept, ct.ProviderOutputItemsMessage)  # the cut call is kept there
    assert mistral.left_out([ct.UserMessage(content="q"), *reply.messages]) == [
        LeftOut(
            1,
            "call",
            "item 0 at /tool_calls/1: a call cut off at the token limit is not sent: "
            "no result answers it",
        )
    ]
    body = replay([*reply.messages, ct.ToolResultMessage(tool_use_id="Hq3xK9pLm", content="rain")])
    assert [c["function"]["name"] for c in body["messages"][1]["tool_calls"]] == ["weather"]


def test_errors_name_what_is_wrong() -> None:
    with pytest.raises(ResponseError, match=r"the provider reported an error: .Unexpected role"):
        mistral.read_reply(
            {
                "object": "error",
                "message": "Unexpected role 'user' after role 'tool'",
                "type": "invalid_request_message_order",
            }
        )
    with pytest.raises(ResponseError, match="reported an error"):
        mistral.read_reply({"detail": [{"loc": ["body", "model"], "msg": "field required"}]})
    with pytest.raises(
        ResponseError, match=r"choices\[0\].message.tool_calls\[0\]: arguments are not valid JSON"
    ):
        mistral.read_reply(
            completion(
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "x", "function": {"name": "f", "arguments": "{"}}],
                }
            )
        )
    with pytest.raises(ResponseError, match="'content' should be text or a list"):
        mistral.read_reply(completion({"role": "assistant", "content": 5}))
    accumulator = mistral.Accumulator()
    accumulator.feed(chunk({"role": "assistant", "content": ""}))
    with pytest.raises(StreamError, match="chunk 1: a tool call starts without a name") as caught:
        accumulator.feed(
            chunk({"tool_calls": [{"id": "Abc123xyZ", "function": {"arguments": "{}"}}]})
        )
    assert caught.value.index == 1
    with pytest.raises(StreamError, match="chunk 2: the provider reported an error"):
        accumulator.feed({"object": "error", "message": "overloaded"})
    accumulator.feed(chunk({}, "stop"))
    with pytest.raises(StreamError, match="more of the first choice after its finish_reason"):
        accumulator.feed(chunk({"content": "late"}))


# --- what a request leaves out, and whose it is ----------------------------------------------


def test_left_out_is_empty_for_what_mistral_produced() -> None:
    transcript: list[ct.Message] = [ct.SystemMessage(content="s"), ct.UserMessage(content="q")]
    for message, finish in (
        (REASONED, "stop"),
        ({"role": "assistant", "content": "", "tool_calls": [WEATHER_CALL]}, "tool_calls"),
        (
            {
                "role": "assistant",
                "content": [text("a [1]"), {"type": "reference", "reference_ids": [1]}],
            },
            "stop",
        ),
    ):
        reply = mistral.read_reply(completion(message, finish))
        transcript += reply.messages
        transcript += [
            ct.ToolResultMessage(tool_use_id=c.id, content="r") for c in reply.tool_calls
        ]
        transcript.append(ct.UserMessage(content="next"))
    validate_mistral(mistral.to_request(transcript))
    assert mistral.left_out(transcript) == []


def test_left_out_names_other_providers_items_and_fields_with_no_input() -> None:
    item = {"role": "assistant", "content": [thinking("held"), text("hi")], "audit": {"x": 1}}
    transcript: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.ProviderOutputItemsMessage(protocol="openai-responses", items=({"type": "reasoning"},)),
        ct.ProviderOutputItemsMessage(protocol="gemini", items=()),  # holds nothing to lose
        ct.ProviderOutputItemsMessage(protocol="mistral", items=(item, 3)),
        ct.AssistantMessage(
            content="hi",
            thinking=(
                ct.ThinkingBlock(text="held", signature="c2ln"),
                ct.ThinkingBlock(text="not in the item"),
            ),
        ),
    ]
    report = mistral.left_out(transcript)
    assert report == [
        LeftOut(
            1,
            "items",
            "'openai-responses' items belong to another provider; "
            "Mistral is sent the assistant message beside them",
        ),
        LeftOut(3, "items", "item 0 at /audit: an assistant message takes no such input field"),
        LeftOut(
            3, "items", "item 1: an item that is not a message object has no place in the request"
        ),
        LeftOut(4, "signature", "thinking block 0: Mistral has no place for a thinking signature"),
        LeftOut(
            4,
            "thinking",
            "thinking block 1: the kept message before this turn is sent in its place, "
            "with its own thinking",
        ),
    ]
    body = mistral.to_request(transcript)
    assert body["messages"][1] == {
        "role": "assistant",
        "content": [thinking("held"), text("hi")],
        "prefix": True,
    }
    without = strip_reported(transcript, report, "Mistral")
    assert mistral.to_request(without) == body
    assert mistral.left_out(without) == []


# --- the request belongs to the caller ------------------------------------------------------


def test_a_request_shares_nothing_with_the_transcript() -> None:
    reply = mistral.from_response(
        completion(
            {
                "role": "assistant",
                "content": [thinking("t", signature="c2ln"), text("x")],
                "tool_calls": [WEATHER_CALL],
            },
            "tool_calls",
        )
    )
    transcript: list[ct.Message] = [
        ct.UserMessage(content="q"),
        *reply,
        ct.ToolResultMessage(tool_use_id="Hq3xK9pLm", content="r"),
        ct.AssistantMessage(
            tool_calls=(
                ct.ToolCall(id="k", name="f", arguments={"deep": {"list": [1, {"a": None}]}}),
            )
        ),
        ct.ToolResultMessage(tool_use_id="k", content="r"),
    ]
    assert isinstance(reply[0], ct.ProviderOutputItemsMessage)
    assert_owned(lambda: mistral.to_request(transcript), transcript)


@settings(max_examples=examples(60, 20))
@given(cst.conversations(max_exchanges=3))
def test_generated_requests_share_nothing_with_their_transcripts(
    messages: list[ct.Message],
) -> None:
    assert_owned(lambda: mistral.to_request(messages, unsupported="note"), messages)


# --- after a cancel -----------------------------------------------------------------------------


def streams() -> list[list[dict[str, Any]]]:
    signed = [
        chunk({"role": "assistant", "content": [thinking("plan", signature="c2ln")]}),
        chunk({"content": [text("Looking"), {"type": "reference", "reference_ids": [1]}]}),
        chunk({"tool_calls": [WEATHER_CALL, TIME_CALL]}),
        chunk({}, "tool_calls", USAGE),
    ]
    return [reasoning_stream(), calls_stream(), signed]


@settings(max_examples=examples(40, 12))
@given(st.sampled_from(range(3)), st.data())
def test_a_stream_cut_after_any_chunk_makes_a_request_mistral_takes(
    which: int, data: st.DataObject
) -> None:
    events = streams()[which]
    cut = data.draw(st.integers(0, len(events)))
    sdk_form = data.draw(st.booleans())
    accumulator = mistral.Accumulator()
    feed_all(accumulator, as_sdk_events(events[:cut]) if sdk_form else events[:cut])
    history: list[ct.Message] = [
        ct.SystemMessage(content="s"),
        ct.UserMessage(content="q"),
        *accumulator.partial(),
    ]
    closed = ct.close_open_calls(history, "cancelled")
    body = mistral.to_request([*closed, ct.UserMessage(content="never mind")])
    validate_mistral(body)
    calls, results = calls_and_results(body)
    assert sorted(calls) == sorted(results)
    if accumulator.finished:
        # The whole reply's calls, with the ids their results carry.
        assert {c.id for c in accumulator.reply().tool_calls} <= set(calls)


def test_every_cut_of_every_stream() -> None:
    # The property above draws; this walks every cut once, dicts and SDK objects alike.
    for events in streams():
        for cut in range(len(events) + 1):
            for form in (events[:cut], as_sdk_events(events[:cut])):
                accumulator = mistral.Accumulator()
                feed_all(accumulator, form)
                history = [ct.UserMessage(content="q"), *accumulator.partial()]
                closed = ct.close_open_calls(history, "cancelled")
                validate_mistral(mistral.to_request([*closed, ct.UserMessage(content="stop")]))


# --- generated replies ------------------------------------------------------------------------

_texts = cst.texts(12)
_arguments = st.dictionaries(cst.texts(6), cst.json_values(4), max_size=3)


# A name Mistral gives a call: one of the tools offered, which it checks.
_tool_names = st.from_regex(r"[A-Za-z0-9_-]{1,8}", fullmatch=True)


@st.composite
def replies(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A reply as Mistral sends it whole, and a stream that adds up to it.

    Thinking comes first, in pieces, as lists of thinking chunks; the text
    then comes as strings, or as text chunks in lists; calls come whole,
    with ids and names of Mistral's shape and argument text spaced as
    Mistral spaces it.
    """
    thought = draw(st.lists(_texts.filter(bool), max_size=3))
    said = draw(st.lists(_texts, max_size=3))
    calls = [
        {"id": f"A{n:08d}", "function": {"name": name, "arguments": json.dumps(arguments)}}
        for n, (name, arguments) in enumerate(
            draw(st.lists(st.tuples(_tool_names, _arguments), max_size=3))
        )
    ]
    content: Any = "".join(said)
    if thought:
        content = [thinking("".join(thought), closed=True)]
        if "".join(said):
            content.append(text("".join(said)))
    message: dict[str, Any] = {"role": "assistant", "content": content, "tool_calls": calls or None}
    events = [chunk({"role": "assistant", "content": [thinking(thought[0])] if thought else ""})]
    events += [chunk({"content": [thinking(piece)]}) for piece in thought[1:]]
    as_chunks = draw(st.booleans())
    events += [chunk({"content": [text(piece)] if as_chunks else piece}) for piece in said]
    events += [chunk({"tool_calls": [call]}) for call in calls]
    finish = "tool_calls" if calls else "stop"
    events.append(chunk({"content": ""}, finish, USAGE))
    return completion(message, finish, USAGE), events


@settings(max_examples=examples(80, 25))
@given(replies(), st.booleans())
def test_generated_streams_equal_their_replies_and_go_back(
    generated: tuple[dict[str, Any], list[dict[str, Any]]], sdk_form: bool
) -> None:
    whole, events = generated
    expected = mistral.read_reply(whole)
    assert mistral.read_reply(sdk.ChatCompletionResponse.model_validate(whole)) == expected
    accumulator = mistral.Accumulator()
    deltas = feed_all(accumulator, as_sdk_events(events) if sdk_form else events)
    assert accumulator.reply() == expected
    assert accumulator.partial() == accumulator.result() == expected.messages
    assistant = expected.messages[-1]
    assert isinstance(assistant, ct.AssistantMessage)
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == assistant.content
    assert "".join(d.text for d in deltas if isinstance(d, ThinkingDelta)) == "".join(
        t.text for t in assistant.thinking
    )
    # The reply goes back as it came: its own transcript leaves nothing out.
    transcript: list[ct.Message] = [ct.UserMessage(content="q"), *expected.messages]
    transcript += [ct.ToolResultMessage(tool_use_id=c.id, content="r") for c in expected.tool_calls]
    transcript.append(ct.UserMessage(content="next"))
    body = mistral.to_request(transcript)
    validate_mistral(body)
    assert mistral.left_out(transcript) == []
    sent = body["messages"][1]
    message = whole["choices"][0]["message"]
    if message["tool_calls"]:
        # Ids and argument text as they came ("type": "function" is the default).
        calls = [{k: v for k, v in c.items() if k != "type"} for c in sent["tool_calls"]]
        assert calls == message["tool_calls"]


@settings(max_examples=examples(60, 20))
@given(replies(), st.data())
def test_a_generated_stream_cut_anywhere_makes_a_request_mistral_takes(
    generated: tuple[dict[str, Any], list[dict[str, Any]]], data: st.DataObject
) -> None:
    _, events = generated
    cut = data.draw(st.integers(0, len(events)))
    accumulator = mistral.Accumulator()
    feed_all(accumulator, events[:cut])
    history: list[ct.Message] = [ct.UserMessage(content="q"), *accumulator.partial()]
    closed = ct.close_open_calls(history, "cancelled")
    body = mistral.to_request([*closed, ct.UserMessage(content="never mind")])
    validate_mistral(body)
    calls, results = calls_and_results(body)
    assert sorted(calls) == sorted(results)
