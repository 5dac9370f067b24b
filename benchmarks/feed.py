"""What ``Accumulator.feed`` costs per event, now that it returns deltas.

    python benchmarks/feed.py                  # 15 rounds
    python benchmarks/feed.py --quick          # 3 rounds
    python benchmarks/feed.py --baseline REV   # compare with the feed of another commit

For each dialect, one realistic stream (a few hundred events: thinking,
text in small deltas, a tool call whose arguments arrive in pieces, the
end with its usage) is fed three ways, side by side in one process:

- **before**: the ``Accumulator`` of the baseline commit (by default the
  last one before ``feed`` returned deltas), exported with ``git archive``
  and imported beside today's as ``convtypes_before``;
- **feed, deltas ignored**: today's ``Accumulator``, its return value unused;
- **feed, deltas used**: today's, with every delta read, as a UI loop would.

The three take turns within each round; a ratio is the median of the
per-round ratios, with their range. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _baseline  # noqa: E402

ROOT = HERE.parent
DIALECTS = (
    "anthropic",
    "openai_chat",
    "openai_responses",
    "gemini",
    "ollama",
    "bedrock",
    "mistral",
    "cohere",
)
TEXT_DELTAS = 300
ARGUMENT_PIECES = 40


def _pieces(text: str, count: int) -> list[str]:
    size = max(1, len(text) // count)
    return [text[at : at + size] for at in range(0, len(text), size)]


_WORDS = "The forecast for Oslo shows rain in the morning and clearing skies later. "
_TEXT = (_WORDS * 40)[: TEXT_DELTAS * 8]
_THOUGHT = "The user wants the weather; I should call the tool with the city. " * 4
_ARGUMENTS = json.dumps({"city": "Oslo", "days": list(range(30)), "units": "metric"})


def anthropic_stream() -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-test",
                "content": [],
                "stop_reason": None,
                "usage": {"input_tokens": 120, "output_tokens": 1},
            },
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""},
        },
    ]
    events += [
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": t},
        }
        for t in _pieces(_THOUGHT, 30)
    ]
    events += [
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": "c2ln" * 16},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
    ]
    events += [
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": t}}
        for t in _pieces(_TEXT, TEXT_DELTAS)
    ]
    events += [
        {"type": "content_block_stop", "index": 1},
        {
            "type": "content_block_start",
            "index": 2,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {}},
        },
    ]
    events += [
        {
            "type": "content_block_delta",
            "index": 2,
            "delta": {"type": "input_json_delta", "partial_json": p},
        }
        for p in _pieces(_ARGUMENTS, ARGUMENT_PIECES)
    ]
    events += [
        {"type": "content_block_stop", "index": 2},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 400},
        },
        {"type": "message_stop"},
    ]
    return events


def openai_chat_stream() -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "model": "gpt-test",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    events = [chunk({"role": "assistant", "content": "", "refusal": None})]
    events += [chunk({"content": t}) for t in _pieces(_TEXT, TEXT_DELTAS)]
    first, *rest = _pieces(_ARGUMENTS, ARGUMENT_PIECES)
    events.append(
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "weather", "arguments": first},
                    }
                ]
            }
        )
    )
    events += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in rest]
    events.append(chunk({}, "tool_calls"))
    events.append(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "model": "gpt-test",
            "choices": [],
            "usage": {"prompt_tokens": 120, "completion_tokens": 400, "total_tokens": 520},
        }
    )
    return events


def openai_responses_stream() -> list[dict[str, Any]]:
    message = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": _TEXT, "annotations": []}],
    }
    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "weather",
        "arguments": _ARGUMENTS,
        "status": "completed",
    }
    response = {
        "id": "resp_1",
        "object": "response",
        "model": "gpt-test",
        "status": "completed",
        "output": [message, call],
        "usage": {"input_tokens": 120, "output_tokens": 400, "total_tokens": 520},
    }
    started = {**response, "status": "in_progress", "output": []}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": started},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**message, "status": "in_progress", "content": []},
        },
        {
            "type": "response.content_part.added",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
    ]
    events += [
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "delta": t,
        }
        for t in _pieces(_TEXT, TEXT_DELTAS)
    ]
    events += [
        {
            "type": "response.output_text.done",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "text": _TEXT,
        },
        {
            "type": "response.content_part.done",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "part": message["content"][0],
        },
        {"type": "response.output_item.done", "output_index": 0, "item": message},
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {**call, "arguments": "", "status": "in_progress"},
        },
    ]
    events += [
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 1,
            "item_id": "fc_1",
            "delta": p,
        }
        for p in _pieces(_ARGUMENTS, ARGUMENT_PIECES)
    ]
    events += [
        {
            "type": "response.function_call_arguments.done",
            "output_index": 1,
            "item_id": "fc_1",
            "arguments": _ARGUMENTS,
        },
        {"type": "response.output_item.done", "output_index": 1, "item": call},
        {"type": "response.completed", "response": response},
    ]
    return events


def gemini_stream() -> list[dict[str, Any]]:
    def chunk(parts: list[dict[str, Any]], finish: str | None = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finish is not None:
            candidate["finishReason"] = finish
        return {"candidates": [candidate], "modelVersion": "gemini-test", "responseId": "r1"}

    events = [chunk([{"text": t, "thought": True}]) for t in _pieces(_THOUGHT, 30)]
    events += [chunk([{"text": t}]) for t in _pieces(_TEXT, TEXT_DELTAS)]
    last = chunk(
        [
            {
                "functionCall": {"name": "weather", "args": json.loads(_ARGUMENTS)},
                "thoughtSignature": "c2ln",
            }
        ],
        "STOP",
    )
    last["usageMetadata"] = {
        "promptTokenCount": 120,
        "candidatesTokenCount": 400,
        "totalTokenCount": 520,
    }
    events.append(last)
    return events


def ollama_stream() -> list[dict[str, Any]]:
    def chunk(message: dict[str, Any], done: bool = False) -> dict[str, Any]:
        return {
            "model": "qwen3",
            "created_at": "2026-12-01T00:00:00Z",
            "message": {"role": "assistant", "content": "", **message},
            "done": done,
        }

    events = [chunk({"thinking": t}) for t in _pieces(_THOUGHT, 30)]
    events += [chunk({"content": t}) for t in _pieces(_TEXT, TEXT_DELTAS)]
    call = {"function": {"name": "weather", "arguments": json.loads(_ARGUMENTS)}}
    events.append(chunk({"tool_calls": [call]}))
    last = chunk({}, done=True)
    last.update(done_reason="stop", prompt_eval_count=120, eval_count=400)
    events.append(last)
    return events


def bedrock_stream() -> list[dict[str, Any]]:
    def delta(index: int, value: dict[str, Any]) -> dict[str, Any]:
        return {"contentBlockDelta": {"delta": value, "contentBlockIndex": index}}

    events: list[dict[str, Any]] = [{"messageStart": {"role": "assistant"}}]
    events += [delta(0, {"reasoningContent": {"text": t}}) for t in _pieces(_THOUGHT, 30)]
    events += [
        delta(0, {"reasoningContent": {"signature": "c2ln" * 16}}),
        {"contentBlockStop": {"contentBlockIndex": 0}},
    ]
    events += [delta(1, {"text": t}) for t in _pieces(_TEXT, TEXT_DELTAS)]
    events += [
        {"contentBlockStop": {"contentBlockIndex": 1}},
        {
            "contentBlockStart": {
                "start": {"toolUse": {"toolUseId": "tooluse_1", "name": "weather"}},
                "contentBlockIndex": 2,
            }
        },
    ]
    events += [delta(2, {"toolUse": {"input": p}}) for p in _pieces(_ARGUMENTS, ARGUMENT_PIECES)]
    events += [
        {"contentBlockStop": {"contentBlockIndex": 2}},
        {"messageStop": {"stopReason": "tool_use"}},
        {
            "metadata": {
                "usage": {"inputTokens": 120, "outputTokens": 400, "totalTokens": 520},
                "metrics": {"latencyMs": 900},
            }
        },
    ]
    return events


def mistral_stream() -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "cmpl-1",
            "object": "chat.completion.chunk",
            "model": "mistral-test",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    def thought(text: str) -> list[dict[str, Any]]:
        return [{"type": "thinking", "thinking": [{"type": "text", "text": text}]}]

    events = [chunk({"role": "assistant", "content": thought(t)}) for t in _pieces(_THOUGHT, 30)]
    events += [chunk({"content": t}) for t in _pieces(_TEXT, TEXT_DELTAS)]
    # Mistral sends a call whole, in one chunk.
    call = {"id": "Ab3dEf9hK", "function": {"name": "weather", "arguments": _ARGUMENTS}}
    events.append(chunk({"tool_calls": [call]}))
    last = chunk({"content": ""}, "tool_calls")
    last["usage"] = {"prompt_tokens": 120, "completion_tokens": 400, "total_tokens": 520}
    events.append(last)
    return events


def cohere_stream() -> list[dict[str, Any]]:
    def content(index: int, kind: str, text: str, start: bool = False) -> dict[str, Any]:
        part = {"type": kind, kind: text} if start else {kind: text}
        return {
            "type": "content-start" if start else "content-delta",
            "index": index,
            "delta": {"message": {"content": part}},
        }

    empty = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}
    events = [{"id": "c1", "type": "message-start", "delta": {"message": empty}}]
    events.append(content(0, "thinking", "", start=True))
    events += [content(0, "thinking", t) for t in _pieces(_THOUGHT, 30)]
    events.append({"type": "content-end", "index": 0})
    # Before its calls, Cohere says what it will do as the tool plan.
    events += [
        {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": t}}}
        for t in _pieces(_TEXT, TEXT_DELTAS)
    ]
    call = {"id": "weather_1", "type": "function", "function": {"name": "weather", "arguments": ""}}
    events.append(
        {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": call}}}
    )
    events += [
        {
            "type": "tool-call-delta",
            "index": 0,
            "delta": {"message": {"tool_calls": {"function": {"arguments": p}}}},
        }
        for p in _pieces(_ARGUMENTS, ARGUMENT_PIECES)
    ]
    usage = {"tokens": {"input_tokens": 120, "output_tokens": 400}}
    events += [
        {"type": "tool-call-end", "index": 0},
        {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL", "usage": usage}},
    ]
    return events


STREAMS = {
    "anthropic": anthropic_stream,
    "openai_chat": openai_chat_stream,
    "openai_responses": openai_responses_stream,
    "gemini": gemini_stream,
    "ollama": ollama_stream,
    "bedrock": bedrock_stream,
    "mistral": mistral_stream,
    "cohere": cohere_stream,
}


def _time(module: Any, events: list[dict[str, Any]], used: bool, loops: int) -> float:
    """The best seconds per event of ``loops`` feeds of ``events``."""
    best = float("inf")
    for _ in range(loops):
        accumulator = module.Accumulator()
        feed = accumulator.feed
        shown = 0
        start = time.perf_counter()
        if used:
            for event in events:
                for delta in feed(event):
                    shown += len(getattr(delta, "text", "") or getattr(delta, "arguments", ""))
        else:
            for event in events:
                feed(event)
        elapsed = time.perf_counter() - start
        accumulator.result()  # the stream must read, or the figure means nothing
        best = min(best, elapsed)
    return best / len(events)


def _ratio(values: list[float]) -> str:
    values = sorted(values)
    return f"{statistics.median(values):.2f}x ({values[0]:.2f}\u2013{values[-1]:.2f})"


def run(quick: bool, baseline: str = _baseline.BEFORE) -> str:
    import importlib

    rounds = 5 if quick else 21
    loops = 5 if quick else 20
    before = "convtypes_before" if _baseline.load(baseline) is not None else None
    lines = [
        f"Feeding one stream per dialect; {rounds} interleaved rounds, best of {loops} "
        f"feeds each. Baseline: commit {baseline}"
        + ("" if before is not None else " (not found: no git history here)")
        + ".",
        "",
        "| dialect | events | feed before | feed, deltas ignored | feed, deltas used "
        "| ignored vs before | used vs before |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for dialect in DIALECTS:
        events = STREAMS[dialect]()
        now = importlib.import_module(f"convtypes.dialects.{dialect}")
        try:
            then = importlib.import_module(f"{before}.dialects.{dialect}") if before else None
        except ImportError:
            then = None  # a dialect the baseline did not have
        times: dict[str, list[float]] = {"before": [], "ignored": [], "used": []}
        for _ in range(rounds):
            if then is not None:
                times["before"].append(_time(then, events, False, loops))
            times["ignored"].append(_time(now, events, False, loops))
            times["used"].append(_time(now, events, True, loops))
        cells = {
            mode: f"{statistics.median(values) * 1e6:.2f} µs" if values else "n/a"
            for mode, values in times.items()
        }
        if times["before"]:
            pairs = zip(times["ignored"], times["before"], strict=True)
            ignored = _ratio([a / b for a, b in pairs])
            used = _ratio([a / b for a, b in zip(times["used"], times["before"], strict=True)])
        else:
            ignored = used = "n/a"
        lines.append(
            f"| {dialect} | {len(events)} | {cells['before']} | {cells['ignored']} "
            f"| {cells['used']} | {ignored} | {used} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--baseline", default=_baseline.BEFORE)
    args = parser.parse_args()
    print(run(args.quick, args.baseline))
