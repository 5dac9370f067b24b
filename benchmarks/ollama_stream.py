"""What the deltas cost in ``convtypes.dialects.ollama.Accumulator.feed``.

    python benchmarks/ollama_stream.py           # 21 rounds
    python benchmarks/ollama_stream.py --quick   # 3 rounds

The stream is a seeded reply of a thinking model, as Ollama sends it: 120
chunks of thinking, 300 of text, two tool calls whole, and the last chunk
with the counts (423 chunks). Three ways of feeding it run side by side,
taking turns within each round:

- ``no deltas``: the dialect's own feed with the delta objects taken out
  (a subclass here whose ``_message`` is the dialect's without them), the
  cost the Accumulator had before ``feed`` returned anything;
- ``deltas ignored``: ``feed`` as it is, its return value dropped;
- ``deltas used``: ``feed`` as it is, each delta shown (text joined, as a
  UI would print it).

All three must end with the same reply. A ratio is the median of the
per-round ratios to ``no deltas``, with their range.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

import msgspec

from convtypes.dialects import (
    StreamError,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStart,
    ollama,
)
from convtypes.dialects._json import plain
from convtypes.dialects.ollama import _Malformed


def stream() -> list[dict[str, Any]]:
    head = {"model": "qwen3:8b", "created_at": "2025-06-01T10:00:00.000000Z"}
    events: list[dict[str, Any]] = []
    for n in range(120):
        part: dict[str, Any] = {
            "role": "assistant",
            "content": "",
            "thinking": f"step {n} of the reasoning ",
        }
        events.append({**head, "message": part, "done": False})
    for n in range(300):
        part = {"role": "assistant", "content": f"word{n} "}
        events.append({**head, "message": part, "done": False})
    for n in range(2):
        call: dict[str, Any] = {
            "id": f"call_{n:08x}",
            "function": {"index": n, "name": "search", "arguments": {"q": f"item {n}", "k": 5}},
        }
        part = {"role": "assistant", "content": "", "tool_calls": [call]}
        events.append({**head, "message": part, "done": False})
    last = {**head, "message": {"role": "assistant", "content": ""}, "done": True}
    events.append({**last, "done_reason": "stop", "prompt_eval_count": 900, "eval_count": 700})
    return events


class NoDeltas(ollama.Accumulator):
    """The dialect's feed with the deltas taken out, and nothing else changed.

    ``_chunk`` and ``_message`` are the dialect's own, less every line that
    makes or collects a delta: the work ``feed`` did before it returned any.
    """

    def _take(self, number: int, event: object) -> Any:
        try:
            self._chunk(plain(event, "a chunk"))
        except _Malformed as err:
            raise StreamError(f"chunk {number}: {err}", number, event) from None
        return None

    def _chunk(self, data: dict[str, Any]) -> Any:
        if self._finished:
            raise _Malformed("more after the last chunk (done: true)")
        error = data.get("error")
        if error is not None:
            raise _Malformed("error")
        done = data.get("done", False)
        if not isinstance(done, bool):
            raise _Malformed("done")
        if self._model is None:
            model = data.get("model")
            if isinstance(model, str):
                self._model = model
        message = data.get("message")
        if message is not None:
            if not isinstance(message, dict):
                raise _Malformed("message")
            self._message(message, None)
        if done:
            reason = data.get("done_reason")
            if reason is not None and not isinstance(reason, str):
                raise _Malformed("reason")
            self._reason = reason
            self._last = data
            self._finished = True
        return None

    def _message(self, message: dict[str, Any], deltas: None) -> None:  # type: ignore[override]
        for key, value in message.items():
            if value is None:
                continue
            if key == "content":
                if not isinstance(value, str):
                    raise _Malformed("content")
                if value:
                    self._content.append(value)
            elif key == "thinking":
                if not isinstance(value, str):
                    raise _Malformed("thinking")
                if value:
                    self._thinking.append(value)
            elif key == "role":
                if not isinstance(value, str):
                    raise _Malformed("role")
                self._role = value
            elif key == "tool_calls":
                if not isinstance(value, list):
                    raise _Malformed("tool_calls")
                for call in value:
                    self._call(call, None)
            else:
                self._other(key, value)


def no_deltas(events: list[dict[str, Any]]) -> Any:
    accumulator = NoDeltas()
    for event in events:
        accumulator.feed(event)
    return accumulator


def deltas_ignored(events: list[dict[str, Any]]) -> Any:
    accumulator = ollama.Accumulator()
    for event in events:
        accumulator.feed(event)
    return accumulator


def deltas_used(events: list[dict[str, Any]]) -> Any:
    accumulator = ollama.Accumulator()
    shown: list[str] = []
    for event in events:
        for delta in accumulator.feed(event):
            if isinstance(delta, (TextDelta, ThinkingDelta)):
                shown.append(delta.text)
            elif isinstance(delta, ToolCallStart):
                shown.append(delta.name)
            elif isinstance(delta, ToolCallDelta):
                shown.append(delta.arguments)
    assert "".join(shown)
    return accumulator


PEERS: dict[str, Callable[[list[dict[str, Any]]], Any]] = {
    "no deltas": no_deltas,
    "deltas ignored": deltas_ignored,
    "deltas used": deltas_used,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="3 rounds instead of 21")
    args = parser.parse_args()
    rounds = 3 if args.quick else 21
    repeats = 30
    events = stream()
    # Only feeding is timed; the reply, made once at the end, is checked here.
    replies = {name: peer(events).reply() for name, peer in PEERS.items()}
    first = next(iter(replies.values()))
    assert all(reply == first for reply in replies.values()), "the peers disagree"
    times: dict[str, list[float]] = {name: [] for name in PEERS}
    for _ in range(rounds):
        for name, peer in PEERS.items():
            start = time.process_time_ns()
            for _ in range(repeats):
                peer(events)
            times[name].append((time.process_time_ns() - start) / repeats / len(events))
    print(
        f"Stream: {len(events)} chunks; {rounds} rounds of {repeats} streams; Python "
        f"{platform.python_version()}, msgspec {msgspec.__version__}."
    )
    print()
    print("| feed | ns per chunk | time vs no deltas |")
    print("| --- | ---: | ---: |")
    base = times["no deltas"]
    for name, values in times.items():
        ratios = [value / ref for value, ref in zip(values, base, strict=True)]
        print(
            f"| {name} | {statistics.median(values):,.0f} | {statistics.median(ratios):.2f}x "
            f"({min(ratios):.2f} to {max(ratios):.2f}) |"
        )


if __name__ == "__main__":
    main()
