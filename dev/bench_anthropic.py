"""The anthropic dialect against its version before issues 17 and 18, side by side.

    python dev/bench_anthropic.py [--rounds N] [--before COMMIT]

Loads ``src/convtypes/dialects/anthropic.py`` as it was at ``COMMIT`` (by
default 2916c26, the branch point) next to the current one, in one
process, and times, taking turns within each round:

- ``to_request`` on the 1,000-turn transcript of ``benchmarks/dialects.py``;
- ``feed`` per event on a realistic stream of a few hundred events
  (thinking, text, a tool call with its JSON in pieces, usage), fed as
  dicts: the current one once ignoring the deltas it returns, and once
  using them (joining text, counting pieces), as a streaming UI would.

A ratio is the median of the per-round ratios, with their range. Reads
nothing outside the repository.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import convtypes.dialects  # noqa: E402
from convtypes.dialects import TextDelta, ThinkingDelta, ToolCallDelta, anthropic  # noqa: E402


def old_module(commit: str) -> ModuleType:
    """The dialect module as it was at ``commit``, loaded beside the current one."""
    source = subprocess.run(
        ["git", "show", f"{commit}:src/convtypes/dialects/anthropic.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    name = "convtypes.dialects._anthropic_before"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "convtypes.dialects"
    sys.modules[name] = module
    exec(compile(source, f"anthropic.py@{commit}", "exec"), module.__dict__)
    assert convtypes.dialects  # the package the old module's relative imports resolve in
    return module


def stream(pieces: int = 120) -> list[dict[str, Any]]:
    """A recorded-style stream: thinking, text, one call's JSON, in ``pieces`` pieces each."""
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_bench",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 900, "output_tokens": 1},
            },
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""},
        },
    ]
    for n in range(pieces):
        delta = {"type": "thinking_delta", "thinking": f"step {n} of the plan, "}
        events.append({"type": "content_block_delta", "index": 0, "delta": delta})
    signature = {"type": "signature_delta", "signature": "c2ln" * 40}
    events.append({"type": "content_block_delta", "index": 0, "delta": signature})
    events.append({"type": "content_block_stop", "index": 0})
    events.append(
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}
    )
    for n in range(pieces):
        delta = {"type": "text_delta", "text": f"word{n} "}
        events.append({"type": "content_block_delta", "index": 1, "delta": delta})
    events.append({"type": "content_block_stop", "index": 1})
    start = {"type": "tool_use", "id": "toolu_bench", "name": "write", "input": {}}
    events.append({"type": "content_block_start", "index": 2, "content_block": start})
    text = json.dumps({"lines": [f"line {n}" for n in range(pieces)]})
    size = len(text) // pieces + 1
    for at in range(0, len(text), size):
        delta = {"type": "input_json_delta", "partial_json": text[at : at + size]}
        events.append({"type": "content_block_delta", "index": 2, "delta": delta})
    events.append({"type": "content_block_stop", "index": 2})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 700},
        }
    )
    events.append({"type": "message_stop"})
    return events


def feed_ignoring(make: Callable[[], Any], events: list[dict[str, Any]]) -> None:
    target = make()
    for event in events:
        target.feed(event)


def feed_using(make: Callable[[], Any], events: list[dict[str, Any]]) -> None:
    target = make()
    shown: list[str] = []
    arguments = 0
    for event in events:
        for delta in target.feed(event):
            if isinstance(delta, (TextDelta, ThinkingDelta)):
                shown.append(delta.text)
            elif isinstance(delta, ToolCallDelta):
                arguments += len(delta.arguments)


def timed(run: Callable[[], None], repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        run()
    return (time.perf_counter() - start) / repeat


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--before", default="2916c26")
    options = parser.parse_args()
    from dialects import transcript  # benchmarks/dialects.py

    before = old_module(options.before)
    messages = transcript()
    assert before.to_request(messages) == anthropic.to_request(messages)
    events = stream()
    old_result = before.Accumulator()
    for event in events:
        old_result.feed(event)
    check = anthropic.Accumulator()
    for event in events:
        check.feed(event)
    assert check.result() == old_result.result()

    def request_before() -> None:
        before.to_request(messages)

    def request_now() -> None:
        anthropic.to_request(messages)

    cases: dict[str, Callable[[], None]] = {
        "to_request before": request_before,
        "to_request now": request_now,
        "feed before": lambda: feed_ignoring(before.Accumulator, events),
        "feed now": lambda: feed_ignoring(anthropic.Accumulator, events),
        "feed now, deltas used": lambda: feed_using(anthropic.Accumulator, events),
    }
    repeat = {name: (20 if name.startswith("to_request") else 200) for name in cases}
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(options.rounds):
        for name, run in cases.items():
            times[name].append(timed(run, repeat[name]))

    def ratio(now: str, then: str) -> str:
        ratios = [a / b for a, b in zip(times[now], times[then], strict=True)]
        return f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"

    per_event = len(events)
    print(f"{per_event} events per stream; {len(messages)} messages per transcript")
    print(f"{options.rounds} rounds; medians")
    print("| case | time | vs before |")
    print("| --- | ---: | ---: |")
    print(
        f"| to_request, 1,000 turns (before) | "
        f"{statistics.median(times['to_request before']) * 1e3:.2f} ms | 1.00x |"
    )
    print(
        f"| to_request, 1,000 turns (now) | "
        f"{statistics.median(times['to_request now']) * 1e3:.2f} ms | "
        f"{ratio('to_request now', 'to_request before')} |"
    )
    for name in ("feed before", "feed now", "feed now, deltas used"):
        per = statistics.median(times[name]) / per_event * 1e9
        print(f"| {name}, per event | {per:.0f} ns | {ratio(name, 'feed before')} |")


if __name__ == "__main__":
    main()
