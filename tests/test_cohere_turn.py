"""A whole Cohere v2 chat turn: tools in; deltas, stop reason and usage out; exact replay.

Where the shapes come from (the fixtures below are written here, in those shapes):

- The ``cohere`` SDK's own tests (cohere-ai/cohere-python) record nothing:
  they call the live API. They name the events a text stream has
  (``message-start``, ``content-start``, ``content-delta``, ``content-end``,
  ``message-end``), and the SDK's types give every event's fields.
- Recordings of the live API kept by the Vercel AI SDK's Cohere provider
  (packages/cohere/src/__fixtures__): a reply with a ``tool_plan`` and two
  calls (ids like ``weather_dqgshstja6p9``, compact argument text); its
  stream, whose ``message-start`` spells every field empty, whose plan
  arrives in ``tool-plan-delta`` events and whose calls arrive in pieces
  (spaced as ``{"location": "San Francisco"}``); a call without arguments
  streamed as ``""``; a reasoning reply (a ``thinking`` content item, then
  text) and its stream; a reply with document citations and its stream;
  a reply cut at ``MAX_TOKENS``; usage with ``billed_units``, ``tokens`` and
  ``cached_tokens``.
- The API reference, where no recording has the shape: the ``debug``
  event, ``message-end`` with an ``error``, ``STOP_SEQUENCE``, ``ERROR`` and
  ``TIMEOUT`` finishes, error bodies.

A request is checked against a strict copy of the request the SDK sends
(the SDK's models keep unknown fields) and the rules the API states in its
400s: see ``provider_rules.cohere_rules``.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
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
    cohere,
)

from budget import examples
from ownership import assert_owned
from provider_rules import cohere_rules, validate_cohere
from strict_models import StrictError

sdk = pytest.importorskip("cohere")

from cohere.core.unchecked_base_model import construct_type  # noqa: E402
from cohere.v2.types import V2ChatStreamResponse  # noqa: E402

# The SDK's construct_type reads a pydantic attribute pydantic 2 deprecates.
pytestmark = pytest.mark.filterwarnings("ignore:The `__fields__` attribute is deprecated")

# --- the validation itself --------------------------------------------------------------


def test_the_validation_catches_what_the_sdk_would_keep() -> None:
    validate_cohere({"messages": [{"role": "user", "content": "hi"}]})
    with pytest.raises(StrictError, match=r"\$\.messages\[0\]: UserChatMessageV2 has no field"):
        validate_cohere({"messages": [{"role": "user", "content": "hi", "name": "ana"}]})
    with pytest.raises(Exception, match="Extra inputs are not permitted"):
        validate_cohere({"messages": []}, {"tool_config": {}})
    with pytest.raises(AssertionError, match="tool_choice 'ANY'"):
        validate_cohere({"messages": [{"role": "user", "content": "hi"}]}, {"tool_choice": "ANY"})


@pytest.mark.parametrize(
    ("messages", "error"),
    [
        (
            [
                {"role": "user", "content": "q"},
                {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "I will look."}],
                    "tool_calls": [{"id": "a", "function": {"name": "f", "arguments": "{}"}}],
                },
            ],
            "text content is not allowed beside tool_calls",
        ),
        (
            [{"role": "user", "content": "q"}, {"role": "assistant", "content": []}],
            "without text or calls",
        ),
        (
            [
                {"role": "user", "content": "q"},
                {"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "f"}}]},
                {"role": "user", "content": "next"},
            ],
            "calls without results",
        ),
        ([{"role": "user", "content": "q"}, {"role": "tool", "tool_call_id": "a"}], "unmatched a"),
    ],
)
def test_the_rules_refuse_what_cohere_refuses(messages: list[Any], error: str) -> None:
    with pytest.raises(AssertionError, match=error):
        cohere_rules(messages)


# --- builders -------------------------------------------------------------------------

USAGE = {
    "billed_units": {"input_tokens": 119, "output_tokens": 52},
    "tokens": {"input_tokens": 1549, "output_tokens": 103},
    "cached_tokens": 992,
}


def reply(
    message: dict[str, Any], finish: str = "COMPLETE", usage: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "id": "f201af17-e24a-4396-8f6a-98e8bf9c3432",
        "message": {"role": "assistant", **message},
        "finish_reason": finish,
        "usage": USAGE if usage is None else usage,
    }


def call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


WEATHER = call("weather_dqgshstja6p9", "weather", '{"location":"San Francisco"}')
SIGHTS = call("cityAttractions_dcxfx4myvx68", "cityAttractions", '{"city":"San Francisco"}')
PLAN = "I will use the weather tool, then the cityAttractions tool."
CITATION = {
    "start": 4,
    "end": 23,
    "text": "automation of tasks",
    "sources": [
        {
            "type": "document",
            "id": "doc:0",
            "document": {"id": "doc:0", "text": "AI provides: 1. Automation of tasks"},
        }
    ],
    "type": "TEXT_CONTENT",
}


def start(message_id: str = "2941521a") -> dict[str, Any]:
    # As the live API starts a stream: every field of the message spelled, empty.
    empty = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}
    return {"id": message_id, "type": "message-start", "delta": {"message": empty}}


def end(finish: str = "COMPLETE", usage: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "message-end",
        "delta": {"finish_reason": finish, "usage": USAGE if usage is None else usage},
    }


def content_events(index: int, kind: str, pieces: list[str]) -> list[dict[str, Any]]:
    return [
        {"type": "content-start", "index": index,
         "delta": {"message": {"content": {"type": kind, kind: ""}}}},
        *[
            {"type": "content-delta", "index": index, "delta": {"message": {"content": {kind: p}}}}
            for p in pieces
        ],
        {"type": "content-end", "index": index},
    ]  # fmt: skip


def call_events(index: int, whole: dict[str, Any], pieces: list[str]) -> list[dict[str, Any]]:
    first = {**whole, "function": {**whole["function"], "arguments": ""}}
    return [
        {"type": "tool-call-start", "index": index, "delta": {"message": {"tool_calls": first}}},
        *[
            {"type": "tool-call-delta", "index": index,
             "delta": {"message": {"tool_calls": {"function": {"arguments": p}}}}}
            for p in pieces
        ],
        {"type": "tool-call-end", "index": index},
    ]  # fmt: skip


def plan_events(pieces: list[str]) -> list[dict[str, Any]]:
    return [{"type": "tool-plan-delta", "delta": {"message": {"tool_plan": p}}} for p in pieces]


def calls_stream() -> list[dict[str, Any]]:
    """A plan in pieces, then two calls whose arguments arrive in pieces."""
    return [
        start(),
        *plan_events(["I will use the weather tool,", " then the cityAttractions tool."]),
        *call_events(0, WEATHER, ['{"location":', '"San Francisco"}']),
        *call_events(1, SIGHTS, ['{"city":"San ', 'Francisco"}']),
        end("TOOL_CALL"),
    ]


REASONED = {
    "content": [
        {"type": "thinking", "thinking": "2 + 2 is basic arithmetic."},
        {"type": "text", "text": "2 + 2 = 4"},
    ]
}


def reasoning_stream() -> list[dict[str, Any]]:
    return [
        start("c9117d7f"),
        *content_events(0, "thinking", ["2 + 2 is ", "basic arithmetic."]),
        *content_events(1, "text", ["2 + 2", " = 4"]),
        end(),
    ]


CITED = {"content": [{"type": "text", "text": "The automation of tasks."}], "citations": [CITATION]}


def citations_stream() -> list[dict[str, Any]]:
    return [
        start("68475c80"),
        *content_events(0, "text", ["The automation ", "of tasks."]),
        {"type": "citation-start", "index": 0, "delta": {"message": {"citations": CITATION}}},
        {"type": "citation-end", "index": 0},
        end(),
    ]


def feed_all(accumulator: cohere.Accumulator, events: list[Any]) -> list[Any]:
    return [delta for event in events for delta in accumulator.feed(event)]


def as_sdk_events(events: list[dict[str, Any]]) -> list[Any]:
    """The events as ``chat_stream`` yields them: built by the SDK without validation."""
    kind: Any = V2ChatStreamResponse  # an annotated union, which construct_type takes
    return [construct_type(type_=kind, object_=event) for event in events]


def as_sdk_reply(whole: dict[str, Any]) -> Any:
    return construct_type(type_=sdk.V2ChatResponse, object_=whole)


def replay(messages: list[ct.Message]) -> dict[str, Any]:
    body = cohere.to_request([ct.UserMessage(content="q"), *messages])
    validate_cohere(body)
    return body


def with_results(messages: list[ct.Message]) -> list[ct.Message]:
    """``messages`` of a reply, and a result for each of its calls."""
    calls = [c for m in messages if isinstance(m, ct.AssistantMessage) for c in m.tool_calls]
    return [*messages, *(ct.ToolResultMessage(tool_use_id=c.id or "", content="ok") for c in calls)]


# --- tools ------------------------------------------------------------------------------

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOLS = [
    ToolSpec(name="weather", description="The forecast.", parameters=SCHEMA),
    ToolSpec(name="ping"),
]


@pytest.mark.parametrize(
    ("choice", "names", "sent"),
    [
        ("auto", ["weather", "ping"], None),
        ("none", ["weather", "ping"], "NONE"),
        ("required", ["weather", "ping"], "REQUIRED"),
        ("ping", ["ping"], "REQUIRED"),  # the one way to make Cohere call a given tool
    ],
)
def test_tools_and_the_choices_cohere_can_say(choice: str, names: list[str], sent: Any) -> None:
    fields = cohere.tools_to_request(TOOLS, choice=choice)
    validate_cohere({"messages": [{"role": "user", "content": "hi"}]}, fields)
    assert [tool["function"]["name"] for tool in fields["tools"]] == names
    assert fields.get("tool_choice") == sent
    if "weather" in names:
        assert fields["tools"][0] == {
            "type": "function",
            "function": {"name": "weather", "description": "The forecast.", "parameters": SCHEMA},
        }
    assert_owned(lambda: cohere.tools_to_request(TOOLS, choice=choice), TOOLS)


def test_tools_cohere_cannot_take_are_refused() -> None:
    assert cohere.tools_to_request([]) == {}
    with pytest.raises(ToolSchemaError, match=r"tool 'a\.b': Cohere takes tool names"):
        cohere.tools_to_request([ToolSpec(name="a.b")])
    with pytest.raises(ToolSchemaError, match="only an object schema"):
        cohere.tools_to_request([ToolSpec(name="rows", parameters={"type": "array"})])
    with pytest.raises(ToolSchemaError, match="choice='x' is neither"):
        cohere.tools_to_request(TOOLS, choice="x")


# --- replies ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "finish", "stop"),
    [
        ({"content": [{"type": "text", "text": "Done."}]}, "COMPLETE", "end_turn"),
        ({"content": [{"type": "text", "text": "Done"}]}, "STOP_SEQUENCE", "stop_sequence"),
        ({"content": [{"type": "text", "text": "**The History of"}]}, "MAX_TOKENS", "max_tokens"),
        ({"tool_plan": PLAN, "tool_calls": [WEATHER]}, "TOOL_CALL", "tool_use"),
        ({"tool_plan": PLAN, "tool_calls": [WEATHER]}, "COMPLETE", "tool_use"),
        ({"content": [{"type": "text", "text": "x"}]}, "ERROR", "other"),
        ({"content": [{"type": "text", "text": "x"}]}, "TIMEOUT", "other"),
    ],
)
def test_the_stop_reason_is_read_by_meaning(
    message: dict[str, Any], finish: str, stop: str
) -> None:
    read = cohere.read_reply(reply(message, finish))
    assert (read.stop_reason, read.provider_stop_reason) == (stop, finish)
    assert read.messages == cohere.from_response(reply(message, finish))
    assert read.id == "f201af17-e24a-4396-8f6a-98e8bf9c3432" and read.model is None


def test_usage_counts_tokens_and_keeps_the_billed_units_raw() -> None:
    read = cohere.read_reply(reply({"content": [{"type": "text", "text": "x"}]}))
    assert read.usage == Usage(
        input_tokens=1549, output_tokens=103, cache_read_tokens=992, raw=USAGE
    )
    # The SDK holds the counts as floats; they read as the same integers.
    assert (
        cohere.read_reply(as_sdk_reply(reply({"content": [{"type": "text", "text": "x"}]}))).usage
        == read.usage
    )
    assert cohere.read_reply(reply({"content": []}, usage={})).usage == Usage(raw={})


def test_the_tool_plan_is_the_turns_text_and_goes_back_as_the_plan() -> None:
    read = cohere.read_reply(
        reply({"tool_plan": PLAN, "tool_calls": [WEATHER, SIGHTS]}, "TOOL_CALL")
    )
    # Compact argument text and a plan: the flat turn says it all, no item.
    assert read.messages == [
        ct.AssistantMessage(
            content=PLAN,
            tool_calls=(
                ct.ToolCall(
                    id="weather_dqgshstja6p9",
                    name="weather",
                    arguments={"location": "San Francisco"},
                ),
                ct.ToolCall(
                    id="cityAttractions_dcxfx4myvx68",
                    name="cityAttractions",
                    arguments={"city": "San Francisco"},
                ),
            ),
        )
    ]
    body = replay(with_results(read.messages))
    assert body["messages"][1] == {
        "role": "assistant",
        "tool_plan": PLAN,
        "tool_calls": [WEATHER, SIGHTS],
    }
    assert [m["tool_call_id"] for m in body["messages"][2:]] == [c.id for c in read.tool_calls]


def test_text_beside_calls_from_another_provider_goes_as_the_tool_plan() -> None:
    # Cohere refuses text content beside calls (vercel/ai#5794 met it).
    transcript: list[ct.Message] = [
        ct.UserMessage(content="Weather?"),
        ct.AssistantMessage(
            content="Let me look.", tool_calls=(ct.ToolCall(id="toolu_01", name="w", arguments={}),)
        ),
        ct.AssistantMessage(content="One moment."),
        ct.ToolResultMessage(tool_use_id="toolu_01", content="rain"),
        ct.AssistantMessage(content="Rain."),
    ]
    body = cohere.to_request(transcript)
    validate_cohere(body)
    assert body["messages"][1:] == [
        {
            "role": "assistant",
            "tool_plan": "Let me look.\n\nOne moment.",
            "tool_calls": [
                {"id": "toolu_01", "type": "function", "function": {"name": "w", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "toolu_01", "content": "rain"},
        {"role": "assistant", "content": [{"type": "text", "text": "Rain."}]},
    ]


def test_thinking_is_kept_with_its_reply_and_goes_back_only_there() -> None:
    messages = cohere.from_response(reply(REASONED))
    kept, assistant = messages
    assert assistant == ct.AssistantMessage(
        content="2 + 2 = 4", thinking=(ct.ThinkingBlock(text="2 + 2 is basic arithmetic."),)
    )
    assert kept == ct.ProviderOutputItemsMessage(
        protocol="cohere", items=({"role": "assistant", **REASONED},)
    )
    body = replay([*messages, ct.UserMessage(content="Times 3?")])
    assert body["messages"][1] == {"role": "assistant", **REASONED}
    # Another provider's thinking is not sent, and left_out says so.
    foreign: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(
            content="a",
            thinking=(
                ct.ThinkingBlock(text="t", signature="c2ln"),
                ct.ThinkingBlock(redacted_data="eA=="),
            ),
        ),
    ]
    assert cohere.to_request(foreign)["messages"][1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "a"}],
    }
    assert cohere.left_out(foreign) == [
        LeftOut(
            1, "thinking", "thinking block 0: Cohere takes thinking only as its own replies hold it"
        ),
        LeftOut(1, "redacted-thinking", "thinking block 1: Cohere cannot read redacted thinking"),
    ]
    without = strip_reported(foreign, cohere.left_out(foreign), "Cohere")
    assert cohere.to_request(without) == cohere.to_request(foreign)
    assert cohere.left_out(without) == []


def test_citations_are_kept_and_go_back_as_they_came() -> None:
    read = cohere.read_reply(reply(CITED))
    kept, assistant = read.messages
    assert assistant == ct.AssistantMessage(content="The automation of tasks.")
    assert isinstance(kept, ct.ProviderOutputItemsMessage)
    assert kept.items == ({"role": "assistant", **CITED},)
    body = replay([*read.messages, ct.UserMessage(content="More?")])
    assert body["messages"][1] == {"role": "assistant", **CITED}
    # Other dialects read the text.
    from convtypes.dialects import openai_chat

    chat = openai_chat.to_request([ct.UserMessage(content="q"), *read.messages])
    assert chat["messages"][1] == {"role": "assistant", "content": "The automation of tasks."}


SPACED = call("weather_e8p4pn45zt0t", "weather", '{"location": "San Francisco"}')
NO_ARGUMENTS = {
    "id": "currentTime_y46ar19t5gvw",
    "type": "function",
    "function": {"name": "currentTime"},
}


def test_spaced_arguments_and_calls_without_arguments() -> None:
    read = cohere.read_reply(
        reply({"tool_plan": PLAN, "tool_calls": [SPACED, NO_ARGUMENTS]}, "TOOL_CALL")
    )
    kept, assistant = read.messages
    assert isinstance(kept, ct.ProviderOutputItemsMessage)  # the spacing, and no arguments
    assert isinstance(assistant, ct.AssistantMessage)
    assert [c.arguments for c in assistant.tool_calls] == [{"location": "San Francisco"}, {}]
    body = replay(with_results(read.messages))
    sent = body["messages"][1]["tool_calls"]
    assert sent[0]["function"]["arguments"] == '{"location": "San Francisco"}'  # as it came


# --- streams ----------------------------------------------------------------------------


def _outcome(events: list[Any]) -> Any:
    """The deltas and reply of a stream, or the error it stops with."""
    accumulator = cohere.Accumulator()
    try:
        return feed_all(accumulator, events), accumulator.reply()
    except StreamError as err:
        return str(err)


REASONED_CALL = {
    "content": [{"type": "thinking", "thinking": "The weather tool knows."}],
    "tool_plan": "I will check the weather.",
    "tool_calls": [WEATHER],
}


def reasoned_call_stream() -> list[dict[str, Any]]:
    return [
        start("5b1f0c2e"),
        *content_events(0, "thinking", ["The weather ", "tool knows."]),
        *plan_events(["I will check ", "the weather."]),
        *call_events(0, WEATHER, ['{"location":', '"San Francisco"}']),
        end("TOOL_CALL"),
    ]


def test_a_kept_message_replays_each_calls_type_as_it_came() -> None:
    # Thinking keeps the message; its call goes back with "type": "function",
    # read whole or streamed, from JSON or from the SDK's own objects.
    whole = reply(REASONED_CALL, "TOOL_CALL")
    events = reasoned_call_stream()
    readings = [
        cohere.read_reply(whole),
        cohere.read_reply(sdk.V2ChatResponse.model_validate(whole)),
        cohere.read_reply(as_sdk_reply(whole)),
    ]
    for form in (events, as_sdk_events(events)):
        accumulator = cohere.Accumulator()
        feed_all(accumulator, form)
        readings.append(accumulator.reply())
    for read in readings:
        kept = read.messages[0]
        assert kept == ct.ProviderOutputItemsMessage(
            protocol="cohere", items=({"role": "assistant", **REASONED_CALL},)
        )
        body = replay(with_results(list(read.messages)))
        assert body["messages"][1] == {"role": "assistant", **REASONED_CALL}
        assert body["messages"][1]["tool_calls"][0]["type"] == "function"
        sent = sdk.ToolCallV2.model_validate(body["messages"][1]["tool_calls"][0])
        assert sent.model_dump(exclude_unset=True) == WEATHER


def test_a_call_that_came_without_a_type_goes_back_without_one() -> None:
    # The API's default is "function": a kept call that came without a type
    # (from a JSON stream or an older transcript) goes back as it came.
    bare = {key: value for key, value in WEATHER.items() if key != "type"}
    events = reasoned_call_stream()
    at = next(n for n, event in enumerate(events) if event["type"] == "tool-call-start")
    events[at] = call_events(0, bare, [])[0]
    accumulator = cohere.Accumulator()
    feed_all(accumulator, events)
    kept = accumulator.reply().messages[0]
    assert isinstance(kept, ct.ProviderOutputItemsMessage)
    assert kept.items == ({"role": "assistant", **REASONED_CALL, "tool_calls": [bare]},)
    body = replay(with_results(list(accumulator.reply().messages)))
    assert body["messages"][1]["tool_calls"] == [bare]
    # Read whole, it is the same message.
    whole = reply({**REASONED_CALL, "tool_calls": [bare]}, "TOOL_CALL")
    assert cohere.read_reply(whole).messages == accumulator.reply().messages


def test_a_call_whose_type_is_not_text_is_refused_at_its_event() -> None:
    accumulator = cohere.Accumulator()
    feed_all(accumulator, [start(), *plan_events(["I will check."])])
    started = call_events(0, {**WEATHER, "type": 5}, [])[0]
    with pytest.raises(
        StreamError, match=r"event 2 \(tool-call-start\): .*the call's type is not text: 5"
    ) as caught:
        accumulator.feed(started)
    assert caught.value.index == 2
    assert caught.value.event == started


@pytest.mark.filterwarnings("ignore::UserWarning")  # pydantic, dumping what was spoiled
@pytest.mark.parametrize(
    "spoil",
    [
        {"id": 5},
        {"id": b"2941521a"},
        {"id": None},
        {"delta": "junk"},
        {"delta": {"message": "junk"}},
        {"message": "junk"},
        {},
    ],
)
def test_message_start_gives_what_its_dump_gives(spoil: dict[str, Any]) -> None:
    """The start's id is read from the object only where its dump holds the same."""
    from convtypes.dialects._json import plain

    for stream in streams():
        events = as_sdk_events(stream)
        start = events[0]
        assert start.type == "message-start"
        for key, value in spoil.items():
            if key == "message":
                object.__setattr__(start.delta, "message", value)
            else:
                object.__setattr__(start, key, value)

        assert _outcome(events) == _outcome([plain(event, "an event") for event in events])


_OPEN_SPOILS = [
    ("index", "0"),
    ("index", None),
    ("delta", "junk"),
    ("delta.message", "junk"),
    ("delta.message.content", "junk"),
    ("delta.message.content.type", None),
    ("delta.message.content.type", "image"),
    ("delta.message.content.text", 5),
    ("delta.message.content.thinking", "also"),
    ("delta.message.tool_calls", "junk"),
    ("delta.message.tool_calls.id", 5),
    ("delta.message.tool_calls.function", "junk"),
    ("delta.message.tool_calls.function.name", ""),
    ("delta.message.tool_calls.function.name", 5),
    ("delta.message.tool_calls.function.arguments", 5),
    ("delta.message.tool_calls.function.arguments", '{"a": 1}'),
    ("", None),
    # A part of text with no text but thinking; a plain object where a model belongs.
    (("delta.message.content.text", None), ("delta.message.content.thinking", "also")),
    ("delta.message", SimpleNamespace),
]


@pytest.mark.filterwarnings("ignore::UserWarning")  # pydantic, dumping what was spoiled
@pytest.mark.parametrize("spoil", _OPEN_SPOILS)
def test_opening_events_give_what_their_dumps_give(spoil: tuple[Any, ...]) -> None:
    """content-start and tool-call-start read from objects read as their dumps, spoiled or not."""
    from convtypes.dialects._json import plain

    changes = spoil if isinstance(spoil[0], tuple) else (spoil,)
    for stream in streams():
        events = as_sdk_events(stream)
        for event in events:
            if event.type not in ("content-start", "tool-call-start"):
                continue
            for path, value in changes:
                if not path:
                    continue
                *way, last = path.split(".")
                target = event
                for step in way:
                    target = getattr(target, step, None)
                if target is not None and hasattr(target, "__pydantic_fields_set__"):
                    put = value
                    if value is SimpleNamespace:  # the same fields, in no model
                        put = SimpleNamespace(**vars(getattr(target, last)))
                    object.__setattr__(target, last, put)

        try:
            dumps = [plain(event, "an event") for event in events]
        except Exception:
            assert isinstance(_outcome(events), str)
            continue
        assert _outcome(events) == _outcome(dumps)


@pytest.mark.filterwarnings("ignore::UserWarning")  # pydantic, dumping what was spoiled
@pytest.mark.parametrize(
    ("kind", "path", "key", "value"),
    [
        ("message-start", "delta", "message", 5),
        ("content-start", "delta.message.content", "text", "XX"),
        ("content-start", "delta.message", "content", 5),
        ("content-delta", "delta.message.content", "thinking", "XX"),
        ("content-delta", "delta", "message", 5),
        ("tool-plan-delta", "delta.message", "tool_plan", "XX"),
        ("tool-call-start", "delta.message.tool_calls.function", "name", "g"),
        ("tool-call-start", "delta.message.tool_calls", "id", "other"),
        ("tool-call-delta", "delta.message.tool_calls.function", "arguments", "{}"),
    ],
)
def test_an_extra_field_named_as_a_read_one_reads_as_the_dump(
    kind: str, path: str, key: str, value: object
) -> None:
    """A nested model's extra field bearing a read name is what its dump writes there."""
    from convtypes.dialects._json import plain

    for stream in streams():
        events = as_sdk_events(stream)
        for event in events:
            if event.type != kind:
                continue
            target = event
            for step in path.split("."):
                target = getattr(target, step)
            if target.__pydantic_extra__ is None:
                object.__setattr__(target, "__pydantic_extra__", {})
            target.__pydantic_extra__[key] = value
        assert _outcome(events) == _outcome([plain(event, "an event") for event in events])


def test_a_calls_stream_gives_the_plan_as_text_then_the_calls() -> None:
    accumulator = cohere.Accumulator()
    assert feed_all(accumulator, calls_stream()) == [
        TextDelta("I will use the weather tool,"),
        TextDelta(" then the cityAttractions tool."),
        ToolCallStart(0, "weather_dqgshstja6p9", "weather"),
        ToolCallDelta(0, '{"location":'),
        ToolCallDelta(0, '"San Francisco"}'),
        ToolCallStart(1, "cityAttractions_dcxfx4myvx68", "cityAttractions"),
        ToolCallDelta(1, '{"city":"San '),
        ToolCallDelta(1, 'Francisco"}'),
    ]
    whole = {
        **reply({"tool_plan": PLAN, "tool_calls": [WEATHER, SIGHTS]}, "TOOL_CALL"),
        "id": "2941521a",
    }
    assert accumulator.reply() == cohere.read_reply(whole)
    sdk_accumulator = cohere.Accumulator()
    feed_all(sdk_accumulator, as_sdk_events(calls_stream()))
    assert sdk_accumulator.reply() == accumulator.reply()


@pytest.mark.parametrize(
    ("events", "message", "kinds"),
    [
        (reasoning_stream(), REASONED, [ThinkingDelta, ThinkingDelta, TextDelta, TextDelta]),
        (citations_stream(), CITED, [TextDelta, TextDelta]),
    ],
    ids=["reasoning", "citations"],
)
def test_streams_equal_their_replies(
    events: list[Any], message: dict[str, Any], kinds: list[type]
) -> None:
    whole = {**reply(message), "id": events[0]["id"]}
    for form in (events, as_sdk_events(events)):
        accumulator = cohere.Accumulator()
        deltas = feed_all(accumulator, form)
        assert [type(d) for d in deltas] == kinds
        assert accumulator.reply() == cohere.read_reply(whole)
        assert accumulator.partial() == accumulator.result()


def test_partial_keeps_what_arrived_and_only_whole_calls() -> None:
    events = calls_stream()
    accumulator = cohere.Accumulator()
    seen = []
    for event in events[:9]:
        accumulator.feed(event)
        assistant = accumulator.partial()[-1]
        assert isinstance(assistant, ct.AssistantMessage)
        seen.append((assistant.content, [c.name for c in assistant.tool_calls]))
    assert seen == [
        ("", []),
        ("I will use the weather tool,", []),
        (PLAN, []),
        (PLAN, []),  # the call begun, no arguments yet
        (PLAN, []),  # '{"location":' is not whole
        (PLAN, ["weather"]),
        (PLAN, ["weather"]),
        (PLAN, ["weather"]),  # the second call begun
        (PLAN, ["weather"]),
    ]
    with pytest.raises(StreamError, match="without message-end"):
        accumulator.result()


def test_partial_keeps_a_call_without_arguments_once_it_ends() -> None:
    # Cohere streams a call without arguments as "" and then tool-call-end:
    # the call is whole there, though its text is no object yet.
    clock = call("currentTime_y46ar19t5gvw", "currentTime", "")
    events = [start(), *plan_events(["I will check the time."]), *call_events(0, clock, [])]
    for form in (events, as_sdk_events(events)):
        accumulator = cohere.Accumulator()
        feed_all(accumulator, form[:-1])
        assert ct.open_calls(accumulator.partial()) == []  # begun, not ended: not yet whole
        accumulator.feed(form[-1])
        assistant = accumulator.partial()[-1]
        clock_call = ct.ToolCall(id="currentTime_y46ar19t5gvw", name="currentTime", arguments={})
        assert assistant == ct.AssistantMessage(
            content="I will check the time.", tool_calls=(clock_call,)
        )
        accumulator.feed(end("TOOL_CALL"))
        assert accumulator.partial() == accumulator.result()


def cut_call_stream() -> list[dict[str, Any]]:
    """A plan and a call, then a second call cut off at the token limit."""
    return [
        start(),
        *plan_events([PLAN]),
        *call_events(0, WEATHER, ['{"location":"San Francisco"}']),
        *call_events(1, SIGHTS, ['{"city": "Sa']),
        end("MAX_TOKENS"),
    ]


def test_a_stream_cut_in_a_call_at_the_token_limit() -> None:
    accumulator = cohere.Accumulator()
    feed_all(accumulator, cut_call_stream())
    read = accumulator.reply()
    assert read.stop_reason == "max_tokens"
    kept, assistant = read.messages
    assert isinstance(kept, ct.ProviderOutputItemsMessage)
    assert isinstance(assistant, ct.AssistantMessage) and [
        c.name for c in assistant.tool_calls
    ] == ["weather"]
    transcript = [ct.UserMessage(content="q"), *read.messages]
    assert cohere.left_out(transcript) == [
        LeftOut(
            1,
            "call",
            "item 0 at /tool_calls/1: a call cut off at the token limit is not sent: "
            "no result answers it",
        )
    ]
    body = replay(with_results(read.messages))
    assert [c["function"]["name"] for c in body["messages"][1]["tool_calls"]] == ["weather"]


def test_a_reply_of_thinking_alone_sends_no_turn() -> None:
    accumulator = cohere.Accumulator()
    feed_all(accumulator, reasoning_stream()[:4])  # cancelled while thinking
    partial = accumulator.partial()
    assert partial[-1] == ct.AssistantMessage(
        thinking=(ct.ThinkingBlock(text="2 + 2 is basic arithmetic."),)
    )
    body = cohere.to_request(
        [ct.UserMessage(content="q"), *partial, ct.UserMessage(content="stop")]
    )
    validate_cohere(body)
    assert [m["role"] for m in body["messages"]] == ["user", "user"]
    assert [lo.what for lo in cohere.left_out([ct.UserMessage(content="q"), *partial])] == [
        "thinking"
    ]


def test_errors_name_what_is_wrong() -> None:
    with pytest.raises(
        ResponseError, match="the provider reported an error: 'invalid request: message must"
    ):
        cohere.read_reply(
            {"id": "x", "message": "invalid request: message must be at least 1 token long"}
        )
    with pytest.raises(ResponseError, match="'content' should be a list"):
        cohere.read_reply(reply({"content": 5}))
    with pytest.raises(
        ResponseError, match=r"message.tool_calls\[0\]: arguments are not valid JSON"
    ):
        cohere.read_reply(reply({"tool_calls": [call("a", "f", "{")]}))
    accumulator = cohere.Accumulator()
    accumulator.feed(start())
    assert accumulator.feed({"type": "debug", "prompt": "<BOS_TOKEN>"}) == []  # adds nothing
    with pytest.raises(
        StreamError, match=r"event 2 \(content-delta\): names content 0, which was never started"
    ):
        accumulator.feed(
            {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": "x"}}}}
        )
    with pytest.raises(StreamError, match=r"event 3 .*a tool call starts without a name"):
        accumulator.feed(
            {
                "type": "tool-call-start",
                "index": 0,
                "delta": {"message": {"tool_calls": {"id": "a"}}},
            }
        )
    with pytest.raises(
        StreamError, match=r"event 4 \(message-end\): the provider reported an error: 'overloaded'"
    ):
        accumulator.feed(
            {"type": "message-end", "delta": {"finish_reason": "ERROR", "error": "overloaded"}}
        )
    accumulator.feed(end())
    with pytest.raises(StreamError, match="came after message-end"):
        accumulator.feed(plan_events(["late"])[0])


# --- requests ---------------------------------------------------------------------------


def test_media_cohere_takes_and_refuses() -> None:
    blocks = (
        ct.TextBlock(text="Look:"),
        ct.ImageUrlBlock(url="https://x.test/a.png", detail="high"),
        ct.ImageBase64Block(data="QUJD", media_type="image/png"),
    )
    body = cohere.to_request([ct.UserMultimodalMessage(content=blocks)])
    validate_cohere(body)
    assert body["messages"][0]["content"] == [
        {"type": "text", "text": "Look:"},
        {"type": "image_url", "image_url": {"url": "https://x.test/a.png", "detail": "high"}},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}},
    ]
    audio = ct.UserMultimodalMessage(
        content=(ct.AudioBase64Block(data="UklG", media_type="audio/wav"),)
    )
    with pytest.raises(
        UnsupportedContent, match=r"block 0 \(audio_base64\): Cohere has no content item for audio"
    ):
        cohere.to_request([audio])
    assert cohere.left_out([audio]) == [
        LeftOut(0, "audio", "block 0: Cohere has no content item for audio")
    ]


def test_results_pair_with_their_calls_and_unanswered_calls_are_refused() -> None:
    turn = ct.AssistantMessage(
        tool_calls=(
            ct.ToolCall(name="f", arguments={}),
            ct.ToolCall(id="has space", name="g", arguments={}),
        )
    )
    transcript: list[ct.Message] = [
        ct.UserMessage(content="go"),
        turn,
        ct.ToolResultMessage(tool_use_id="has space", content="g"),
        ct.ToolResultMessage(tool_use_id="call_0", content="f"),
    ]
    body = cohere.to_request(transcript)
    validate_cohere(body)
    assert [c["id"] for c in body["messages"][1]["tool_calls"]] == ["call_1_0", "call_1_1"]
    assert [m["tool_call_id"] for m in body["messages"][2:]] == ["call_1_1", "call_1_0"]
    with pytest.raises(UnansweredCall, match="Cohere refuses a call without its result"):
        cohere.to_request([*transcript[:3], ct.UserMessage(content="and f?")])


def test_left_out_is_empty_for_what_cohere_produced() -> None:
    transcript: list[ct.Message] = [ct.SystemMessage(content="s"), ct.UserMessage(content="q")]
    for message, finish in (
        (REASONED, "COMPLETE"),
        (CITED, "COMPLETE"),
        ({"tool_plan": PLAN, "tool_calls": [WEATHER]}, "TOOL_CALL"),
    ):
        transcript += with_results(cohere.from_response(reply(message, finish)))
        transcript.append(ct.UserMessage(content="next"))
    validate_cohere(cohere.to_request(transcript))
    assert cohere.left_out(transcript) == []
    other = ct.ProviderOutputItemsMessage(protocol="gemini", items=({"text": "x"},))
    assert cohere.left_out([ct.UserMessage(content="q"), other]) == [
        LeftOut(
            1,
            "items",
            "'gemini' items belong to another provider; "
            "Cohere is sent the assistant message beside them",
        )
    ]


def test_left_out_names_each_piece_at_its_place() -> None:
    item = {"role": "assistant", **REASONED, "audit": {"x": 1}}
    thoughts = {"role": "assistant", "content": [{"type": "thinking", "thinking": "Hmm."}]}
    transcript: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.ProviderOutputItemsMessage(protocol="gemini", items=()),  # holds nothing to lose
        ct.ProviderOutputItemsMessage(protocol="cohere", items=(item, 3)),
        ct.AssistantMessage(
            content="2 + 2 = 4",
            thinking=(
                ct.ThinkingBlock(text="2 + 2 is basic arithmetic.", signature="c2ln"),
                ct.ThinkingBlock(text="not in the item"),
                ct.ThinkingBlock(redacted_data="eA=="),
            ),
        ),
        ct.UserMessage(content="and?"),
        ct.ProviderOutputItemsMessage(protocol="cohere", items=(thoughts,)),
    ]
    report = cohere.left_out(transcript)
    assert report == [
        LeftOut(2, "items", "item 0 at /audit: an assistant message takes no such input field"),
        LeftOut(
            2, "items", "item 1: an item that is not a message object has no place in the request"
        ),
        LeftOut(3, "signature", "thinking block 0: Cohere has no place for a thinking signature"),
        LeftOut(
            3,
            "thinking",
            "thinking block 1: the kept reply before this turn is sent in its place, "
            "with its own thinking",
        ),
        LeftOut(3, "redacted-thinking", "thinking block 2: Cohere cannot read redacted thinking"),
        LeftOut(5, "thinking", f"item 0 at /content/0: {NO_TURN}"),
    ]
    body = cohere.to_request(transcript)
    assert body["messages"][1] == {"role": "assistant", **REASONED}
    without = strip_reported(transcript, report, "Cohere")
    assert cohere.to_request(without) == body
    assert cohere.left_out(without) == []


NO_TURN = (
    "its turn has neither text nor calls, so none of it is sent: "
    "Cohere takes an assistant message only with text or calls"
)


def test_thinking_alone_goes_with_the_turn_it_is_part_of() -> None:
    # A reply of thinking alone, then one that says something: one turn, sent whole.
    thoughts = {"role": "assistant", "content": [{"type": "thinking", "thinking": "Hmm."}]}
    transcript: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.ProviderOutputItemsMessage(protocol="cohere", items=(thoughts,)),
        ct.AssistantMessage(thinking=(ct.ThinkingBlock(text="Hmm."),)),
        ct.AssistantMessage(content="4"),
    ]
    body = cohere.to_request(transcript)
    assert body["messages"][1] == {
        "role": "assistant",
        "content": [{"type": "thinking", "thinking": "Hmm."}, {"type": "text", "text": "4"}],
    }
    assert cohere.left_out(transcript) == []
    # A turn that says nothing loses all its items hold, each piece named.
    unknown = {"type": "chart", "data": [1, 2]}
    silent = {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Hmm."},
            unknown,
            {"type": "text", "text": ""},
        ],
        "citations": [CITATION],
    }
    transcript = [
        ct.UserMessage(content="q"),
        ct.ProviderOutputItemsMessage(protocol="cohere", items=(silent,)),
        ct.AssistantMessage(thinking=(ct.ThinkingBlock(text="Hmm."),)),
        ct.UserMessage(content="and?"),
    ]
    report = cohere.left_out(transcript)
    assert report == [
        LeftOut(1, "thinking", f"item 0 at /content/0: {NO_TURN}"),
        LeftOut(1, "items", f"item 0 at /content/1: {NO_TURN}"),
        LeftOut(1, "annotations", f"item 0 at /citations: {NO_TURN}"),
    ]
    body = cohere.to_request(transcript)
    assert [m["role"] for m in body["messages"]] == ["user", "user"]
    without = strip_reported(transcript, report, "Cohere")
    assert cohere.to_request(without) == body


def test_a_request_shares_nothing_with_the_transcript() -> None:
    transcript: list[ct.Message] = [
        ct.UserMessage(content="q"),
        *with_results(cohere.from_response(reply({**CITED, "content": CITED["content"]}))),
        ct.UserMessage(content="and?"),
        ct.AssistantMessage(
            tool_calls=(ct.ToolCall(id="k", name="f", arguments={"deep": [{"a": 1}]}),)
        ),
        ct.ToolResultMessage(tool_use_id="k", content="r"),
    ]
    assert isinstance(transcript[1], ct.ProviderOutputItemsMessage)
    assert_owned(lambda: cohere.to_request(transcript), transcript)


@settings(max_examples=examples(60, 20))
@given(cst.conversations(max_exchanges=3))
def test_generated_requests_share_nothing_with_their_transcripts(
    messages: list[ct.Message],
) -> None:
    assert_owned(lambda: cohere.to_request(messages, unsupported="note"), messages)


# --- after a cancel ---------------------------------------------------------------------


def streams() -> list[list[dict[str, Any]]]:
    return [calls_stream(), reasoning_stream(), citations_stream()]


def test_every_cut_of_every_stream_makes_a_request_cohere_takes() -> None:
    for events in streams():
        for cut in range(len(events) + 1):
            for form in (events[:cut], as_sdk_events(events[:cut])):
                accumulator = cohere.Accumulator()
                feed_all(accumulator, form)
                history = [
                    ct.SystemMessage(content="s"),
                    ct.UserMessage(content="q"),
                    *accumulator.partial(),
                ]
                closed = ct.close_open_calls(history, "cancelled")
                body = cohere.to_request([*closed, ct.UserMessage(content="never mind")])
                validate_cohere(body)
                if accumulator.finished:
                    calls = [c["id"] for m in body["messages"] for c in m.get("tool_calls") or ()]
                    assert [c.id for c in accumulator.reply().tool_calls] == calls


# --- generated replies --------------------------------------------------------------------

_texts = cst.texts(12)
# A name Cohere gives a call: one of the tools offered, which tools_to_request checks.
_tool_names = st.from_regex(r"[A-Za-z0-9_-]{1,8}", fullmatch=True)


@st.composite
def replies(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A reply as Cohere sends it whole, and a stream that adds up to it."""
    thought = draw(st.lists(_texts.filter(bool), max_size=3))
    said = draw(st.lists(_texts.filter(bool), max_size=3))
    plan = draw(st.lists(_texts.filter(bool), max_size=2))
    named = draw(
        st.lists(
            st.tuples(
                _tool_names,
                st.dictionaries(cst.texts(6), cst.json_values(3), max_size=3),
            ),
            max_size=3,
        )
    )
    calls = [
        call(f"{name}_{n}", name, json.dumps(arguments, separators=(",", ":")))
        for n, (name, arguments) in enumerate(named)
    ]
    message: dict[str, Any] = {"role": "assistant"}
    content = []
    events = [start()]
    at = 0
    if thought:
        content.append({"type": "thinking", "thinking": "".join(thought)})
        events += content_events(at, "thinking", thought)
        at += 1
    if calls:
        if plan:
            message["tool_plan"] = "".join(plan)
            events += plan_events(plan)
        for number, whole in enumerate(calls):
            text = whole["function"]["arguments"]
            events += call_events(number, whole, [text[:3], text[3:]])
        message["tool_calls"] = calls
    elif said:
        content.append({"type": "text", "text": "".join(said)})
        events += content_events(at, "text", said)
    if content:
        message["content"] = content
    finish = "TOOL_CALL" if calls else "COMPLETE"
    events.append(end(finish))
    return {**reply(message, finish), "id": "2941521a"}, events


@settings(max_examples=examples(80, 25))
@given(replies(), st.booleans())
def test_generated_streams_equal_their_replies_and_go_back(
    generated: tuple[dict[str, Any], list[dict[str, Any]]], sdk_form: bool
) -> None:
    whole, events = generated
    expected = cohere.read_reply(whole)
    assert cohere.read_reply(as_sdk_reply(whole)) == expected
    assert cohere.read_reply(sdk.V2ChatResponse.model_validate(whole)) == expected
    accumulator = cohere.Accumulator()
    deltas = feed_all(accumulator, as_sdk_events(events) if sdk_form else events)
    assert accumulator.reply() == expected
    assert accumulator.partial() == accumulator.result() == expected.messages
    assistant = expected.messages[-1]
    assert isinstance(assistant, ct.AssistantMessage)
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == assistant.content
    assert "".join(d.text for d in deltas if isinstance(d, ThinkingDelta)) == "".join(
        t.text for t in assistant.thinking
    )
    transcript: list[ct.Message] = [ct.UserMessage(content="q"), *with_results(expected.messages)]
    transcript.append(ct.UserMessage(content="next"))
    body = cohere.to_request(transcript)
    validate_cohere(body)
    lost = cohere.left_out(transcript)
    # Only a reply of thinking alone (no text, no calls) loses anything: it sends no turn.
    if assistant.content or assistant.tool_calls or not assistant.thinking:
        assert lost == []
    else:
        assert [lo.what for lo in lost] == ["thinking"]


@settings(max_examples=examples(60, 20))
@given(replies(), st.data())
def test_a_generated_stream_cut_anywhere_makes_a_request_cohere_takes(
    generated: tuple[dict[str, Any], list[dict[str, Any]]], data: st.DataObject
) -> None:
    _, events = generated
    cut = data.draw(st.integers(0, len(events)))
    accumulator = cohere.Accumulator()
    feed_all(accumulator, events[:cut])
    history: list[ct.Message] = [ct.UserMessage(content="q"), *accumulator.partial()]
    closed = ct.close_open_calls(history, "cancelled")
    body = cohere.to_request([*closed, ct.UserMessage(content="never mind")])
    validate_cohere(body)
    calls = [c["id"] for m in body["messages"] for c in m.get("tool_calls") or ()]
    results = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
    assert sorted(calls) == sorted(results)
