"""The Ollama dialect: requests, tools, replies, streams and exact replay.

Requests are checked against the ``ollama`` package's own types
(``Message``, ``Tool``, ``ChatRequest``; no server, no network), responses
and chunks are read as the JSON Ollama sends and as the package's
``ChatResponse`` objects. The responses here are written from Ollama's API
documentation: text, thinking, whole tool calls with ids and positions, a
last chunk with the counts.
"""

from __future__ import annotations

import enum
import itertools
import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import convtypes as ct
from convtypes import strategies as cst
from convtypes.dialects import (
    ResponseError,
    StreamError,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStart,
    ToolSchemaError,
    ToolSpec,
    UnansweredCall,
    UnmatchedResult,
    UnsupportedContent,
    Usage,
    ollama,
)

sdk = pytest.importorskip("ollama")
from ollama._client import _copy_messages, _copy_tools  # noqa: E402  (after the SDK)
from ollama._types import ChatRequest  # noqa: E402
from pydantic import BaseModel, Field  # noqa: E402

EXAMPLES = Path(__file__).parent.parent / "examples"
SESSION = ct.decode_messages((EXAMPLES / "transcripts" / "agent-session.json").read_bytes())

# --- what Ollama sends, written from its API documentation ----------------------------

MODEL = "qwen3:8b"
CREATED = "2025-06-01T10:00:00.123456Z"
COUNTS: dict[str, int] = {
    "total_duration": 4_883_583_458,
    "load_duration": 1_334_875,
    "prompt_eval_count": 26,
    "prompt_eval_duration": 342_546_000,
    "eval_count": 282,
    "eval_duration": 4_535_599_000,
}


def message(
    text: str = "",
    thinking: str = "",
    calls: Sequence[tuple[str, dict[str, Any]]] = (),
    *,
    ids: bool = True,
) -> dict[str, Any]:
    """A reply message as Ollama sends it: calls whole, with their position and an id."""
    out: dict[str, Any] = {"role": "assistant", "content": text}
    if thinking:
        out["thinking"] = thinking
    if calls:
        out["tool_calls"] = [
            {
                **({"id": f"call_{number:08x}"} if ids else {}),
                "function": {"index": number, "name": name, "arguments": arguments},
            }
            for number, (name, arguments) in enumerate(calls)
        ]
    return out


def response(
    reply: dict[str, Any], reason: str | None = "stop", counts: dict[str, int] = COUNTS
) -> dict[str, Any]:
    """A whole ``/api/chat`` response (``"stream": false``)."""
    out: dict[str, Any] = {"model": MODEL, "created_at": CREATED, "message": reply, "done": True}
    if reason is not None:
        out["done_reason"] = reason
    return {**out, **counts}


def chunks(whole: dict[str, Any], split: Callable[[str], list[str]]) -> list[dict[str, Any]]:
    """The NDJSON chunks of the same reply: thinking, text, each call whole, then the counts."""
    head = {"model": whole["model"], "created_at": CREATED}
    reply = whole["message"]
    out: list[dict[str, Any]] = []
    for piece in split(reply.get("thinking", "")):
        part: dict[str, Any] = {"role": "assistant", "content": "", "thinking": piece}
        out.append({**head, "message": part, "done": False})
    for piece in split(reply["content"]):
        out.append({**head, "message": {"role": "assistant", "content": piece}, "done": False})
    for call in reply.get("tool_calls", ()):
        part = {"role": "assistant", "content": "", "tool_calls": [call]}
        out.append({**head, "message": part, "done": False})
    # Any other field of the message comes with the last chunk.
    rest = {
        k: v for k, v in reply.items() if k not in ("role", "content", "thinking", "tool_calls")
    }
    last = {**head, "message": {"role": "assistant", "content": "", **rest}, "done": True}
    if "done_reason" in whole:
        last["done_reason"] = whole["done_reason"]
    last.update({key: whole[key] for key in COUNTS if key in whole})
    out.append(last)
    return out


def _words(text: str) -> list[str]:
    """Cut text after each space, as tokens come."""
    return [piece for piece in re.split(r"(?<= )", text) if piece]


def _fed(events: Sequence[object]) -> ollama.Accumulator:
    accumulator = ollama.Accumulator()
    for event in events:
        accumulator.feed(event)
    return accumulator


WEATHER: list[tuple[str, dict[str, Any]]] = [
    ("get_weather", {"city": "Oslo", "days": 2}),
    ("get_weather", {"city": "Bergen", "units": {"temp": "C", "precision": 2**70}}),
]


# --- requests, against the ollama package's types ------------------------------------

# The ids a call and its result go with. Ollama's server (0.12.10 and later)
# returns and reads them; the ollama package has no field for either yet.
_SERVER_ONLY = ("tool_call_id",)


def _without_ids(sent: dict[str, Any]) -> dict[str, Any]:
    out = {key: value for key, value in sent.items() if key not in _SERVER_ONLY}
    if "tool_calls" in out:
        out["tool_calls"] = [
            {key: value for key, value in call.items() if key != "id"} for call in out["tool_calls"]
        ]
    return out


def validate(body: dict[str, Any]) -> None:
    """The body is what the ``ollama`` package's ``chat()`` would send, field for field.

    The client validates every message into its ``Message`` type (images
    into its ``Image``) and dumps the ``ChatRequest``; a field the type does
    not know is dropped on the way, so the dump is compared with the body.
    The client also leaves out empty values, which Ollama reads as empty.
    """
    assert list(body) == ["messages"]
    messages = [_without_ids(sent) for sent in body["messages"]]
    request = ChatRequest(model=MODEL, messages=list(_copy_messages(messages)))
    dumped = request.model_dump(mode="json", exclude_none=True)["messages"]
    assert dumped == [{key: value for key, value in m.items() if value} for m in messages]


def test_validation_catches_a_field_the_package_does_not_know() -> None:
    with pytest.raises(AssertionError):
        validate({"messages": [{"role": "tool", "content": "x", "tool_nam": "f"}]})
    with pytest.raises(Exception, match="validation error"):
        validate({"messages": [{"role": "user", "content": ["not", "text"]}]})


def test_a_transcript_becomes_ollama_messages() -> None:
    transcript: list[ct.Message] = [
        ct.SystemMessage(content="Be brief."),
        ct.UserMessage(content="Weather in Oslo, and the time?"),
        ct.AssistantMessage(
            content="Checking.",
            thinking=(ct.ThinkingBlock(text="Two calls."),),
            tool_calls=(
                ct.ToolCall(id="call_a1", name="get_weather", arguments={"city": "Oslo"}),
                ct.ToolCall(name="get_time", arguments={"zone": "CET", "big": 2**70}),
            ),
        ),
        ct.ToolResultMessage(
            tool_use_id="call_a1", content="Rain", provenance=ct.Provenance.EXTERNAL
        ),
        # The call without an id is answered by its position in its turn.
        ct.ToolResultMessage(tool_use_id=ct.positional_call_id(1), content="12:00"),
        ct.AssistantMessage(content="Rain in Oslo; it is noon."),
    ]
    body = ollama.to_request(transcript)
    assert body == {
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather in Oslo, and the time?"},
            {
                "role": "assistant",
                "content": "Checking.",
                "thinking": "Two calls.",
                "tool_calls": [
                    {
                        "id": "call_a1",
                        "function": {"name": "get_weather", "arguments": {"city": "Oslo"}},
                    },
                    {"function": {"name": "get_time", "arguments": {"zone": "CET", "big": 2**70}}},
                ],
            },
            {
                "role": "tool",
                "content": ct.fence_external("Rain"),
                "tool_name": "get_weather",
                "tool_call_id": "call_a1",
            },
            {"role": "tool", "content": "12:00", "tool_name": "get_time"},
            {"role": "assistant", "content": "Rain in Oslo; it is noon."},
        ]
    }
    validate(body)


def test_the_example_session_makes_a_valid_request() -> None:
    # The session's image by URL and its audio have no place in Ollama: noted, not sent.
    with pytest.raises(UnsupportedContent, match=r"block 1 \(image_url\): Ollama fetches no image"):
        ollama.to_request(SESSION)
    body = ollama.to_request(SESSION, unsupported="note")
    validate(body)
    notes = [m["content"] for m in body["messages"] if "attachment not sent" in m["content"]]
    assert notes and all("Ollama does not accept it" in note for note in notes)


def _calls_and_results(body: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The names of the calls a request sends, and of the calls its results answer."""
    messages = body["messages"]
    return (
        [c["function"]["name"] for m in messages for c in m.get("tool_calls", ())],
        [m["tool_name"] for m in messages if m["role"] == "tool"],
    )


@settings(max_examples=20)  # generating conversations is the slow part
@given(cst.conversations())
def test_any_well_formed_conversation_makes_a_valid_request(messages: list[ct.Message]) -> None:
    body = ollama.to_request(messages, unsupported="note")
    validate(body)
    calls, results = _calls_and_results(body)
    assert len(calls) == sum(
        len(m.tool_calls) for m in messages if isinstance(m, ct.AssistantMessage)
    )
    assert len(results) == sum(isinstance(m, ct.ToolResultMessage) for m in messages)
    # Each result names a call that was sent (results answer distinct calls).
    assert not Counter(results) - Counter(calls)
    # Every id sent is unique, and every result that names one names a call sent.
    sent_ids = [c["id"] for m in body["messages"] for c in m.get("tool_calls", ()) if "id" in c]
    assert len(set(sent_ids)) == len(sent_ids)
    answered = [m["tool_call_id"] for m in body["messages"] if "tool_call_id" in m]
    assert set(answered) <= set(sent_ids)


def _weather_turn(order: Sequence[int], with_ids: bool) -> list[ct.Message]:
    calls = tuple(
        ct.ToolCall(id=f"w{n}" if with_ids else None, name=f"tool_{n}", arguments={"n": n})
        for n in range(4)
    )
    return [
        ct.UserMessage(content="Run four tools."),
        ct.AssistantMessage(tool_calls=calls),
        *(
            ct.ToolResultMessage(
                tool_use_id=f"w{n}" if with_ids else ct.positional_call_id(n), content=f"r{n}"
            )
            for n in order
        ),
    ]


@settings(max_examples=30)
@given(st.permutations(range(4)), st.booleans())
def test_results_go_in_the_order_of_their_calls(order: list[int], with_ids: bool) -> None:
    # Ollama renders results in order: a result in the wrong place answers the wrong call.
    body = ollama.to_request(_weather_turn(order, with_ids))
    tools = [m for m in body["messages"] if m["role"] == "tool"]
    assert [m["tool_name"] for m in tools] == ["tool_0", "tool_1", "tool_2", "tool_3"]
    assert [m["content"] for m in tools] == ["r0", "r1", "r2", "r3"]
    assert [m.get("tool_call_id") for m in tools] == (
        ["w0", "w1", "w2", "w3"] if with_ids else [None] * 4
    )
    validate(body)


def test_results_of_two_turns_are_ordered_within_their_own_turn() -> None:
    first = _weather_turn([1, 0, 2, 3], True)
    second: list[ct.Message] = [
        ct.AssistantMessage(
            tool_calls=(
                ct.ToolCall(id="x0", name="a", arguments={}),
                ct.ToolCall(id="x1", name="b", arguments={}),
            )
        ),
        ct.ToolResultMessage(tool_use_id="x1", content="B"),
        ct.ToolResultMessage(tool_use_id="x0", content="A"),
    ]
    transcript: list[ct.Message] = [*first, *second]
    body = ollama.to_request(transcript)
    roles = [(m["role"], m.get("tool_name")) for m in body["messages"]]
    assert roles == [
        ("user", None),
        ("assistant", None),
        ("tool", "tool_0"),
        ("tool", "tool_1"),
        ("tool", "tool_2"),
        ("tool", "tool_3"),
        ("assistant", None),
        ("tool", "a"),
        ("tool", "b"),
    ]


def test_unusable_and_repeated_ids_are_replaced_and_results_follow() -> None:
    transcript: list[ct.Message] = [
        ct.UserMessage(content="go"),
        ct.AssistantMessage(
            tool_calls=(
                ct.ToolCall(id="same", name="a", arguments={}),
                ct.ToolCall(id="", name="b", arguments={}),
            )
        ),
        ct.ToolResultMessage(tool_use_id="same", content="A"),
        ct.ToolResultMessage(tool_use_id="", content="B"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="same", name="c", arguments={}),)),
        ct.ToolResultMessage(tool_use_id="same", content="C"),
    ]
    messages = ollama.to_request(transcript)["messages"]
    ids = [c["id"] for m in messages for c in m.get("tool_calls", ())]
    assert ids == ["same", "call_1_1", "call_4_0"]
    answered = [(m["tool_name"], m["tool_call_id"]) for m in messages if m["role"] == "tool"]
    assert answered == [("a", "same"), ("b", "call_1_1"), ("c", "call_4_0")]


def test_calls_need_their_results_before_the_next_user_message() -> None:
    call = ct.ToolCall(id="c1", name="f", arguments={})
    with pytest.raises(
        UnansweredCall, match=r"message 1: tool call 'c1' \(f\) has no result"
    ) as err:
        ollama.to_request(
            [
                ct.UserMessage(content="a"),
                ct.AssistantMessage(tool_calls=(call,)),
                ct.UserMessage(content="b"),
            ]
        )
    assert (err.value.index, err.value.call_id, err.value.user_index) == (1, "c1", 2)
    with pytest.raises(UnmatchedResult, match="message 1: tool result 'nope' answers no call"):
        ollama.to_request(
            [ct.UserMessage(content="a"), ct.ToolResultMessage(tool_use_id="nope", content="x")]
        )
    # Calls still open at the end are sent: the caller may be about to run them.
    open_call = ollama.to_request(
        [ct.UserMessage(content="a"), ct.AssistantMessage(tool_calls=(call,))]
    )
    assert open_call["messages"][-1]["tool_calls"] == [
        {"id": "c1", "function": {"name": "f", "arguments": {}}}
    ]


def test_external_and_unknown_provenance_are_fenced() -> None:
    unknown = ct.decode_lenient_message(
        b'{"role":"tool_result","tool_use_id":"lookup_1","content":"hi","provenance":"partner"}'
    )
    assert isinstance(unknown, ct.ToolResultMessage)
    head: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="lookup_1", name="f", arguments={}),)),
    ]
    for result in (
        ct.ToolResultMessage(
            tool_use_id="lookup_1", content="hi", provenance=ct.Provenance.EXTERNAL
        ),
        unknown,
    ):
        fenced = ollama.to_request([*head, result])["messages"][-1]["content"]
        assert fenced == ct.fence_external("hi")
        bare = ollama.to_request([*head, result], fence_external=False)["messages"][-1]["content"]
        assert bare == "hi"
    internal = ct.ToolResultMessage(tool_use_id="lookup_1", content="hi")
    assert ollama.to_request([*head, internal])["messages"][-1]["content"] == "hi"


def test_thinking_goes_back_unless_asked_not_to() -> None:
    turn = ct.AssistantMessage(
        content="Yes.",
        thinking=(
            ct.ThinkingBlock(text="First, "),
            ct.ThinkingBlock(redacted_data="b3BhcXVl"),
            ct.ThinkingBlock(text="then.", signature="c2ln"),
        ),
    )
    sent = ollama.to_request([ct.UserMessage(content="q"), turn])["messages"][1]
    # Redacted thinking has no text to send; a signature has no field and is left out.
    assert sent == {"role": "assistant", "content": "Yes.", "thinking": "First, then."}
    quiet = ollama.to_request([ct.UserMessage(content="q"), turn], thinking=False)["messages"][1]
    assert quiet == {"role": "assistant", "content": "Yes."}
    with pytest.raises(TypeError, match="thinking= must be True or False, not 'yes'"):
        ollama.to_request([], thinking="yes")  # type: ignore[arg-type]


def test_an_unsupported_option_is_refused_at_the_call() -> None:
    with pytest.raises(ValueError, match='unsupported= must be "raise" or "note", not \'drop\''):
        ollama.to_request([], unsupported="drop")  # type: ignore[arg-type]


_PNG = "iVBORw0KGgo="


@pytest.mark.parametrize(
    "block",
    [
        ct.ImageBase64Block(data=_PNG, media_type="image/png"),
        ct.ImageBase64Block(data=_PNG, media_type="IMAGE/PNG"),
        ct.ImageBase64Block(data=_PNG, media_type="image/jpg"),
        ct.ImageBase64Block(data=_PNG, media_type="image/jpeg; q=1"),
        ct.ImageBase64Block(data=_PNG, media_type="image/webp"),
        ct.ImageUrlBlock(url=f"data:image/png;base64,{_PNG}"),
        ct.ImageUrlBlock(url=f"DATA:Image/JPG;base64,{_PNG}"),
    ],
    ids=["png", "upper-case", "jpg", "parameter", "webp", "data-url", "data-url-jpg"],
)
def test_images_go_inline_as_base64(block: ct.ContentBlock) -> None:
    user = ct.UserMultimodalMessage(content=(ct.TextBlock(text="What is this?"), block))
    body = ollama.to_request([user])
    assert body == {"messages": [{"role": "user", "content": "What is this?", "images": [_PNG]}]}
    validate(body)


@pytest.mark.parametrize(
    ("block", "why"),
    [
        (ct.ImageUrlBlock(url="https://example.com/cat.png"), "fetches no image by URL"),
        (ct.ImageUrlBlock(url="data:image/gif;base64,R0lG"), "takes no 'image/gif' image"),
        (ct.ImageBase64Block(data="R0lG", media_type="image/gif"), "takes no 'image/gif' image"),
        (ct.AudioBase64Block(data="UklG", media_type="audio/wav"), "has no field for audio"),
        (ct.AudioUrlBlock(url="https://example.com/a.mp3"), "has no field for audio"),
        (ct.VideoUrlBlock(url="https://example.com/v.mp4"), "has no field for video"),
        (ct.VideoPathBlock(path="/tmp/v.mp4"), "has no field for video"),
    ],
    ids=["url", "gif-data-url", "gif", "audio", "audio-url", "video-url", "video-path"],
)
def test_what_ollama_cannot_take_is_refused_or_noted(block: ct.ContentBlock, why: str) -> None:
    user = ct.UserMultimodalMessage(content=(ct.TextBlock(text="Look."), block))
    with pytest.raises(
        UnsupportedContent, match=rf"message 0, block 1 \(\w+\): Ollama {why}"
    ) as err:
        ollama.to_request([user])
    assert err.value.index == 0 and err.value.block is block
    noted = ollama.to_request([user], unsupported="note")["messages"][0]
    tag = ct.encode(block).split(b'"type":"')[1].split(b'"')[0].decode()
    assert noted == {
        "role": "user",
        "content": f"Look.\n\n[{tag} attachment not sent: Ollama does not accept it]",
    }


def test_text_blocks_join_with_a_blank_line_and_images_follow() -> None:
    user = ct.UserMultimodalMessage(
        content=(
            ct.TextBlock(text="Compare"),
            ct.ImageBase64Block(data="AAAA", media_type="image/png"),
            ct.TextBlock(text=""),
            ct.TextBlock(text="with this."),
            ct.ImageBase64Block(data="BBBB", media_type="image/jpeg"),
        )
    )
    assert ollama.to_request([user])["messages"] == [
        {"role": "user", "content": "Compare\n\nwith this.", "images": ["AAAA", "BBBB"]}
    ]


def test_what_a_newer_writer_made_is_never_forwarded() -> None:
    unknown_message = ct.decode_lenient_message(b'{"role":"developer","content":"x"}')
    with pytest.raises(UnsupportedContent, match="message 0: role 'developer' is unknown"):
        ollama.to_request([unknown_message])
    unknown_block = ct.decode_lenient_message(
        b'{"role":"user_multimodal","content":[{"type":"hologram","x":1}]}'
    )
    with pytest.raises(UnsupportedContent, match=r"block 0 \(hologram\): Ollama cannot send"):
        ollama.to_request([unknown_block], unsupported="note")
    with pytest.raises(TypeError, match="message 0: not a convtypes message: 'hello'"):
        ollama.to_request(["hello"])  # type: ignore[list-item]


def test_items_of_other_protocols_are_dropped() -> None:
    foreign = ct.ProviderOutputItemsMessage(
        protocol="openai-responses", items=({"type": "reasoning", "id": "rs_1"},)
    )
    body = ollama.to_request(
        [ct.UserMessage(content="q"), foreign, ct.AssistantMessage(content="a")]
    )
    assert body["messages"] == [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "a"},
    ]


# --- tools --------------------------------------------------------------------------


def sdk_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the ``ollama`` package's ``chat()`` sends for these tools."""
    request = ChatRequest(model=MODEL, tools=list(_copy_tools(tools)))
    return request.model_dump(mode="json", exclude_none=True)["tools"]  # type: ignore[no-any-return]


WEATHER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "The city"},
        "units": {"type": "string", "enum": ["C", "F"]},
    },
    "required": ["city"],
}


def test_a_tool_goes_as_a_function_tool() -> None:
    tools = [
        ToolSpec(name="get_weather", description="Weather now.", parameters=WEATHER_SCHEMA),
        ToolSpec(name="ping"),
    ]
    fields = ollama.tools_to_request(tools)
    assert fields == {
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Weather now.",
                    "parameters": WEATHER_SCHEMA,
                },
            },
            {
                "type": "function",
                "function": {"name": "ping", "parameters": {"type": "object", "properties": {}}},
            },
        ]
    }
    assert sdk_tools(fields["tools"]) == fields["tools"]


def test_ollama_has_no_tool_choice() -> None:
    tools = [ToolSpec(name="get_weather", parameters=WEATHER_SCHEMA)]
    assert ollama.tools_to_request(tools, choice="none") == {}
    assert ollama.tools_to_request([]) == {}
    for choice in ("required", "get_weather"):
        with pytest.raises(
            ToolSchemaError, match=rf"choice='{choice}': Ollama has no tool choice"
        ) as err:
            ollama.tools_to_request(tools, choice=choice)
        assert err.value.tool is None and err.value.path == ""
    with pytest.raises(ToolSchemaError, match=r"neither .* nor the name of a tool given"):
        ollama.tools_to_request(tools, choice="get_time")


def test_tool_names_are_checked() -> None:
    with pytest.raises(
        ToolSchemaError, match=r"tool 'a b': Ollama takes tool names matching"
    ) as err:
        ollama.tools_to_request([ToolSpec(name="a b")])
    assert err.value.tool == "a b"
    with pytest.raises(ToolSchemaError, match="tool 'f': given twice"):
        ollama.tools_to_request([ToolSpec(name="f"), ToolSpec(name="f")])
    with pytest.raises(TypeError, match="tools\\[0\\] is a dict, not a ToolSpec"):
        ollama.tools_to_request([{"name": "f"}])  # type: ignore[list-item]


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Place(BaseModel):
    lat: float
    lon: float = Field(ge=-180, le=180)


class Node(BaseModel):
    name: str
    children: list[Node] = Field(default_factory=list)
    parent: Optional[Node] = None  # noqa: UP045  (what pydantic users write)


class Search(BaseModel):
    """Find places."""

    query: str = Field(description="What to find")
    limit: Optional[int] = None  # noqa: UP045
    color: Color
    maybe_color: Optional[Color] = None  # noqa: UP045
    tags: list[str]
    maybe_tags: Optional[list[str]] = None  # noqa: UP045
    near: Place
    stops: list[Place]
    tree: Node
    counts: dict[str, int]


def _search_tool() -> dict[str, Any]:
    spec = ToolSpec(name="search", description="Search.", parameters=Search.model_json_schema())
    tool: dict[str, Any] = ollama.tools_to_request([spec])["tools"][0]
    return tool


def test_a_pydantic_schema_is_sent_whole_through_the_ollama_package() -> None:
    tool = _search_tool()
    # What the package's chat() sends is what was built: nothing is lost on the way.
    assert sdk_tools([tool]) == [tool]
    # Sent as it is, the package would have dropped every optional's type,
    # the enums behind a $ref, and the nested models.
    raw = {
        "type": "function",
        "function": {"name": "search", "parameters": Search.model_json_schema()},
    }
    lost = sdk_tools([raw])[0]["function"]["parameters"]["properties"]
    assert lost["limit"] == {} and lost["color"] == {} and lost["near"] == {}


def test_a_pydantic_schema_keeps_its_meaning() -> None:
    function = _search_tool()["function"]
    # The model's docstring follows the tool's description.
    assert function["description"] == "Search.\n\nFind places."
    properties = function["parameters"]["properties"]
    assert properties["query"] == {"type": "string", "description": "What to find"}
    # Optionals are type lists; an enum behind a $ref is inlined, null joins it.
    assert properties["limit"] == {"type": ["integer", "null"], "description": "(default: null)"}
    assert properties["color"] == {"type": "string", "enum": ["red", "green"]}
    assert properties["maybe_color"] == {
        "type": ["string", "null"],
        "description": "(default: null)",
        "enum": ["red", "green", None],
    }
    assert properties["tags"] == {"type": "array", "items": {"type": "string"}}
    assert properties["maybe_tags"] == {
        "type": ["array", "null"],
        "items": {"type": "string"},
        "description": "(default: null)",
    }
    # A nested model has no place but the description, where it goes as JSON.
    near = properties["near"]
    assert near["type"] == "object"
    assert near["description"] == (
        '(properties: {"lat":{"title":"Lat","type":"number"},'
        '"lon":{"maximum":180,"minimum":-180,"title":"Lon","type":"number"}}, '
        'required: ["lat","lon"])'
    )
    # A list of models keeps its items whole, with the $defs they point into.
    assert properties["stops"] == {"type": "array", "items": {"$ref": "#/$defs/Place"}}
    assert set(function["parameters"]["$defs"]) == {"Color", "Node", "Place"}
    # A recursive model stays a reference into $defs, in the description.
    assert (
        '"parent":{"anyOf":[{"$ref":"#/$defs/Node"},{"type":"null"}]'
        in properties["tree"]["description"]
    )
    assert properties["counts"] == {
        "type": "object",
        "description": '(additionalProperties: {"type":"integer"})',
    }
    assert function["parameters"]["required"] == Search.model_json_schema()["required"]


def test_rules_without_a_field_are_written_into_the_description() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "title": "Args",
        "properties": {
            "when": {"type": "string", "format": "date-time", "description": "Start"},
            "n": {"type": "integer", "minimum": 1, "title": "N"},
            "mode": {"const": "fast"},
            "any": True,
        },
        "additionalProperties": False,
    }
    function = ollama.tools_to_request([ToolSpec(name="f", description="Do.", parameters=schema)])[
        "tools"
    ][0]["function"]
    assert function == {
        "name": "f",
        "description": 'Do. (parameters: {"additionalProperties":false})',
        "parameters": {
            "type": "object",
            "properties": {
                "when": {"type": "string", "description": 'Start (format: "date-time")'},
                "n": {"type": "integer", "description": "(minimum: 1)"},
                "mode": {"enum": ["fast"]},
                "any": {},
            },
        },
    }
    assert sdk_tools([{"type": "function", "function": function}]) == [
        {"type": "function", "function": function}
    ]


def test_definitions_become_defs_and_their_references_follow() -> None:
    schema = {
        "type": "object",
        "properties": {
            "color": {"$ref": "#/definitions/Color", "description": "Paint"},
            "colors": {"type": "array", "items": {"$ref": "#/definitions/Color"}},
        },
        "definitions": {"Color": {"type": "string", "enum": ["red"]}},
    }
    parameters = ollama.tools_to_request([ToolSpec(name="f", parameters=schema)])["tools"][0][
        "function"
    ]["parameters"]
    assert parameters == {
        "type": "object",
        "properties": {
            "color": {"type": "string", "description": "Paint", "enum": ["red"]},
            "colors": {"type": "array", "items": {"$ref": "#/$defs/Color"}},
        },
        "$defs": {"Color": {"type": "string", "enum": ["red"]}},
    }


def test_an_any_of_that_is_no_list_of_types_goes_into_the_description() -> None:
    # An enum beside a free string cannot be one enum: the anyOf is kept as text.
    mixed = {"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "integer"}]}
    schema = {"type": "object", "properties": {"x": mixed}}
    prop = ollama.tools_to_request([ToolSpec(name="f", parameters=schema)])["tools"][0]["function"][
        "parameters"
    ]["properties"]["x"]
    assert prop == {"description": '(anyOf: [{"type":"string","enum":["a"]},{"type":"integer"}])'}


@pytest.mark.parametrize(
    ("schema", "path", "why"),
    [
        (
            {"type": "array"},
            "/type",
            'Ollama takes an object schema \\(type "object"\\), not "array"',
        ),
        (
            {"type": "object", "properties": {"x": {"$ref": "https://example.com/s.json"}}},
            "/properties/x/$ref",
            "a reference outside the schema's own \\$defs",
        ),
        (
            {"type": "object", "properties": {"x": {"$ref": "#/$defs/Missing"}}},
            "/properties/x/$ref",
            "#/\\$defs/Missing names no schema in \\$defs",
        ),
        (
            {
                "type": "object",
                "properties": {"x": {"$ref": "#/$defs/A"}},
                "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}},
            },
            "/properties/x/$ref",
            "the references loop",
        ),
        (
            {"type": "object", "properties": {"x": False}},
            "/properties/x",
            "must be an object, not false",
        ),
        ({"type": "object", "properties": ["x"]}, "/properties", "properties must be an object"),
        ({"type": "object", "required": "x"}, "/required", "required must be a list of names"),
        ({"$defs": {}, "definitions": {}}, "/definitions", "both \\$defs and definitions"),
    ],
    ids=[
        "not-object",
        "remote-ref",
        "missing-def",
        "ref-loop",
        "false",
        "properties",
        "required",
        "both-defs",
    ],
)
def test_a_schema_that_cannot_be_said_names_its_place(
    schema: dict[str, Any], path: str, why: str
) -> None:
    with pytest.raises(ToolSchemaError, match=f"tool 'f': parameters.*{why}") as err:
        ollama.tools_to_request([ToolSpec(name="f", parameters=schema)])
    assert err.value.tool == "f" and err.value.path == path
    assert isinstance(err.value, ValueError)


# --- replies ------------------------------------------------------------------------

USAGE = Usage(input_tokens=26, output_tokens=282, raw=COUNTS)


def test_a_text_reply() -> None:
    reply = ollama.read_reply(response(message("Rayleigh scattering.")))
    assert reply.messages == [ct.AssistantMessage(content="Rayleigh scattering.")]
    assert (reply.stop_reason, reply.provider_stop_reason) == ("end_turn", "stop")
    assert reply.usage == USAGE
    assert (reply.model, reply.id) == (MODEL, None)
    assert ollama.from_response(response(message("Rayleigh scattering."))) == reply.messages


def test_thinking_becomes_an_unsigned_thinking_block() -> None:
    messages = ollama.from_response(response(message("Blue.", thinking="Short answer.")))
    assert messages == [
        ct.AssistantMessage(content="Blue.", thinking=(ct.ThinkingBlock(text="Short answer."),))
    ]


def test_tool_calls_keep_their_ids_key_order_and_big_integers() -> None:
    reply = ollama.read_reply(response(message("", calls=WEATHER)))
    assert reply.messages == [
        ct.AssistantMessage(
            tool_calls=(
                ct.ToolCall(id="call_00000000", name="get_weather", arguments=WEATHER[0][1]),
                ct.ToolCall(id="call_00000001", name="get_weather", arguments=WEATHER[1][1]),
            )
        )
    ]
    arguments: Any = reply.messages[0].tool_calls[1].arguments  # type: ignore[union-attr]
    assert list(arguments) == ["city", "units"] and arguments["units"]["precision"] == 2**70
    # Ollama says "stop"; a reply that calls tools stopped to use them.
    assert (reply.stop_reason, reply.provider_stop_reason) == ("tool_use", "stop")


def test_calls_without_ids_as_older_servers_send_them() -> None:
    reply = ollama.read_reply(response(message("", calls=WEATHER, ids=False)))
    assert [call.id for call in reply.messages[0].tool_calls] == [None, None]  # type: ignore[union-attr]
    assert len(reply.messages) == 1 and reply.stop_reason == "tool_use"


@pytest.mark.parametrize(
    ("reason", "calls", "stop"),
    [
        ("stop", False, "end_turn"),
        ("stop", True, "tool_use"),
        ("length", False, "max_tokens"),
        ("length", True, "max_tokens"),
        ("load", False, "other"),
        ("unload", False, "other"),
        ("something-new", False, "other"),
        (None, False, "other"),
        (None, True, "tool_use"),
    ],
)
def test_stop_reasons_by_meaning(reason: str | None, calls: bool, stop: str) -> None:
    reply = ollama.read_reply(response(message("x", calls=WEATHER if calls else ()), reason))
    assert (reply.stop_reason, reply.provider_stop_reason) == (stop, reason)


def test_a_refusal_is_text_to_ollama() -> None:
    # Ollama has no refusal field or finish reason: a refusal reads as an ordinary answer.
    reply = ollama.read_reply(response(message("I can't help with that.")))
    assert reply.messages == [ct.AssistantMessage(content="I can't help with that.")]
    assert reply.stop_reason == "end_turn" and reply.usage == USAGE


def test_usage_is_none_where_ollama_reports_nothing() -> None:
    # Ollama omits a zero count (a prompt it took from its cache whole, say).
    partly = {"total_duration": 100, "eval_count": 3}
    reply = ollama.read_reply(response(message("x"), counts=partly))
    assert reply.usage == Usage(input_tokens=None, output_tokens=3, raw=partly)
    load = ollama.read_reply(
        {"model": MODEL, "message": message(), "done": True, "done_reason": "load"}
    )
    assert load.usage == Usage() and load.stop_reason == "other"
    assert load.messages == [ct.AssistantMessage()]


def test_what_the_turn_cannot_say_is_kept_as_an_item() -> None:
    cases: list[dict[str, Any]] = [
        {**message("Here it is."), "images": ["iVBORw0KGgo="]},  # output images
        {**message("Hi."), "mood": "cheerful"},  # a field this version does not know
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"index": 3, "name": "f", "arguments": {}}}],
        },
    ]
    for sent in cases:
        messages = ollama.from_response(response(sent))
        assert messages[0] == ct.ProviderOutputItemsMessage(protocol="ollama", items=(sent,))
        assert isinstance(messages[1], ct.AssistantMessage)
        replayed = ollama.to_request([ct.UserMessage(content="q"), *messages])["messages"]
        assert replayed == [{"role": "user", "content": "q"}, sent]


def test_arguments_that_are_no_object_stay_in_the_item_only() -> None:
    sent: dict[str, Any] = {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"function": {"index": 0, "name": "a", "arguments": '{"x": 1}'}},
            {"function": {"index": 1, "name": "b", "arguments": "[1, 2]"}},
            {"function": {"index": 2, "name": "c", "arguments": 7}},
            {"function": {"index": 3, "name": "d"}},
        ],
    }
    reply = ollama.read_reply(response(sent))
    kept, assistant = reply.messages
    # Text that is an object is read; what is no object is no call to run.
    assert assistant == ct.AssistantMessage(
        tool_calls=(ct.ToolCall(name="a", arguments={"x": 1}), ct.ToolCall(name="d", arguments={}))
    )
    assert kept == ct.ProviderOutputItemsMessage(
        protocol="ollama",
        items=(
            {
                **sent,
                "tool_calls": [
                    {"function": {k: v for k, v in c["function"].items() if k != "index"}}
                    for c in sent["tool_calls"]
                ],
            },
        ),
    )
    assert reply.stop_reason == "tool_use"
    # The replay sends the message as it came, the calls' results answer by position.
    transcript = [
        ct.UserMessage(content="q"),
        *reply.messages,
        ct.ToolResultMessage(tool_use_id="call_0", content="A"),
        ct.ToolResultMessage(tool_use_id="call_1", content="D"),
    ]
    body = ollama.to_request(transcript)["messages"]
    assert body[1] == kept.items[0]
    assert body[2:] == [
        {"role": "tool", "content": "A", "tool_name": "a"},
        {"role": "tool", "content": "D", "tool_name": "d"},
    ]


def test_a_package_response_object_reads_as_its_json() -> None:
    whole = response(message("Blue.", thinking="Easy.", calls=WEATHER, ids=False))
    sdk_object = sdk.ChatResponse.model_validate(whole)
    # The package keeps only the fields it knows, as they were sent.
    dumped = sdk_object.model_dump(mode="json", exclude_unset=True)
    assert dumped["message"]["tool_calls"][0] == {
        "function": {"name": "get_weather", "arguments": WEATHER[0][1]}
    }
    assert ollama.read_reply(sdk_object) == ollama.read_reply(whole)
    # The package has no field for a call's id (ollama-python#667): it is lost there.
    with_ids = sdk.ChatResponse.model_validate(response(message("", calls=WEATHER)))
    assert [c.id for c in ollama.from_response(with_ids)[0].tool_calls] == [None, None]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("sent", "pattern"),
    [
        ({"done": True}, "the response: missing 'message'"),
        ({"message": "hi", "done": True}, "'message' should be dict"),
        ({"message": {"content": 5}, "done": True}, "message: 'content' should be str"),
        ({"message": {"thinking": ["a"]}, "done": True}, "message: 'thinking' should be str"),
        ({"message": {"role": 1}, "done": True}, "message: 'role' should be str"),
        ({"message": {"tool_calls": {}}, "done": True}, "message: 'tool_calls' should be list"),
        ({"message": {"tool_calls": [1]}}, r"message.tool_calls\[0\]: expected an object"),
        ({"message": {"tool_calls": [{}]}}, r"message.tool_calls\[0\]: missing 'function'"),
        (
            {"message": {"tool_calls": [{"function": {"arguments": {}}}]}},
            r"message.tool_calls\[0\].function: missing 'name'",
        ),
        (
            {"message": {"tool_calls": [{"id": 5, "function": {"name": "f"}}]}},
            r"message.tool_calls\[0\]: 'id' should be str",
        ),
        ({"message": {}, "done_reason": 1}, "the response: 'done_reason' should be str"),
        ({"message": {}, "done": "yes"}, "'done' should be true or false"),
        ({"message": {}, "done": False}, r"a chunk of a stream \('done' is false\)"),
        ({"error": "model 'x' not found"}, "the provider reported an error: model 'x' not found"),
        ([], "expected the response as a dict or an SDK object, got list"),
    ],
)
def test_a_malformed_response_names_what_is_wrong(sent: Any, pattern: str) -> None:
    with pytest.raises(ResponseError, match=pattern):
        ollama.from_response(sent)


def test_arguments_a_message_cannot_hold_are_a_response_error() -> None:
    nan = json.loads('{"x": NaN}')
    with pytest.raises(
        ResponseError, match=r"tool_calls\[0\]: the tool call cannot be kept: .*finite"
    ):
        ollama.from_response(response(message("", calls=[("f", nan)])))
    deep: dict[str, Any] = {}
    for _ in range(200):
        deep = {"a": deep}
    with pytest.raises(ResponseError, match="nested"):
        ollama.from_response(response(message("", calls=[("f", deep)])))
    with pytest.raises(ResponseError, match=r"nested|JSON"):
        ollama.from_response(response({**message("x"), "images": [deep]}))


# --- streams ------------------------------------------------------------------------


def test_a_stream_gives_deltas_then_the_same_reply() -> None:
    whole = response(message("It is blue.", thinking="Sky colour.", calls=WEATHER))
    events = chunks(whole, _words)
    accumulator = ollama.Accumulator()
    deltas = [delta for event in events for delta in accumulator.feed(event)]
    assert deltas == [
        ThinkingDelta(text="Sky "),
        ThinkingDelta(text="colour."),
        TextDelta(text="It "),
        TextDelta(text="is "),
        TextDelta(text="blue."),
        ToolCallStart(index=0, id="call_00000000", name="get_weather"),
        ToolCallDelta(index=0, arguments='{"city":"Oslo","days":2}'),
        ToolCallStart(index=1, id="call_00000001", name="get_weather"),
        ToolCallDelta(
            index=1,
            arguments='{"city":"Bergen","units":{"temp":"C","precision":1180591620717411303424}}',
        ),
    ]
    assert accumulator.finished
    assert accumulator.result() == ollama.from_response(whole)
    assert accumulator.reply() == ollama.read_reply(whole)
    assert accumulator.reply().stop_reason == "tool_use" and accumulator.reply().usage == USAGE
    assert accumulator.partial() == accumulator.result()


def test_partial_holds_what_arrived() -> None:
    events = chunks(response(message("Rain later.", thinking="Look.", calls=WEATHER[:1])), _words)
    accumulator = ollama.Accumulator()
    assert accumulator.partial() == [ct.AssistantMessage()]
    accumulator.feed(events[0])  # the thinking
    assert accumulator.partial() == [
        ct.AssistantMessage(thinking=(ct.ThinkingBlock(text="Look."),))
    ]
    accumulator.feed(events[1])  # "Rain "
    assert accumulator.partial()[-1] == ct.AssistantMessage(
        content="Rain ", thinking=(ct.ThinkingBlock(text="Look."),)
    )
    for event in events[2:-1]:  # the rest of the text, and the call, whole
        accumulator.feed(event)
    partial = accumulator.partial()
    assert partial[-1].tool_calls == (  # type: ignore[union-attr]
        ct.ToolCall(id="call_00000000", name="get_weather", arguments=WEATHER[0][1]),
    )
    with pytest.raises(
        StreamError, match=r"ended after 4 chunks without a last chunk \(done: true\)"
    ):
        accumulator.result()
    with pytest.raises(StreamError, match="without a last chunk"):
        accumulator.reply()


def test_a_stream_cut_at_the_token_limit() -> None:
    whole = response(message("The answer is", thinking="Hmm"), "length")
    accumulator = _fed(chunks(whole, _words))
    reply = accumulator.reply()
    assert reply.messages == [
        ct.AssistantMessage(content="The answer is", thinking=(ct.ThinkingBlock(text="Hmm"),))
    ]
    assert (reply.stop_reason, reply.provider_stop_reason) == ("max_tokens", "length")
    assert reply.usage == USAGE and reply == ollama.read_reply(whole)


def test_a_refusal_streams_as_text() -> None:
    whole = response(message("I can't help with that."))
    reply = _fed(chunks(whole, _words)).reply()
    assert reply == ollama.read_reply(whole) and reply.stop_reason == "end_turn"


def test_package_chunk_objects_read_as_their_json() -> None:
    whole = response(message("Blue sky.", thinking="Easy.", calls=WEATHER, ids=False))
    events = chunks(whole, _words)
    objects = [sdk.ChatResponse.model_validate(event) for event in events]
    assert _fed(objects).reply() == _fed(events).reply() == ollama.read_reply(whole)


def test_the_first_documented_stream_shape_reads() -> None:
    # Ollama's first documented stream: a last chunk with the counts and no message.
    events = [
        {
            "model": "llama3.2",
            "created_at": CREATED,
            "message": {"role": "assistant", "content": "The", "images": None},
            "done": False,
        },
        {
            "model": "llama3.2",
            "created_at": CREATED,
            "message": {"role": "assistant", "content": " sky"},
            "done": False,
        },
        {"model": "llama3.2", "created_at": CREATED, "done": True, **COUNTS},
    ]
    reply = _fed(events).reply()
    assert reply.messages == [ct.AssistantMessage(content="The sky")]
    assert (reply.stop_reason, reply.provider_stop_reason, reply.model) == (
        "other",
        None,
        "llama3.2",
    )
    assert reply.usage == USAGE


def test_items_from_a_stream_equal_those_of_the_whole_reply() -> None:
    # Unknown fields: text and lists join across chunks, other values are taken as sent.
    events = [
        {
            "model": MODEL,
            "message": {"role": "assistant", "content": "Here", "images": ["AAAA"], "note": "a"},
            "done": False,
        },
        {
            "model": MODEL,
            "message": {
                "role": "assistant",
                "content": ".",
                "images": ["BBBB"],
                "note": "b",
                "level": 1,
            },
            "done": False,
        },
        {
            "model": MODEL,
            "message": {"role": "assistant", "content": "", "level": 2},
            "done": True,
            "done_reason": "stop",
        },
    ]
    whole: dict[str, Any] = {
        "model": MODEL,
        "message": {
            "role": "assistant",
            "content": "Here.",
            "images": ["AAAA", "BBBB"],
            "note": "ab",
            "level": 2,
        },
        "done": True,
        "done_reason": "stop",
    }
    assert _fed(events).reply() == ollama.read_reply(whole)
    assert ollama.from_response(whole)[0] == ct.ProviderOutputItemsMessage(
        protocol="ollama", items=(whole["message"],)
    )


def test_a_call_whose_arguments_are_no_object_gives_no_delta() -> None:
    bad = {"function": {"index": 0, "name": "f", "arguments": "oops"}}
    good = {"function": {"index": 1, "name": "g", "arguments": '{"a": 1}'}}
    accumulator = ollama.Accumulator()
    got = accumulator.feed(
        {"message": {"role": "assistant", "content": "", "tool_calls": [bad, good]}, "done": False}
    )
    # The index is the call's place among the calls a backend can run.
    assert got == [
        ToolCallStart(index=0, id=None, name="g"),
        ToolCallDelta(index=0, arguments='{"a": 1}'),
    ]
    accumulator.feed(
        {"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"}
    )
    whole = {
        "message": {"role": "assistant", "content": "", "tool_calls": [bad, good]},
        "done": True,
        "done_reason": "stop",
    }
    assert accumulator.reply() == ollama.read_reply(whole)
    assert accumulator.result()[1] == ct.AssistantMessage(
        tool_calls=(ct.ToolCall(name="g", arguments={"a": 1}),)
    )


_STREAM_ERRORS: list[tuple[str, list[Any], str, int]] = [
    (
        "after-done",
        [{"done": True}, {"message": {"content": "x"}, "done": False}],
        "chunk 1: more after the last chunk",
        1,
    ),
    (
        "error",
        [{"error": "out of memory"}],
        "chunk 0: the provider reported an error: out of memory",
        0,
    ),
    ("done-text", [{"done": "true"}], "chunk 0: 'done' is not true or false: 'true'", 0),
    ("message-list", [{"message": [], "done": False}], "chunk 0: the message is not an object", 0),
    ("content", [{"message": {"content": 1}}], "chunk 0: the message's content is not text: 1", 0),
    ("thinking", [{"message": {"thinking": {}}}], "chunk 0: the message's thinking is not text", 0),
    ("role", [{"message": {"role": 1}}], "chunk 0: the message's role is not text", 0),
    (
        "calls",
        [{"message": {"tool_calls": "f"}}],
        "chunk 0: the message's tool_calls is not a list",
        0,
    ),
    (
        "call",
        [{"message": {"tool_calls": [None]}}],
        r"chunk 0: tool_calls\[0\]: expected an object",
        0,
    ),
    (
        "name",
        [
            {"message": {"tool_calls": [{"function": {"name": "f"}}]}},
            {"message": {"tool_calls": [{"function": {}}]}},
        ],
        r"chunk 1: tool_calls\[1\].function: missing 'name'",
        1,
    ),
    ("reason", [{"done": True, "done_reason": 3}], "chunk 0: the done_reason is not text: 3", 0),
    ("not-json", ["{}"], "chunk 0: .*expected a chunk as a dict or an SDK object, got str", 0),
]


@pytest.mark.parametrize(
    ("events", "pattern", "at"), [e[1:] for e in _STREAM_ERRORS], ids=[e[0] for e in _STREAM_ERRORS]
)
def test_a_malformed_stream_names_the_chunk(events: list[Any], pattern: str, at: int) -> None:
    accumulator = ollama.Accumulator()
    with pytest.raises(StreamError, match=pattern) as caught:
        for event in events:
            accumulator.feed(event)
    assert caught.value.index == at and caught.value.event is events[at]


def test_arguments_a_message_cannot_hold_are_a_stream_error_at_the_end() -> None:
    nan = json.loads('{"x": NaN}')
    accumulator = _fed(chunks(response(message("", calls=[("f", nan)])), _words))
    with pytest.raises(StreamError, match="finite number") as caught:
        accumulator.result()
    assert caught.value.index is None


_text = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30)
_arguments = st.dictionaries(
    st.text(max_size=5),
    st.one_of(st.integers(), st.booleans(), st.none(), st.text(max_size=5)),
    max_size=3,
)


@settings(max_examples=60)
@given(
    text=_text,
    thinking=_text,
    calls=st.lists(st.tuples(st.sampled_from(["a", "b_c"]), _arguments), max_size=3),
    ids=st.booleans(),
    reason=st.sampled_from(["stop", "length", "load", None]),
    cuts=st.lists(st.integers(0, 30), max_size=4),
)
def test_any_stream_reads_as_its_whole_reply(
    text: str,
    thinking: str,
    calls: list[tuple[str, dict[str, Any]]],
    ids: bool,
    reason: str | None,
    cuts: list[int],
) -> None:
    def split(piece: str) -> list[str]:
        points = sorted({0, len(piece), *(c for c in cuts if c < len(piece))})
        return [piece[a:b] for a, b in itertools.pairwise(points)]

    whole = response(message(text, thinking, calls, ids=ids), reason)
    accumulator = ollama.Accumulator()
    deltas = [delta for event in chunks(whole, split) for delta in accumulator.feed(event)]
    assert accumulator.reply() == ollama.read_reply(whole)
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == text
    assert "".join(d.text for d in deltas if isinstance(d, ThinkingDelta)) == thinking
    starts = [d for d in deltas if isinstance(d, ToolCallStart)]
    assert [(d.index, d.name) for d in starts] == [(n, name) for n, (name, _) in enumerate(calls)]
    for number, (_, arguments) in enumerate(calls):
        sent = "".join(
            d.arguments for d in deltas if isinstance(d, ToolCallDelta) and d.index == number
        )
        assert json.loads(sent) == arguments
    assert accumulator.partial() == accumulator.result()


# --- exact replay -------------------------------------------------------------------


def _without_positions(sent: dict[str, Any]) -> dict[str, Any]:
    """A reply message as a request takes it back: each call's position is its place."""
    out = dict(sent)
    if "tool_calls" in out:
        out["tool_calls"] = [
            {**call, "function": {k: v for k, v in call["function"].items() if k != "index"}}
            for call in out["tool_calls"]
        ]
    return out


REPLIES: dict[str, dict[str, Any]] = {
    "text": message("Blue."),
    "thinking": message("Blue.", thinking="Rayleigh."),
    "calls": message("", thinking="Two calls.", calls=WEATHER),
    "calls-without-ids": message("Let me check.", calls=WEATHER, ids=False),
    "blank-text-and-call": message(" ", calls=WEATHER[:1]),
    "images": {**message("A cat."), "images": ["iVBORw0KGgo="]},
    "text-arguments": {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"function": {"index": 0, "name": "f", "arguments": '{"b": 1, "a": 2}'}}],
    },
    "unknown-field": {**message("Hi."), "mood": "cheerful"},
}


@pytest.mark.parametrize("name", sorted(REPLIES))
def test_a_reply_goes_back_as_it_came(name: str) -> None:
    sent = REPLIES[name]
    for form in (response(sent), chunks(response(sent), _words)):
        if isinstance(form, dict):
            messages = ollama.from_response(form)
        else:
            messages = _fed(form).result()
        body = ollama.to_request([ct.UserMessage(content="q"), *messages])
        assert body["messages"] == [{"role": "user", "content": "q"}, _without_positions(sent)]
        # A field the package does not know, and arguments sent as text (which
        # no Ollama server sends; an imitation might), go back to whoever sent them.
        if name not in ("unknown-field", "text-arguments"):
            validate(body)


def test_a_reply_the_turn_carries_keeps_no_item() -> None:
    for name in ("text", "thinking", "calls", "calls-without-ids", "blank-text-and-call"):
        assert len(ollama.from_response(response(REPLIES[name]))) == 1, name
    for name in ("images", "text-arguments", "unknown-field"):
        assert len(ollama.from_response(response(REPLIES[name]))) == 2, name


def test_the_assistant_after_an_item_sends_only_what_the_item_lacks() -> None:
    kept, assistant = ollama.from_response(response(REPLIES["images"]))
    assert isinstance(assistant, ct.AssistantMessage)
    edited = ct.replace(
        assistant,
        content="A cat, asleep.",
        tool_calls=(ct.ToolCall(id="call_z", name="zoom", arguments={"x": 1}),),
    )
    body = ollama.to_request(
        [
            ct.UserMessage(content="q"),
            kept,
            edited,
            ct.ToolResultMessage(tool_use_id="call_z", content="zoomed"),
        ]
    )
    assert body["messages"][1:] == [
        REPLIES["images"],
        {
            "role": "assistant",
            "content": "A cat, asleep.",
            "tool_calls": [{"id": "call_z", "function": {"name": "zoom", "arguments": {"x": 1}}}],
        },
        {"role": "tool", "content": "zoomed", "tool_name": "zoom", "tool_call_id": "call_z"},
    ]
    # Once: the same assistant message sends nothing more than its item.
    again = ollama.to_request([ct.UserMessage(content="q"), kept, assistant])
    assert again["messages"][1:] == [REPLIES["images"]]


def test_calls_carried_by_an_item_are_answered_by_their_ids() -> None:
    sent = {**message("", calls=WEATHER), "images": ["AAAA"]}
    kept, assistant = ollama.from_response(response(sent))
    transcript = [
        ct.UserMessage(content="q"),
        kept,
        assistant,
        ct.ToolResultMessage(tool_use_id="call_00000001", content="B"),
        ct.ToolResultMessage(tool_use_id="call_00000000", content="A"),
        ct.UserMessage(content="thanks"),
    ]
    messages = ollama.to_request(transcript)["messages"]
    assert messages[1] == _without_positions(sent) and len(messages) == 5
    assert messages[2:4] == [
        {
            "role": "tool",
            "content": "A",
            "tool_name": "get_weather",
            "tool_call_id": "call_00000000",
        },
        {
            "role": "tool",
            "content": "B",
            "tool_name": "get_weather",
            "tool_call_id": "call_00000001",
        },
    ]


def test_thinking_false_leaves_it_out_of_replayed_items_too() -> None:
    sent = {**message("A cat.", thinking="Fur."), "images": ["AAAA"]}
    messages = ollama.from_response(response(sent))
    body = ollama.to_request([ct.UserMessage(content="q"), *messages], thinking=False)
    assert body["messages"][1] == {"role": "assistant", "content": "A cat.", "images": ["AAAA"]}
    # The transcript is not changed.
    item: Any = messages[0].items[0]  # type: ignore[union-attr]
    assert item["thinking"] == "Fur."


def test_other_dialects_read_the_assistant_message_beside_the_item() -> None:
    from convtypes.dialects import openai_chat

    messages = ollama.from_response(response(REPLIES["images"]))
    body = openai_chat.to_request([ct.UserMessage(content="q"), *messages])
    assert body["messages"][1] == {"role": "assistant", "content": "A cat."}


# --- the module as a whole ----------------------------------------------------------


def test_the_dialect_imports_no_sdk() -> None:
    code = (
        "import sys\n"
        "import convtypes.dialects.ollama as module\n"
        "assert callable(module.to_request) and callable(module.from_response)\n"
        "loaded = [n for n in ('ollama', 'pydantic', 'httpx') if n in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_an_iterator_of_messages_is_accepted() -> None:
    transcript: list[ct.Message] = [ct.UserMessage(content="q"), ct.AssistantMessage(content="a")]
    assert ollama.to_request(iter(transcript)) == ollama.to_request(transcript)
