"""What the steps between two turns cost: trim, open_calls, close_open_calls.

    python benchmarks/between.py            # nine rounds
    python benchmarks/between.py --quick    # three rounds (CI)

The transcript is a long agent session: a system prompt, then exchanges of a
user turn, an assistant turn with two parallel tool calls (one answered by
position), their results, and a closing answer: 10,001 messages.

``trim`` is set beside the least any trim must do: a plain loop that sums
``count`` over the messages it keeps, from the newest back, and stops at the
budget (it finds no place to cut and checks nothing). Two counts: the
default ``estimate_tokens`` (one encode per message), and a constant one,
which leaves trim's own walk bare. Two budgets: one that keeps about half
the transcript, and one that keeps it all. Ratios are taken within a round;
the table gives the median with the range across rounds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

try:
    import convtypes as ct
except ImportError:  # run from a checkout without an install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import convtypes as ct

EXCHANGES = 2_000


def session(exchanges: int = EXCHANGES) -> list[ct.Message]:
    out: list[ct.Message] = [ct.SystemMessage(content="You are a careful research agent. " * 20)]
    for n in range(exchanges):
        out.append(ct.UserMessage(content=f"Question {n}: what changed in release {n}?"))
        out.append(
            ct.AssistantMessage(
                content="Let me look that up.",
                tool_calls=(
                    ct.ToolCall(id=f"call_{n}_a", name="search", arguments={"q": f"release {n}"}),
                    ct.ToolCall(name="changelog", arguments={"version": n, "full": True}),
                ),
            )
        )
        out.append(ct.ToolResultMessage(tool_use_id=f"call_{n}_a", content="Notes... " * 30))
        out.append(ct.ToolResultMessage(tool_use_id="call_1", content="Changes... " * 40))
        out.append(ct.AssistantMessage(content=f"Release {n} fixed the cache. " * 5))
    return out


def plain_loop(messages: list[ct.Message], budget: int, count: Callable[[Any], int]) -> int:
    """Sum ``count`` from the newest message back until the budget is spent."""
    total = 0
    kept = 0
    for message in reversed(messages):
        total += count(message)
        if total > budget:
            break
        kept += 1
    return kept


def _time(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def run(quick: bool = False) -> str:
    rounds = 3 if quick else 9
    repeat = 2 if quick else 5
    messages = session()
    whole = sum(ct.estimate_tokens(m) for m in messages)

    def one(message: object) -> int:
        return 1

    cases = [
        ("estimate_tokens, keeps half", ct.estimate_tokens, whole // 2),
        ("estimate_tokens, keeps all", ct.estimate_tokens, whole),
        ("constant count, keeps half", one, len(messages) // 2),
        ("constant count, keeps all", one, len(messages)),
    ]
    lines = [
        f"`trim` of a {len(messages):,}-message agent session, beside a plain loop that "
        "sums `count` from the newest message back until the budget is spent (the least "
        "any trim does: it finds no place to cut). Medians of "
        f"{rounds} interleaved rounds, the range in brackets.",
        "",
        "| count, budget | plain loop | trim | trim vs loop |",
        "| --- | ---: | ---: | ---: |",
    ]
    for label, count, budget in cases:
        loop_times: list[float] = []
        trim_times: list[float] = []
        for _ in range(rounds):
            loop_times.append(_time(lambda b=budget, c=count: plain_loop(messages, b, c), repeat))
            trim_times.append(
                _time(lambda b=budget, c=count: ct.trim(messages, b, count=c), repeat)
            )
        ratios = [t / b for t, b in zip(trim_times, loop_times, strict=True)]
        lines.append(
            f"| {label} | {statistics.median(loop_times) * 1e3:.2f} ms | "
            f"{statistics.median(trim_times) * 1e3:.2f} ms | {statistics.median(ratios):.2f}x "
            f"({min(ratios):.2f}\N{EN DASH}{max(ratios):.2f}) |"
        )

    # The cancel step on the same session, its last turn cut after the calls.
    cut = messages[:-3]
    opened = _time(lambda: ct.open_calls(cut), repeat)
    closed = _time(lambda: ct.close_open_calls(cut, "cancelled"), repeat)
    lines += [
        "",
        f"On the same session cut after its last calls: `open_calls` {opened * 1e3:.2f} ms, "
        f"`close_open_calls` {closed * 1e3:.2f} ms (one walk over {len(cut):,} messages).",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    print(run(parser.parse_args().quick))


if __name__ == "__main__":
    main()
