"""What ``openai_responses.Accumulator.feed`` costs per event, before and after.

    python dev/bench_feed_openai_responses.py [--rounds N] [--base COMMIT]

A realistic stream (reasoning summary, a web search, a long answer, a
function call: a few hundred events) is fed, as dicts, as the SDK's event
objects and as the events of the SDK's ``responses.stream()`` helper, to the
``Accumulator`` of this tree and to the one at ``--base`` (read with ``git
show``; default 2916c26, before deltas). "with deltas" also does what a UI
does with them (joins the text). Each form runs side by side within each
round; a ratio is the median of the per-round ratios, with their range.
A last row times ``to_request`` on the 1,000-turn transcript of
``benchmarks/dialects.py``, old against new, the same way. The old module
is run with this tree's shared helpers (``_json``, ``_ids``...).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import convtypes.dialects
from convtypes.dialects import TextDelta, ThinkingDelta, ToolCallDelta, openai_responses

ROOT = Path(__file__).resolve().parent.parent


def old_module(commit: str) -> ModuleType:
    """The dialect module as it was at ``commit``, imported beside the current one."""
    source = subprocess.run(
        ["git", "show", f"{commit}:src/convtypes/dialects/openai_responses.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    folder = Path(tempfile.mkdtemp())
    path = folder / "_bench_old_responses.py"
    path.write_text(source)
    name = "convtypes.dialects._bench_old_responses"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "convtypes.dialects"
    sys.modules[name] = module
    spec.loader.exec_module(module)
    assert convtypes.dialects  # the package the module's relative imports resolve in
    return module


def stream() -> list[dict[str, Any]]:
    """A seeded stream of a few hundred events, in the API's shapes."""
    words = [f"word{n} " for n in range(240)]
    summary = [f"step {n}; " for n in range(40)]
    arguments = json.dumps({"query": "weather in Oslo " * 6, "days": [1, 2, 3], "units": "metric"})
    pieces = [arguments[n : n + 4] for n in range(0, len(arguments), 4)]
    reasoning = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "".join(summary)}],
        "encrypted_content": "gAAAA" + "x" * 400,
    }
    search = {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": "Oslo weather"},
    }
    message = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "".join(words), "annotations": []}],
    }
    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "forecast",
        "arguments": arguments,
        "status": "completed",
    }
    response = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1.0,
        "model": "gpt-5",
        "status": "completed",
        "output": [reasoning, search, message, call],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 900,
            "input_tokens_details": {"cached_tokens": 100, "cache_write_tokens": 0},
            "output_tokens": 400,
            "output_tokens_details": {"reasoning_tokens": 64},
            "total_tokens": 1300,
        },
    }
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**response, "output": [], "status": "queued"}},
        {"type": "response.in_progress", "response": {**response, "output": []}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**reasoning, "summary": [], "encrypted_content": None},
        },
        {
            "type": "response.reasoning_summary_part.added",
            "item_id": "rs_1",
            "output_index": 0,
            "summary_index": 0,
            "part": {"type": "summary_text", "text": ""},
        },
        *(
            {
                "type": "response.reasoning_summary_text.delta",
                "item_id": "rs_1",
                "output_index": 0,
                "summary_index": 0,
                "delta": piece,
            }
            for piece in summary
        ),
        {"type": "response.output_item.done", "output_index": 0, "item": reasoning},
        {"type": "response.output_item.added", "output_index": 1, "item": search},
        {
            "type": "response.web_search_call.searching",
            "item_id": "ws_1",
            "output_index": 1,
        },
        {"type": "response.output_item.done", "output_index": 1, "item": search},
        {
            "type": "response.output_item.added",
            "output_index": 2,
            "item": {**message, "content": [], "status": "in_progress"},
        },
        {
            "type": "response.content_part.added",
            "item_id": "msg_1",
            "output_index": 2,
            "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
        *(
            {
                "type": "response.output_text.delta",
                "item_id": "msg_1",
                "output_index": 2,
                "content_index": 0,
                "delta": piece,
                "logprobs": [],
            }
            for piece in words
        ),
        {
            "type": "response.output_text.done",
            "item_id": "msg_1",
            "output_index": 2,
            "content_index": 0,
            "text": "".join(words),
            "logprobs": [],
        },
        {"type": "response.output_item.done", "output_index": 2, "item": message},
        {
            "type": "response.output_item.added",
            "output_index": 3,
            "item": {**call, "arguments": "", "status": "in_progress"},
        },
        *(
            {
                "type": "response.function_call_arguments.delta",
                "item_id": "fc_1",
                "output_index": 3,
                "delta": piece,
            }
            for piece in pieces
        ),
        {"type": "response.output_item.done", "output_index": 3, "item": call},
        {"type": "response.completed", "response": response},
    ]
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events


def forms(events: list[dict[str, Any]]) -> dict[str, list[Any]]:
    from openai import omit
    from openai._models import construct_type
    from openai.lib.streaming.responses._responses import ResponseStreamState
    from openai.types.responses import ResponseStreamEvent

    objects = [construct_type(type_=ResponseStreamEvent, value=e) for e in events]
    state: Any = ResponseStreamState(input_tools=omit, text_format=omit)
    helper = [e for event in objects for e in state.handle_event(event)]
    return {"dicts": events, "SDK objects": objects, "helper events": helper}


def run_plain(module: ModuleType, events: list[Any]) -> int:
    start = time.perf_counter_ns()
    accumulator = module.Accumulator()
    for event in events:
        accumulator.feed(event)
    took = time.perf_counter_ns() - start
    accumulator.result()
    return took


def run_deltas(module: ModuleType, events: list[Any]) -> int:
    start = time.perf_counter_ns()
    accumulator = module.Accumulator()
    text: list[str] = []
    thought: list[str] = []
    arguments: list[str] = []
    for event in events:
        for delta in accumulator.feed(event):
            if isinstance(delta, TextDelta):
                text.append(delta.text)
            elif isinstance(delta, ThinkingDelta):
                thought.append(delta.text)
            elif isinstance(delta, ToolCallDelta):
                arguments.append(delta.arguments)
    took = time.perf_counter_ns() - start
    accumulator.result()
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--repeat", type=int, default=20, help="streams fed per timing")
    parser.add_argument("--base", default="2916c26")
    args = parser.parse_args()
    old = old_module(args.base)
    events = stream()
    cases = forms(events)
    print(f"{len(events)} events; {args.rounds} rounds of {args.repeat} streams each\n")
    print(
        "| events | old feed ns/event | new feed ns/event | new, using deltas "
        "| new/old | new with deltas/old |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, form in cases.items():
        times: dict[str, list[float]] = {"old": [], "new": [], "deltas": []}
        for _ in range(args.rounds):
            for label, function, module in (
                ("old", run_plain, old),
                ("new", run_plain, openai_responses),
                ("deltas", run_deltas, openai_responses),
            ):
                total = sum(function(module, form) for _ in range(args.repeat))
                times[label].append(total / args.repeat / len(form))
        ratio = [n / o for n, o in zip(times["new"], times["old"], strict=True)]
        ratio_d = [n / o for n, o in zip(times["deltas"], times["old"], strict=True)]
        print(
            f"| {name} ({len(form)}) | {statistics.median(times['old']):.0f} "
            f"| {statistics.median(times['new']):.0f} | {statistics.median(times['deltas']):.0f} "
            f"| {statistics.median(ratio):.2f}x ({min(ratio):.2f}-{max(ratio):.2f}) "
            f"| {statistics.median(ratio_d):.2f}x ({min(ratio_d):.2f}-{max(ratio_d):.2f}) |"
        )
    print(to_request_row(old, args.rounds))


def to_request_row(old: ModuleType, rounds: int) -> str:
    spec = importlib.util.spec_from_file_location("bench_dialects", ROOT / "benchmarks/dialects.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    messages = bench.transcript(1_000)
    assert old.to_request(messages) == openai_responses.to_request(messages)
    times: dict[str, list[float]] = {"old": [], "new": []}
    for _ in range(rounds):
        for label, module in (("old", old), ("new", openai_responses)):
            start = time.perf_counter_ns()
            for _ in range(5):
                module.to_request(messages)
            times[label].append((time.perf_counter_ns() - start) / 5 / 1000)
    ratio = [n / o for n, o in zip(times["new"], times["old"], strict=True)]
    return (
        f"| to_request, 1,000 turns (µs per call) | {statistics.median(times['old']):.0f} "
        f"| {statistics.median(times['new']):.0f} | | "
        f"{statistics.median(ratio):.2f}x ({min(ratio):.2f}-{max(ratio):.2f}) | |"
    )


if __name__ == "__main__":
    main()
