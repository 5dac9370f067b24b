# ruff: noqa: E501
"""The README's streaming loop works unchanged for every dialect.

The loop is taken from the README as written and run on a stream of each
provider, written here in the shapes the providers send (the same shapes as
the recordings in the SDKs' own test suites): thinking or reasoning where
the provider streams it, text in pieces, a tool call whose arguments arrive
in pieces (or whole, where the provider sends calls whole), and the usage
at the end.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import convtypes as ct
from convtypes.dialects import (
    anthropic,
    bedrock,
    cohere,
    gemini,
    mistral,
    ollama,
    openai_chat,
    openai_responses,
)

ROOT = Path(__file__).parent.parent
ARGUMENTS = {"city": "Oslo", "days": 2}


def _loop() -> Any:
    """The README's ``stream_turn``, compiled from the README itself."""
    text = (ROOT / "README.md").read_text("utf-8")
    block = next(
        b for b in re.findall(r"```python\n(.*?)```", text, re.DOTALL) if "def stream_turn" in b
    )
    definition = block[: block.index("\nevents: list[object] = [")]
    namespace: dict[str, Any] = {}
    exec(compile(definition, "README.md", "exec"), namespace)
    return namespace["stream_turn"]


def _pieces(text: str, size: int = 5) -> list[str]:
    return [text[at : at + size] for at in range(0, len(text), size)]


def anthropic_events() -> list[dict[str, Any]]:
    arguments = json.dumps(ARGUMENTS)
    return [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
                "content": [], "stop_reason": None, "stop_sequence": None,
                "usage": {"input_tokens": 25, "cache_read_input_tokens": 100, "output_tokens": 1},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        *[
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}}
            for t in _pieces("Let me check.")
        ],
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start", "index": 1,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {}},
        },
        *[
            {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": p}}
            for p in _pieces(arguments)
        ],
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 30}},
        {"type": "message_stop"},
    ]  # fmt: skip


def openai_chat_events() -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "gpt-x",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }  # fmt: skip

    arguments = json.dumps(ARGUMENTS)
    first, *rest = _pieces(arguments)
    return [
        chunk({"role": "assistant", "content": "", "refusal": None}),
        *[chunk({"content": t}) for t in _pieces("Let me check.")],
        chunk({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "weather", "arguments": first}}]}),
        *[chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in rest],
        chunk({}, "tool_calls"),
        {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "gpt-x", "choices": [],
         "usage": {"prompt_tokens": 125, "completion_tokens": 30, "total_tokens": 155,
                   "prompt_tokens_details": {"cached_tokens": 100}}},
    ]  # fmt: skip


def openai_responses_events() -> list[dict[str, Any]]:
    arguments = json.dumps(ARGUMENTS)
    message = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Let me check.", "annotations": []}],
    }
    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "weather",
        "arguments": arguments,
        "status": "completed",
    }
    usage = {
        "input_tokens": 125,
        "input_tokens_details": {"cached_tokens": 100},
        "output_tokens": 30,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 155,
    }
    response = {
        "id": "resp_1",
        "object": "response",
        "model": "gpt-x",
        "status": "completed",
        "output": [message, call],
        "usage": usage,
    }
    return [
        {"type": "response.created", "response": {**response, "status": "in_progress", "output": [], "usage": None}},
        {"type": "response.output_item.added", "output_index": 0, "item": {**message, "status": "in_progress", "content": []}},
        {"type": "response.content_part.added", "output_index": 0, "item_id": "msg_1", "content_index": 0,
         "part": {"type": "output_text", "text": "", "annotations": []}},
        *[
            {"type": "response.output_text.delta", "output_index": 0, "item_id": "msg_1", "content_index": 0, "delta": t}
            for t in _pieces("Let me check.")
        ],
        {"type": "response.output_text.done", "output_index": 0, "item_id": "msg_1", "content_index": 0, "text": "Let me check."},
        {"type": "response.content_part.done", "output_index": 0, "item_id": "msg_1", "content_index": 0,
         "part": message["content"][0]},
        {"type": "response.output_item.done", "output_index": 0, "item": message},
        {"type": "response.output_item.added", "output_index": 1, "item": {**call, "arguments": "", "status": "in_progress"}},
        *[
            {"type": "response.function_call_arguments.delta", "output_index": 1, "item_id": "fc_1", "delta": p}
            for p in _pieces(arguments)
        ],
        {"type": "response.function_call_arguments.done", "output_index": 1, "item_id": "fc_1", "arguments": arguments},
        {"type": "response.output_item.done", "output_index": 1, "item": call},
        {"type": "response.completed", "response": response},
    ]  # fmt: skip


def gemini_events() -> list[dict[str, Any]]:
    def chunk(parts: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        candidate = {"content": {"role": "model", "parts": parts}, "index": 0}
        return {"candidates": [{**candidate, **extra.pop("candidate", {})}], "modelVersion": "gemini-x",
                "responseId": "r1", **extra}  # fmt: skip

    return [
        *[chunk([{"text": t}]) for t in _pieces("Let me check.")],
        chunk(
            [{"functionCall": {"name": "weather", "args": ARGUMENTS}, "thoughtSignature": "c2ln"}],
            candidate={"finishReason": "STOP"},
            usageMetadata={"promptTokenCount": 125, "cachedContentTokenCount": 100,
                           "candidatesTokenCount": 30, "totalTokenCount": 155},
        ),
    ]  # fmt: skip


def ollama_events() -> list[dict[str, Any]]:
    def chunk(message: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {"model": "qwen3", "created_at": "2026-12-01T00:00:00Z",
                "message": {"role": "assistant", "content": "", **message}, "done": False, **extra}  # fmt: skip

    return [
        *[chunk({"content": t}) for t in _pieces("Let me check.")],
        chunk({"tool_calls": [{"function": {"name": "weather", "arguments": ARGUMENTS}}]}),
        chunk({}, done=True, done_reason="stop", prompt_eval_count=125, eval_count=30),
    ]


def bedrock_events() -> list[dict[str, Any]]:
    arguments = json.dumps(ARGUMENTS)
    call = {"toolUseId": "tooluse_1", "name": "weather"}
    return [
        {"messageStart": {"role": "assistant"}},
        *[{"contentBlockDelta": {"delta": {"text": t}, "contentBlockIndex": 0}} for t in _pieces("Let me check.")],
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"contentBlockStart": {"start": {"toolUse": call}, "contentBlockIndex": 1}},
        *[{"contentBlockDelta": {"delta": {"toolUse": {"input": p}}, "contentBlockIndex": 1}} for p in _pieces(arguments)],
        {"contentBlockStop": {"contentBlockIndex": 1}},
        {"messageStop": {"stopReason": "tool_use"}},
        {"metadata": {"usage": {"inputTokens": 25, "cacheReadInputTokens": 100, "outputTokens": 30,
                                "totalTokens": 155}, "metrics": {"latencyMs": 400}}},
    ]  # fmt: skip


def mistral_events() -> list[dict[str, Any]]:
    # As Mistral streams a call: whole, in one chunk, with the usage on the last chunk.
    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
        return {"id": "cmpl-1", "object": "chat.completion.chunk", "model": "mistral-x",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}  # fmt: skip

    call = {"id": "Ab3dEf9hK", "function": {"name": "weather", "arguments": json.dumps(ARGUMENTS)}}
    return [
        chunk({"role": "assistant", "content": ""}),
        *[chunk({"content": t}) for t in _pieces("Let me check.")],
        chunk({"content": None, "tool_calls": [call]}),
        chunk({"content": ""}, "tool_calls", usage={"prompt_tokens": 125, "completion_tokens": 30,
                                                    "total_tokens": 155}),
    ]  # fmt: skip


def cohere_events() -> list[dict[str, Any]]:
    # As Cohere streams a turn of calls: the plan first, then each call's arguments in pieces.
    call = {
        "id": "weather_q8x2",
        "type": "function",
        "function": {"name": "weather", "arguments": ""},
    }
    return [
        {"id": "c1", "type": "message-start", "delta": {"message": {"role": "assistant", "content": [],
                                                                    "tool_plan": "", "tool_calls": [], "citations": []}}},
        *[{"type": "tool-plan-delta", "delta": {"message": {"tool_plan": t}}} for t in _pieces("Let me check.")],
        {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": call}}},
        *[{"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": p}}}}}
          for p in _pieces(json.dumps(ARGUMENTS))],
        {"type": "tool-call-end", "index": 0},
        {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL", "usage": {
            "billed_units": {"input_tokens": 20, "output_tokens": 30},
            "tokens": {"input_tokens": 125, "output_tokens": 30}, "cached_tokens": 100}}},
    ]  # fmt: skip


STREAMS: dict[str, tuple[ModuleType, Any]] = {
    "anthropic": (anthropic, anthropic_events),
    "openai_chat": (openai_chat, openai_chat_events),
    "openai_responses": (openai_responses, openai_responses_events),
    "gemini": (gemini, gemini_events),
    "ollama": (ollama, ollama_events),
    "bedrock": (bedrock, bedrock_events),
    "mistral": (mistral, mistral_events),
    "cohere": (cohere, cohere_events),
}


@pytest.mark.parametrize("name", list(STREAMS))
def test_the_readme_loop_streams_every_dialect(name: str) -> None:
    dialect, events = STREAMS[name]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        messages = _loop()(dialect, events())
    assert out.getvalue() == "Let me check.[calling weather]\ntool_use: 125 in, 30 out\n"
    *_, assistant, result = messages
    assert isinstance(assistant, ct.AssistantMessage)
    assert assistant.content == "Let me check."
    assert [(call.name, call.arguments) for call in assistant.tool_calls] == [
        ("weather", ARGUMENTS)
    ]
    # The loop answered the call by its id, so the reply and its result go
    # straight back into the next request of the same dialect.
    assert result == ct.ToolResultMessage(
        tool_use_id=assistant.tool_calls[0].id or ct.positional_call_id(0),
        content="weather is not wired up yet",
    )
    transcript: list[ct.Message] = [ct.UserMessage(content="Weather in Oslo?"), *messages]
    assert ct.check_conversation(transcript) == []
    assert dialect.to_request(transcript)


def test_the_providers_page_has_a_row_per_dialect() -> None:
    page = (ROOT / "docs" / "providers" / "index.md").read_text("utf-8")
    rows = re.findall(r"^\| \[?`(\w+)`", page, re.MULTILINE)
    dialects = [
        "anthropic",
        "openai_chat",
        "openai_responses",
        "gemini",
        "ollama",
        "bedrock",
        "mistral",
        "cohere",
    ]
    # Once in the table of modules, once in the table of what is kept as items.
    assert rows == [*dialects, *dialects]
