"""What ``gemini.Accumulator.feed`` costs per chunk, now and before the deltas.

    PYTHONPATH=src python dev/bench_gemini_feed.py [--rounds 15]

The Accumulator of commit 2916c26 (before ``feed`` returned deltas) is
loaded from git beside the current one, and both take the same stream, in
the same process, taking turns within each round: a few hundred REST chunks
shaped like gemini-cli's recordings (thought summaries, an answer signed on
its first piece, signed calls, usage on every chunk). Three ways are timed:
the old ``feed``, the new ``feed`` with its deltas ignored, and the new
``feed`` with its deltas used as a UI would (text appended, calls noted).
The same is done for the chunks as google-genai objects, and for
``to_request`` on the project's benchmark transcript and on one that
replays Gemini's kept parts (see ``measure`` for how rounds are timed).
"""

from __future__ import annotations

import argparse
import base64
import importlib.util
import math
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from convtypes.dialects import TextDelta, ThinkingDelta, ToolCallDelta, ToolCallStart, gemini

BEFORE = "2916c26"


def load_before() -> Any:
    """The gemini module as it was at ``BEFORE``, as a sibling of the current one."""
    root = Path(__file__).resolve().parent.parent
    source = subprocess.run(
        ["git", "show", f"{BEFORE}:src/convtypes/dialects/gemini.py"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    name = "convtypes.dialects._gemini_before"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "convtypes.dialects"
    sys.modules[name] = module
    exec(compile(source, f"{BEFORE}:gemini.py", "exec"), module.__dict__)
    return module


def stream(pieces: int = 300) -> list[dict[str, Any]]:
    """A stream of about ``pieces`` chunks, one part each, usage on every one."""
    signature = base64.b64encode(bytes(range(256)) * 2).decode()
    words = "the quick brown fox jumps over the lazy dog while it rains in Oslo "
    usage = {"promptTokenCount": 12000, "totalTokenCount": 12000, "cachedContentTokenCount": 9000}
    parts: list[dict[str, Any]] = []
    parts += [{"text": f"**Step {n}** {words}", "thought": True} for n in range(40)]
    parts.append({"text": words, "thoughtSignature": signature})
    parts += [{"text": words[n % 20 :]} for n in range(pieces - 50)]
    for n in range(3):
        call = {"name": "read_file", "args": {"path": f"src/{n}.py", "lines": [1, 200]}}
        parts.append({"functionCall": call, "thoughtSignature": signature})
    chunks: list[dict[str, Any]] = []
    for number, part in enumerate(parts):
        used = {**usage, "thoughtsTokenCount": 400, "candidatesTokenCount": number}
        chunks.append(
            {
                "candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}],
                "usageMetadata": used,
                "modelVersion": "gemini-2.5-pro",
                "responseId": "r-1",
            }
        )
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    return chunks


def old_way(module: Any) -> Callable[[list[Any]], None]:
    def run(chunks: list[Any]) -> None:
        accumulator = module.Accumulator()
        for chunk in chunks:
            accumulator.feed(chunk)

    return run


def ignoring(chunks: list[Any]) -> None:
    accumulator = gemini.Accumulator()
    for chunk in chunks:
        accumulator.feed(chunk)


def using(chunks: list[Any]) -> None:
    accumulator = gemini.Accumulator()
    shown: list[str] = []
    calls: dict[int, list[str]] = {}
    for chunk in chunks:
        for delta in accumulator.feed(chunk):
            if isinstance(delta, (TextDelta, ThinkingDelta)):
                shown.append(delta.text)
            elif isinstance(delta, ToolCallStart):
                calls[delta.index] = []
            elif isinstance(delta, ToolCallDelta):
                calls[delta.index].append(delta.arguments)


def measure(
    ways: dict[str, Callable[[list[Any]], None]], values: list[Any], rounds: int, unit: str
) -> str:
    """A table of the ways' cost per item of ``values``, against the first way.

    The machine is shared and noisy, so a round times each way as the best
    of five runs, the ways taking turns in an order that alternates from
    round to round; a ratio is the median over the rounds of the per-round
    ratio (with its range), and "best vs before" the ratio of the best
    times of all rounds.
    """
    names = list(ways)
    times: dict[str, list[float]] = {name: [] for name in names}
    for number in range(rounds):
        order = names if number % 2 == 0 else names[::-1]
        for name in order:
            best = math.inf
            for _ in range(5):
                start = time.perf_counter()
                ways[name](values)
                best = min(best, time.perf_counter() - start)
            times[name].append(best)
    lines = [
        f"| way | µs per {unit} | time vs before (median, range) | best vs before |",
        "| --- | ---: | ---: | ---: |",
    ]
    base = times[names[0]]
    for name, spent in times.items():
        ratios = [value / old for value, old in zip(spent, base, strict=True)]
        each = statistics.median(spent) / len(values) * 1e6
        lines.append(
            f"| {name} | {each:.2f} | {statistics.median(ratios):.3f}x "
            f"({min(ratios):.2f}-{max(ratios):.2f}) | {min(spent) / min(base):.3f}x |"
        )
    return "\n".join(lines)


def request_ways(before: Any) -> dict[str, Callable[[list[Any]], None]]:
    def old(messages: list[Any]) -> None:
        before.to_request(messages)

    def new(messages: list[Any]) -> None:
        gemini.to_request(messages)

    return {"before": old, "now": new}


def replayed(turns: int = 300) -> list[Any]:
    """A transcript whose model turns are Gemini's own kept parts, as from_response gives."""
    import convtypes as ct

    chunks = stream(12)
    reply = gemini.Accumulator()
    for chunk in chunks:
        reply.feed(chunk)
    messages = reply.result()
    calls = messages[-1].tool_calls  # type: ignore[union-attr]
    transcript: list[Any] = [ct.SystemMessage(content="Be careful.")]
    for turn in range(turns):
        transcript.append(ct.UserMessage(content=f"Step {turn}."))
        transcript += messages
        transcript += [
            ct.ToolResultMessage(tool_use_id=f"call_{n}", content="done") for n in range(len(calls))
        ]
    return transcript


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=15)
    rounds = parser.parse_args().rounds
    before = load_before()
    chunks = stream()
    ways = {"before": old_way(before), "now, deltas ignored": ignoring, "now, deltas used": using}
    print(f"{len(chunks)} REST chunks (dicts), {rounds} rounds\n")
    print(measure(ways, chunks, rounds, "chunk"))
    from google.genai import types

    objects = [types.GenerateContentResponse.model_validate(chunk) for chunk in chunks]
    print(f"\n{len(objects)} chunks as google-genai objects, {rounds} rounds\n")
    print(measure(ways, objects, rounds, "chunk"))
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    import dialects as bench_dialects  # the project's to_request benchmark

    for title, transcript in (
        ("the to_request benchmark's 1,000-turn transcript", bench_dialects.transcript()),
        ("300 turns replaying Gemini's kept parts", replayed()),
    ):
        print(f"\nto_request, {title}, {rounds} rounds\n")
        print(measure(request_ways(before), transcript, rounds, "message"))


if __name__ == "__main__":
    main()
