"""What identity costs: canonical bytes and addresses beside encode; == and hash before and after.

    python benchmarks/identity.py            # nine rounds
    python benchmarks/identity.py --quick    # three rounds (CI)

Two corpora from corpus.py, the codec benchmark's own: the 1 MB transcript
(agent sessions: signed thinking, tool calls whose arguments hold a float,
long tool results, images, provider items) and an oplog of 10,000 small
messages. Each round decodes fresh values, so every call is the value's
first (nothing is cached anyway), and times, per message: ``encode``,
``canonical``, ``address``, and SHA-256 of the encoded bytes alone, for
scale. Then ``==`` (two transcripts decoded apart, compared message by
message) and ``hash`` of every message, today and at the commit before this
work (imported beside today's code, see _baseline.py). Ratios are taken
within a round; the table gives the median with the range across rounds.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

try:
    import convtypes as ct
except ImportError:  # run from a checkout without an install
    sys.path.insert(0, str(HERE.parent / "src"))
    import convtypes as ct

import _baseline  # noqa: E402
import corpus  # noqa: E402

BEFORE = "8e1f4b3"
"""The last commit before canonical bytes and addresses (issue 35)."""


def _time(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}x ({min(values):.2f}\N{EN DASH}{max(values):.2f})"


def _corpora(quick: bool) -> dict[str, bytes]:
    oplog = b"[" + b",".join(corpus.small_messages(2_000 if quick else 10_000)) + b"]"
    return {"1 MB transcript": corpus.transcript(1_000_000), "oplog": oplog}


def run(quick: bool = False) -> str:
    rounds = 3 if quick else 9
    repeat = 2 if quick else 7
    before = _baseline.load(BEFORE, "convtypes_identity_before")
    lines = [
        "Per message, each value's first call; medians of "
        f"{rounds} interleaved rounds, the range in brackets. SHA-256 is of the encoded "
        "bytes, to show what hashing alone costs.",
        "",
        "| corpus | messages | encode | canonical | address | SHA-256 alone "
        "| canonical vs encode | address vs encode |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    equality = [
        "",
        f"`==` and `hash` per message, today and at commit {BEFORE} (before this work"
        + ("" if before is not None else "; not found here: no git history")
        + "). `==` compares two transcripts decoded apart, so no message is compared "
        "with itself.",
        "",
        "| corpus | == before | == now | == now vs before | hash before | hash now "
        "| hash now vs before |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, data in _corpora(quick).items():
        count = len(ct.decode_messages(data))
        times: dict[str, list[float]] = {
            key: [] for key in ("encode", "canonical", "address", "sha", "eq", "hash")
        }
        then: dict[str, list[float]] = {"eq": [], "hash": []}
        for _ in range(rounds):
            _round(data, before, times, then, repeat)
        lines.append(_row(name, count, times))
        equality.append(_equality_row(name, count, times, then))
    return "\n".join(lines + equality)


def _first_calls(
    data: bytes, fn: Callable[[list[Any]], object], repeat: int, package: Any = ct
) -> float:
    """The best of ``repeat`` runs of ``fn``, each over values freshly decoded from ``data``."""
    best = float("inf")
    for _ in range(repeat):
        values = package.decode_messages(data)
        gc.collect()  # what decoding left, not the timed call's to pay for
        start = time.perf_counter()
        fn(values)
        best = min(best, time.perf_counter() - start)
    return best


def _round(
    data: bytes,
    before: Any,
    times: dict[str, list[float]],
    then: dict[str, list[float]],
    repeat: int,
) -> None:
    """One round: today's calls, each on values it has not seen, and the baseline's."""
    times["encode"].append(_first_calls(data, lambda ms: [ct.encode(m) for m in ms], repeat))
    times["canonical"].append(_first_calls(data, lambda ms: [ct.canonical(m) for m in ms], repeat))
    times["address"].append(_first_calls(data, lambda ms: [ct.address(m) for m in ms], repeat))
    written = [ct.encode(m) for m in ct.decode_messages(data)]
    sha = hashlib.sha256
    times["sha"].append(_time(lambda: [sha(w).hexdigest() for w in written], repeat))
    first, other = ct.decode_messages(data), ct.decode_messages(data)
    times["eq"].append(_time(lambda: first == other, repeat))
    times["hash"].append(_first_calls(data, lambda ms: [hash(m) for m in ms], repeat))
    if before is not None:
        old, older = before.decode_messages(data), before.decode_messages(data)
        then["eq"].append(_time(lambda: old == older, repeat))
        then["hash"].append(_first_calls(data, lambda ms: [hash(m) for m in ms], repeat, before))


def _cell(values: list[float], count: int) -> str:
    return f"{statistics.median(values) / count * 1e6:.2f} µs" if values else "n/a"


def _ratio(values: list[float], base: list[float]) -> str:
    if not base:
        return "n/a"
    return _spread([a / b for a, b in zip(values, base, strict=True)])


def _row(name: str, count: int, times: dict[str, list[float]]) -> str:
    return (
        f"| {name} | {count:,} | {_cell(times['encode'], count)} "
        f"| {_cell(times['canonical'], count)} | {_cell(times['address'], count)} "
        f"| {_cell(times['sha'], count)} | {_ratio(times['canonical'], times['encode'])} "
        f"| {_ratio(times['address'], times['encode'])} |"
    )


def _equality_row(
    name: str, count: int, times: dict[str, list[float]], then: dict[str, list[float]]
) -> str:
    return (
        f"| {name} | {_cell(then['eq'], count)} | {_cell(times['eq'], count)} "
        f"| {_ratio(times['eq'], then['eq'])} | {_cell(then['hash'], count)} "
        f"| {_cell(times['hash'], count)} | {_ratio(times['hash'], then['hash'])} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    print(run(parser.parse_args().quick))


if __name__ == "__main__":
    main()
