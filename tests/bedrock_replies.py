"""Converse replies and ConverseStream events for the Bedrock tests, and where each shape came from.

boto3 and botocore keep no recorded Converse traffic. The shapes here come
from two places, and each fixture says which:

- **recorded**: the live recordings (VCR cassettes) in pydantic-ai's test
  suite, ``tests/models/cassettes/test_bedrock/`` (pydantic/pydantic-ai),
  made against ``bedrock-runtime.us-east-1.amazonaws.com``. The fixtures
  keep each recording's shape: which blocks, in which order, which fields
  (including those botocore's model does not list, such as ``type:
  "tool_use"`` on a client call, ``serverToolUsage`` and
  ``cacheReadInputTokenCount`` in the usage, and the ``p`` padding field of
  every streamed event), which events a stream sends and which it does not
  (no ``contentBlockStart`` for text or reasoning). The words, ids,
  signatures and counts are ours.
- **reference**: written from the Converse API reference
  (``API_runtime_Converse``, ``API_runtime_ConverseStream``,
  ``CitationsContentBlock``, ``CitationsDelta``, ``TokenUsage``) and
  botocore's service model, where no recording shows the shape.

A reply is written as the REST JSON (bytes as base64 text); boto3's form of
it is :func:`bedrock_sdk.parsed_response` of that JSON, and of a stream
:func:`bedrock_sdk.parsed_events`.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

Pieces = Callable[[str], list[str]]


def halves(text: str) -> list[str]:
    return [text[: len(text) // 2], text[len(text) // 2 :]] if len(text) > 1 else [text]


def whole(text: str) -> list[str]:
    return [text]


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def reply_of(
    content: list[Any],
    stop: str = "end_turn",
    usage: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A Converse response (REST JSON) around ``content``."""
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop,
        "usage": usage
        if usage is not None
        else {"inputTokens": 12, "outputTokens": 34, "totalTokens": 46},
        "metrics": {"latencyMs": 321},
        **extra,
    }


def block_events(index: int, block: dict[str, Any], cut: Pieces) -> list[dict[str, Any]]:
    """The events that stream one content block, as ConverseStream sends them."""
    [(kind, value)] = block.items()
    start: dict[str, Any] | None = None
    deltas: list[dict[str, Any]] = []
    if kind == "text":
        deltas = [{"text": piece} for piece in cut(value)]
    elif kind == "reasoningContent":
        if "redactedContent" in value:
            deltas = [{"reasoningContent": {"redactedContent": value["redactedContent"]}}]
        else:
            inner = value["reasoningText"]
            deltas = [{"reasoningContent": {"text": piece}} for piece in cut(inner["text"])]
            if "signature" in inner:
                deltas.append({"reasoningContent": {"signature": inner["signature"]}})
    elif kind == "toolUse":
        start = {"toolUse": {key: item for key, item in value.items() if key != "input"}}
        deltas = [{"toolUse": {"input": piece}} for piece in cut(json.dumps(value["input"]))]
    elif kind == "toolResult":
        start = {"toolResult": {key: item for key, item in value.items() if key != "content"}}
        deltas = [{"toolResult": value["content"]}]
    elif kind == "citationsContent":
        text = "".join(part["text"] for part in value["content"])
        deltas = [{"citation": citation} for citation in value["citations"]]
        deltas += [{"text": piece} for piece in cut(text)]
    elif kind == "image":
        start = {"image": {"format": value["format"]}}
        deltas = [{"image": {"source": value["source"]}}]
    else:
        raise AssertionError(f"no stream form for {kind}")
    events: list[dict[str, Any]] = []
    if start is not None:
        events.append({"contentBlockStart": {"start": start, "contentBlockIndex": index}})
    events += [{"contentBlockDelta": {"delta": d, "contentBlockIndex": index}} for d in deltas]
    events.append({"contentBlockStop": {"contentBlockIndex": index}})
    return events


def events_of(reply: dict[str, Any], cut: Pieces = halves) -> list[dict[str, Any]]:
    """The ConverseStream events of the same reply, keyed by name as boto3 yields them."""
    events: list[dict[str, Any]] = [{"messageStart": {"role": "assistant"}}]
    for index, block in enumerate(reply["output"]["message"]["content"]):
        events += block_events(index, block, cut)
    events.append({"messageStop": {"stopReason": reply["stopReason"]}})
    metadata: dict[str, Any] = {"usage": reply["usage"], "metrics": reply["metrics"]}
    if "trace" in reply:
        metadata["trace"] = reply["trace"]
    events.append({"metadata": metadata})
    return events


def padded(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events with the ``p`` padding field the service adds to each (boto3 drops it)."""
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    out = []
    for number, event in enumerate(events):
        [(name, body)] = event.items()
        out.append({name: {**body, "p": alphabet[: 7 + number * 5 % 50]}})
    return out


# --- recorded shapes ---------------------------------------------------------------

SIGNATURE = "EqQBCkgIBxABGAIiQNrS9mQxYmVkcm9jay1zaWduYXR1cmUtZm9yLXRlc3Rz"
# Claude's redacted reasoning through Bedrock: the bytes are themselves ASCII.
REDACTED = b64(b"EtMFCkgICxABGAIqQHJlZGFjdGVkLXJlYXNvbmluZy1mb3ItdGVzdHM=")
REDACTED_2 = b64(b"ErgBCkgICxABGAIqQGFub3RoZXItcmVkYWN0ZWQtYmxvY2s=")


def thinking_then_call() -> dict[str, Any]:
    """Recorded: ``test_bedrock_anthropic_tool_with_thinking.yaml`` (Claude 3.7 Sonnet).

    Signed reasoning, text, then a client ``toolUse`` carrying ``type:
    "tool_use"``; ``stopReason`` ``tool_use``; the usage with the extra
    counters the service sends beside the modelled ones.
    """
    return reply_of(
        [
            {
                "reasoningContent": {
                    "reasoningText": {
                        "text": "The user asks about their city; I need their country first.",
                        "signature": SIGNATURE,
                    }
                }
            },
            {"text": "Let me look up your country first."},
            {
                "toolUse": {
                    "input": {},
                    "name": "get_user_country",
                    "toolUseId": "tooluse_4Lo0VSxFT5yev_QskOCQdw",
                    "type": "tool_use",
                }
            },
        ],
        stop="tool_use",
        usage={
            "cacheReadInputTokenCount": 0,
            "cacheReadInputTokens": 0,
            "cacheWriteInputTokenCount": 0,
            "cacheWriteInputTokens": 0,
            "inputTokens": 397,
            "outputTokens": 138,
            "serverToolUsage": {},
            "totalTokens": 535,
        },
    )


def redacted_then_text() -> dict[str, Any]:
    """Recorded: ``test_bedrock_model_thinking_part_redacted.yaml`` (Claude 3.7 Sonnet).

    A ``redactedContent`` block (base64 in the JSON, bytes in boto3), then text.
    """
    return reply_of(
        [
            {"reasoningContent": {"redactedContent": REDACTED}},
            {"text": "I have no hidden modes. What would you like to talk about?"},
        ],
        usage={"inputTokens": 92, "outputTokens": 198, "serverToolUsage": {}, "totalTokens": 290},
    )


def redacted_stream() -> list[dict[str, Any]]:
    """Recorded: ``test_bedrock_model_thinking_part_redacted_stream.yaml`` (Claude 3.7 Sonnet).

    Three redacted blocks, each one delta and a stop, then text in pieces;
    no ``contentBlockStart`` at all; every event padded with ``p``.
    """
    reply = reply_of(
        [
            {"reasoningContent": {"redactedContent": REDACTED}},
            {"reasoningContent": {"redactedContent": REDACTED_2}},
            {"reasoningContent": {"redactedContent": REDACTED}},
            {"text": "That string looks like a trigger phrase. Ask me directly instead."},
        ],
        usage={"inputTokens": 92, "outputTokens": 173, "serverToolUsage": {}, "totalTokens": 265},
    )
    return padded(events_of(reply, halves))


def thinking_stream() -> list[dict[str, Any]]:
    """Recorded: ``test_bedrock_model_thinking_part_stream.yaml`` (Claude Sonnet 4).

    Reasoning text in pieces, an empty last piece, then the signature in one
    delta, a stop; then the answer's text in pieces.
    """
    events: list[dict[str, Any]] = [{"messageStart": {"role": "assistant"}}]
    for piece in ["The user", " said hello.", " A short, warm reply.", ""]:
        events.append(
            {
                "contentBlockDelta": {
                    "contentBlockIndex": 0,
                    "delta": {"reasoningContent": {"text": piece}},
                }
            }
        )
    events.append(
        {
            "contentBlockDelta": {
                "contentBlockIndex": 0,
                "delta": {"reasoningContent": {"signature": SIGNATURE}},
            }
        }
    )
    events.append({"contentBlockStop": {"contentBlockIndex": 0}})
    for piece in ["Hello! How", " can I help today?"]:
        events.append({"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"text": piece}}})
    events.append({"contentBlockStop": {"contentBlockIndex": 1}})
    events.append({"messageStop": {"stopReason": "end_turn"}})
    usage = {"inputTokens": 37, "outputTokens": 74, "serverToolUsage": {}, "totalTokens": 111}
    events.append({"metadata": {"metrics": {"latencyMs": 2333}, "usage": usage}})
    return padded(events)


def code_interpreter() -> dict[str, Any]:
    """Recorded: ``test_bedrock_model_with_code_execution_tool.yaml`` (Nova 2 Lite).

    The server tool ``nova_code_interpreter``: its ``toolUse`` (``type:
    "server_tool_use"``) and its ``toolResult`` in the reply itself, then a
    client ``toolUse``; usage without cache counters.
    """
    return reply_of(
        [
            {
                "toolUse": {
                    "input": {"snippet": "1234 * 5678"},
                    "name": "nova_code_interpreter",
                    "toolUseId": "tooluse_EkXfr5c0K3VyZ09M6pxEFg",
                    "type": "server_tool_use",
                }
            },
            {
                "toolResult": {
                    "content": [
                        {
                            "json": {
                                "exitCode": 0,
                                "isError": False,
                                "stdErr": "",
                                "stdOut": "7006652",
                            }
                        }
                    ],
                    "status": "success",
                    "toolUseId": "tooluse_EkXfr5c0K3VyZ09M6pxEFg",
                    "type": "nova_code_interpreter_result",
                }
            },
            {
                "toolUse": {
                    "input": {"result": 7006652.0},
                    "name": "final_result",
                    "toolUseId": "tooluse_owdFRfkTTQabYjvP3GM_vQ",
                    "type": "tool_use",
                }
            },
        ],
        stop="tool_use",
        usage={"inputTokens": 1002, "outputTokens": 59, "serverToolUsage": {}, "totalTokens": 1061},
    )


def cached_usage() -> dict[str, Any]:
    """Recorded: ``test_bedrock_cache_write_and_read.yaml`` (Claude Sonnet 4.5), first call.

    ``inputTokens`` counts only what was neither read from the cache nor
    written to it: the total is ``2 + 1322 + 5``.
    """
    return {
        "cacheDetails": [{"inputTokens": 1322, "ttl": "5m"}],
        "cacheReadInputTokenCount": 0,
        "cacheReadInputTokens": 0,
        "cacheWriteInputTokenCount": 1322,
        "cacheWriteInputTokens": 1322,
        "inputTokens": 2,
        "outputTokens": 5,
        "serverToolUsage": {},
        "totalTokens": 1329,
    }


# --- shapes from the API reference ------------------------------------------------------


def citation(start: int, end: int) -> dict[str, Any]:
    """Reference: a ``Citation`` with a ``documentChar`` location (``CitationLocation``)."""
    return {
        "title": "Release notes",
        "sourceContent": [{"text": "structs.replace now calls __post_init__"}],
        "location": {"documentChar": {"documentIndex": 0, "start": start, "end": end}},
    }


def cited_reply() -> dict[str, Any]:
    """Reference: text, a ``citationsContent`` block (its text part of the answer), text.

    Streamed, a cited block is its ``citation`` deltas and its text deltas
    on one index (``CitationsDelta``); whole, it is ``citationsContent``.
    """
    return reply_of(
        [
            {"text": "In short: "},
            {
                "citationsContent": {
                    "content": [{"text": "replace now runs __post_init__."}],
                    "citations": [citation(0, 40)],
                }
            },
            {"text": " That is all."},
        ]
    )
