"""A whole turn through the Responses dialect: tools in; deltas, stop reason
and usage out; a partial reply; items kept and replayed exactly.

No network. The responses and streams are written here in the shapes the
API reference gives (reasoning with encrypted content, web and file search,
citations, function and custom tool calls, refusals, cut replies) and in
the shapes the SDK's own recorded streams show; they are validated against
the openai SDK's types, and run through the SDK's ``responses.stream()``
helper (its ``ResponseStreamState``) and its ``parse_response``.
"""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import convtypes as ct
from convtypes.dialects import (
    LeftOut,
    Reply,
    ResponseError,
    StreamError,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStart,
    ToolSchemaError,
    ToolSpec,
    UnsupportedContent,
    Usage,
    anthropic,
    openai_chat,
    openai_responses,
)
from convtypes.dialects.openai_responses import _request as responses_request

sdk = pytest.importorskip("openai")
pydantic = pytest.importorskip("pydantic")

from openai import omit  # noqa: E402  (after the SDK is known to be there)
from openai._models import construct_type  # noqa: E402
from openai.lib._parsing._responses import parse_response  # noqa: E402
from openai.lib.streaming.responses._responses import ResponseStreamState  # noqa: E402
from openai.types.responses import Response, ResponseInputParam, ResponseStreamEvent  # noqa: E402
from openai.types.responses.response_create_params import (  # noqa: E402
    ResponseCreateParamsNonStreaming,
)
from pydantic import BaseModel, Field, TypeAdapter  # noqa: E402

_INPUT = TypeAdapter(ResponseInputParam)
_CREATE = TypeAdapter(ResponseCreateParamsNonStreaming)
_EVENT = TypeAdapter(ResponseStreamEvent)


def _force(value: Any) -> Any:
    """Consume pydantic's lazy iterators so every nested value is validated."""
    if isinstance(value, dict):
        return {key: _force(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)) or hasattr(value, "__next__"):
        return [_force(item) for item in value]
    return value


def validate_request(body: dict[str, Any]) -> None:
    """A whole request body, as ``client.responses.create`` takes it."""
    _force(_CREATE.validate_python({"model": "gpt-5", **body}))
    json.dumps(body)


def no_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: no_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [no_nulls(item) for item in value]
    return value


# --- responses, from the API reference --------------------------------------------

USAGE: dict[str, Any] = {
    "input_tokens": 1200,
    "input_tokens_details": {"cached_tokens": 1024, "cache_write_tokens": 96},
    "output_tokens": 310,
    "output_tokens_details": {"reasoning_tokens": 192},
    "total_tokens": 1510,
}

REASONING: dict[str, Any] = {
    "type": "reasoning",
    "id": "rs_a1",
    "summary": [
        {"type": "summary_text", "text": "**Planning** the lookup."},
        {"type": "summary_text", "text": "Two sources agree."},
    ],
    "encrypted_content": "gAAAAABn-encrypted-blob==",
}
WEB_SEARCH: dict[str, Any] = {
    "type": "web_search_call",
    "id": "ws_a2",
    "status": "completed",
    "action": {
        "type": "search",
        "query": "tallest lighthouse in Norway",
        "sources": [{"type": "url", "url": "https://lighthouses.test/no"}],
    },
}
FILE_SEARCH: dict[str, Any] = {
    "type": "file_search_call",
    "id": "fs_a3",
    "status": "completed",
    "queries": ["lighthouse heights"],
    "results": [
        {
            "file_id": "file-1",
            "filename": "coast.pdf",
            "score": 0.91,
            "text": "Stavanger: 27 m",
            "attributes": {"region": "west"},
        }
    ],
}
CITED: dict[str, Any] = {
    "type": "message",
    "id": "msg_a4",
    "role": "assistant",
    "status": "completed",
    "content": [
        {
            "type": "output_text",
            "text": "The tallest is at Stavanger.",
            "annotations": [
                {
                    "type": "url_citation",
                    "start_index": 0,
                    "end_index": 28,
                    "url": "https://lighthouses.test/no",
                    "title": "Lighthouses of Norway",
                },
                {
                    "type": "file_citation",
                    "file_id": "file-1",
                    "filename": "coast.pdf",
                    "index": 28,
                },
            ],
            "logprobs": [],
        }
    ],
}


def call_item(
    number: int, name: str, arguments: str, status: str | None = "completed"
) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "function_call",
        "id": f"fc_{number}",
        "call_id": f"call_{number}b",
        "name": name,
        "arguments": arguments,
    }
    if status is not None:
        item["status"] = status
    return item


def message_item(*parts: dict[str, Any], item_id: str = "msg_1") -> dict[str, Any]:
    return {
        "type": "message",
        "id": item_id,
        "role": "assistant",
        "status": "completed",
        "content": list(parts),
    }


def text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": []}


def refusal_part(text: str) -> dict[str, Any]:
    return {"type": "refusal", "refusal": text}


def response(
    output: list[dict[str, Any]],
    status: str = "completed",
    reason: str | None = None,
    usage: dict[str, Any] | None = USAGE,
) -> dict[str, Any]:
    return {
        "id": "resp_t1",
        "object": "response",
        "created_at": 1760000000,
        "model": "gpt-5-2025-08-07",
        "status": status,
        "error": None,
        "incomplete_details": {"reason": reason} if reason else None,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": usage,
    }


# --- streams, in the shapes the recorded ones show -------------------------------

Pieces = list[str]


def _halves(text: str) -> Pieces:
    return [text[: len(text) // 2], text[len(text) // 2 :]] if len(text) > 1 else [text]


def stream_of(
    reply: dict[str, Any],
    done: bool = True,
    cut: Any = _halves,
    end_output: bool = True,
) -> list[dict[str, Any]]:
    """The events that would stream ``reply``: each item added, its parts and
    deltas, then (with ``done``) its ``output_item.done``; the stream ends
    with ``response.completed`` or ``response.incomplete`` (listing the
    output unless ``end_output`` is False).
    """
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**reply, "output": [], "status": "in_progress"}}
    ]
    for at, item in enumerate(reply["output"]):
        kind = item["type"]
        base = {"item_id": item.get("id", ""), "output_index": at}
        if kind == "message":
            events.append(
                {
                    "type": "response.output_item.added",
                    "output_index": at,
                    "item": {**item, "content": [], "status": "in_progress"},
                }
            )
            for position, part in enumerate(item["content"]):
                key = "text" if part["type"] == "output_text" else "refusal"
                empty = {**part, key: ""}
                if "annotations" in empty:
                    empty["annotations"] = []
                events.append(
                    {
                        "type": "response.content_part.added",
                        **base,
                        "content_index": position,
                        "part": empty,
                    }
                )
                delta_type = (
                    "response.output_text.delta" if key == "text" else "response.refusal.delta"
                )
                for piece in cut(part[key]):
                    event = {"type": delta_type, **base, "content_index": position, "delta": piece}
                    if key == "text":
                        event["logprobs"] = []
                    events.append(event)
                if key == "text":  # as the recorded streams do; it repeats the text
                    events.append(
                        {
                            "type": "response.output_text.done",
                            **base,
                            "content_index": position,
                            "text": part["text"],
                            "logprobs": [],
                        }
                    )
        elif kind == "reasoning":
            events.append(
                {
                    "type": "response.output_item.added",
                    "output_index": at,
                    "item": {"type": "reasoning", "id": item["id"], "summary": []},
                }
            )
            for position, part in enumerate(item.get("summary", [])):
                events.append(
                    {
                        "type": "response.reasoning_summary_part.added",
                        **base,
                        "summary_index": position,
                        "part": {"type": "summary_text", "text": ""},
                    }
                )
                events.extend(
                    {
                        "type": "response.reasoning_summary_text.delta",
                        **base,
                        "summary_index": position,
                        "delta": piece,
                    }
                    for piece in cut(part["text"])
                )
            for position, part in enumerate(item.get("content") or []):
                events.append(
                    {
                        "type": "response.content_part.added",
                        **base,
                        "content_index": position,
                        "part": {"type": "reasoning_text", "text": ""},
                    }
                )
                events.extend(
                    {
                        "type": "response.reasoning_text.delta",
                        **base,
                        "content_index": position,
                        "delta": piece,
                    }
                    for piece in cut(part["text"])
                )
        elif kind == "function_call":
            events.append(
                {
                    "type": "response.output_item.added",
                    "output_index": at,
                    "item": {**item, "arguments": "", "status": "in_progress"},
                }
            )
            events.extend(
                {"type": "response.function_call_arguments.delta", **base, "delta": piece}
                for piece in cut(item["arguments"])
            )
        elif kind == "custom_tool_call":
            events.append(
                {
                    "type": "response.output_item.added",
                    "output_index": at,
                    "item": {**item, "input": ""},
                }
            )
            events.extend(
                {"type": "response.custom_tool_call_input.delta", **base, "delta": piece}
                for piece in cut(item["input"])
            )
        else:
            events.append({"type": "response.output_item.added", "output_index": at, "item": item})
        if done:
            events.append({"type": "response.output_item.done", "output_index": at, "item": item})
    end = "response.completed" if reply["status"] == "completed" else "response.incomplete"
    final = reply if end_output else {**reply, "output": None}
    events.append({"type": end, "response": final})
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events


def feed(events: list[Any]) -> tuple[openai_responses.Accumulator, list[Any]]:
    accumulator = openai_responses.Accumulator()
    deltas = [delta for event in events for delta in accumulator.feed(event)]
    return accumulator, deltas


def helper_events(events: list[dict[str, Any]]) -> tuple[list[Any], Any]:
    """The SDK helper's events for a raw stream, and its final response: the
    ``ParsedResponse`` of ``get_final_response()`` or, for a stream that ends
    incomplete (where that raises), the response its last event carries."""
    state: Any = ResponseStreamState(input_tools=omit, text_format=omit)
    out: list[Any] = []
    for event in events:
        out.extend(state.handle_event(construct_type(type_=ResponseStreamEvent, value=event)))
    final = state._completed_response
    return out, final if final is not None else out[-1].response


def same_but_raw(first: Reply, second: Reply) -> bool:
    """Equal replies but for the usage's ``raw``: a ``model_dump()`` writes a
    null for each usage field the provider left out, so its usage is not the
    one sent."""
    return _facts(first) == _facts(second)


def _facts(reply: Reply) -> tuple[Any, ...]:
    usage = reply.usage
    counts = (
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_tokens,
        usage.cache_write_tokens,
        usage.reasoning_tokens,
    )
    return (
        reply.messages,
        reply.stop_reason,
        reply.provider_stop_reason,
        counts,
        reply.model,
        reply.id,
    )


def read_every_way(reply: dict[str, Any], events: list[dict[str, Any]]) -> tuple[Reply, list[Any]]:
    """Read a reply whole and streamed, every way; all must agree. Returns the
    reply and the deltas of the raw stream."""
    expected = openai_responses.read_reply(reply)
    assert openai_responses.from_response(reply) == expected.messages
    assert openai_responses.read_reply(Response.model_validate(reply)) == expected
    dumped = Response.model_validate(reply).model_dump()
    assert same_but_raw(openai_responses.read_reply(dumped), expected)
    for event in events:
        _EVENT.validate_python(event)  # the stream is one the SDK's types describe
    raw, deltas = feed(events)
    assert raw.reply() == expected
    assert raw.result() == expected.messages
    assert raw.partial() == expected.messages
    objects, object_deltas = feed([_EVENT.validate_python(event) for event in events])
    assert objects.reply() == expected and object_deltas == deltas
    helped, final = helper_events(events)
    helper, helper_deltas = feed(helped)
    assert helper.reply() == expected and helper_deltas == deltas
    assert openai_responses.read_reply(final) == expected
    assert same_but_raw(openai_responses.read_reply(final.model_dump()), expected)
    return expected, deltas


def _get(item: object, key: str) -> object:
    assert isinstance(item, dict)
    return item[key]


def joined(deltas: list[Any], kind: type[TextDelta] | type[ThinkingDelta]) -> str:
    return "".join(d.text for d in deltas if isinstance(d, kind))


def arguments_of(deltas: list[Any], index: int) -> str:
    return "".join(d.arguments for d in deltas if isinstance(d, ToolCallDelta) and d.index == index)


def replay(messages: list[ct.Message]) -> list[Any]:
    body = openai_responses.to_request([ct.UserMessage(content="q"), *messages])
    validate_request(body)
    assert body["input"][0] == {"role": "user", "content": "q"}
    rest: list[Any] = body["input"][1:]
    return rest


# --- a reply, its facts and its replay -------------------------------------------


def test_a_reply_with_server_tools_and_citations_reads_and_replays_exactly() -> None:
    output = [REASONING, WEB_SEARCH, FILE_SEARCH, CITED]
    reply, deltas = read_every_way(response(output), stream_of(response(output)))
    items, assistant = reply.messages
    assert items == ct.ProviderOutputItemsMessage(protocol="openai-responses", items=tuple(output))
    assert assistant == ct.AssistantMessage(
        content="The tallest is at Stavanger.",
        thinking=(
            ct.ThinkingBlock(text="**Planning** the lookup."),
            ct.ThinkingBlock(text="Two sources agree."),
        ),
    )
    assert reply.stop_reason == "end_turn" and reply.provider_stop_reason == "completed"
    assert reply.model == "gpt-5-2025-08-07" and reply.id == "resp_t1"
    # The replay is the output as sent, item for item, and nothing more.
    assert replay(reply.messages) == output
    assert joined(deltas, TextDelta) == assistant.content
    assert joined(deltas, ThinkingDelta) == "**Planning** the lookup.Two sources agree."


def test_usage_counts_the_whole_prompt_and_everything_generated() -> None:
    reply = openai_responses.read_reply(response([message_item(text_part("hi"))]))
    # The API's totals already hold the cached, cache-written and reasoning parts.
    assert reply.usage == Usage(
        input_tokens=1200,
        output_tokens=310,
        cache_read_tokens=1024,
        cache_write_tokens=96,
        reasoning_tokens=192,
        raw=USAGE,
    )
    assert reply.usage.raw is USAGE


def test_usage_not_reported_is_none_never_zero() -> None:
    bare = openai_responses.read_reply(response([message_item(text_part("hi"))], usage=None))
    assert bare.usage == Usage()
    partial_usage = {"input_tokens": 5, "output_tokens": 2}
    some = openai_responses.read_reply(
        response([message_item(text_part("hi"))], usage=partial_usage)
    )
    assert some.usage == Usage(input_tokens=5, output_tokens=2, raw=partial_usage)
    odd = {"input_tokens": True, "output_tokens": "2", "input_tokens_details": 4}
    assert openai_responses.read_reply(
        response([message_item(text_part("hi"))], usage=odd)
    ).usage == Usage(raw=odd)


def test_function_calls_stop_for_tool_use_and_stream_as_start_and_pieces() -> None:
    output = [
        REASONING,
        message_item(text_part("Checking both.")),
        call_item(0, "weather", '{"city": "Oslo", "days": [1, 2]}'),
        call_item(1, "tides", '{"port":"Bergen"}'),
    ]
    reply, deltas = read_every_way(response(output), stream_of(response(output)))
    assistant = reply.messages[1]
    assert isinstance(assistant, ct.AssistantMessage)
    assert assistant.tool_calls == (
        ct.ToolCall(id="call_0b", name="weather", arguments={"city": "Oslo", "days": [1, 2]}),
        ct.ToolCall(id="call_1b", name="tides", arguments={"port": "Bergen"}),
    )
    assert reply.stop_reason == "tool_use" and reply.provider_stop_reason == "completed"
    starts = [d for d in deltas if isinstance(d, ToolCallStart)]
    assert starts == [
        ToolCallStart(index=0, id="call_0b", name="weather"),
        ToolCallStart(index=1, id="call_1b", name="tides"),
    ]
    # The pieces of each call join to its argument text as the provider sent it.
    assert arguments_of(deltas, 0) == '{"city": "Oslo", "days": [1, 2]}'
    assert arguments_of(deltas, 1) == '{"port":"Bergen"}'
    # Each start comes before that call's pieces.
    first_piece = next(n for n, d in enumerate(deltas) if isinstance(d, ToolCallDelta))
    assert deltas.index(starts[0]) < first_piece
    # The replay sends the calls once, from the items.
    assert replay(reply.messages) == output
    results = [
        ct.ToolResultMessage(tool_use_id="call_0b", content="rain"),
        ct.ToolResultMessage(tool_use_id="call_1b", content="high at 6"),
    ]
    body = openai_responses.to_request([ct.UserMessage(content="q"), *reply.messages, *results])
    validate_request(body)
    assert body["input"][-2:] == [
        {"type": "function_call_output", "call_id": "call_0b", "output": "rain"},
        {"type": "function_call_output", "call_id": "call_1b", "output": "high at 6"},
    ]


def test_an_approval_request_stops_for_tool_use_and_stays_an_item() -> None:
    item = {
        "type": "mcp_approval_request",
        "id": "mcpr_1",
        "server_label": "deepwiki",
        "name": "ask",
        "arguments": '{"q": "x"}',
    }
    reply, _ = read_every_way(response([item]), stream_of(response([item])))
    # Its answer is an mcp_approval_response item, not a tool result: it stays an item.
    assert reply.messages[1] == ct.AssistantMessage()
    assert reply.tool_calls == []
    assert reply.stop_reason == "tool_use"
    assert replay(reply.messages) == [item]


def test_a_refusal_stops_as_a_refusal_and_becomes_the_text() -> None:
    output = [message_item(refusal_part("I can't help with that."))]
    reply, deltas = read_every_way(response(output), stream_of(response(output)))
    assert reply.stop_reason == "refusal" and reply.provider_stop_reason == "completed"
    assert reply.messages[1] == ct.AssistantMessage(content="I can't help with that.")
    assert joined(deltas, TextDelta) == "I can't help with that."
    # Replayed once: from the item, not again as assistant text.
    assert replay(reply.messages) == output


def test_a_reply_cut_at_the_token_limit_in_a_call_keeps_the_call_in_the_items_only() -> None:
    cut = call_item(1, "weather", '{"city": "Os', status="incomplete")
    output = [message_item(text_part("Looking.")), call_item(0, "tides", "{}"), cut]
    whole = response(output, status="incomplete", reason="max_output_tokens")
    reply, deltas = read_every_way(whole, stream_of(whole))
    assert reply.stop_reason == "max_tokens" and reply.provider_stop_reason == "max_output_tokens"
    items, assistant = reply.messages
    assert isinstance(items, ct.ProviderOutputItemsMessage) and items.items[-1] == cut
    assert assistant == ct.AssistantMessage(
        content="Looking.", tool_calls=(ct.ToolCall(id="call_0b", name="tides", arguments={}),)
    )
    # The stream announced the cut call, but it is no ToolCall.
    assert ToolCallStart(index=1, id="call_1b", name="weather") in deltas
    assert arguments_of(deltas, 1) == '{"city": "Os'
    # No result will answer the cut call, and the API refuses a call without
    # its output: it stays in the items, and does not go back.
    assert replay(reply.messages) == output[:2]
    later = [ct.ToolResultMessage(tool_use_id="call_0b", content="high at 6")]
    transcript = [ct.UserMessage(content="q"), *reply.messages, *later]
    body = openai_responses.to_request([*transcript, ct.UserMessage(content="go on")])
    validate_request(body)
    assert [item.get("call_id") for item in body["input"]] == [
        None,
        None,
        "call_0b",
        "call_0b",
        None,
    ]
    assert openai_responses.left_out(transcript) == [
        LeftOut(1, "call", f"item 2: {responses_request._CUT_CALL}")
    ]
    # A transcript that answers it anyway (as this page once advised) sends it with its answer.
    answered = [*later, ct.ToolResultMessage(tool_use_id="call_1b", content="(cut off)")]
    body = openai_responses.to_request(
        [ct.UserMessage(content="q"), *reply.messages, *answered, ct.UserMessage(content="go on")]
    )
    validate_request(body)
    assert body["input"][1:4] == output
    assert (
        openai_responses.left_out([ct.UserMessage(content="q"), *reply.messages, *answered]) == []
    )


def test_a_call_the_api_marks_incomplete_is_no_call_even_with_whole_arguments() -> None:
    # Cut just after its closing brace: the text parses, but the provider
    # says the call did not complete, so no backend should run it.
    cut = call_item(0, "weather", '{"city": "Oslo"}', status="incomplete")
    whole = response([cut], status="incomplete", reason="max_output_tokens")
    reply, _ = read_every_way(whole, stream_of(whole))
    assert reply.messages[1] == ct.AssistantMessage()
    assert replay(reply.messages) == []


def test_a_cut_call_without_a_status_is_read_alike_whole_and_streamed() -> None:
    # A provider that sends no status, with the stream ending before the
    # item is done: the arguments are not whole JSON, so it is no call.
    cut = call_item(0, "weather", '{"city": ', status=None)
    whole = response([cut], status="incomplete", reason="max_output_tokens")
    events = stream_of(whole, done=False, end_output=False)
    reply = openai_responses.read_reply(whole)
    streamed = feed(events)[0].reply()
    for read in (reply, streamed):
        assert read.messages[1] == ct.AssistantMessage()
        assert read.stop_reason == "max_tokens"
    items = streamed.messages[0]
    assert isinstance(items, ct.ProviderOutputItemsMessage)
    # The stream's item is as it stood: its arguments so far.
    assert [_get(item, "arguments") for item in items.items] == ['{"city": ']
    # A complete call with a bad argument text is still an error.
    with pytest.raises(ResponseError, match=r"output\[0\]: arguments are not valid JSON"):
        openai_responses.read_reply(response([cut]))


@pytest.mark.parametrize(
    ("status", "reason", "stop", "provider"),
    [
        ("incomplete", "max_output_tokens", "max_tokens", "max_output_tokens"),
        ("incomplete", "content_filter", "content_filter", "content_filter"),
        ("incomplete", "something_new", "other", "something_new"),
        ("incomplete", None, "other", "incomplete"),
        ("cancelled", None, "other", "cancelled"),
        ("in_progress", None, "other", "in_progress"),
    ],
)
def test_stop_reasons_by_status_and_incomplete_reason(
    status: str, reason: str | None, stop: str, provider: str
) -> None:
    output = [message_item(text_part("Partly"))]
    reply = openai_responses.read_reply(response(output, status=status, reason=reason))
    assert (reply.stop_reason, reply.provider_stop_reason) == (stop, provider)
    assert reply.messages[1] == ct.AssistantMessage(content="Partly")


def test_a_stream_cut_at_max_tokens_reads_like_the_incomplete_response() -> None:
    output = [REASONING, message_item(text_part("The answer is long and"))]
    whole = response(output, status="incomplete", reason="max_output_tokens")
    reply, deltas = read_every_way(whole, stream_of(whole))
    assert reply.stop_reason == "max_tokens" and reply.usage.output_tokens == 310
    assert joined(deltas, TextDelta) == "The answer is long and"
    # Without done events and without the output in the last event, the
    # items as they stood are the reply.
    accumulator, _ = feed(stream_of(whole, done=False, end_output=False))
    assert accumulator.reply().stop_reason == "max_tokens"
    assert accumulator.result()[1] == reply.messages[1]


def test_a_content_filter_stop_and_a_refusal_in_a_stream() -> None:
    output = [message_item(text_part("Here is"))]
    filtered = response(output, status="incomplete", reason="content_filter")
    reply, _ = read_every_way(filtered, stream_of(filtered))
    assert reply.stop_reason == "content_filter"
    counted = {**USAGE, "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0}}
    refused = response([message_item(refusal_part("No."))], usage=counted)
    reply, _ = read_every_way(refused, stream_of(refused))
    assert reply.stop_reason == "refusal"
    # Reported zeros are zeros.
    assert (reply.usage.cache_read_tokens, reply.usage.cache_write_tokens) == (0, 0)


def test_a_failed_response_raises_with_the_providers_error() -> None:
    failed = {**response([]), "status": "failed", "error": {"code": "server_error"}}
    with pytest.raises(ResponseError, match=r"the response failed: .*server_error"):
        openai_responses.read_reply(failed)
    events = stream_of(response([message_item(text_part("Half an"))]), done=False)[:-1]
    events.append({"type": "response.failed", "response": failed, "sequence_number": 99})
    accumulator = openai_responses.Accumulator()
    for event in events[:-1]:
        accumulator.feed(event)
    with pytest.raises(StreamError, match=r"event \d+ \(response.failed\): .*reported an error"):
        accumulator.feed(events[-1])
    # What arrived before the failure is still there to keep.
    assert accumulator.partial()[-1] == ct.AssistantMessage(content="Half an")
    with pytest.raises(StreamError, match=r"without response\.completed"):
        accumulator.reply()


def test_reasoning_text_is_thinking_too() -> None:
    # Open-weight models (and servers speaking the API for them) send the
    # reasoning itself as reasoning_text content.
    item = {
        "type": "reasoning",
        "id": "rs_9",
        "summary": [],
        "content": [{"type": "reasoning_text", "text": "First, 6 x 7."}],
    }
    output = [item, message_item(text_part("42"))]
    reply, deltas = read_every_way(response(output), stream_of(response(output)))
    assert reply.messages[1] == ct.AssistantMessage(
        content="42", thinking=(ct.ThinkingBlock(text="First, 6 x 7."),)
    )
    assert joined(deltas, ThinkingDelta) == "First, 6 x 7."
    # Each piece as it comes, not only once the item is done.
    _, live = feed(stream_of(response(output), done=False))
    assert [d for d in live if isinstance(d, ThinkingDelta)] == [
        ThinkingDelta(text="First,"),
        ThinkingDelta(text=" 6 x 7."),
    ]
    # Thinking goes back in the item only, once.
    assert replay(reply.messages) == output


def test_interleaved_items_keep_their_order() -> None:
    output = [
        message_item(text_part("First I will look."), item_id="msg_a"),
        call_item(0, "look", "{}"),
        message_item(text_part("Then answer."), item_id="msg_b"),
    ]
    reply, _ = read_every_way(response(output), stream_of(response(output)))
    assert replay(reply.messages) == output
    # Other dialects read the flat turn.
    assistant = reply.messages[1]
    assert isinstance(assistant, ct.AssistantMessage)
    assert assistant.content == "First I will look.Then answer."


def test_other_dialects_read_the_assistant_message_and_drop_the_items() -> None:
    output = [REASONING, message_item(text_part("Done.")), call_item(0, "f", '{"a": 1}')]
    messages = openai_responses.from_response(response(output))
    transcript = [ct.UserMessage(content="go"), *messages]
    transcript.append(ct.ToolResultMessage(tool_use_id="call_0b", content="ok"))
    chat = openai_chat.to_request(transcript)
    assert "encrypted" not in json.dumps(chat)
    assert chat["messages"][1]["tool_calls"][0]["id"] == "call_0b"
    claude = anthropic.to_request(transcript)
    assert claude["messages"][1]["content"][0] == {"type": "text", "text": "Done."}


# --- what the SDK adds ------------------------------------------------------------


class Answer(BaseModel):
    city: str
    height_m: int


def test_a_parsed_response_reads_as_the_wire_without_the_sdks_fields() -> None:
    strict_tool: Any = {
        "type": "function",
        "name": "weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
        "strict": True,
    }
    output = [
        message_item(text_part('{"city": "Stavanger", "height_m": 27}')),
        call_item(0, "weather", '{"city": "Oslo"}'),
    ]
    wire = response(output)
    parsed: Any = parse_response(
        text_format=Answer, input_tools=[strict_tool], response=Response.model_validate(wire)
    )
    # The SDK did add its fields...
    assert parsed.output[0].content[0].parsed == Answer(city="Stavanger", height_m=27)
    assert parsed.output[1].parsed_arguments == {"city": "Oslo"}
    # ...and they are not kept, from the object nor from its dumps.
    expected = openai_responses.read_reply(wire)
    assert openai_responses.read_reply(parsed) == expected
    assert same_but_raw(openai_responses.read_reply(parsed.model_dump()), expected)
    assert same_but_raw(openai_responses.read_reply(parsed.model_dump(mode="json")), expected)
    sent = replay(expected.messages)
    assert sent == output
    assert "parsed" not in json.dumps(sent)
    # The same through the stream helper that parses: its text-done and
    # completed events carry the parsed values, and are read without them.
    state: Any = ResponseStreamState(input_tools=[strict_tool], text_format=Answer)
    helped = [
        helper_event
        for event in stream_of(wire)
        for helper_event in state.handle_event(
            construct_type(type_=ResponseStreamEvent, value=event)
        )
    ]
    answer = Answer(city="Stavanger", height_m=27)
    assert any(getattr(event, "parsed", None) == answer for event in helped)
    assert helped[-1].response.output[0].content[0].parsed == answer
    assert helped[-1].response.output[1].parsed_arguments == {"city": "Oslo"}
    accumulator, _ = feed(helped)
    assert accumulator.reply() == expected
    assert openai_responses.read_reply(state._completed_response) == expected


def test_items_stored_with_the_sdks_fields_go_out_without_them() -> None:
    # A transcript saved by a version that kept them (openai-python#2374).
    stored = ct.ProviderOutputItemsMessage(
        protocol="openai-responses",
        items=(
            message_item({**text_part("hi"), "parsed": None}),
            {**call_item(0, "f", "{}"), "parsed_arguments": {"x": 1}},
            WEB_SEARCH,
        ),
    )
    body = openai_responses.to_request(
        [
            ct.UserMessage(content="q"),
            stored,
            ct.ToolResultMessage(tool_use_id="call_0b", content="ok"),
        ]
    )
    validate_request(body)
    assert body["input"][1:4] == [
        message_item(text_part("hi")),
        call_item(0, "f", "{}"),
        WEB_SEARCH,
    ]
    assert body["input"][3] is not WEB_SEARCH  # the request owns every item
    assert "parsed" not in json.dumps(body)
    assert "parsed" in json.dumps(stored.items[0])  # the transcript is left as it is
    # Both are named as left out, each at its item's place.
    transcript: list[ct.Message] = [
        ct.UserMessage(content="q"),
        stored,
        ct.ToolResultMessage(tool_use_id="call_0b", content="ok"),
    ]
    assert openai_responses.left_out(transcript) == [
        LeftOut(1, "items", f"item 0 at /content/0/parsed: {responses_request._SDK_FIELD}"),
        LeftOut(1, "items", f"item 1 at /parsed_arguments: {responses_request._SDK_FIELD}"),
    ]


def test_null_fields_read_as_absent_fields_every_way() -> None:
    with_nulls = {**call_item(0, "f", "{}"), "namespace": None}
    cited = copy.deepcopy(CITED)
    del cited["content"][0]["logprobs"]
    sent_cited = copy.deepcopy(CITED)
    sent_cited["content"][0]["logprobs"] = None
    plain = openai_responses.from_response(response([call_item(0, "f", "{}"), cited]))
    nulls = openai_responses.from_response(response([with_nulls, sent_cited]))
    assert nulls == plain
    # JSON an item carries as a value keeps its nulls.
    tool_search = {
        "type": "tool_search_call",
        "id": "ts_1",
        "arguments": {"query": None},
        "status": "completed",
    }
    [items, _] = openai_responses.from_response(response([tool_search]))
    assert isinstance(items, ct.ProviderOutputItemsMessage)
    assert items.items == (tool_search,)


# --- streams ----------------------------------------------------------------------


def test_a_stream_that_never_sends_done_is_read_from_response_completed() -> None:
    output = [REASONING, message_item(text_part("Hello world")), call_item(0, "f", '{"a": 1}')]
    events = stream_of(response(output), done=False)
    assert not any(e["type"] == "response.output_item.done" for e in events)
    reply, deltas = read_every_way(response(output), events)
    assert reply.messages[0] == ct.ProviderOutputItemsMessage(
        protocol="openai-responses", items=tuple(output)
    )
    assert joined(deltas, TextDelta) == "Hello world"


def test_the_helper_streams_events_carry_snapshots_that_are_not_read() -> None:
    output = [
        message_item(text_part("abcdef" * 50)),
        call_item(0, "f", '{"k": "' + "v" * 90 + '"}'),
    ]
    events = stream_of(
        response(output), cut=lambda text: [text[n : n + 3] for n in range(0, len(text), 3)]
    )
    helped, _ = helper_events(events)
    snapshots = [e for e in helped if getattr(e, "snapshot", None) is not None]
    assert len(snapshots) > 100

    class Watched:
        """A helper event that counts its dumps; its fields read through."""

        dumps = 0

        def __init__(self, event: Any) -> None:
            self.event = event

        def __getattr__(self, name: str) -> Any:
            return getattr(self.event, name)

        def model_dump(self, **options: Any) -> Any:
            Watched.dumps += 1
            return self.event.model_dump(**options)

    accumulator, deltas = feed([Watched(e) for e in helped])
    assert accumulator.reply() == openai_responses.read_reply(response(output))
    # Only the few events that start or end an item, or the response, are dumped.
    assert Watched.dumps <= 8, Watched.dumps
    assert arguments_of(deltas, 0) == output[1]["arguments"]


def test_an_item_done_without_being_added_arrives_whole() -> None:
    output = [message_item(text_part("Whole.")), call_item(0, "f", '{"a": 1}'), REASONING]
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**response(output), "output": []}},
        # An empty placeholder, which the SDK also skips.
        {"type": "response.output_item.added", "output_index": 0, "item": None},
    ]
    events += [
        {"type": "response.output_item.done", "output_index": at, "item": item}
        for at, item in enumerate(output)
    ]
    events.append({"type": "response.completed", "response": {**response(output), "output": None}})
    accumulator, deltas = feed(events)
    assert accumulator.reply() == openai_responses.read_reply(response(output))
    assert deltas == [
        TextDelta(text="Whole."),
        ToolCallStart(index=0, id="call_0b", name="f"),
        ToolCallDelta(index=0, arguments='{"a": 1}'),
        ThinkingDelta(text="**Planning** the lookup."),
        ThinkingDelta(text="Two sources agree."),
    ]


def test_a_call_added_with_its_arguments_gives_a_start_and_one_piece() -> None:
    item = call_item(0, "f", '{"a": [1, 2]}')
    events = [
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": response([item])},
    ]
    accumulator, deltas = feed(events)
    assert deltas == [
        ToolCallStart(index=0, id="call_0b", name="f"),
        ToolCallDelta(index=0, arguments='{"a": [1, 2]}'),
    ]
    assert accumulator.reply().stop_reason == "tool_use"


def test_text_added_whole_at_done_is_still_given_as_a_delta() -> None:
    # A server that streams no deltas, only the item's start and its end.
    item = message_item(text_part("No deltas came."))
    events = [
        {"type": "response.output_item.added", "output_index": 0, "item": {**item, "content": []}},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": response([item])},
    ]
    _, deltas = feed(events)
    assert deltas == [TextDelta(text="No deltas came.")]


def test_partial_keeps_text_so_far_and_only_whole_calls() -> None:
    output = [
        REASONING,
        call_item(0, "first", '{"n": 1}'),
        message_item(text_part("Halfway there")),
        call_item(1, "second", '{"n": 2}'),
    ]
    events = stream_of(response(output))
    accumulator = openai_responses.Accumulator()
    seen: list[list[ct.Message]] = []
    for event in events:
        accumulator.feed(event)
        seen.append(accumulator.partial())
    final = accumulator.result()
    assert seen[-1] == final
    at = {e["type"] + str(e.get("output_index")): n for n, e in enumerate(events)}
    # Mid-way through the second call's arguments: the first call is whole,
    # the second is not yet a call, and the text so far is there.
    mid = seen[at["response.function_call_arguments.delta3"] - 1]
    items, assistant = mid
    assert isinstance(assistant, ct.AssistantMessage) and isinstance(
        items, ct.ProviderOutputItemsMessage
    )
    assert [call.name for call in assistant.tool_calls] == ["first"]
    assert assistant.content == "Halfway there"
    # Only the items that are done are kept to send back; the open call is not among them.
    assert [_get(item, "id") for item in items.items] == ["rs_a1", "fc_0", "msg_1"]
    # Mid-way through the text, the text so far.
    text_at = next(n for n, e in enumerate(events) if e["type"] == "response.output_text.delta")
    _, early = seen[text_at]
    assert isinstance(early, ct.AssistantMessage) and early.content == "Halfwa"
    # A cancelled turn appended as it stands makes a request the API takes,
    # with what is done sent as items and the rest from the assistant message.
    body = openai_responses.to_request([ct.UserMessage(content="q"), *mid])
    validate_request(body)
    assert body["input"][1:] == output[:3]
    body = openai_responses.to_request([ct.UserMessage(content="q"), *seen[text_at]])
    validate_request(body)
    assert body["input"][1:] == [*output[:2], {"role": "assistant", "content": "Halfwa"}]


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_partial_is_always_a_prefix_of_the_reply(data: st.DataObject) -> None:
    # The promise: at any point, partial() holds no text, thinking or call
    # that the whole reply lacks.
    def cut(text: str) -> list[str]:
        if len(text) < 2:
            return [text]
        points = data.draw(st.lists(st.integers(1, len(text) - 1), max_size=4, unique=True))
        edges = [0, *sorted(points), len(text)]
        return [text[a:b] for a, b in itertools.pairwise(edges)]

    output = [
        REASONING,
        message_item(text_part("Some words, then calls.")),
        call_item(0, "f", '{"a": [1, {"b": null}]}'),
        call_item(1, "g", "{}"),
    ]
    events = stream_of(response(output), done=data.draw(st.booleans()), cut=cut)
    stop = data.draw(st.integers(0, len(events)))
    accumulator, _ = feed(events[:stop])
    _, so_far = accumulator.partial()
    _, whole = openai_responses.from_response(response(output))
    assert isinstance(so_far, ct.AssistantMessage) and isinstance(whole, ct.AssistantMessage)
    assert whole.content.startswith(so_far.content)
    assert so_far.tool_calls == whole.tool_calls[: len(so_far.tool_calls)]
    said = "".join(block.text for block in so_far.thinking)
    assert "".join(block.text for block in whole.thinking).startswith(said)


def test_reply_before_the_end_raises() -> None:
    accumulator, _ = feed(stream_of(response([message_item(text_part("x"))]))[:-1])
    with pytest.raises(StreamError, match=r"without response\.completed or response\.incomplete"):
        accumulator.reply()


def test_a_stream_ending_without_the_output_reads_the_items_built() -> None:
    output = [message_item(text_part("Built from deltas.")), call_item(0, "f", '{"a": 1}')]
    events = stream_of(response(output), end_output=False)
    accumulator, _ = feed(events)
    assert accumulator.reply() == openai_responses.read_reply(response(output))


# --- tools ------------------------------------------------------------------------


class Address(BaseModel):
    street: str
    city: str


class Person(BaseModel):
    """Someone to look up."""

    name: str
    role: Literal["admin", "user"] = "user"
    home: Address | None = None
    tags: list[str] = Field(default_factory=list)


class Node(BaseModel):
    value: int
    children: list[Node] = Field(default_factory=list)


def test_tools_go_as_function_tools_with_their_schema_and_the_choice() -> None:
    schema = Person.model_json_schema()
    tools = [
        ToolSpec(name="find_person", description="Find a person.", parameters=schema),
        ToolSpec(name="ping"),
    ]
    fields = openai_responses.tools_to_request(tools)
    assert fields == {
        "tools": [
            {
                "type": "function",
                "name": "find_person",
                "description": "Find a person.",
                "parameters": schema,
                "strict": False,
            },
            {
                "type": "function",
                "name": "ping",
                "parameters": {"type": "object", "properties": {}},
                "strict": False,
            },
        ],
        "tool_choice": "auto",
    }
    # $defs, $ref, anyOf with null, an enum and a list, as pydantic writes them.
    assert "$defs" in schema and "anyOf" in json.dumps(schema) and "enum" in json.dumps(schema)
    body = {**openai_responses.to_request([ct.UserMessage(content="q")]), **fields}
    validate_request(body)
    for word in ("none", "required"):
        chosen = openai_responses.tools_to_request(tools, choice=word)
        assert chosen["tool_choice"] == word
        validate_request({"input": "q", **chosen})
    named = openai_responses.tools_to_request(tools, choice="ping")
    assert named["tool_choice"] == {"type": "function", "name": "ping"}
    validate_request({"input": "q", **named})
    assert openai_responses.tools_to_request([]) == {}
    assert openai_responses.tools_to_request([], choice="none") == {}


def test_strict_mode_can_be_turned_on_by_the_caller() -> None:
    strict_schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    }
    fields = openai_responses.tools_to_request([ToolSpec(name="w", parameters=strict_schema)])
    fields["tools"][0]["strict"] = True
    validate_request({"input": "q", **fields})


def test_a_recursive_model_has_its_root_reference_inlined() -> None:
    schema = Node.model_json_schema()
    assert set(schema) == {"$defs", "$ref"}  # pydantic's form for a recursive root
    [tool] = openai_responses.tools_to_request([ToolSpec(name="tree", parameters=schema)])["tools"]
    parameters = tool["parameters"]
    assert parameters["type"] == "object"
    assert parameters["properties"] == schema["$defs"]["Node"]["properties"]
    # The references inside still resolve, to the same definitions.
    assert parameters["$defs"] == schema["$defs"]
    assert "$ref" not in parameters
    assert parameters["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    validate_request({"input": "q", "tools": [tool]})
    # The spec itself is left as it was.
    assert set(schema) == {"$defs", "$ref"}


@pytest.mark.parametrize(
    ("parameters", "path", "text"),
    [
        ({"type": "string"}, "/type", "not type 'string'"),
        ({"type": ["object", "null"]}, "/type", "only an object schema"),
        ({"$ref": "#/$defs/Missing", "$defs": {}}, "/$ref", "names no definition"),
        (
            {"$ref": "#/$defs/Text", "$defs": {"Text": {"type": "string"}}},
            "/type",
            "not type 'string'",
        ),
    ],
    ids=["string-root", "nullable-root", "dangling-ref", "ref-to-string"],
)
def test_a_schema_the_api_cannot_take_names_its_place(
    parameters: dict[str, Any], path: str, text: str
) -> None:
    with pytest.raises(ToolSchemaError, match=text) as caught:
        openai_responses.tools_to_request([ToolSpec(name="bad", parameters=parameters)])
    assert caught.value.tool == "bad" and caught.value.path == path
    assert isinstance(caught.value, ValueError)


def test_tool_names_and_choices_the_api_refuses() -> None:
    with pytest.raises(ToolSchemaError, match="takes tool names matching") as caught:
        openai_responses.tools_to_request([ToolSpec(name="has space")])
    assert caught.value.tool == "has space"
    with pytest.raises(ToolSchemaError, match="given twice"):
        openai_responses.tools_to_request([ToolSpec(name="a"), ToolSpec(name="a")])
    with pytest.raises(ToolSchemaError, match="neither") as choice:
        openai_responses.tools_to_request([ToolSpec(name="a")], choice="b")
    assert choice.value.tool is None
    with pytest.raises(ToolSchemaError, match="at least one tool"):
        openai_responses.tools_to_request([], choice="required")


# --- requests ---------------------------------------------------------------------


def test_media_types_are_read_case_insensitively_and_jpg_as_jpeg() -> None:
    blocks = (
        ct.ImageBase64Block(data="QUJD", media_type="IMAGE/PNG"),
        ct.ImageBase64Block(data="QUJD", media_type="image/jpg"),
        ct.ImageUrlBlock(url="data:Image/JPG;base64,QUJD", detail="high"),
        ct.ImageUrlBlock(url="data:image/webp;base64,QUJD"),
    )
    body = openai_responses.to_request([ct.UserMultimodalMessage(content=blocks)])
    validate_request(body)
    assert body["input"][0]["content"] == [
        {"type": "input_image", "image_url": "data:image/png;base64,QUJD", "detail": "auto"},
        {"type": "input_image", "image_url": "data:image/jpeg;base64,QUJD", "detail": "auto"},
        {"type": "input_image", "image_url": "data:image/jpeg;base64,QUJD", "detail": "high"},
        {"type": "input_image", "image_url": "data:image/webp;base64,QUJD", "detail": "auto"},
    ]


def test_a_data_url_of_a_type_the_api_refuses_is_refused() -> None:
    svg = ct.ImageUrlBlock(url="data:image/svg+xml;base64,PHN2Zz4=")
    with pytest.raises(
        UnsupportedContent, match=r"message 0, block 0 \(image_url\): .*'image/svg\+xml'"
    ):
        openai_responses.to_request([ct.UserMultimodalMessage(content=(svg,))])
    body = openai_responses.to_request(
        [ct.UserMultimodalMessage(content=(svg,))], unsupported="note"
    )
    assert body["input"][0]["content"][0]["type"] == "input_text"
    # A URL that is not a base64 data: URL goes as it is.
    page = ct.ImageUrlBlock(url="https://x.test/a.png")
    body = openai_responses.to_request([ct.UserMultimodalMessage(content=(page,))])
    assert body["input"][0]["content"][0]["image_url"] == "https://x.test/a.png"
