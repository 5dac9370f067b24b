"""What exporting a transcript for a tracer costs, beside encoding it.

    python benchmarks/otel.py            # nine rounds
    python benchmarks/otel.py --quick    # three rounds (CI)

The transcript is a 1,000-message agent session: a system prompt, then
exchanges of a user turn (now and then with an image), an Anthropic reply
with signed thinking, a web search kept in its items and two calls, the
calls' results (one external), and a closing answer. ``convtypes.encode`` of
it (its JSON bytes) is the yardstick. Beside it: ``otel.input_messages``
(plain dicts, what a tracer that takes structured attributes gets), the same
serialised with ``msgspec.json.encode`` (what a tracer that takes strings
gets), and the same with a ``truncate=`` budget of 64 KiB, which must cut.
Ratios are taken within a round; the table gives the median with the range
across rounds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

try:
    import convtypes as ct
except ImportError:  # run from a checkout without an install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import convtypes as ct

from convtypes import otel

MESSAGES = 1_000


def _items(n: int) -> ct.ProviderOutputItemsMessage:
    return ct.ProviderOutputItemsMessage(
        protocol="anthropic",
        items=[
            {"type": "thinking", "thinking": f"Look up release {n}.", "signature": "U2ln" * 40},
            {
                "type": "server_tool_use",
                "id": f"srvtoolu_{n}",
                "name": "web_search",
                "input": {"query": f"release {n} notes"},
            },
            {
                "type": "web_search_tool_result",
                "tool_use_id": f"srvtoolu_{n}",
                "content": [
                    {
                        "type": "web_search_result",
                        "title": f"Release {n}",
                        "url": f"https://example.org/releases/{n}",
                        "encrypted_content": "RW5j" * 60,
                    }
                ],
            },
            {"type": "text", "text": "Let me check the changelog too."},
            {"type": "tool_use", "id": f"toolu_{n}_a", "name": "changelog", "input": {"v": n}},
            {"type": "tool_use", "id": f"toolu_{n}_b", "name": "diff", "input": {"from": n - 1}},
        ],
    )


def session(messages: int = MESSAGES) -> list[ct.Message]:
    """An agent session of exactly ``messages`` messages."""
    out: list[ct.Message] = [ct.SystemMessage(content="You are a careful research agent. " * 20)]
    n = 0
    while len(out) < messages:
        question = f"Question {n}: what changed in release {n}?"
        if n % 5 == 0:
            image = ct.ImageBase64Block(data="iVBORw0KGgo" * 200, media_type="image/png")
            out.append(ct.UserMultimodalMessage(content=(ct.TextBlock(text=question), image)))
        else:
            out.append(ct.UserMessage(content=question))
        out.append(_items(n))
        out.append(
            ct.AssistantMessage(
                content="Let me check the changelog too.",
                tool_calls=(
                    ct.ToolCall(id=f"toolu_{n}_a", name="changelog", arguments={"v": n}),
                    ct.ToolCall(id=f"toolu_{n}_b", name="diff", arguments={"from": n - 1}),
                ),
                thinking=(ct.ThinkingBlock(text=f"Look up release {n}.", signature="U2ln" * 40),),
            )
        )
        out.append(
            ct.ToolResultMessage(
                tool_use_id=f"toolu_{n}_a", content="Notes... " * 30, provenance="external"
            )
        )
        out.append(ct.ToolResultMessage(tool_use_id=f"toolu_{n}_b", content="Diff... " * 40))
        out.append(ct.AssistantMessage(content=f"Release {n} fixed the cache. " * 5))
        n += 1
    return out[:messages]


def _time(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def run(quick: bool = False) -> str:
    rounds = 3 if quick else 9
    repeat = 3 if quick else 7
    messages = session()
    assert len(messages) == MESSAGES
    encode = msgspec.json.encode
    cases: list[tuple[str, Callable[[], object]]] = [
        ("`convtypes.encode` (the yardstick)", lambda: ct.encode(messages)),
        ("`otel.input_messages`", lambda: otel.input_messages(messages)),
        ("`otel.input_messages`, then JSON", lambda: encode(otel.input_messages(messages))),
        (
            "`otel.input_messages(truncate=65536)`, then JSON",
            lambda: encode(otel.input_messages(messages, truncate=65536)),
        ),
        ("`otel.left_out`", lambda: otel.left_out(messages)),
    ]
    times: dict[str, list[float]] = {label: [] for label, _ in cases}
    for _ in range(rounds):
        for label, fn in cases:
            times[label].append(_time(fn, repeat))
    base = times[cases[0][0]]
    size = len(ct.encode(messages))
    exported = len(encode(otel.input_messages(messages)))
    lines = [
        f"A {len(messages):,}-message agent session ({size / 1e6:.2f} MB as convtypes "
        f"writes it, {exported / 1e6:.2f} MB as the conventions' input messages), exported "
        f"for a tracer, beside `convtypes.encode` of it. Medians of {rounds} interleaved "
        "rounds (each the best of several runs), the range in brackets.",
        "",
        "| operation | time | vs encode |",
        "| --- | ---: | ---: |",
    ]
    for label, _ in cases:
        ratios = [t / b for t, b in zip(times[label], base, strict=True)]
        lines.append(
            f"| {label} | {statistics.median(times[label]) * 1e3:.2f} ms | "
            f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}\N{EN DASH}{max(ratios):.2f}) |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    print(run(parser.parse_args().quick))


if __name__ == "__main__":
    main()
