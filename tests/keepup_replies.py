"""Replies around one kind, in each provider's response shape, for tests/test_keepup.py.

``reply(block, stop)`` wraps one content block (output item, part, tool
call: JSON as the SDK dumps it) in the smallest response the dialect reads,
ending with the provider's ``stop`` value; ``STOPS`` names the stop value
each uses when the test is about the block.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Wrap = Callable[[list[dict[str, Any]], str], dict[str, Any]]


def anthropic(blocks: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": blocks,
        "stop_reason": stop,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def openai_chat(blocks: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": "hi"}
    for block in blocks:
        key = "annotations" if block.get("type") == "url_citation" else "tool_calls"
        message.setdefault(key, []).append(block)
    choice = {"index": 0, "finish_reason": stop, "message": message}
    return {
        "id": "c1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [choice],
    }


def openai_responses(blocks: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    status, _, reason = stop.partition(":")
    # A message's content parts (output_text, refusal) come inside a message.
    blocks = [
        block
        if block.get("type") not in ("output_text", "refusal")
        else {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [block],
        }
        for block in blocks
    ]
    response: dict[str, Any] = {
        "id": "resp_1",
        "object": "response",
        "model": "m",
        "status": status,
        "output": blocks,
    }
    if reason:
        response["incomplete_details"] = {"reason": reason}
    return response


def gemini(blocks: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    candidate = {"content": {"role": "model", "parts": blocks}, "finishReason": stop, "index": 0}
    return {"candidates": [candidate], "responseId": "r1", "modelVersion": "m"}


def bedrock(blocks: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": blocks}},
        "stopReason": stop,
        "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
    }


def mistral(blocks: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": []}
    for block in blocks:
        if "function" in block:
            message.setdefault("tool_calls", []).append(block)
        else:
            message["content"].append(block)
    choice = {"index": 0, "finish_reason": stop, "message": message}
    return {
        "id": "c1",
        "object": "chat.completion",
        "model": "m",
        "created": 0,
        "choices": [choice],
    }


def cohere(blocks: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": []}
    for block in blocks:
        if "function" in block:
            message.setdefault("tool_calls", []).append(block)
        else:
            message["content"].append(block)
    return {"id": "c1", "finish_reason": stop, "message": message}


def ollama(blocks: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    for block in blocks:
        message.update(block)
    return {
        "model": "m",
        "created_at": "2026-01-01T00:00:00Z",
        "message": message,
        "done": True,
        "done_reason": stop,
    }


WRAPS: dict[str, Wrap] = {
    "anthropic": anthropic,
    "openai_chat": openai_chat,
    "openai_responses": openai_responses,
    "gemini": gemini,
    "bedrock": bedrock,
    "mistral": mistral,
    "cohere": cohere,
    "ollama": ollama,
}

STOPS: dict[str, str] = {
    "anthropic": "end_turn",
    "openai_chat": "stop",
    "openai_responses": "completed",
    "gemini": "STOP",
    "bedrock": "end_turn",
    "mistral": "stop",
    "cohere": "COMPLETE",
    "ollama": "stop",
}
"""The plain end of a reply, for each provider: what a reply about a block ends with."""
