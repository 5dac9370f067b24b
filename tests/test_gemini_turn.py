"""A whole turn through the Gemini dialect: tools in; deltas, stop reason and usage out.

The responses and chunks here are written for these tests in the shapes
Gemini sends (REST camelCase, one part per chunk, signatures on the first
piece of a part or on an empty last part, usage on every chunk, a last
chunk with no content): no test reads recorded traffic. Requests are
validated against google-genai's own types, and the SDK's call path is
run with its HTTP request replaced, so no network is used.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from test_dialects_fuzz import SEEDS, single_mutations
from test_dialects_requests import validate_gemini

import convtypes as ct
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
    UnsupportedContent,
    Usage,
    gemini,
)

genai = pytest.importorskip("google.genai")
types = pytest.importorskip("google.genai.types")

SIG = base64.b64encode(b"\xfb\xff signature").decode()  # standard base64, with + and /
CALL_SIG = base64.b64encode(b"call signature").decode()


def candidate(parts: list[dict[str, Any]] | None, reason: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"index": 0}
    if parts is not None:
        out["content"] = {"role": "model", "parts": parts}
    else:
        out["content"] = {"role": "model"}
    if reason is not None:
        out["finishReason"] = reason
    return out


def response(
    parts: list[dict[str, Any]] | None,
    reason: str | None = "STOP",
    usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"candidates": [candidate(parts, reason)]}
    if usage is not None:
        out["usageMetadata"] = usage
    out["modelVersion"] = "gemini-2.5-flash"
    out["responseId"] = "resp-1"
    return out


def chunk(
    parts: list[dict[str, Any]] | None,
    reason: str | None = None,
    usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"candidates": [candidate(parts, reason)]}
    if usage is not None:
        out["usageMetadata"] = usage
    out["modelVersion"] = "gemini-2.5-flash"
    out["responseId"] = "resp-1"
    return out


def feed(events: list[Any]) -> tuple[gemini.Accumulator, list[Any]]:
    accumulator = gemini.Accumulator()
    deltas = [delta for event in events for delta in accumulator.feed(event)]
    return accumulator, deltas


def sdk(value: dict[str, Any]) -> Any:
    return types.GenerateContentResponse.model_validate(value)


def every_form(value: dict[str, Any]) -> list[Any]:
    """A response as REST JSON, as the SDK's object, and as that object's dump."""
    obj = sdk(value)
    return [value, obj, obj.model_dump(), obj.model_dump(mode="json", by_alias=True)]


# A stream as gemini-cli records them: a thought summary, then a call with
# its signature, then an empty text part; usage grows on every chunk.
USAGE_1 = {"promptTokenCount": 900, "totalTokenCount": 960, "thoughtsTokenCount": 60}
USAGE_2 = {
    "promptTokenCount": 900,
    "candidatesTokenCount": 24,
    "totalTokenCount": 984,
    "cachedContentTokenCount": 512,
    "thoughtsTokenCount": 60,
    "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 900}],
}
CALL_STREAM = [
    chunk([{"text": "**Planning**\n\nI will ", "thought": True}], usage=USAGE_1),
    chunk([{"text": "read the file.", "thought": True}], usage=USAGE_1),
    chunk(
        [
            {
                "functionCall": {"name": "read_file", "args": {"path": "a.txt"}},
                "thoughtSignature": SIG,
            }
        ],
        usage=USAGE_1,
    ),
    chunk([{"text": ""}], "STOP", usage=USAGE_2),
]
# What the chunks add up to, as one response.
CALL_RESPONSE = response(
    [
        {"text": "**Planning**\n\nI will read the file.", "thought": True},
        {"functionCall": {"name": "read_file", "args": {"path": "a.txt"}}, "thoughtSignature": SIG},
        {"text": ""},
    ],
    usage=USAGE_2,
)
CALL_PARTS: tuple[Any, ...] = (
    {"text": "**Planning**\n\nI will read the file.", "thought": True},
    {"function_call": {"name": "read_file", "args": {"path": "a.txt"}}, "thought_signature": SIG},
    {"text": ""},
)


# --- tools ---------------------------------------------------------------------


WEATHER = ToolSpec(
    name="get_weather",
    description="The weather in a city.",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
        "required": ["city"],
    },
)
CLOCK = ToolSpec(name="tools.clock:now")  # Gemini takes dots and colons in a name


def validate_tools(fields: dict[str, Any]) -> None:
    """The fields, as google-genai's request types read them."""
    assert set(fields) <= {"tools", "tool_config"}
    types.GenerateContentConfig.model_validate(fields)
    for tool in fields.get("tools", ()):
        for declaration in types.Tool.model_validate(tool).function_declarations:
            assert declaration.name


@pytest.mark.parametrize(
    ("choice", "config"),
    [
        ("auto", {"mode": "AUTO"}),
        ("none", {"mode": "NONE"}),
        ("required", {"mode": "ANY"}),
        ("get_weather", {"mode": "ANY", "allowed_function_names": ["get_weather"]}),
    ],
)
def test_tools_and_the_choice(choice: str, config: dict[str, Any]) -> None:
    fields = gemini.tools_to_request([WEATHER, CLOCK], choice=choice)
    validate_tools(fields)
    assert fields == {
        "tools": [
            {
                "function_declarations": [
                    {
                        "name": "get_weather",
                        "description": "The weather in a city.",
                        "parameters": {
                            "type": "OBJECT",
                            "required": ["city"],
                            "properties": {
                                "city": {"type": "STRING"},
                                "days": {"type": "INTEGER", "minimum": 1},
                            },
                        },
                    },
                    # No properties: no parameters (Gemini refuses an empty object).
                    {"name": "tools.clock:now"},
                ]
            }
        ],
        "tool_config": {"function_calling_config": config},
    }


def test_no_tools_are_no_fields() -> None:
    assert gemini.tools_to_request([]) == {}
    assert gemini.tools_to_request([], choice="none") == {}
    with pytest.raises(ToolSchemaError, match="needs at least one tool"):
        gemini.tools_to_request([], choice="required")


@pytest.mark.parametrize(
    ("tools", "choice", "words"),
    [
        ([ToolSpec(name="9lives")], "auto", "Gemini takes tool names matching"),
        ([ToolSpec(name="a" * 129)], "auto", "Gemini takes tool names matching"),
        ([ToolSpec(name="has space")], "auto", "Gemini takes tool names matching"),
        ([WEATHER, WEATHER], "auto", "given twice"),
        ([WEATHER], "get_time", "nor the name of a tool given"),
    ],
)
def test_tools_gemini_refuses(tools: list[ToolSpec], choice: str, words: str) -> None:
    with pytest.raises(ToolSchemaError, match=words):
        gemini.tools_to_request(tools, choice=choice)


def test_a_name_at_gemini_s_length_limit_is_taken() -> None:
    validate_tools(gemini.tools_to_request([ToolSpec(name="_" + "a" * 127)]))


def test_a_schema_error_names_the_tool_and_the_place() -> None:
    tree = ToolSpec(
        name="walk",
        parameters={
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Tree"}},
            "$defs": {
                "Tree": {
                    "type": "object",
                    "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}},
                }
            },
        },
    )
    with pytest.raises(ToolSchemaError) as caught:
        gemini.tools_to_request([WEATHER, tree])
    assert caught.value.tool == "walk"
    assert caught.value.path == "/$defs/Tree/properties/kids/items/$ref"
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, DialectError)
    # A recursive model goes as JSON Schema when asked.
    fields = gemini.tools_to_request([WEATHER, tree], json_schema=True)
    validate_tools(fields)
    declarations = fields["tools"][0]["function_declarations"]
    # As it is, but a copy: the request belongs to the caller.
    assert declarations[1]["parameters_json_schema"] == tree.parameters
    assert declarations[1]["parameters_json_schema"] is not tree.parameters
    assert declarations[0]["parameters_json_schema"] == WEATHER.parameters


def test_tools_are_checked_as_a_list_of_specs() -> None:
    with pytest.raises(TypeError, match="not a ToolSpec"):
        gemini.tools_to_request([{"name": "x"}])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="list of ToolSpec"):
        gemini.tools_to_request(WEATHER)  # type: ignore[arg-type]


# --- the request through google-genai -------------------------------------------


def standard(value: Any) -> Any:
    """``value`` with every ``thoughtSignature`` in the standard base64 alphabet."""
    if isinstance(value, dict):
        return {
            key: item.translate(str.maketrans("-_", "+/"))
            if key == "thoughtSignature"
            else standard(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [standard(item) for item in value]
    return value


class Captured:
    """Stands in for google-genai's HTTP request: keeps the body, answers ``reply``."""

    def __init__(self, reply: dict[str, Any]) -> None:
        self.reply = reply
        self.body: dict[str, Any] = {}
        self.path = ""

    def __call__(self, method: str, path: str, body: dict[str, Any], options: Any = None) -> Any:
        from google.genai import _api_client

        self.path, self.body = path, body
        return _api_client.SdkHttpResponse(headers={}, body=json.dumps(self.reply))  # type: ignore[attr-defined]


def client_with(reply: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Captured]:
    client = genai.Client(api_key="no-network")
    captured = Captured(reply)
    monkeypatch.setattr(client._api_client, "request", captured)
    return client, captured


def test_the_request_goes_through_google_genai(monkeypatch: pytest.MonkeyPatch) -> None:
    earlier = gemini.from_response(CALL_RESPONSE)
    transcript: list[ct.Message] = [
        ct.SystemMessage(content="Be brief."),
        ct.UserMessage(content="Read a.txt"),
        *earlier,
        ct.ToolResultMessage(tool_use_id="call_0", content="hello"),
    ]
    body = {
        "model": "gemini-2.5-flash",
        **gemini.to_request(transcript),
        **gemini.tools_to_request([WEATHER], choice="required"),
        "generation_config": {"temperature": 0.5, "max_output_tokens": 64},
    }
    answer = response([{"text": "It says hello."}], usage={"promptTokenCount": 40})
    client, captured = client_with(answer, monkeypatch)
    result = client.models.generate_content(**gemini.to_sdk_request(body))
    assert captured.path == "models/gemini-2.5-flash:generateContent"
    sent = captured.body
    assert sent["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    assert sent["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}
    assert sent["generationConfig"] == {"temperature": 0.5, "maxOutputTokens": 64}
    declaration = sent["tools"][0]["functionDeclarations"][0]
    assert declaration["parameters"]["properties"]["city"] == {"type": "STRING"}
    # The model turn goes out as it came in, the signature on its call (the
    # SDK writes bytes in URL-safe base64, which the API reads as well).
    assert standard(sent["contents"][1]) == {
        "role": "model",
        "parts": [
            {"text": "**Planning**\n\nI will read the file.", "thought": True},
            {
                "functionCall": {"name": "read_file", "args": {"path": "a.txt"}},
                "thoughtSignature": SIG,
            },
        ],
    }
    assert sent["contents"][2] == {
        "role": "user",
        "parts": [{"functionResponse": {"name": "read_file", "response": {"output": "hello"}}}],
    }
    # And the SDK's answer reads as its REST JSON does.
    assert gemini.read_reply(result) == gemini.read_reply(answer)


def test_the_rest_body_alone_is_not_what_the_sdk_takes(monkeypatch: pytest.MonkeyPatch) -> None:
    # Why to_sdk_request exists: generate_content has no system_instruction argument.
    client, _ = client_with(response([{"text": "x"}]), monkeypatch)
    body = gemini.to_request([ct.SystemMessage(content="s"), ct.UserMessage(content="u")])
    with pytest.raises(TypeError, match="system_instruction"):
        client.models.generate_content(model="gemini-2.5-flash", **body)


def test_to_sdk_request_keeps_model_and_contents_and_puts_the_rest_in_config() -> None:
    contents = [{"role": "user", "parts": [{"text": "u"}]}]
    out = gemini.to_sdk_request(
        {"model": "m", "contents": contents, "safety_settings": [], "generationConfig": {"seed": 1}}
    )
    assert out == {"model": "m", "contents": contents, "config": {"safety_settings": [], "seed": 1}}
    assert out["contents"] is contents
    assert gemini.to_sdk_request({"contents": contents}) == {"contents": contents}
    with pytest.raises(ValueError, match="'seed' is given twice"):
        gemini.to_sdk_request({"generation_config": {"seed": 1}, "seed": 2})
    with pytest.raises(ValueError, match="'seed' is given twice"):
        gemini.to_sdk_request({"seed": 2, "generation_config": {"seed": 1}})
    with pytest.raises(TypeError, match="body must be a dict"):
        gemini.to_sdk_request([])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="generation_config must be a dict"):
        gemini.to_sdk_request({"generation_config": 1})


# --- the reply: messages, stop reason, usage -----------------------------------------


def test_a_streamed_call_reads_as_the_response_it_adds_up_to() -> None:
    accumulator, deltas = feed(CALL_STREAM)
    expected = Reply(
        messages=[
            ct.ProviderOutputItemsMessage(protocol="gemini", items=CALL_PARTS),
            ct.AssistantMessage(
                tool_calls=(ct.ToolCall(name="read_file", arguments={"path": "a.txt"}),),
                thinking=(ct.ThinkingBlock(text="**Planning**\n\nI will read the file."),),
            ),
        ],
        stop_reason="tool_use",  # Gemini says STOP
        provider_stop_reason="STOP",
        usage=Usage(
            input_tokens=900,
            output_tokens=84,  # 24 candidates + 60 thoughts
            cache_read_tokens=512,
            reasoning_tokens=60,
            raw={
                "prompt_token_count": 900,
                "candidates_token_count": 24,
                "total_token_count": 984,
                "cached_content_token_count": 512,
                "thoughts_token_count": 60,
                "prompt_tokens_details": [{"modality": "TEXT", "token_count": 900}],
            },
        ),
        model="gemini-2.5-flash",
        id="resp-1",
    )
    assert accumulator.reply() == expected
    assert accumulator.result() == expected.messages
    for form in every_form(CALL_RESPONSE):
        assert gemini.read_reply(form) == expected
        assert gemini.from_response(form) == expected.messages
    for form in ([sdk(event) for event in CALL_STREAM], [sdk(e).model_dump() for e in CALL_STREAM]):
        assert feed(form)[0].reply() == expected
    assert deltas == [
        ThinkingDelta(text="**Planning**\n\nI will "),
        ThinkingDelta(text="read the file."),
        ToolCallStart(index=0, id=None, name="read_file"),
        ToolCallDelta(index=0, arguments='{"path":"a.txt"}'),
    ]


def test_two_text_parts_of_a_response_go_back_as_two() -> None:
    # The case: an unstreamed response's parts are kept one for one.
    parts = [{"text": "First I look."}, {"text": "Then I answer."}]
    items, assistant = gemini.from_response(response(parts))
    assert items == ct.ProviderOutputItemsMessage(
        protocol="gemini", items=({"text": "First I look."}, {"text": "Then I answer."})
    )
    assert assistant == ct.AssistantMessage(content="First I look.Then I answer.")
    body = gemini.to_request([ct.UserMessage(content="go"), items, assistant])
    validate_gemini(body)
    assert body["contents"][1] == {"role": "model", "parts": parts}


def test_stream_pieces_join_and_a_signature_opens_a_part() -> None:
    events = [
        chunk([{"text": "Thinking ", "thought": True}]),
        chunk([{"text": "hard.", "thought": True}]),
        # The answer's first piece brings the signature; the next ones join it.
        chunk([{"text": "The ", "thoughtSignature": SIG}]),
        chunk([{"text": "answer"}]),
        # Two parts in one chunk stay two, as in a response.
        chunk([{"text": " is 4."}, {"text": "Anything else?"}]),
        chunk([{"text": "", "thoughtSignature": CALL_SIG}], "STOP"),
    ]
    accumulator, deltas = feed(events)
    items, assistant = accumulator.result()
    assert items == ct.ProviderOutputItemsMessage(
        protocol="gemini",
        items=(
            {"text": "Thinking hard.", "thought": True},
            {"text": "The answer is 4.", "thought_signature": SIG},
            {"text": "Anything else?"},
            {"text": "", "thought_signature": CALL_SIG},
        ),
    )
    assert assistant == ct.AssistantMessage(
        content="The answer is 4.Anything else?",
        thinking=(ct.ThinkingBlock(text="Thinking hard."),),
    )
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == assistant.content
    assert [d.text for d in deltas if isinstance(d, ThinkingDelta)] == ["Thinking ", "hard."]
    body = gemini.to_request([ct.UserMessage(content="2+2?"), items, assistant])
    validate_gemini(body)
    assert isinstance(items, ct.ProviderOutputItemsMessage)
    assert body["contents"][1]["parts"] == list(items.items)


def test_several_calls_are_numbered_in_their_order() -> None:
    events = [
        chunk([{"text": "Both."}]),
        chunk([{"functionCall": {"id": "fc-1", "name": "a", "args": {"n": 10**20}}}]),
        chunk([{"functionCall": {"name": "b"}}]),  # no args: an empty object
        chunk(None, "STOP"),
    ]
    accumulator, deltas = feed(events)
    assert deltas == [
        TextDelta(text="Both."),
        ToolCallStart(index=0, id="fc-1", name="a"),
        ToolCallDelta(index=0, arguments='{"n":100000000000000000000}'),
        ToolCallStart(index=1, id=None, name="b"),
        ToolCallDelta(index=1, arguments="{}"),
    ]
    reply = accumulator.reply()
    assert reply.stop_reason == "tool_use"
    assistant = reply.messages[1]
    assert isinstance(assistant, ct.AssistantMessage)
    assert assistant.tool_calls == (
        ct.ToolCall(id="fc-1", name="a", arguments={"n": 10**20}),
        ct.ToolCall(name="b", arguments={}),
    )


@pytest.mark.parametrize(
    ("reason", "stop"),
    [
        ("STOP", "end_turn"),
        ("MAX_TOKENS", "max_tokens"),
        ("SAFETY", "content_filter"),
        ("RECITATION", "content_filter"),
        ("BLOCKLIST", "content_filter"),
        ("PROHIBITED_CONTENT", "content_filter"),
        ("SPII", "content_filter"),
        ("IMAGE_SAFETY", "content_filter"),
        ("MALFORMED_FUNCTION_CALL", "other"),
        ("LANGUAGE", "other"),
        ("OTHER", "other"),
        ("A_REASON_FROM_NEXT_YEAR", "other"),
    ],
)
def test_stop_reasons_by_meaning(reason: str, stop: str) -> None:
    reply = gemini.read_reply(response([{"text": "Partly"}], reason))
    assert (reply.stop_reason, reply.provider_stop_reason) == (stop, reason)
    streamed = feed([chunk([{"text": "Part"}]), chunk([{"text": "ly"}], reason)])[0].reply()
    assert streamed == reply


def test_a_stream_cut_at_max_tokens() -> None:
    usage = {"promptTokenCount": 20, "candidatesTokenCount": 8, "totalTokenCount": 28}
    events = [
        chunk([{"text": "Once upon"}], usage={"promptTokenCount": 20, "totalTokenCount": 20}),
        chunk([{"text": " a time"}], "MAX_TOKENS", usage=usage),
    ]
    accumulator, _ = feed(events)
    reply = accumulator.reply()
    assert reply.stop_reason == "max_tokens"
    assert reply.messages[1] == ct.AssistantMessage(content="Once upon a time")
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (20, 8)
    assert (reply.usage.cache_read_tokens, reply.usage.reasoning_tokens) == (None, None)
    assert reply == gemini.read_reply(response([{"text": "Once upon a time"}], "MAX_TOKENS", usage))


def test_a_refusal_in_words_is_an_ordinary_answer() -> None:
    # Gemini marks no refusal: declining in words ends with STOP, and only a
    # safety system's block says more (content_filter, below).
    reply = gemini.read_reply(response([{"text": "I can't help with that."}], "STOP", {}))
    assert reply.stop_reason == "end_turn"
    assert reply.usage == Usage(raw={})


def test_a_candidate_without_content_is_an_empty_reply() -> None:
    # A reply filtered before any part: no content, finishReason SAFETY.
    usage = {"promptTokenCount": 7, "totalTokenCount": 7}
    whole = {"candidates": [{"finishReason": "SAFETY", "index": 0}], "usageMetadata": usage}
    expected = Reply(
        messages=[
            ct.ProviderOutputItemsMessage(protocol="gemini", items=()),
            ct.AssistantMessage(),
        ],
        stop_reason="content_filter",
        provider_stop_reason="SAFETY",
        # Gemini leaves zero counts out; the total says nothing was generated.
        usage=Usage(
            input_tokens=7, output_tokens=0, raw={"prompt_token_count": 7, "total_token_count": 7}
        ),
    )
    for form in every_form(whole):
        assert gemini.read_reply(form) == expected
    assert feed([whole])[0].reply() == expected
    # A stream whose content stopped at a filter keeps what came before it.
    accumulator, _ = feed(
        [chunk([{"text": "Sure, "}]), {"candidates": [{"finishReason": "SAFETY"}]}]
    )
    reply = accumulator.reply()
    assert (reply.stop_reason, reply.messages[1]) == (
        "content_filter",
        ct.AssistantMessage(content="Sure, "),
    )
    # Replaying an empty reply sends no model turn.
    body = gemini.to_request([ct.UserMessage(content="q"), *expected.messages])
    assert body == {"contents": [{"role": "user", "parts": [{"text": "q"}]}]}


def test_a_blocked_prompt_is_an_empty_reply_that_says_why() -> None:
    blocked = {
        "promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
        "usageMetadata": {"promptTokenCount": 12, "totalTokenCount": 12},
        "modelVersion": "gemini-2.5-pro",
    }
    expected = Reply(
        messages=[
            ct.ProviderOutputItemsMessage(protocol="gemini", items=()),
            ct.AssistantMessage(),
        ],
        stop_reason="content_filter",
        provider_stop_reason="PROHIBITED_CONTENT",
        usage=Usage(
            input_tokens=12,
            output_tokens=0,
            raw={"prompt_token_count": 12, "total_token_count": 12},
        ),
        model="gemini-2.5-pro",
        details={"prompt_feedback": {"block_reason": "PROHIBITED_CONTENT"}},
    )
    for form in every_form(blocked):
        assert gemini.read_reply(form) == expected
    accumulator, deltas = feed([blocked])
    assert deltas == [] and accumulator.finished
    assert accumulator.reply() == expected
    # Prompt feedback without a block reason and no candidate: an empty reply, "other".
    reply = gemini.read_reply({"promptFeedback": {}})
    assert (reply.stop_reason, reply.provider_stop_reason) == ("other", None)


def test_usage_adds_tool_prompt_tokens_to_the_input() -> None:
    # Built-in tools (Google Search) add to the prompt; the total counts them.
    usage = {
        "promptTokenCount": 800,
        "candidatesTokenCount": 60,
        "totalTokenCount": 1680,
        "cachedContentTokenCount": 500,
        "toolUsePromptTokenCount": 810,
        "thoughtsTokenCount": 10,
    }
    got = gemini.read_reply(response([{"text": "A fact."}], "STOP", usage)).usage
    assert got == Usage(
        input_tokens=1610,
        output_tokens=70,
        cache_read_tokens=500,
        reasoning_tokens=10,
        raw={
            "prompt_token_count": 800,
            "candidates_token_count": 60,
            "total_token_count": 1680,
            "cached_content_token_count": 500,
            "tool_use_prompt_token_count": 810,
            "thoughts_token_count": 10,
        },
    )
    assert got.input_tokens is not None and got.output_tokens is not None
    assert got.input_tokens + got.output_tokens == usage["totalTokenCount"]


def test_usage_not_reported_is_none() -> None:
    assert gemini.read_reply(response([{"text": "x"}])).usage == Usage()
    only_prompt = gemini.read_reply(response([{"text": "x"}], "STOP", {"promptTokenCount": 5}))
    assert only_prompt.usage == Usage(input_tokens=5, raw={"prompt_token_count": 5})
    with pytest.raises(ResponseError, match="the usage metadata is not an object"):
        gemini.read_reply(response([{"text": "x"}], "STOP", [1]))  # type: ignore[arg-type]
    accumulator, _ = feed([chunk([{"text": "x"}], "STOP", usage=[1])])  # type: ignore[arg-type]
    with pytest.raises(StreamError, match="chunk 0: the usage metadata is not an object") as caught:
        accumulator.reply()
    assert caught.value.index == 0


def test_in_a_stream_the_last_usage_wins() -> None:
    events = [
        chunk([{"text": "a"}], usage={"promptTokenCount": 3, "thoughtsTokenCount": 9}),
        chunk([{"text": "b"}], "STOP", usage={"promptTokenCount": 3, "candidatesTokenCount": 2}),
        {"usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 4, "totalTokenCount": 7}},
    ]
    usage = feed(events)[0].reply().usage
    assert (usage.input_tokens, usage.output_tokens, usage.reasoning_tokens) == (3, 4, None)


def test_only_the_first_candidate_is_read() -> None:
    second = {"index": 1, "content": {"role": "model", "parts": [{"text": "B"}]}}
    whole = {"candidates": [second, candidate([{"text": "A"}], "STOP")]}
    assert gemini.from_response(whole)[1] == ct.AssistantMessage(content="A")
    events = [
        {"candidates": [candidate([{"text": "A"}])]},
        {"candidates": [second]},
        {"candidates": [{**second, "finishReason": "STOP"}, candidate([{"text": "!"}], "STOP")]},
    ]
    assert feed(events)[0].result()[1] == ct.AssistantMessage(content="A!")
    with pytest.raises(ResponseError, match="no first candidate"):
        gemini.from_response({"candidates": [second]})


def test_a_call_streamed_in_pieces_is_refused() -> None:
    piece = {
        "functionCall": {"name": "f", "partialArgs": [{"jsonPath": "$.a"}], "willContinue": True}
    }
    with pytest.raises(ResponseError, match=r"parts\[0\]: a function call streamed in pieces"):
        gemini.from_response(response([piece]))
    with pytest.raises(StreamError, match="chunk 1: a function call streamed in pieces") as caught:
        feed([chunk([{"text": "x"}]), chunk([piece])])
    assert caught.value.index == 1


# --- partial replies ---------------------------------------------------------------


def test_partial_keeps_what_arrived() -> None:
    accumulator = gemini.Accumulator()
    assert accumulator.partial() == [
        ct.ProviderOutputItemsMessage(protocol="gemini", items=()),
        ct.AssistantMessage(),
    ]
    accumulator.feed(CALL_STREAM[0])
    first = accumulator.partial()
    assert first[1] == ct.AssistantMessage(
        thinking=(ct.ThinkingBlock(text="**Planning**\n\nI will "),)
    )
    accumulator.feed(CALL_STREAM[1])
    accumulator.feed(CALL_STREAM[2])
    middle = accumulator.partial()
    assert isinstance(middle[1], ct.AssistantMessage)
    assert middle[1].tool_calls == (ct.ToolCall(name="read_file", arguments={"path": "a.txt"}),)
    # What an earlier partial() gave is not changed by later chunks.
    assert first[1] == ct.AssistantMessage(
        thinking=(ct.ThinkingBlock(text="**Planning**\n\nI will "),)
    )
    assert first[0] == ct.ProviderOutputItemsMessage(
        protocol="gemini", items=({"text": "**Planning**\n\nI will ", "thought": True},)
    )
    with pytest.raises(StreamError, match="without a finish reason"):
        accumulator.result()
    accumulator.feed(CALL_STREAM[3])
    assert accumulator.partial() == accumulator.result()


def test_partial_leaves_out_a_call_that_cannot_be_read() -> None:
    accumulator, deltas = feed([chunk([{"text": "Hi"}]), chunk([{"functionCall": {"args": {}}}])])
    assert deltas == [TextDelta(text="Hi")]
    items, assistant = accumulator.partial()
    assert assistant == ct.AssistantMessage(content="Hi")
    assert isinstance(items, ct.ProviderOutputItemsMessage) and len(items.items) == 2
    accumulator.feed(chunk(None, "STOP"))
    with pytest.raises(StreamError, match=r"parts\[1\]: a function call without a name"):
        accumulator.result()


# --- what is kept as items, and its exact replay ---------------------------------------


def test_an_empty_unsigned_text_part_is_kept_but_not_sent_back() -> None:
    messages = gemini.from_response(CALL_RESPONSE)
    assert messages[0] == ct.ProviderOutputItemsMessage(protocol="gemini", items=CALL_PARTS)
    transcript = [
        ct.UserMessage(content="Read a.txt"),
        *messages,
        ct.ToolResultMessage(tool_use_id="call_0", content="hello"),
    ]
    body = gemini.to_request(transcript)
    validate_gemini(body)
    assert body["contents"][1]["parts"] == list(CALL_PARTS[:2])
    # A reply of nothing but such a part sends no model turn at all.
    nothing = gemini.from_response(response([{"text": ""}]))
    assert gemini.to_request([ct.UserMessage(content="q"), *nothing]) == {
        "contents": [{"role": "user", "parts": [{"text": "q"}]}]
    }


def test_parts_the_turn_cannot_say_stay_in_the_items_and_go_back() -> None:
    parts: list[dict[str, Any]] = [
        {"executableCode": {"language": "PYTHON", "code": "print(2 + 2)"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "4\n"}},
        {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
        {"text": "It is 4.", "partMetadata": {"myKey": 1}},
    ]
    reply = gemini.read_reply(response(parts, usage={"promptTokenCount": 1}))
    items, assistant = reply.messages
    sent: list[Any] = [
        {"executable_code": {"language": "PYTHON", "code": "print(2 + 2)"}},
        {"code_execution_result": {"outcome": "OUTCOME_OK", "output": "4\n"}},
        {"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgo="}},
        {"text": "It is 4.", "part_metadata": {"myKey": 1}},  # the caller's keys stay
    ]
    assert items == ct.ProviderOutputItemsMessage(protocol="gemini", items=tuple(sent))
    assert assistant == ct.AssistantMessage(content="It is 4.")
    for form in every_form(response(parts, usage={"promptTokenCount": 1})):
        assert gemini.read_reply(form) == reply
    body = gemini.to_request([ct.UserMessage(content="2+2"), items, assistant])
    validate_gemini(body)
    assert body["contents"][1]["parts"] == sent


def test_sdk_additions_are_not_kept() -> None:
    sent = response([{"text": "hi", "thoughtSignature": SIG}], usage={"promptTokenCount": 2})
    obj = sdk(sent)
    obj.automatic_function_calling_history = [
        types.Content(role="user", parts=[types.Part(text="earlier")])
    ]
    obj.sdk_http_response = types.HttpResponse(headers={"x": "y"})
    expected = gemini.read_reply(sent)
    for form in (obj, obj.model_dump(), obj.model_dump(mode="json", by_alias=True)):
        reply = gemini.read_reply(form)
        assert reply == expected
        assert "earlier" not in ct.encode(reply.messages).decode()
        assert reply.usage.raw == {"prompt_token_count": 2}


def test_other_dialects_read_the_assistant_message_only() -> None:
    transcript = [
        ct.UserMessage(content="Read a.txt"),
        *gemini.from_response(CALL_RESPONSE),
        ct.ToolResultMessage(tool_use_id="call_0", content="hello"),
    ]
    from convtypes.dialects import anthropic

    body = anthropic.to_request(transcript)
    assert SIG not in json.dumps(body)
    assert body["messages"][1]["content"] == [
        # A call Gemini gave no id gets one Anthropic takes, and its result follows.
        {"type": "tool_use", "id": "call_2_0", "name": "read_file", "input": {"path": "a.txt"}}
    ]
    assert body["messages"][2]["content"][0]["tool_use_id"] == "call_2_0"


# --- request fixes ---------------------------------------------------------------------


PNG = "iVBORw0KGgoAAAANSUhEUg=="


@pytest.mark.parametrize(
    ("block", "part"),
    [
        (
            ct.ImageUrlBlock(url=f"data:image/png;base64,{PNG}"),
            {"inline_data": {"mime_type": "image/png", "data": PNG}},
        ),
        (
            ct.ImageUrlBlock(url=f"DATA:IMAGE/JPG;base64,{PNG}"),
            {"inline_data": {"mime_type": "image/jpeg", "data": PNG}},
        ),
        (
            ct.ImageBase64Block(data=PNG, media_type="IMAGE/PNG"),
            {"inline_data": {"mime_type": "image/png", "data": PNG}},
        ),
        (
            ct.ImageBase64Block(data=PNG, media_type="image/jpg"),
            {"inline_data": {"mime_type": "image/jpeg", "data": PNG}},
        ),
        (
            # Percent-encoded bytes go as their base64.
            ct.ImageUrlBlock(url="data:image/webp,RIFF%00%01"),
            {"inline_data": {"mime_type": "image/webp", "data": "UklGRgAB"}},
        ),
        (
            ct.AudioUrlBlock(url="data:audio/wav;base64,UklGRg=="),
            {"inline_data": {"mime_type": "audio/wav", "data": "UklGRg=="}},
        ),
        (
            ct.VideoUrlBlock(url="data:video/mp4;base64,AAAA", fps=2.0),
            {
                "inline_data": {"mime_type": "video/mp4", "data": "AAAA"},
                "video_metadata": {"fps": 2.0},
            },
        ),
        (
            ct.AudioBase64Block(data="UklGRg==", media_type="Audio/WAV"),
            {"inline_data": {"mime_type": "Audio/WAV", "data": "UklGRg=="}},
        ),
        (
            ct.ImageUrlBlock(url="https://example.com/cat.JPG?size=2"),
            {
                "file_data": {
                    "file_uri": "https://example.com/cat.JPG?size=2",
                    "mime_type": "image/jpeg",
                }
            },
        ),
    ],
)
def test_media_goes_inline_where_gemini_cannot_fetch_it(block: Any, part: dict[str, Any]) -> None:
    body = gemini.to_request([ct.UserMultimodalMessage(content=(block,))])
    validate_gemini(body)
    assert body["contents"][0]["parts"] == [part]


@pytest.mark.parametrize(
    ("block", "words"),
    [
        (
            ct.ImageUrlBlock(url="data:image/gif;base64,R0lG"),
            "takes no 'image/gif' data URL as an image",
        ),
        (
            ct.AudioUrlBlock(url="data:video/mp4;base64,AAAA"),
            "takes no 'video/mp4' data URL as an audio",
        ),
        (ct.VideoUrlBlock(url="data:text/plain,hi"), "takes no 'text/plain' data URL as a video"),
        (ct.ImageBase64Block(data="R0lG", media_type="IMAGE/GIF"), "takes no 'IMAGE/GIF' image"),
    ],
)
def test_media_gemini_refuses(block: Any, words: str) -> None:
    message = ct.UserMultimodalMessage(content=(ct.TextBlock(text="see"), block))
    with pytest.raises(UnsupportedContent, match=words) as caught:
        gemini.to_request([message])
    assert caught.value.index == 0 and caught.value.block is block
    noted = gemini.to_request([message], unsupported="note")
    assert noted["contents"][0]["parts"][1]["text"].startswith("[")


# --- bad input stays a DialectError, the reply too ------------------------------------


def test_read_reply_reply_and_partial_raise_only_dialect_errors_under_mutation() -> None:
    # test_dialects_fuzz holds from_response and result() to this; the same
    # mutations here go through read_reply, reply() and partial().
    module, _, _, _, _ = SEEDS["gemini"]
    outcomes = {"read": 0, "refused": 0}
    for target, mutate in single_mutations("gemini"):
        _, seed_response, seed_events, _, _ = SEEDS["gemini"]
        value = mutate(
            json.loads(json.dumps(seed_response if target == "response" else seed_events))
        )
        try:
            if target == "response":
                module.read_reply(value)
            else:
                accumulator = module.Accumulator()
                for event in value:
                    try:
                        accumulator.feed(event)
                    except StreamError:
                        pass
                accumulator.partial()
                accumulator.reply()
            outcomes["read"] += 1
        except DialectError:
            outcomes["refused"] += 1
    assert outcomes["read"] > 100 and outcomes["refused"] > 500, outcomes
