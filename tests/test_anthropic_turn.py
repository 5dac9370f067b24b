"""A whole turn through the Anthropic dialect, and replies that replay as they came.

Tools in; deltas, stop reason and usage out; a partial reply on cancel; the
content blocks the flat message cannot say (server tools, citations,
``caller``, block order, compaction, fallback, unknown types) kept as
``anthropic`` items and sent back block for block. No network and no
recorded data: every response and stream here is written in the shapes the
Messages API sends, and the SDK's own types validate them.
"""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Callable
from enum import Enum
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_dialects_requests import force

import convtypes as ct
from convtypes import strategies as cst
from convtypes.dialects import (
    DialectError,
    Reply,
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
    openai_chat,
)
from convtypes.dialects._partial_json import read_partial_object

sdk = pytest.importorskip("anthropic")

from pydantic import BaseModel, TypeAdapter  # noqa: E402  (after the SDK is known to be there)

# --- building replies and their streams ------------------------------------------


def reply_of(
    content: list[dict[str, Any]],
    stop: str | None = "end_turn",
    usage: dict[str, Any] | None = None,
    model: str = "claude-sonnet-4-6",
) -> dict[str, Any]:
    """A Messages API response around ``content``."""
    return {
        "id": "msg_turn_01",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage if usage is not None else {"input_tokens": 12, "output_tokens": 34},
    }


def _halves(text: str) -> list[str]:
    return [text[: len(text) // 2], text[len(text) // 2 :]] if len(text) > 1 else [text]


# What a stream reports only at its end, in message_delta.
_LATE_USAGE = ("output_tokens", "output_tokens_details", "iterations", "fallback_credit")


def stream_of(
    reply: dict[str, Any],
    cut: Callable[[str], list[str]] = _halves,
    json_text: dict[int, str] | None = None,
    unstopped: bool = False,
) -> list[dict[str, Any]]:
    """The events the API streams for ``reply``.

    Text, thinking and input JSON come in pieces (``cut``); a block's input
    JSON is ``json_text[position]`` where given, else its ``json.dumps``.
    ``unstopped``: the last block gets no ``content_block_stop``, as when the
    token limit cuts a stream inside it.
    """
    usage = reply["usage"]
    early = {k: v for k, v in usage.items() if k not in _LATE_USAGE}
    late = {k: v for k, v in usage.items() if k in _LATE_USAGE}
    start = {**reply, "content": [], "stop_reason": None, "usage": {**early, "output_tokens": 1}}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    last = len(reply["content"]) - 1
    for at, block in enumerate(reply["content"]):
        kind = block["type"]
        deltas: list[dict[str, Any]] = []
        if kind == "text":
            first = {k: v for k, v in block.items() if k != "citations"}
            first["text"] = ""
            for citation in block.get("citations") or ():
                deltas.append({"type": "citations_delta", "citation": citation})
            deltas += [{"type": "text_delta", "text": t} for t in cut(block["text"])]
        elif kind == "thinking":
            first = {**block, "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": t} for t in cut(block["thinking"])]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif "input" in block:
            first = {**block, "input": {}}
            text = (json_text or {}).get(at, json.dumps(block["input"]))
            deltas = [{"type": "input_json_delta", "partial_json": t} for t in cut(text)]
        elif kind == "compaction":
            first = {**block, "content": None, "encrypted_content": None}
            fields = {k: block[k] for k in ("content", "encrypted_content")}
            deltas = [{"type": "compaction_delta", **fields}]
        else:
            first = block
        events.append({"type": "content_block_start", "index": at, "content_block": first})
        events += [{"type": "content_block_delta", "index": at, "delta": d} for d in deltas]
        if not (unstopped and at == last):
            events.append({"type": "content_block_stop", "index": at})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": reply["stop_reason"], "stop_sequence": None},
            "usage": late,
        }
    )
    events.append({"type": "message_stop"})
    return events


def feed_all(events: list[Any]) -> tuple[anthropic.Accumulator, list[Any]]:
    target = anthropic.Accumulator()
    deltas = [delta for event in events for delta in target.feed(event)]
    return target, deltas


_EVENT = TypeAdapter(sdk.types.RawMessageStreamEvent)
_BETA_EVENT = TypeAdapter(sdk.types.beta.BetaRawMessageStreamEvent)


def sdk_events(events: list[dict[str, Any]], beta: bool = False) -> list[Any]:
    adapter = _BETA_EVENT if beta else _EVENT
    return [adapter.validate_python(event) for event in events]


class _Recorded:
    """Events in the place of the HTTP stream the SDK's ``MessageStream`` reads."""

    def __init__(self, events: list[Any]) -> None:
        self.events = events
        self.response = SimpleNamespace(request=SimpleNamespace(headers={}))

    def __iter__(self) -> Any:
        return iter(self.events)

    def close(self) -> None:
        pass


def helper_stream(events: list[dict[str, Any]], beta: bool = False) -> tuple[list[Any], Any]:
    """The events of the SDK's ``messages.stream()`` helper, and its final message."""
    from anthropic.lib.streaming import BetaMessageStream, MessageStream

    kind: Any = BetaMessageStream if beta else MessageStream
    objects = sdk_events([e for e in events if e["type"] != "ping"], beta)
    stream = kind(_Recorded(objects), sdk.NOT_GIVEN)
    return list(stream), stream.get_final_message()


def read_everywhere(
    reply: dict[str, Any], events: list[dict[str, Any]], beta: bool = False, typed: bool = True
) -> Reply:
    """The reply as ``read_reply`` reads it, checked equal to every stream form.

    With ``typed``, also as the SDK's objects (which refuse a stop reason
    they do not know).
    """
    expected = anthropic.read_reply(reply)
    assert anthropic.from_response(reply) == expected.messages
    target, _ = feed_all(events)
    assert target.reply() == expected
    assert target.result() == expected.messages == target.partial()
    if typed:
        message_type = sdk.types.beta.BetaMessage if beta else sdk.types.Message
        assert anthropic.read_reply(message_type.model_validate(reply)) == expected
        target, _ = feed_all(sdk_events(events, beta))
        assert target.reply() == expected
    return expected


def validate(body: dict[str, Any], beta: bool = False, **fields: Any) -> None:
    """Validate a request body against the SDK's request type."""
    full = {"model": "claude-sonnet-4-6", "max_tokens": 1024, **fields, **body}
    force(_request_adapter(beta).validate_python(full))


@functools.cache  # kept alive: pydantic's lazy iterators need their adapter
def _request_adapter(beta: bool) -> Any:
    if beta:
        from anthropic.types.beta.message_create_params import MessageCreateParamsNonStreaming
    else:
        from anthropic.types.message_create_params import (  # type: ignore[assignment]
            MessageCreateParamsNonStreaming,
        )
    return TypeAdapter(MessageCreateParamsNonStreaming)


def replayed(messages: list[ct.Message], beta: bool = False) -> list[dict[str, Any]]:
    """The assistant content ``to_request`` sends for a reply after a question."""
    body = anthropic.to_request([ct.UserMessage(content="Question?"), *messages])
    validate(body, beta)
    turns = body["messages"]
    assert [turn["role"] for turn in turns] == ["user", "assistant"]
    content: list[dict[str, Any]] = turns[1]["content"]
    return content


# --- replies written from the docs -------------------------------------------------

SEARCH_CALL: dict[str, Any] = {
    "type": "server_tool_use",
    "id": "srvtoolu_01Wx",
    "name": "web_search",
    "input": {"query": "tide tables Brest"},
    "caller": {"type": "direct"},
}
SEARCH_RESULT: dict[str, Any] = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_01Wx",
    "content": [
        {
            "type": "web_search_result",
            "title": "Tides of Brest",
            "url": "https://tides.example/brest",
            "encrypted_content": "RW5jcnlwdGVkIHBhZ2U=",
            "page_age": "2 days ago",
        }
    ],
}
CITATION: dict[str, Any] = {
    "type": "web_search_result_location",
    "cited_text": "High tide at 06:12 and 18:40.",
    "url": "https://tides.example/brest",
    "title": "Tides of Brest",
    "encrypted_index": "ZW5jcnlwdGVkIGluZGV4",
}
SEARCHED: list[dict[str, Any]] = [
    SEARCH_CALL,
    SEARCH_RESULT,
    {"type": "text", "text": "Here is what I found."},
    {"type": "text", "text": "High tide is at 06:12", "citations": [CITATION]},
    {"type": "text", "text": " "},
    {"type": "text", "text": "and again at 18:40.", "citations": [CITATION]},
]


def client_call(
    call_id: str = "toolu_01Ab", caller: Any = None, **arguments: Any
) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "tool_use",
        "id": call_id,
        "name": "read_file",
        "input": arguments or {"path": "notes.txt"},
    }
    if caller is not None:
        block["caller"] = caller
    return block


# === tools ===========================================================================


class Colour(str, Enum):
    red = "red"
    blue = "blue"


class Address(BaseModel):
    street: str
    city: str


class Person(BaseModel):
    name: str
    nickname: str | None = None
    colour: Colour
    tags: list[str]
    address: Address
    friends: list[Person] = []


def test_pydantic_schemas_go_as_they_are_and_the_sdk_takes_them() -> None:
    schemas = {
        "address": Address.model_json_schema(),  # a plain object
        "person": Person.model_json_schema(),  # $defs/$ref, anyOf null, enum, lists, recursion
    }
    tools = [
        ToolSpec(name=n, description=f"Store a {n}.", parameters=s) for n, s in schemas.items()
    ]
    out = anthropic.tools_to_request(tools)
    validate({"messages": [{"role": "user", "content": "hi"}]}, **out)
    assert out["tool_choice"] == {"type": "auto"}
    address, person = out["tools"]
    assert address == {
        "name": "address",
        "description": "Store a address.",
        "input_schema": schemas["address"],
    }
    # A recursive model's schema is only a $ref at the top: its root becomes
    # the definition it names, the definitions kept for the inner $refs.
    assert set(schemas["person"]) == {"$defs", "$ref"}
    defs = schemas["person"]["$defs"]
    assert person["input_schema"] == {**defs["Person"], "$defs": defs}
    assert person["input_schema"]["type"] == "object"
    assert set(tools[1].parameters) == {"$defs", "$ref"}  # the spec itself is not changed


def test_a_root_without_a_type_is_an_object() -> None:
    schema = {"properties": {"q": {"type": "string"}}, "required": ["q"]}
    [tool] = anthropic.tools_to_request([ToolSpec(name="find", parameters=schema)])["tools"]
    assert tool["input_schema"] == {"type": "object", **schema}


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("auto", {"type": "auto"}),
        ("none", {"type": "none"}),
        ("required", {"type": "any"}),
        ("lookup", {"type": "tool", "name": "lookup"}),
    ],
)
def test_tool_choice_by_meaning(choice: str, expected: dict[str, Any]) -> None:
    tools = [ToolSpec(name="lookup"), ToolSpec(name="write", description="")]
    out = anthropic.tools_to_request(tools, choice=choice)
    assert out["tool_choice"] == expected
    # No description is sent for a tool without one; the default schema is an empty object.
    assert out["tools"][1] == {
        "name": "write",
        "input_schema": {"type": "object", "properties": {}},
    }
    validate({"messages": [{"role": "user", "content": "hi"}]}, **out)


def test_no_tools_give_no_fields() -> None:
    assert anthropic.tools_to_request([]) == {}
    assert anthropic.tools_to_request([], choice="none") == {}


@pytest.mark.parametrize(
    ("tools", "choice", "pattern", "tool", "path"),
    [
        ([], "required", "needs at least one tool", None, ""),
        ([ToolSpec(name="a")], "b", "nor the name of a tool given", None, ""),
        ([ToolSpec(name="has space")], "auto", "takes tool names matching", "has space", ""),
        ([ToolSpec(name="x" * 65)], "auto", "takes tool names matching", "x" * 65, ""),
        ([ToolSpec(name="a"), ToolSpec(name="a")], "auto", "given twice", "a", ""),
        (
            [ToolSpec(name="rows", parameters={"type": "array", "items": {"type": "integer"}})],
            "auto",
            r"tool 'rows': Anthropic takes only an object schema .* type is 'array'",
            "rows",
            "/type",
        ),
        (
            [ToolSpec(name="maybe", parameters={"type": ["object", "null"]})],
            "auto",
            "only an object schema",
            "maybe",
            "/type",
        ),
        (
            [ToolSpec(name="lost", parameters={"$ref": "#/$defs/Gone", "$defs": {}})],
            "auto",
            r"tool 'lost': the schema's root \$ref '#/\$defs/Gone' names no definition",
            "lost",
            "/$ref",
        ),
        (
            [ToolSpec(name="far", parameters={"$ref": "https://x.test/s.json", "$defs": {}})],
            "auto",
            "names no definition in its",
            "far",
            "/$ref",
        ),
    ],
)
def test_tools_the_api_refuses_are_refused(
    tools: list[ToolSpec], choice: str, pattern: str, tool: str | None, path: str
) -> None:
    with pytest.raises(ToolSchemaError, match=pattern) as caught:
        anthropic.tools_to_request(tools, choice=choice)
    assert isinstance(caught.value, ValueError)
    assert (caught.value.tool, caught.value.path) == (tool, path)


# === stop reasons and usage ============================================================


@pytest.mark.parametrize(
    ("provider", "ours"),
    [
        ("end_turn", "end_turn"),
        ("max_tokens", "max_tokens"),
        ("model_context_window_exceeded", "max_tokens"),
        ("stop_sequence", "stop_sequence"),
        ("pause_turn", "pause_turn"),
        ("refusal", "refusal"),
        ("tool_use", "tool_use"),
        ("a_reason_from_next_year", "other"),
    ],
)
def test_stop_reasons_by_meaning(provider: str, ours: str) -> None:
    reply = reply_of([{"type": "text", "text": "Done."}], stop=provider)
    got = read_everywhere(reply, stream_of(reply), typed=ours != "other")
    assert (got.stop_reason, got.provider_stop_reason) == (ours, provider)


def test_a_reply_that_ends_in_calls_is_tool_use_whatever_it_says() -> None:
    reply = reply_of([client_call()], stop="end_turn")
    got = read_everywhere(reply, stream_of(reply))
    assert (got.stop_reason, got.provider_stop_reason) == ("tool_use", "end_turn")


def test_no_stop_reason_is_other() -> None:
    got = anthropic.read_reply({"content": [{"type": "text", "text": "hi"}]})
    assert (got.stop_reason, got.provider_stop_reason) == ("other", None)
    assert got.usage == Usage() and got.model is None and got.id is None


def test_usage_counts_the_whole_prompt() -> None:
    usage = {
        "input_tokens": 100,
        "cache_creation_input_tokens": 20,
        "cache_read_input_tokens": 300,
        "cache_creation": {"ephemeral_5m_input_tokens": 20, "ephemeral_1h_input_tokens": 0},
        "output_tokens": 50,
        "output_tokens_details": {"thinking_tokens": 30},
        "service_tier": "standard",
        "server_tool_use": {"web_search_requests": 1, "web_fetch_requests": 0},
    }
    reply = reply_of([{"type": "text", "text": "ok"}], usage=usage)
    got = read_everywhere(reply, stream_of(reply))
    assert got.usage == Usage(
        input_tokens=420,
        output_tokens=50,
        cache_read_tokens=300,
        cache_write_tokens=20,
        reasoning_tokens=30,
        raw=usage,
    )
    assert anthropic.read_reply(reply).usage.raw is usage  # as sent


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({"input_tokens": 7, "output_tokens": 3}, Usage(input_tokens=7, output_tokens=3)),
        (
            {"input_tokens": 7, "cache_read_input_tokens": 0, "output_tokens": 3},
            Usage(input_tokens=7, output_tokens=3, cache_read_tokens=0),
        ),
        ({"output_tokens": 3}, Usage(output_tokens=3)),
        ({"input_tokens": True, "output_tokens": "3"}, Usage()),
    ],
    ids=["no-cache-fields", "cache-read-zero", "no-input", "not-integers"],
)
def test_usage_leaves_what_was_not_reported_none(usage: dict[str, Any], expected: Usage) -> None:
    got = anthropic.read_reply(reply_of([{"type": "text", "text": "ok"}], usage=usage)).usage
    assert got == Usage(
        input_tokens=expected.input_tokens,
        output_tokens=expected.output_tokens,
        cache_read_tokens=expected.cache_read_tokens,
        raw=usage,
    )


def test_stream_usage_comes_early_and_later_values_win() -> None:
    events = stream_of(reply_of([{"type": "text", "text": "ok"}]))
    events[0]["message"]["usage"] = {
        "input_tokens": 10,
        "cache_read_input_tokens": 5,
        "cache_creation_input_tokens": None,
        "output_tokens": 1,
    }
    events[-2]["usage"] = {"output_tokens": 40, "input_tokens": None}
    later = {**events[-2], "usage": {"output_tokens": 55, "fallback_credit": {"status": "x"}}}
    events.insert(-1, later)
    target, _ = feed_all(events)
    usage = target.reply().usage
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (15, 55, 5)
    assert usage.cache_write_tokens is None
    assert usage.raw == {
        "input_tokens": 10,
        "cache_read_input_tokens": 5,
        "cache_creation_input_tokens": None,
        "output_tokens": 55,
        "fallback_credit": {"status": "x"},
    }


def test_model_and_id_and_the_fallback_model() -> None:
    fallback = {
        "type": "fallback",
        "from": {"model": "claude-opus-4-7"},
        "to": {"model": "claude-sonnet-4-6"},
        "trigger": {"type": "refusal", "category": None},
    }
    # The response names the model that served it; the stream starts with the
    # model asked for, and its fallback block says which one took over.
    reply = reply_of([fallback, {"type": "text", "text": "Sure."}], model="claude-sonnet-4-6")
    events = stream_of(reply)
    events[0]["message"]["model"] = "claude-opus-4-7"
    got = read_everywhere(reply, events, beta=True)
    assert (got.model, got.id) == ("claude-sonnet-4-6", "msg_turn_01")


# --- the two cases every dialect is tested on: a cut at max_tokens, and a refusal ---

CUT_JSON = '{"path": "notes.txt", "lines": ["one", "tw'
CUT_INPUT = {"path": "notes.txt", "lines": ["one"]}  # what the text so far holds


def _cut_reply() -> dict[str, Any]:
    call = client_call("toolu_01Cut", caller={"type": "direct"})
    call["input"] = CUT_INPUT
    return reply_of(
        [{"type": "text", "text": "Writing it now."}, call],
        stop="max_tokens",
        usage={"input_tokens": 40, "output_tokens": 64},
    )


def test_a_stream_cut_inside_a_call_at_max_tokens() -> None:
    reply = _cut_reply()
    events = stream_of(reply, json_text={1: CUT_JSON}, unstopped=True)
    got = read_everywhere(reply, events)
    assert (got.stop_reason, got.provider_stop_reason) == ("max_tokens", "max_tokens")
    assert (got.usage.input_tokens, got.usage.output_tokens) == (40, 64)
    kept, assistant = got.messages
    # The call is not one a backend could run: it is kept in the items only,
    # with its input read as far as it came, as the SDK's final message holds it.
    assert assistant == ct.AssistantMessage(content="Writing it now.")
    assert isinstance(kept, ct.ProviderOutputItemsMessage)
    assert kept.items[1] == {**reply["content"][1], "input": CUT_INPUT}
    # The SDK helper's final message holds the same, and reads the same.
    fired, final = helper_stream(events)
    assert anthropic.read_reply(final) == got
    target, _ = feed_all(fired)
    assert target.reply() == got


def test_a_cut_call_is_not_sent_back_and_needs_no_result() -> None:
    got = anthropic.read_reply(_cut_reply())
    transcript = [
        ct.UserMessage(content="Write my notes."),
        *got.messages,
        ct.UserMessage(content="Go on."),  # no UnansweredCall: there is no call to answer
    ]
    body = anthropic.to_request(transcript)
    validate(body)
    assert body["messages"][1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Writing it now."}],
    }


def test_a_whole_last_call_of_a_cut_reply_is_not_run_either() -> None:
    # from_response cannot tell a whole call from one the limit cut: neither runs.
    reply = reply_of([client_call()], stop="max_tokens")
    got = read_everywhere(reply, stream_of(reply))
    assert got.messages[-1] == ct.AssistantMessage()
    assert got.stop_reason == "max_tokens"


def test_a_refusal() -> None:
    reply = reply_of(
        [{"type": "text", "text": ""}],
        stop="refusal",
        usage={"input_tokens": 20, "output_tokens": 0},
    )
    reply["stop_details"] = {"type": "refusal", "category": "cyber", "explanation": None}
    events = stream_of(reply)
    events[-2]["delta"]["stop_details"] = reply["stop_details"]
    got = read_everywhere(reply, events)
    assert got.messages == [ct.AssistantMessage()]  # the empty text block says nothing
    assert (got.stop_reason, got.provider_stop_reason) == ("refusal", "refusal")
    assert (got.usage.input_tokens, got.usage.output_tokens) == (20, 0)


def test_a_refusal_after_some_text_keeps_the_text() -> None:
    reply = reply_of(
        [
            {"type": "thinking", "thinking": "Is this fine?", "signature": "c2lnbg=="},
            {"type": "text", "text": "I can't help with"},
        ],
        stop="refusal",
    )
    got = read_everywhere(reply, stream_of(reply))
    assert got.stop_reason == "refusal"
    assert got.messages == [
        ct.AssistantMessage(
            content="I can't help with",
            thinking=(ct.ThinkingBlock(text="Is this fine?", signature="c2lnbg=="),),
        )
    ]


# === deltas ===========================================================================


def test_deltas_show_text_thinking_and_calls_as_they_come() -> None:
    reply = reply_of(
        [
            {"type": "thinking", "thinking": "Read it first.", "signature": "c2ln"},
            {"type": "text", "text": "Reading."},
            client_call("toolu_01A", path="a.txt"),
            SEARCH_CALL,
            client_call("toolu_01B", path="b.txt", n=2**70),
        ],
        stop="tool_use",
    )
    events = stream_of(reply)
    events.insert(2, {"type": "ping"})
    target, deltas = feed_all(events)
    first_json = json.dumps({"path": "a.txt"})
    second_json = json.dumps({"path": "b.txt", "n": 2**70})
    assert deltas == [
        ThinkingDelta(text="Read it"),
        ThinkingDelta(text=" first."),
        TextDelta(text="Read"),
        TextDelta(text="ing."),
        ToolCallStart(index=0, id="toolu_01A", name="read_file"),
        *[ToolCallDelta(index=0, arguments=t) for t in _halves(first_json)],
        # The server's own tool use is in the items; it is no call of the caller's.
        ToolCallStart(index=1, id="toolu_01B", name="read_file"),
        *[ToolCallDelta(index=1, arguments=t) for t in _halves(second_json)],
    ]
    calls = target.result()[-1]
    assert isinstance(calls, ct.AssistantMessage)
    assert [call.arguments for call in calls.tool_calls] == [
        json.loads(first_json),
        {"path": "b.txt", "n": 2**70},
    ]


def test_texts_other_blocks_separate_are_a_blank_line_apart() -> None:
    # Adjacent text blocks (split where a citation starts) join as they are;
    # texts with a search or a call between them are separate paragraphs.
    content: list[dict[str, Any]] = [
        {"type": "text", "text": "First I will look."},
        SEARCH_CALL,
        SEARCH_RESULT,
        {"type": "text", "text": ""},
        {"type": "text", "text": "Then answer: high tide at 06:12", "citations": [CITATION]},
        {"type": "text", "text": "."},
        client_call(),
        {"type": "text", "text": ""},
    ]
    reply = reply_of(content, stop="tool_use")
    events = stream_of(reply)
    _, deltas = feed_all(events)
    joined = "".join(d.text for d in deltas if isinstance(d, TextDelta))
    expected = "First I will look.\n\nThen answer: high tide at 06:12."
    assert joined == expected
    got = read_everywhere(reply, events)
    assert got.messages[-1] == ct.AssistantMessage(
        content=expected, tool_calls=(ct.ToolCall(**_call_fields(content[6])),)
    )


def _call_fields(block: dict[str, Any]) -> dict[str, Any]:
    return {"id": block["id"], "name": block["name"], "arguments": block["input"]}


def test_a_call_that_comes_whole_gives_a_start_and_one_piece() -> None:
    call = client_call(path="x.txt")
    events = [
        {"type": "message_start", "message": {"id": "m", "content": [call], "usage": {}}},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
        {"type": "message_stop"},
    ]
    target, deltas = feed_all(events)
    assert deltas == [
        ToolCallStart(index=0, id="toolu_01Ab", name="read_file"),
        ToolCallDelta(index=0, arguments='{"path":"x.txt"}'),
    ]
    assert target.result() == anthropic.from_response(
        {"content": [call], "stop_reason": "tool_use"}
    )


_block = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, cst.texts(20)),
    st.builds(
        lambda t, s: {"type": "thinking", "thinking": t, "signature": s},
        cst.texts(20),
        cst.texts(12).filter(bool),
    ),
    st.builds(
        lambda n, a: {"type": "tool_use", "id": f"toolu_{n:03d}", "name": "f", "input": a},
        st.integers(0, 999),
        st.dictionaries(cst.texts(6), cst.json_values(4), max_size=3),
    ),
    st.builds(lambda q: {**SEARCH_CALL, "input": {"query": q}}, cst.texts(12)),
    st.just(SEARCH_RESULT),
)


def _pieces(data: st.DataObject) -> Callable[[str], list[str]]:
    def cut(text: str) -> list[str]:
        if len(text) < 2:
            return [text]
        points = data.draw(st.lists(st.integers(1, len(text) - 1), max_size=4, unique=True))
        edges = [0, *sorted(points), len(text)]
        return [text[a:b] for a, b in itertools.pairwise(edges)]

    return cut


@settings(max_examples=60, deadline=None)
@given(st.lists(_block, max_size=6), st.data())
def test_deltas_add_up_to_the_reply(content: list[dict[str, Any]], data: st.DataObject) -> None:
    ids = [b["id"] for b in content if b["type"] == "tool_use"]
    if len(set(ids)) != len(ids):
        return
    reply = reply_of(content, stop="tool_use" if ids else "end_turn")
    events = stream_of(reply, _pieces(data))
    target, deltas = feed_all(events)
    got = anthropic.read_reply(reply)
    assert target.reply() == got
    assistant = got.messages[-1]
    assert isinstance(assistant, ct.AssistantMessage)
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == assistant.content
    thought = "".join(d.text for d in deltas if isinstance(d, ThinkingDelta))
    assert thought == "".join(t.text for t in assistant.thinking)
    starts = [d for d in deltas if isinstance(d, ToolCallStart)]
    assert [(s.index, s.id) for s in starts] == list(enumerate(ids))
    for at, call in enumerate(assistant.tool_calls):
        text = "".join(
            d.arguments for d in deltas if isinstance(d, ToolCallDelta) and d.index == at
        )
        assert json.loads(text) == call.arguments


# === partial replies ====================================================================


def test_partial_keeps_what_arrived_and_only_whole_calls() -> None:
    reply = reply_of(
        [{"type": "text", "text": "Let me check."}, client_call(path="a.txt")], stop="tool_use"
    )
    events = stream_of(reply)
    target = anthropic.Accumulator()
    assert target.partial() == [ct.AssistantMessage()]
    for event in events[:3]:  # message_start, the text block's start, half its text
        target.feed(event)
    assert target.partial() == [ct.AssistantMessage(content="Let me")]
    for event in events[3:7]:  # the text, and the call up to half its input
        target.feed(event)
    # The call has begun: it is in the items, as far as its input came, but
    # no call to run until its block stops.
    kept, assistant = target.partial()
    assert assistant == ct.AssistantMessage(content="Let me check.")
    assert kept == ct.ProviderOutputItemsMessage(
        protocol="anthropic",
        items=({"type": "text", "text": "Let me check."}, {**reply["content"][1], "input": {}}),
    )
    target.feed(events[7])  # all of its input, still not stopped
    assert target.partial()[-1] == assistant
    with pytest.raises(StreamError, match="without message_stop"):
        target.result()
    target.feed(events[8])  # content_block_stop: now the call is whole
    assert target.partial() == [
        ct.AssistantMessage(
            content="Let me check.",
            tool_calls=(
                ct.ToolCall(id="toolu_01Ab", name="read_file", arguments={"path": "a.txt"}),
            ),
        )
    ]
    for event in events[9:]:
        target.feed(event)
    assert target.partial() == target.result() == anthropic.from_response(reply)


def test_partial_after_a_bad_event_and_inside_a_server_block() -> None:
    reply = reply_of([SEARCH_CALL, SEARCH_RESULT, {"type": "text", "text": "Found."}])
    events = stream_of(reply)
    target = anthropic.Accumulator()
    for event in events[:3]:  # the search's start and the first half of its query
        target.feed(event)
    with pytest.raises(StreamError):
        target.feed({"type": "content_block_delta", "index": 7, "delta": {}})
    kept, assistant = target.partial()
    assert assistant == ct.AssistantMessage()
    # The server's query so far, read as the SDK reads a cut input.
    assert isinstance(kept, ct.ProviderOutputItemsMessage)
    assert kept.items == ({**SEARCH_CALL, "input": {}},)
    # What partial gives goes back out, as any reply does.
    body = anthropic.to_request([ct.UserMessage(content="q"), kept, assistant])
    validate(body)


def test_partial_after_a_call_that_failed_shows_no_call() -> None:
    reply = reply_of([{"type": "text", "text": "Go."}, client_call()], stop="tool_use")
    events = stream_of(reply, json_text={1: '{"path": 7'})  # whole but for its brace
    target = anthropic.Accumulator()
    with pytest.raises(StreamError, match="the tool input of block 1 does not parse"):
        for event in events:
            target.feed(event)
    assert target.partial()[-1] == ct.AssistantMessage(content="Go.")
    # A call that starts without an id is refused before it is kept.
    target = anthropic.Accumulator()
    events = stream_of(reply)
    del events[5]["content_block"]["id"]
    with pytest.raises(StreamError, match="without an id and a name"):
        for event in events:
            target.feed(event)
    assert target.partial() == [ct.AssistantMessage(content="Go.")]


# === items, and replies that replay as they came ============================================


def test_a_server_tool_reply_keeps_its_blocks_and_replays_them() -> None:
    reply = reply_of(SEARCHED, usage={"input_tokens": 900, "output_tokens": 80})
    got = read_everywhere(reply, stream_of(reply))
    kept, assistant = got.messages
    assert kept == ct.ProviderOutputItemsMessage(protocol="anthropic", items=tuple(SEARCHED))
    assert assistant == ct.AssistantMessage(
        content="Here is what I found.High tide is at 06:12 and again at 18:40."
    )
    # Block for block, but for the text of white space only, which the API refuses.
    assert replayed(got.messages) == [
        block for block in SEARCHED if block["text" if "text" in block else "type"] != " "
    ]


def test_caller_on_a_call_keeps_the_blocks_and_the_result_pairs_with_it() -> None:
    code_call = {**SEARCH_CALL, "id": "srvtoolu_01Code", "name": "code_execution"}
    code_call["input"] = {"code": "print(await read_file({'path': 'a'}))"}
    called = client_call(caller={"type": "code_execution_20260120", "tool_id": "srvtoolu_01Code"})
    reply = reply_of([code_call, called], stop="tool_use")
    got = read_everywhere(reply, stream_of(reply))
    kept, assistant = got.messages
    assert isinstance(kept, ct.ProviderOutputItemsMessage)
    assert isinstance(assistant, ct.AssistantMessage)
    assert assistant.tool_calls == (ct.ToolCall(**_call_fields(called)),)
    transcript = [
        ct.UserMessage(content="Read a."),
        *got.messages,
        ct.ToolResultMessage(tool_use_id="toolu_01Ab", content="contents of a"),
    ]
    body = anthropic.to_request(transcript)
    validate(body)
    assert body["messages"][1]["content"] == [code_call, called]
    assert body["messages"][2]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_01Ab",
            "content": "contents of a",
        }
    ]


def test_a_server_tool_needs_no_result_but_a_client_call_does() -> None:
    reply = reply_of([SEARCH_CALL, client_call()], stop="tool_use")
    transcript = [
        ct.UserMessage(content="q"),
        *anthropic.from_response(reply),
        ct.UserMessage(content="never mind"),
    ]
    with pytest.raises(UnansweredCall) as caught:
        anthropic.to_request(transcript)
    assert (caught.value.call_id, caught.value.index, caught.value.user_index) == (
        "toolu_01Ab",
        1,
        3,
    )
    answered = [*transcript[:3], ct.ToolResultMessage(tool_use_id="toolu_01Ab", content="r")]
    validate(anthropic.to_request([*answered, transcript[3]]))


def test_block_order_is_kept() -> None:
    content: list[dict[str, Any]] = [
        {"type": "text", "text": "First I will look."},
        client_call(),
        {"type": "text", "text": "Then answer."},
    ]
    got = anthropic.from_response(reply_of(content, stop="tool_use"))
    assistant = got[-1]
    assert isinstance(assistant, ct.AssistantMessage)
    assert assistant.content == "First I will look.\n\nThen answer."
    assert replayed([*got]) == content


def test_a_block_type_never_seen_is_kept_and_goes_back_as_it_came() -> None:
    novel = {"type": "hologram", "frames": [{"n": 1}], "seed": 2**66}
    content: list[dict[str, Any]] = [{"type": "text", "text": "Look:"}, novel]
    reply = reply_of(content)
    got = anthropic.read_reply(reply)
    target, _ = feed_all(stream_of(reply))
    assert target.reply() == got
    body = anthropic.to_request([ct.UserMessage(content="q"), *got.messages])
    assert body["messages"][1]["content"] == content  # the SDK's types do not know it yet


def test_compaction_and_fallback_go_back_for_the_beta_api() -> None:
    compaction = {
        "type": "compaction",
        "content": "Earlier: the user asked for tides.",
        "encrypted_content": "ZW5jcnlwdGVk",
    }
    fallback = {
        "type": "fallback",
        "from": {"model": "claude-opus-4-7"},
        "to": {"model": "claude-sonnet-4-6"},
        "trigger": {"type": "refusal", "category": None},
    }
    content: list[dict[str, Any]] = [compaction, fallback, {"type": "text", "text": "Hello again."}]
    reply = reply_of(content)
    events = stream_of(reply)
    got = read_everywhere(reply, events, beta=True)
    assert got.messages[-1] == ct.AssistantMessage(content="Hello again.")
    assert replayed(got.messages, beta=True) == content
    # The beta SDK's helper stream and its final message (``from``, not ``from_``).
    fired, final = helper_stream(events, beta=True)
    assert anthropic.read_reply(final) == got
    assert anthropic.from_response(final.model_dump(by_alias=True)) == got.messages
    target, _ = feed_all(fired)
    assert target.reply() == got


def test_a_reply_the_flat_message_carries_keeps_no_items() -> None:
    content: list[dict[str, Any]] = [
        {"type": "thinking", "thinking": "Plan.", "signature": "c2ln"},
        {"type": "redacted_thinking", "data": "cmVk"},
        {"type": "text", "text": "Reading.", "citations": None},
        client_call(),
    ]
    reply = reply_of(content, stop="tool_use")
    got = read_everywhere(reply, stream_of(reply))
    assert got.messages == [
        ct.AssistantMessage(
            content="Reading.",
            tool_calls=(ct.ToolCall(**_call_fields(content[3])),),
            thinking=(
                ct.ThinkingBlock(text="Plan.", signature="c2ln"),
                ct.ThinkingBlock(redacted_data="cmVk"),
            ),
        )
    ]


def test_items_go_back_once_and_the_message_after_them_adds_only_what_they_lack() -> None:
    reply = reply_of([*SEARCHED[:3], client_call()], stop="tool_use")
    kept, assistant = anthropic.from_response(reply)
    assert isinstance(assistant, ct.AssistantMessage)
    sent = [*SEARCHED[:3], client_call()]
    result = ct.ToolResultMessage(tool_use_id="toolu_01Ab", content="r")
    assert replayed([kept, assistant]) == sent
    # The backend changed the message: its new text and new call go after the items.
    extra = ct.ToolCall(id="toolu_01Extra", name="read_file", arguments={"path": "b"})
    edited = ct.replace(assistant, content="Edited.", tool_calls=(*assistant.tool_calls, extra))
    body = anthropic.to_request(
        [
            ct.UserMessage(content="q"),
            kept,
            edited,
            result,
            ct.ToolResultMessage(tool_use_id="toolu_01Extra", content="r2"),
        ]
    )
    validate(body)
    assert body["messages"][1]["content"] == [
        *sent,
        {"type": "text", "text": "Edited."},
        {"type": "tool_use", "id": "toolu_01Extra", "name": "read_file", "input": {"path": "b"}},
    ]


def test_a_paused_turn_and_its_continuation_make_one_assistant_turn() -> None:
    first = reply_of([SEARCH_CALL], stop="pause_turn")
    second = reply_of([SEARCH_RESULT, {"type": "text", "text": "High tide at 06:12."}])
    paused = anthropic.read_reply(first)
    assert paused.stop_reason == "pause_turn"
    transcript = [
        ct.UserMessage(content="Tides?"),
        *paused.messages,
        *anthropic.from_response(second),
    ]
    assert replayed(transcript) == [SEARCH_CALL, *second["content"]]


def test_thinking_stays_first_when_items_join_a_turn() -> None:
    signed = ct.AssistantMessage(thinking=(ct.ThinkingBlock(text="a", signature="s1"),))
    reply = reply_of(
        [{"type": "thinking", "thinking": "b", "signature": "s2"}, SEARCH_CALL, SEARCH_RESULT]
    )
    later = ct.AssistantMessage(
        content="Done.", thinking=(ct.ThinkingBlock(text="c", signature="s3"),)
    )
    content = replayed([signed, *anthropic.from_response(reply), later])
    assert [b["type"] for b in content] == [
        "thinking",
        "thinking",
        "thinking",
        "server_tool_use",
        "web_search_tool_result",
        "text",
    ]
    assert [b.get("signature") for b in content[:3]] == ["s1", "s2", "s3"]


def test_items_of_the_turn_open_the_first_turn_and_are_refused_there() -> None:
    kept = ct.ProviderOutputItemsMessage(
        protocol="anthropic", items=({"type": "text", "text": "hi"},)
    )
    with pytest.raises(DialectError, match=r"message 0: .*first turn to be a user turn"):
        anthropic.to_request([kept])


def test_other_protocols_items_are_dropped_and_other_dialects_drop_these() -> None:
    other = ct.ProviderOutputItemsMessage(protocol="openai-responses", items=({"type": "x"},))
    body = anthropic.to_request(
        [ct.UserMessage(content="q"), other, ct.AssistantMessage(content="a")]
    )
    assert body["messages"][1] == {"role": "assistant", "content": [{"type": "text", "text": "a"}]}
    messages = anthropic.from_response(reply_of(SEARCHED))
    chat = openai_chat.to_request([ct.UserMessage(content="q"), *messages])
    assert chat["messages"][1] == {
        "role": "assistant",
        "content": "Here is what I found.High tide is at 06:12 and again at 18:40.",
    }


def test_what_the_api_refuses_in_items_is_left_out() -> None:
    items = (
        {"type": "thinking", "thinking": "cut", "signature": ""},
        {"type": "thinking", "thinking": "unsigned"},
        {"type": "text", "text": " \n"},
        {"type": "text", "text": "ok", "parsed_output": {"a": 1}},
        "not a block",
    )
    kept = ct.ProviderOutputItemsMessage(protocol="anthropic", items=items)
    assert replayed([kept]) == [{"type": "text", "text": "ok"}]


def test_sdk_additions_and_null_fields_are_not_kept() -> None:
    from anthropic.lib._parse._response import parse_beta_response, parse_response
    from anthropic.types.parsed_message import ParsedTextBlock

    content: list[dict[str, Any]] = [
        {"type": "text", "text": '{"n": 1}', "citations": None},
        client_call(),
    ]
    reply = reply_of(content, stop="tool_use")
    expected = anthropic.read_reply(reply)
    assert len(expected.messages) == 1  # the flat message carries it: no items
    # What parse() returns, plain and beta, with parsed_output on its text.
    message = sdk.types.Message.model_validate(reply)
    parsed = parse_response(output_format=dict, response=message)
    first: Any = parsed.content[0]
    assert isinstance(first, ParsedTextBlock) and first.parsed_output == {"n": 1}
    assert anthropic.read_reply(parsed) == expected
    beta = parse_beta_response(
        output_format=dict, response=sdk.types.beta.BetaMessage.model_validate(reply)
    )
    assert anthropic.read_reply(beta) == expected
    # The same as a dict someone dumped with the field in it.
    with_field = [{**content[0], "parsed_output": {"n": 1}}, {**content[1], "caller": None}]
    assert anthropic.read_reply(reply_of(with_field, stop="tool_use")) == expected


def test_an_unusable_id_keeps_the_items_so_the_id_goes_back_as_it_came() -> None:
    call = client_call("toolu.with.dots")
    kept, assistant = anthropic.from_response(reply_of([call], stop="tool_use"))
    assert isinstance(kept, ct.ProviderOutputItemsMessage)
    body = anthropic.to_request(
        [
            ct.UserMessage(content="q"),
            kept,
            assistant,
            ct.ToolResultMessage(tool_use_id="toolu.with.dots", content="r"),
        ]
    )
    assert body["messages"][1]["content"] == [call]
    assert body["messages"][2]["content"][0]["tool_use_id"] == "toolu.with.dots"


@settings(max_examples=60, deadline=None)
@given(st.lists(_block, max_size=6))
def test_every_reply_replays_as_it_came(content: list[dict[str, Any]]) -> None:
    ids = [b["id"] for b in content if b["type"] == "tool_use"]
    if len(set(ids)) != len(ids):
        return
    messages = anthropic.from_response(reply_of(content, stop="tool_use" if ids else "end_turn"))
    sent = [
        block
        for block in content
        if not (block["type"] == "text" and not block["text"].strip())
        and not (block["type"] == "thinking" and not block["signature"])
    ]
    while sent and sent[-1]["type"] in ("thinking", "redacted_thinking"):
        sent.pop()  # the API refuses an assistant turn whose final block is thinking
    body = anthropic.to_request([ct.UserMessage(content="q"), *messages])
    validate(body)
    turns = body["messages"][1:]
    assert (turns[0]["content"] if turns else []) == sent


# === SDK streams =====================================================================


def test_the_sdk_helper_stream_gives_the_same_reply() -> None:
    reply = reply_of(
        [
            {"type": "thinking", "thinking": "Search first.", "signature": "c2ln"},
            *SEARCHED,
            client_call(),
        ],
        stop="tool_use",
    )
    events = stream_of(reply)
    fired, final = helper_stream(events)
    kinds = {event.type for event in fired}
    assert {"text", "thinking", "signature", "input_json", "citation"} <= kinds
    target, deltas = feed_all(fired)
    raw, raw_deltas = feed_all(events)
    assert target.reply() == raw.reply() == anthropic.read_reply(final)
    assert deltas == raw_deltas
    assert anthropic.read_reply(final) == anthropic.read_reply(reply)


class _Snapshot:
    """A helper event that carries a snapshot: reading it whole would cost the stream O(n^2)."""

    def __init__(self, kind: str, index: int | None = None) -> None:
        self.type = kind
        self.index = index

    def model_dump(self, **options: Any) -> Any:
        raise AssertionError("the event was dumped")


def test_helper_events_are_not_dumped_where_only_their_type_counts() -> None:
    reply = reply_of([{"type": "text", "text": "hi"}])
    events: list[Any] = stream_of(reply)
    events[4] = _Snapshot("content_block_stop", 0)
    events[-1] = _Snapshot("message_stop")
    events.insert(3, _Snapshot("text"))
    target, _ = feed_all(events)
    assert target.result() == anthropic.from_response(reply)


def test_event_and_delta_types_newer_than_this_version_pass() -> None:
    # Anthropic may add event and delta types, and asks clients to let them
    # pass; the SDK skips them. A known delta on the wrong block still fails.
    reply = reply_of(
        [{"type": "text", "text": "Low tide at noon."}, client_call()], stop="tool_use"
    )
    events: list[Any] = stream_of(reply)
    text_delta = {"type": "content_block_delta", "index": 0, "delta": {"type": "glint_delta"}}
    newer: list[Any] = [
        {"type": "stream_notice", "detail": "before the message"},
        events[0],
        {"type": "message_annotation", "index": 7},
        *events[1:3],
        text_delta,
        _Snapshot("content_block_annotation", 0),  # read by type alone, never dumped
        *events[3:],
    ]
    target, deltas = feed_all(newer)
    plain, plain_deltas = feed_all(events)
    assert deltas == plain_deltas
    assert target.reply() == plain.reply() == anthropic.read_reply(reply)


# === requests ==========================================================================


@pytest.mark.parametrize("messages", [[], [ct.SystemMessage(content="Be terse.")]])
def test_a_transcript_with_no_turn_is_refused(messages: list[ct.Message]) -> None:
    with pytest.raises(DialectError, match="no turn to send") as caught:
        anthropic.to_request(messages)
    assert caught.value.index is None


def test_images_go_as_the_api_takes_them() -> None:
    blocks: list[ct.ContentBlock] = [
        ct.ImageUrlBlock(url="data:IMAGE/PNG;base64,iVBORw0KGgo="),
        ct.ImageUrlBlock(url="data:image/jpg;name=a.jpg;base64,/9j/4AAQ"),
        ct.ImageBase64Block(data="R0lGODlh", media_type="Image/GIF"),
        ct.ImageBase64Block(data="/9j/", media_type="image/jpg"),
        ct.ImageUrlBlock(url="https://img.example/a.webp"),
    ]
    body = anthropic.to_request([ct.UserMultimodalMessage(content=tuple(blocks))])
    validate(body)
    assert [block["source"] for block in body["messages"][0]["content"]] == [
        {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
        {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQ"},
        {"type": "base64", "media_type": "image/gif", "data": "R0lGODlh"},
        {"type": "base64", "media_type": "image/jpeg", "data": "/9j/"},
        {"type": "url", "url": "https://img.example/a.webp"},
    ]


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("data:image/bmp;base64,Qk0=", "takes no 'image/bmp' image"),
        ("data:image/png,%89PNG", "cannot fetch a data: URL, and takes one inline only in base64"),
    ],
)
def test_data_urls_the_api_cannot_take_are_refused(url: str, why: str) -> None:
    message = ct.UserMultimodalMessage(content=(ct.ImageUrlBlock(url=url),))
    with pytest.raises(
        UnsupportedContent, match=f"message 0, block 0 \\(image_url\\): Anthropic {why}"
    ):
        anthropic.to_request([message])
    noted = anthropic.to_request([message], unsupported="note")
    assert noted["messages"][0]["content"][0]["type"] == "text"


def test_an_empty_signature_is_unsigned() -> None:
    message = ct.AssistantMessage(
        content="a", thinking=(ct.ThinkingBlock(text="cut off", signature=""),)
    )
    assert replayed([message]) == [{"type": "text", "text": "a"}]


# === errors ===========================================================================


def _bad_stream(change: Callable[[list[dict[str, Any]]], None]) -> list[dict[str, Any]]:
    events = stream_of(reply_of([{"type": "text", "text": "hi"}, client_call()], stop="tool_use"))
    change(events)
    return events


@pytest.mark.parametrize(
    ("change", "pattern", "at"),
    [
        (
            lambda e: e.__setitem__(-2, {**e[-2], "delta": "stop"}),
            r"event 9 \(message_delta\): the delta is not an object",
            9,
        ),
        (
            lambda e: e[-2]["delta"].__setitem__("stop_reason", 3),
            "the stop_reason is not text: 3",
            9,
        ),
        (
            lambda e: e[-2].__setitem__("usage", [1]),
            "the usage is not an object",
            9,
        ),
        (
            lambda e: e.__setitem__(
                2, {**e[2], "delta": {"type": "citations_delta", "citations": []}}
            ),
            r"event 2 \(content_block_delta\): the delta has no 'citation'",
            2,
        ),
        (
            lambda e: e.__setitem__(
                2, {**e[2], "delta": {"type": "compaction_delta", "content": "x"}}
            ),
            "a 'compaction_delta' delta cannot apply to a 'text' block",
            2,
        ),
        (
            lambda e: e.__setitem__(
                2, {**e[2], "delta": {"type": "input_json_delta", "partial_json": "{"}}
            ),
            "a 'input_json_delta' delta cannot apply to a 'text' block",
            2,
        ),
        (
            lambda e: e[5]["content_block"].pop("id"),
            r"event 5 \(content_block_start\): a tool_use block without an id and a name",
            5,
        ),
    ],
    ids=[
        "delta-not-object",
        "reason-not-text",
        "usage-not-object",
        "citation-missing",
        "compaction-on-text",
        "json-on-text",
        "call-without-id",
    ],
)
def test_stream_errors_name_the_event(
    change: Callable[[list[dict[str, Any]]], None], pattern: str, at: int
) -> None:
    events = _bad_stream(change)
    target = anthropic.Accumulator()
    with pytest.raises(StreamError, match=pattern) as caught:
        for event in events:
            target.feed(event)
    assert caught.value.index == at and caught.value.event is events[at]


def test_only_the_last_block_of_a_cut_stream_may_stay_open() -> None:
    reply = reply_of([{"type": "text", "text": "a"}, client_call()], stop="max_tokens")
    events = stream_of(reply)
    events.remove({"type": "content_block_stop", "index": 0})
    target = anthropic.Accumulator()
    with pytest.raises(StreamError, match=r"\(message_stop\): content block 0 was never stopped"):
        for event in events:
            target.feed(event)


def test_a_cut_input_that_cannot_be_read_fails_at_the_end_not_in_partial() -> None:
    reply = _cut_reply()
    events = stream_of(reply, json_text={1: '{"path" "notes'}, unstopped=True)
    target, _ = feed_all(events[:-2])
    kept = target.partial()[0]  # mid-stream: the input as it started, {}
    assert isinstance(kept, ct.ProviderOutputItemsMessage)
    assert kept.items[1] == {**reply["content"][1], "input": {}}
    for event in events[-2:]:
        target.feed(event)
    pattern = r"content block 1 \(started in event 5\): its input was cut off where it cannot"
    with pytest.raises(StreamError, match=pattern) as caught:
        target.result()
    assert caught.value.index == 5


def test_a_block_without_a_type_is_refused() -> None:
    with pytest.raises(ResponseError, match=r"response.content\[1\]: a block without a type"):
        anthropic.from_response(reply_of([{"type": "text", "text": "a"}, {"text": "b"}]))


# === the partial JSON reader ============================================================


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{", {}),
        ('{"pa', {}),
        ('{"path": "no', {}),
        ('{"path": "notes.txt", ', {"path": "notes.txt"}),
        ('{"n": 12', {"n": 12}),
        ('{"n": 1.', {}),
        ('{"n": -', {}),
        ('{"n": 2e', {}),
        ('{"ok": tr', {}),
        ('{"ok": true, "x": nul', {"ok": True}),
        ('{"rows": [1, [2, 3], "fo', {"rows": [1, [2, 3]]}),
        ('{"rows": [{"a": 1}, {"b": ', {"rows": [{"a": 1}, {}]}),
        ('{"q": "say \\"hi\\"", "r": "\\\\', {"q": 'say "hi"'}),
        ('{"big": 123456789012345678901234567890}', {"big": 123456789012345678901234567890}),
        (' \n{ "a" : [ ', {"a": []}),
    ],
)
def test_the_partial_reader_keeps_what_is_whole(text: str, expected: dict[str, Any]) -> None:
    assert read_partial_object(text) == expected


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("", "no JSON value yet"),
        ('"abc', "no JSON value yet"),
        ('{"a" 1', "expected ':' at offset 5"),
        ('{"a": 1 2', "expected ',' or '}' at offset 8"),
        ("{1: 2}", "expected a key at offset 1"),
        ('{"a": @', "expected a value at offset 6"),
        ('{"a": 1} x', "text after the whole value at offset 9"),
        ("[1, 2", "not an object"),
        ('{"a": 01', "not the start of a JSON object"),
    ],
)
def test_the_partial_reader_refuses_what_is_not_json(text: str, pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        read_partial_object(text)


_objects = st.dictionaries(cst.texts(6), cst.json_values(5), min_size=1, max_size=4)


@settings(max_examples=50, deadline=None)
@given(_objects, st.sampled_from([None, 1]))
def test_every_prefix_reads_as_the_sdk_reads_it(value: dict[str, Any], indent: int | None) -> None:
    jiter = pytest.importorskip("jiter")
    text = json.dumps(value, indent=indent)
    for end in range(1, len(text) + 1):
        prefix = text[:end]
        try:
            expected = jiter.from_json(prefix.encode(), partial_mode=True)
        except ValueError:
            with pytest.raises(ValueError):
                read_partial_object(prefix)
            continue
        got = read_partial_object(prefix)
        assert repr(got) == repr(expected), prefix
    assert read_partial_object(text) == value
