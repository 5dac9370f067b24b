"""Every dialect's ``to_request``, checked against the providers' own SDK types.

No network: the request bodies are validated with pydantic against the
request types that the official ``anthropic``, ``openai`` and ``google-genai``
packages declare. The helpers here are also used by the other dialect tests.
"""

from __future__ import annotations

import base64
import functools
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import convtypes as ct
from convtypes import strategies as cst
from convtypes.dialects import (
    DialectError,
    anthropic,
    bedrock,
    cohere,
    gemini,
    mistral,
    openai_chat,
    openai_responses,
)

from budget import examples
from provider_rules import validate_cohere, validate_mistral

EXAMPLES = Path(__file__).parent.parent / "examples"
SESSION = ct.decode_messages((EXAMPLES / "transcripts" / "agent-session.json").read_bytes())


def _text(index: int) -> str:
    """The text of the session's message at ``index``."""
    message = SESSION[index]
    assert isinstance(message, (ct.SystemMessage, ct.UserMessage, ct.ToolResultMessage))
    return message.content


# The session's audio attachment has no place in three of the four APIs.
AUDIO_AT = 7


def force(value: Any) -> Any:
    """Consume pydantic's lazy iterators so every nested item is validated."""
    if isinstance(value, dict):
        return {key: force(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)) or hasattr(value, "__next__"):
        return [force(item) for item in value]
    return value


# The adapters are kept alive: the lazy iterators pydantic returns for
# Iterable fields need their adapter when they are consumed.
@functools.cache
def _adapter(name: str) -> Any:
    from pydantic import TypeAdapter

    if name == "anthropic":
        pytest.importorskip("anthropic")
        from anthropic.types.message_create_params import MessageCreateParamsNonStreaming

        return TypeAdapter(MessageCreateParamsNonStreaming)
    if name == "openai_chat":
        pytest.importorskip("openai")
        from openai.types.chat import ChatCompletionMessageParam

        return TypeAdapter(list[ChatCompletionMessageParam])
    pytest.importorskip("openai")
    from openai.types.responses import ResponseInputParam

    return TypeAdapter(ResponseInputParam)


def validate_anthropic(body: dict[str, Any]) -> None:
    full = {"model": "claude-sonnet-4-6", "max_tokens": 1024, **body}
    force(_adapter("anthropic").validate_python(full))


def validate_openai_chat(body: dict[str, Any]) -> None:
    assert list(body) == ["messages"]
    force(_adapter("openai_chat").validate_python(body["messages"]))


def validate_openai_responses(body: dict[str, Any]) -> None:
    assert list(body) == ["input"]
    force(_adapter("openai_responses").validate_python(body["input"]))


def validate_gemini(body: dict[str, Any]) -> None:
    types = pytest.importorskip("google.genai.types")
    assert set(body) <= {"contents", "system_instruction"}
    for content in body["contents"]:
        types.Content.model_validate(content)
    if "system_instruction" in body:
        types.Content.model_validate(body["system_instruction"])


def validate_bedrock(body: dict[str, Any]) -> None:
    """botocore's own checks of a Converse call, and the rules it leaves to the service."""
    from bedrock_sdk import validate

    assert set(body) <= {"system", "messages"}
    validate(body)


VALIDATE = {
    "anthropic": validate_anthropic,
    "openai_chat": validate_openai_chat,
    "openai_responses": validate_openai_responses,
    "gemini": validate_gemini,
    "bedrock": validate_bedrock,
    "mistral": validate_mistral,
    "cohere": validate_cohere,
}
DIALECTS = {
    "anthropic": anthropic,
    "openai_chat": openai_chat,
    "openai_responses": openai_responses,
    "gemini": gemini,
    "bedrock": bedrock,
    "mistral": mistral,
    "cohere": cohere,
}


def dumps(body: dict[str, Any]) -> str:
    """A request as JSON text; Bedrock's bytes (boto3 takes media as bytes) as base64."""

    def text(value: object) -> str:
        if isinstance(value, bytes):
            return base64.b64encode(value).decode("ascii")
        raise TypeError(f"{type(value).__name__} in a request")

    return json.dumps(body, default=text)


def calls_and_results(name: str, body: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The call ids a request sends, and the ids its results answer, in order."""
    if name == "anthropic":
        blocks = [block for turn in body["messages"] for block in turn["content"]]
        return (
            [b["id"] for b in blocks if b["type"] == "tool_use"],
            [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"],
        )
    if name in ("openai_chat", "mistral", "cohere"):
        messages = body["messages"]
        return (
            [c["id"] for m in messages for c in m.get("tool_calls", ())],
            [m["tool_call_id"] for m in messages if m["role"] == "tool"],
        )
    if name == "bedrock":
        blocks = [block for message in body["messages"] for block in message["content"]]
        return (
            [b["toolUse"]["toolUseId"] for b in blocks if "toolUse" in b],
            [b["toolResult"]["toolUseId"] for b in blocks if "toolResult" in b],
        )
    if name == "openai_responses":
        items = body["input"]
        return (
            [i["call_id"] for i in items if i.get("type") == "function_call"],
            [i["call_id"] for i in items if i.get("type") == "function_call_output"],
        )
    parts = [part for content in body["contents"] for part in content["parts"]]
    return (
        [p["function_call"]["name"] for p in parts if "function_call" in p],
        [p["function_response"]["name"] for p in parts if "function_response" in p],
    )


# --- the validation helpers themselves ----------------------------------------


def test_anthropic_validation_catches_a_wrong_nested_block() -> None:
    body = anthropic.to_request(SESSION, unsupported="note")
    validate_anthropic(body)
    body["messages"][1]["content"][0]["type"] = "thought"
    with pytest.raises(Exception, match="validation error"):
        validate_anthropic(body)


def test_openai_chat_validation_catches_a_wrong_nested_part() -> None:
    body = openai_chat.to_request(SESSION, unsupported="note")
    validate_openai_chat(body)
    user = next(m for m in body["messages"] if isinstance(m.get("content"), list))
    user["content"][1]["image_url"] = 5
    with pytest.raises(Exception, match="validation error"):
        validate_openai_chat(body)


def test_openai_responses_validation_catches_a_wrong_nested_item() -> None:
    body = openai_responses.to_request(SESSION, unsupported="note")
    validate_openai_responses(body)
    next(i for i in body["input"] if i.get("type") == "function_call").pop("call_id")
    with pytest.raises(Exception, match="validation error"):
        validate_openai_responses(body)


def test_gemini_validation_catches_a_wrong_nested_part() -> None:
    body = gemini.to_request(SESSION)
    validate_gemini(body)
    body["contents"][1]["parts"][0]["function_call"]["args"] = "not an object"
    with pytest.raises(Exception, match="validation error"):
        validate_gemini(body)


# --- the example session ------------------------------------------------------


@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_the_example_session_makes_a_valid_request(name: str) -> None:
    module = DIALECTS[name]
    body = module.to_request(SESSION, unsupported="note")
    VALIDATE[name](body)
    json.dumps(body) if name != "bedrock" else dumps(body)  # plain JSON (and bytes), nothing else
    calls, results = calls_and_results(name, body)
    assert results == calls[: len(results)]


@pytest.mark.parametrize("name", ["anthropic", "openai_chat", "openai_responses"])
def test_the_session_audio_is_refused_by_default(name: str) -> None:
    from convtypes.dialects import UnsupportedContent

    with pytest.raises(UnsupportedContent, match=r"message 7, block 3 \(audio_url\)") as caught:
        DIALECTS[name].to_request(SESSION)
    assert caught.value.index == AUDIO_AT
    assert caught.value.block == ct.AudioUrlBlock(
        url="https://example.com/question.wav", sample_rate=16000
    )


def test_gemini_takes_the_session_audio_by_url() -> None:
    body = gemini.to_request(SESSION)
    parts = body["contents"][-2]["parts"]
    assert parts[-1] == {
        "file_data": {"file_uri": "https://example.com/question.wav", "mime_type": "audio/wav"}
    }
    assert body["system_instruction"] == {"parts": [{"text": _text(0)}]}


def test_fencing_follows_provenance_in_every_dialect() -> None:
    fenced = ct.fence_external(_text(3))
    plain = _text(5)
    for name, module in DIALECTS.items():
        text = dumps(module.to_request(SESSION, unsupported="note"))
        assert json.dumps(fenced)[1:-1] in text, name
        assert json.dumps(plain)[1:-1] in text, name
        loose = dumps(module.to_request(SESSION, unsupported="note", fence_external=False))
        assert ct.EXTERNAL_OPEN not in loose.replace(
            json.dumps(_text(0))[1:-1],
            "",
        ), name


def _result_of_unknown_provenance() -> ct.ToolResultMessage:
    """A tool result whose provenance this version does not know, read leniently."""
    loaded = ct.decode_lenient_message(
        b'{"role":"tool_result","tool_use_id":"k1","content":"page","provenance":"quarantined"}'
    )
    assert isinstance(loaded, ct.ToolResultMessage)
    return loaded


def test_an_unknown_provenance_is_fenced() -> None:
    # Fencing must fail closed: any provenance that is not internal is fenced,
    # not only Provenance.EXTERNAL.
    result = _result_of_unknown_provenance()
    assert not result.provenance.is_internal()
    messages: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="k1", name="f", arguments={}),)),
        result,
    ]
    for name, module in DIALECTS.items():
        text = json.dumps(module.to_request(messages))
        assert json.dumps(ct.fence_external("page"))[1:-1] in text, name
        unfenced = json.dumps(module.to_request(messages, fence_external=False))
        assert ct.EXTERNAL_OPEN not in unfenced, name


# --- generated conversations ------------------------------------------------------


def _blank(text: str) -> bool:
    return text == "" or text.isspace()


def _first_user_turn_is_empty(messages: list[ct.Message]) -> bool:
    """The first user turn has nothing Anthropic can send (only empty or white-space text)."""
    first = next(m for m in messages if not isinstance(m, ct.SystemMessage))
    if isinstance(first, ct.UserMessage):
        return _blank(first.content)
    assert isinstance(first, ct.UserMultimodalMessage)
    return all(isinstance(b, ct.TextBlock) and _blank(b.text) for b in first.content)


def sends_nothing_to_anthropic(messages: list[ct.Message]) -> bool:
    """Nothing but system messages and what Anthropic leaves out (blank text, no calls)."""
    for message in messages:
        if isinstance(message, ct.SystemMessage):
            continue
        if isinstance(message, ct.UserMessage) and _blank(message.content):
            continue
        if isinstance(message, ct.UserMultimodalMessage) and all(
            isinstance(b, ct.TextBlock) and _blank(b.text) for b in message.content
        ):
            continue
        if (
            isinstance(message, ct.AssistantMessage)
            and _blank(message.content)
            and not message.tool_calls
            and not any(t.signature or t.redacted_data is not None for t in message.thinking)
        ):
            continue
        return False
    return True


def _check_pairs(name: str, body: dict[str, Any], messages: list[ct.Message]) -> None:
    calls, results = calls_and_results(name, body)
    expected_calls = sum(len(m.tool_calls) for m in messages if isinstance(m, ct.AssistantMessage))
    assert len(calls) == expected_calls
    assert len(results) == sum(isinstance(m, ct.ToolResultMessage) for m in messages)
    if name != "gemini":  # Gemini pairs by name and order, without ids
        assert len(set(calls)) == len(calls), "call ids must be unique"
    assert Counter(results) == Counter(calls)


_MEDIA = (ct.TextBlock, ct.ImageUrlBlock)


@settings(max_examples=examples(300, 120))
@given(cst.conversations(), st.sampled_from(sorted(DIALECTS)))
def test_any_well_formed_conversation_makes_a_valid_request(
    messages: list[ct.Message], name: str
) -> None:
    module = DIALECTS[name]
    try:
        body = module.to_request(messages, unsupported="note")
    except DialectError as err:
        # Anthropic and Bedrock refuse a transcript whose first user turn is
        # empty (they leave empty text out, and then the assistant would speak
        # first, or nobody would).
        assert name in ("anthropic", "bedrock") and _first_user_turn_is_empty(messages)
        if sends_nothing_to_anthropic(messages):
            assert "no turn to send" in str(err)
        else:
            assert re.search("first turn to be a user turn|start with a user message", str(err))
        return
    VALIDATE[name](body)
    _check_pairs(name, body, messages)
    if name == "anthropic":
        texts = [b["text"] for t in body["messages"] for b in t["content"] if b["type"] == "text"]
        assert not any(_blank(text) for text in texts)


def _id_less_turn(name: str) -> list[ct.Message]:
    return [
        ct.AssistantMessage(
            content="",
            tool_calls=(
                ct.ToolCall(name=name, arguments={"n": 1}),
                ct.ToolCall(name=name, arguments={"n": 2}),
            ),
        ),
        ct.ToolResultMessage(tool_use_id="call_0", content=f"{name} 1"),
        ct.ToolResultMessage(tool_use_id="call_1", content=f"{name} 2"),
    ]


TWO_ID_LESS_TURNS: list[ct.Message] = [
    ct.UserMessage(content="go"),
    *_id_less_turn("first"),
    *_id_less_turn("second"),
    ct.AssistantMessage(content="done"),
]


@pytest.mark.parametrize("name", ["anthropic", "openai_chat", "openai_responses", "bedrock"])
def test_two_id_less_turns_get_distinct_ids(name: str) -> None:
    # The bug in the old replay example: call_0 and call_1 twice in one request.
    assert ct.check_conversation(TWO_ID_LESS_TURNS) == []
    body = DIALECTS[name].to_request(TWO_ID_LESS_TURNS)
    VALIDATE[name](body)
    calls, results = calls_and_results(name, body)
    assert calls == ["call_1_0", "call_1_1", "call_4_0", "call_4_1"]
    assert results == calls


def test_results_follow_their_renamed_call_in_anthropic() -> None:
    body = anthropic.to_request(TWO_ID_LESS_TURNS)
    second = body["messages"][4]["content"]
    assert [b["content"] for b in second] == ["second 1", "second 2"]
    assert [b["tool_use_id"] for b in second] == ["call_4_0", "call_4_1"]


def test_gemini_names_each_result_after_its_call() -> None:
    body = gemini.to_request(TWO_ID_LESS_TURNS)
    validate_gemini(body)
    responses = [
        p["function_response"]
        for c in body["contents"]
        for p in c["parts"]
        if "function_response" in p
    ]
    assert [(r["name"], r["response"]["output"]) for r in responses] == [
        ("first", "first 1"),
        ("first", "first 2"),
        ("second", "second 1"),
        ("second", "second 2"),
    ]
    assert all("id" not in r for r in responses)


def test_unusable_and_repeated_ids_are_replaced_deterministically() -> None:
    messages: list[ct.Message] = [
        ct.UserMessage(content="go"),
        ct.AssistantMessage(
            tool_calls=(
                ct.ToolCall(id="has space", name="f", arguments={}),
                ct.ToolCall(id="x" * 41, name="f", arguments={}),
                ct.ToolCall(id="call_1_0", name="f", arguments={}),
            )
        ),
        ct.ToolResultMessage(tool_use_id="has space", content="a"),
        ct.ToolResultMessage(tool_use_id="x" * 41, content="b"),
        ct.ToolResultMessage(tool_use_id="call_1_0", content="c"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="call_1_0", name="f", arguments={}),)),
        ct.ToolResultMessage(tool_use_id="call_1_0", content="d"),
    ]
    chat = openai_chat.to_request(messages)
    validate_openai_chat(chat)
    # "call_1_0" is someone's own id, so the made-up one steps aside; the
    # 41-character id is too long for Chat Completions (40) but not for
    # Anthropic (64); a repeated explicit id is renamed in its later turn.
    assert calls_and_results("openai_chat", chat) == (
        ["call_1_0_1", "call_1_1", "call_1_0", "call_5_0"],
        ["call_1_0_1", "call_1_1", "call_1_0", "call_5_0"],
    )
    claude = anthropic.to_request(messages)
    assert calls_and_results("anthropic", claude) == (
        ["call_1_0_1", "x" * 41, "call_1_0", "call_5_0"],
        ["call_1_0_1", "x" * 41, "call_1_0", "call_5_0"],
    )
    assert anthropic.to_request(messages) == claude  # deterministic


# --- shape -------------------------------------------------------------------------


def test_anthropic_merges_user_turns_with_results_first() -> None:
    messages: list[ct.Message] = [
        ct.SystemMessage(content="a"),
        ct.UserMessage(content="one"),
        ct.UserMessage(content="two"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="t1", name="f", arguments={"k": [1]}),)),
        ct.ToolResultMessage(tool_use_id="t1", content="r"),
        ct.UserMessage(content="three"),
        ct.AssistantMessage(content="x"),
        ct.AssistantMessage(content="y"),
        ct.SystemMessage(content="b"),
    ]
    body = anthropic.to_request(messages)
    validate_anthropic(body)
    assert body == {
        "system": "a",  # "b" came after the first turn: it goes in place, last
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}],
            },
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {"k": [1]}}],
            },
            {
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "r"},
                    {"type": "text", "text": "three"},
                ],
                "role": "user",
            },
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}],
            },
            {"role": "system", "content": [{"type": "text", "text": "b"}]},
        ],
    }


def test_anthropic_without_a_system_message_has_no_system_key() -> None:
    assert anthropic.to_request([ct.UserMessage(content="hi")]) == {
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    }


def test_gemini_without_system_text_has_no_system_instruction() -> None:
    assert gemini.to_request([ct.UserMessage(content="hi")]) == {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}]
    }


def test_anthropic_thinking_goes_first_verbatim_and_unsigned_is_left_out() -> None:
    message = ct.AssistantMessage(
        content="answer",
        tool_calls=(ct.ToolCall(id="t", name="f", arguments={}),),
        thinking=(
            ct.ThinkingBlock(text="signed", signature="sig=="),
            ct.ThinkingBlock(text="summary only"),
            ct.ThinkingBlock(redacted_data="opaque"),
        ),
    )
    body = anthropic.to_request([ct.UserMessage(content="q"), message])
    validate_anthropic(body)
    assert body["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "signed", "signature": "sig=="},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "answer"},
        {"type": "tool_use", "id": "t", "name": "f", "input": {}},
    ]


_SHOWN = {"thinking": "thinking", "redacted_thinking": "data", "text": "text", "tool_use": "name"}


def _sdk_blocks(body: dict[str, Any]) -> list[list[tuple[str, str]]]:
    """Each assistant turn's blocks as the SDK's request type reads them: (type, text)."""
    request = force(_adapter("anthropic").validate_python({"model": "m", "max_tokens": 1, **body}))
    turns: list[list[tuple[str, str]]] = []
    for turn in request["messages"]:
        if turn["role"] == "assistant":
            turns.append([(b["type"], b[_SHOWN[b["type"]]]) for b in turn["content"]])
    return turns


def test_anthropic_puts_the_thinking_of_a_merged_turn_first() -> None:
    messages: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(content="a", thinking=(ct.ThinkingBlock(text="t1", signature="s1"),)),
        ct.AssistantMessage(
            content="b",
            tool_calls=(ct.ToolCall(id="c", name="f", arguments={}),),
            thinking=(ct.ThinkingBlock(redacted_data="r2"), ct.ThinkingBlock(text="unsigned")),
        ),
        ct.AssistantMessage(content="c", thinking=(ct.ThinkingBlock(text="t3", signature="s3"),)),
    ]
    body = anthropic.to_request(messages)
    assert _sdk_blocks(body) == [
        [
            ("thinking", "t1"),
            ("redacted_thinking", "r2"),
            ("thinking", "t3"),
            ("text", "a"),
            ("text", "b"),
            ("tool_use", "f"),
            ("text", "c"),
        ]
    ]
    # verbatim: the signatures go back as they came
    assert body["messages"][1]["content"][:3] == [
        {"type": "thinking", "thinking": "t1", "signature": "s1"},
        {"type": "redacted_thinking", "data": "r2"},
        {"type": "thinking", "thinking": "t3", "signature": "s3"},
    ]


_assistant_runs = st.lists(
    st.builds(
        ct.AssistantMessage,
        content=cst.texts(),
        thinking=st.lists(cst.thinking_blocks(), max_size=3).map(tuple),
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=60)
@given(st.lists(_assistant_runs, min_size=1, max_size=3))
def test_anthropic_thinking_is_first_in_every_merged_turn(runs: list[list[ct.Message]]) -> None:
    messages: list[ct.Message] = []
    for run in runs:
        messages += [ct.UserMessage(content="next"), *run]
    turns = _sdk_blocks(anthropic.to_request(messages))
    expected = []
    for run in runs:
        thoughts = [
            ("redacted_thinking", t.redacted_data)
            if t.redacted_data is not None
            else ("thinking", t.text)
            for m in run
            if isinstance(m, ct.AssistantMessage)
            for t in m.thinking
            if t.redacted_data is not None or t.signature
        ]
        texts = [("text", m.content) for m in run if isinstance(m, ct.AssistantMessage)]
        said = [(kind, text) for kind, text in texts if not _blank(text)]
        # A turn of thinking alone is not sent: the API refuses a turn that ends in thinking.
        if said:
            expected.append(thoughts + said)
    assert turns == expected


BLANKS = ["", " ", "\n", " \t\r\n ", "\u3000", "\u2028"]


@pytest.mark.parametrize("blank", BLANKS)
def test_anthropic_leaves_white_space_text_out_of_every_turn(blank: str) -> None:
    # The Messages API refuses text blocks of white space only, as it refuses empty ones.
    image = ct.ImageUrlBlock(url="https://x.test/a.png")
    messages: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.UserMessage(content=blank),
        ct.UserMultimodalMessage(content=(ct.TextBlock(text=blank), image)),
        ct.AssistantMessage(content=blank),
        ct.AssistantMessage(
            content=blank, tool_calls=(ct.ToolCall(id="c", name="f", arguments={}),)
        ),
        ct.ToolResultMessage(tool_use_id="c", content="r"),
        ct.UserMessage(content=blank),
        ct.AssistantMessage(content=blank),
        ct.AssistantMessage(content=f"{blank}kept as is{blank}"),
    ]
    body = anthropic.to_request(messages)
    validate_anthropic(body)
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "q"},
                {"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}},
            ],
        },
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "c", "name": "f", "input": {}}],
        },
        {"content": [{"type": "tool_result", "tool_use_id": "c", "content": "r"}], "role": "user"},
        {"role": "assistant", "content": [{"type": "text", "text": f"{blank}kept as is{blank}"}]},
    ]


def test_anthropic_refuses_a_transcript_whose_first_user_turn_is_white_space() -> None:
    messages: list[ct.Message] = [ct.UserMessage(content=" \n"), ct.AssistantMessage(content="a")]
    with pytest.raises(DialectError, match=r"message 1: .*first turn to be a user turn"):
        anthropic.to_request(messages)


@pytest.mark.parametrize("name", ["openai_chat", "openai_responses", "gemini"])
def test_dialects_without_a_place_for_thinking_drop_it(name: str) -> None:
    messages: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(
            content="a", thinking=(ct.ThinkingBlock(text="secret plan", signature="s"),)
        ),
    ]
    text = json.dumps(DIALECTS[name].to_request(messages))
    assert "secret plan" not in text and '"a"' in text


def test_arguments_keep_key_order_and_big_integers() -> None:
    arguments: dict[str, ct.JsonValue] = {"z": 1, "a": 2**70, "m": {"y": 1.5, "b": None}}
    messages: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="c", name="f", arguments=arguments),)),
    ]
    text = '{"z":1,"a":1180591620717411303424,"m":{"y":1.5,"b":null}}'
    chat = openai_chat.to_request(messages)["messages"][1]
    assert chat["tool_calls"][0]["function"]["arguments"] == text
    responses = openai_responses.to_request(messages)["input"][1]
    assert responses["arguments"] == text
    claude = anthropic.to_request(messages)["messages"][1]["content"][0]
    assert list(claude["input"]) == ["z", "a", "m"] and claude["input"]["a"] == 2**70
    part = gemini.to_request(messages)["contents"][1]["parts"][0]
    assert part == {"function_call": {"name": "f", "args": arguments}}


def test_images_go_inline_or_by_url() -> None:
    blocks = (
        ct.ImageBase64Block(data="QUJD", media_type="image/png"),
        ct.ImageUrlBlock(url="https://x.test/a.JPG?size=2", detail="low"),
    )
    messages: list[ct.Message] = [ct.UserMultimodalMessage(content=blocks)]
    assert anthropic.to_request(messages)["messages"][0]["content"] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "QUJD"}},
        {"type": "image", "source": {"type": "url", "url": "https://x.test/a.JPG?size=2"}},
    ]
    assert openai_chat.to_request(messages)["messages"][0]["content"] == [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}},
        {"type": "image_url", "image_url": {"url": "https://x.test/a.JPG?size=2", "detail": "low"}},
    ]
    assert openai_responses.to_request(messages)["input"][0]["content"] == [
        {"type": "input_image", "image_url": "data:image/png;base64,QUJD", "detail": "auto"},
        {"type": "input_image", "image_url": "https://x.test/a.JPG?size=2", "detail": "low"},
    ]
    assert gemini.to_request(messages)["contents"][0]["parts"] == [
        {"inline_data": {"mime_type": "image/png", "data": "QUJD"}},
        {"file_data": {"file_uri": "https://x.test/a.JPG?size=2", "mime_type": "image/jpeg"}},
    ]


def test_media_each_dialect_carries() -> None:
    wav = ct.AudioBase64Block(data="UklG", media_type="audio/wav")
    video = ct.VideoUrlBlock(url="https://x.test/v.mp4", fps=2.0, max_frames=10)
    chat = openai_chat.to_request([ct.UserMultimodalMessage(content=(wav,))])
    validate_openai_chat(chat)
    assert chat["messages"][0]["content"] == [
        {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}}
    ]
    body = gemini.to_request([ct.UserMultimodalMessage(content=(wav, video))])
    validate_gemini(body)
    assert body["contents"][0]["parts"] == [
        {"inline_data": {"mime_type": "audio/wav", "data": "UklG"}},
        {
            "file_data": {"file_uri": "https://x.test/v.mp4", "mime_type": "video/mp4"},
            "video_metadata": {"fps": 2.0},
        },
    ]


def test_provider_items_of_another_protocol_are_dropped() -> None:
    messages: list[ct.Message] = [
        ct.UserMessage(content="u"),
        ct.ProviderOutputItemsMessage(protocol="gemini", items=({"text": "x"},)),
        ct.ProviderOutputItemsMessage(protocol="openai-responses", items=({"type": "y"},)),
    ]
    assert openai_chat.to_request(messages) == {"messages": [{"role": "user", "content": "u"}]}
    assert anthropic.to_request(messages) == {
        "messages": [{"role": "user", "content": [{"type": "text", "text": "u"}]}]
    }
    assert openai_responses.to_request(messages) == {
        "input": [{"role": "user", "content": "u"}, {"type": "y"}]
    }
    assert gemini.to_request(messages) == {
        "contents": [
            {"role": "user", "parts": [{"text": "u"}]},
            {"role": "model", "parts": [{"text": "x"}]},
        ]
    }


def test_responses_items_go_back_verbatim_and_in_place() -> None:
    body = openai_responses.to_request(SESSION, unsupported="note")
    items = body["input"]
    source = SESSION[8]
    assert isinstance(source, ct.ProviderOutputItemsMessage)
    start = items.index(source.items[0])
    assert items[start : start + len(source.items)] == list(source.items)
    assert items[start + len(source.items)] == {
        "role": "assistant",
        "content": "Yes: it is the benchmark chart from that post.",
    }


def test_an_iterator_of_messages_is_accepted() -> None:
    for module in DIALECTS.values():
        assert module.to_request(iter(SESSION), unsupported="note") == module.to_request(
            SESSION, unsupported="note"
        )


def test_the_benchmark_compares_equal_requests() -> None:
    # benchmarks/dialects.py times to_request against a hand-built twin; the
    # comparison means something only if both build the same request.
    import importlib.util

    path = Path(__file__).parent.parent / "benchmarks" / "dialects.py"
    spec = importlib.util.spec_from_file_location("bench_dialects", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    messages = bench.transcript(60)
    assert len(messages) == 61
    for name, (dialect, by_hand) in bench.PAIRS.items():
        ours = dialect(messages)
        VALIDATE[name](ours)
        assert bench.same_request(ours, by_hand(messages)), name
    # and the comparison would notice a difference
    assert not bench.same_request(
        anthropic.to_request(messages), anthropic.to_request(messages[:-1])
    )


# --- results answer their calls whatever the transcript's order ------------------------


def _weather_calls(order: list[int]) -> list[ct.Message]:
    """Four calls (two with ids, two without), answered in ``order``."""
    cities = ["Oslo", "Rome", "Lima", "Pune"]
    calls = tuple(
        ct.ToolCall(id="a" if n == 0 else "b" if n == 2 else None, name=f"w{n}", arguments={})
        for n in range(4)
    )
    keys = [call.id or ct.positional_call_id(n) for n, call in enumerate(calls)]
    return [
        ct.UserMessage(content="Weather?"),
        ct.AssistantMessage(tool_calls=calls),
        *(ct.ToolResultMessage(tool_use_id=keys[n], content=cities[n]) for n in order),
        ct.UserMessage(content="And tomorrow?"),
    ]


def test_gemini_sends_function_responses_in_the_order_of_their_calls() -> None:
    messages: list[ct.Message] = [
        ct.UserMessage(content="Weather in Oslo and Rome?"),
        ct.AssistantMessage(
            tool_calls=(
                ct.ToolCall(id="a", name="weather", arguments={"city": "Oslo"}),
                ct.ToolCall(id="b", name="weather", arguments={"city": "Rome"}),
            )
        ),
        ct.ToolResultMessage(tool_use_id="b", content="Rome: sunny"),
        ct.ToolResultMessage(tool_use_id="a", content="Oslo: rain"),
    ]
    body = gemini.to_request(messages)
    validate_gemini(body)
    # Gemini pairs by order and no id is sent: Oslo's answer must come first.
    assert body["contents"][2]["parts"] == [
        {"function_response": {"name": "weather", "response": {"output": "Oslo: rain"}}},
        {"function_response": {"name": "weather", "response": {"output": "Rome: sunny"}}},
    ]


@settings(max_examples=40)
@given(st.permutations(range(4)))
def test_gemini_responses_follow_call_order_in_a_merged_turn(order: list[int]) -> None:
    body = gemini.to_request(_weather_calls(order))
    validate_gemini(body)
    turn = body["contents"][2]
    assert turn["role"] == "user"
    assert [p["function_response"]["response"]["output"] for p in turn["parts"][:4]] == [
        "Oslo",
        "Rome",
        "Lima",
        "Pune",
    ]
    assert [p["function_response"]["name"] for p in turn["parts"][:4]] == ["w0", "w1", "w2", "w3"]
    assert turn["parts"][4:] == [{"text": "And tomorrow?"}]


def test_gemini_responses_follow_the_order_of_replayed_parts() -> None:
    # Calls carried by Gemini's own parts, then one the parts lack, answered backwards.
    items = ct.ProviderOutputItemsMessage(
        protocol="gemini",
        items=(
            {"function_call": {"name": "f", "args": {}}, "thought_signature": "c2ln"},
            {"function_call": {"name": "g", "args": {}}},
        ),
    )
    assistant = ct.AssistantMessage(
        tool_calls=(
            ct.ToolCall(name="f", arguments={}),
            ct.ToolCall(name="g", arguments={}),
            ct.ToolCall(id="h1", name="h", arguments={}),
        )
    )
    messages: list[ct.Message] = [
        ct.UserMessage(content="go"),
        items,
        assistant,
        ct.ToolResultMessage(tool_use_id="h1", content="third"),
        ct.ToolResultMessage(tool_use_id="call_1", content="second"),
        ct.ToolResultMessage(tool_use_id="call_0", content="first"),
    ]
    body = gemini.to_request(messages)
    validate_gemini(body)
    assert [p["function_call"]["name"] for p in body["contents"][1]["parts"]] == ["f", "g", "h"]
    responses = [p["function_response"] for p in body["contents"][2]["parts"]]
    assert [(r["name"], r["response"]["output"]) for r in responses] == [
        ("f", "first"),
        ("g", "second"),
        ("h", "third"),
    ]


@pytest.mark.parametrize("name", ["anthropic", "openai_chat", "openai_responses", "bedrock"])
def test_the_other_dialects_pair_results_by_id_in_any_order(name: str) -> None:
    # Anthropic, Chat Completions and Responses pair a result with its call by
    # id, so the transcript's order may stand: each result carries its call's id.
    body = DIALECTS[name].to_request(_weather_calls([3, 1, 0, 2]))
    VALIDATE[name](body)
    calls, results = calls_and_results(name, body)
    assert calls == ["a", "call_1_1", "b", "call_1_3"]
    assert results == [calls[3], calls[1], calls[0], calls[2]]
    text = json.dumps(body)
    assert text.index("Pune") < text.index("Rome") < text.index("Oslo") < text.index("Lima")
