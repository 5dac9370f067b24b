"""Benchmark reading a JSONL oplog with iter_jsonl.

    python benchmarks/jsonl.py            # 50 MB for speed; memory at 5 and 50 MB
    python benchmarks/jsonl.py --quick    # 5 MB for speed; memory at 0.5 and 5 MB

Prints markdown. Speed: iter_jsonl against the loop a user would write by
hand, ``for line in f: decode_message(line)``, over the same seeded oplog
(the small messages of corpus.py), in one process; the two take turns
within each round (in alternating order), and the ratio is the median of the
per-round ratios with their range. Memory: each size is read in a fresh
process, which reports its peak resident size and the tracemalloc peak of
the reading loop. ``run(quick)`` returns the markdown, for run.py.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402

import convtypes as ct  # noqa: E402

MB = 1_000_000
BLOCK = 10_000  # messages generated per seed


def write_oplog(path: Path, target_bytes: int) -> int:
    """Write a seeded oplog of about ``target_bytes``; return its message count."""
    count, size, seed = 0, 0, 100
    with path.open("wb") as out:
        while size < target_bytes:
            lines = corpus.small_messages(BLOCK, seed=seed)
            for line in lines:
                out.write(line + b"\n")
                size += len(line) + 1
                count += 1
                if size >= target_bytes:
                    break
            seed += 1
    return count


def bare_loop(path: Path) -> int:
    """What a user writes by hand: no line numbers, no blank lines, no offsets."""
    count = 0
    with path.open("rb") as file:
        for line in file:
            ct.decode_message(line)
            count += 1
    return count


def with_iter_jsonl(path: Path) -> int:
    count = 0
    for _ in ct.iter_jsonl(path):
        count += 1
    return count


def with_iter_jsonl_lenient(path: Path) -> int:
    count = 0
    for _ in ct.iter_jsonl(path, lenient=True):
        count += 1
    return count


READERS: dict[str, Callable[[Path], int]] = {
    "bare loop: `for line in f: decode_message(line)`": bare_loop,
    "`iter_jsonl(path)`": with_iter_jsonl,
    "`iter_jsonl(path, lenient=True)`": with_iter_jsonl_lenient,
}
BASE = next(iter(READERS))


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.3f}x ({min(values):.3f} to {max(values):.3f})"


@dataclass
class Timing:
    mbps: float  # at the median time
    ratios: list[float]  # time over the bare loop's, round by round


def speed(path: Path, rounds: int) -> dict[str, Timing]:
    """Seconds per reader per round, taking turns; the order flips every round."""
    names = list(READERS)
    expected = READERS[BASE](path)  # warm the page cache; every reader must agree
    for name in names:
        assert READERS[name](path) == expected, name
    seconds: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(rounds):
        for name in names if round_ % 2 == 0 else reversed(names):
            start = time.perf_counter()
            READERS[name](path)
            seconds[name].append(time.perf_counter() - start)
    size = path.stat().st_size
    return {
        name: Timing(
            size / statistics.median(seconds[name]) / MB,
            [s / b for s, b in zip(seconds[name], seconds[BASE], strict=True)],
        )
        for name in names
    }


_PEAK = """
import json, sys, tracemalloc
import convtypes as ct
try:
    import resource
except ImportError:
    resource = None

def rss():
    if resource is None:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024

path = sys.argv[1]
baseline = rss()
count = sum(1 for _ in ct.iter_jsonl(path))
after = rss()
tracemalloc.start()
sum(1 for _ in ct.iter_jsonl(path))
traced = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
print(json.dumps({"messages": count, "baseline": baseline, "rss": after, "traced": traced}))
"""


def peak_memory(path: Path) -> dict[str, int | None]:
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, str(path)], capture_output=True, text=True, check=True
    )
    result: dict[str, int | None] = json.loads(done.stdout)
    return result


def _mb(value: int | None) -> str:
    return "n/a" if value is None else f"{value / MB:.1f} MB"


def run(quick: bool) -> str:
    """Measure, and return the results as markdown."""
    speed_size = 5 * MB if quick else 50 * MB
    memory_sizes = (MB // 2, 5 * MB) if quick else (5 * MB, 50 * MB)
    rounds = 3 if quick else 15
    out: list[str] = []
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "oplog.jsonl"
        count = write_oplog(path, speed_size)
        timings = speed(path, rounds)
        out.append(
            f"### iter_jsonl: an oplog of {count:,} small messages "
            f"({path.stat().st_size / MB:.1f} MB), {rounds} rounds\n"
        )
        out.append("| reader | MB/s | time vs the bare loop |")
        out.append("| --- | ---: | ---: |")
        for name, row in timings.items():
            out.append(f"| {name} | {row.mbps:.0f} | {_spread(row.ratios)} |")
        path.unlink()

        peaks = []
        for size in memory_sizes:
            path = Path(directory) / f"oplog-{size}.jsonl"
            write_oplog(path, size)
            peaks.append((path.stat().st_size, peak_memory(path)))
            path.unlink()
    out.append("\n### iter_jsonl: peak memory as the oplog grows tenfold\n")
    out.append(
        "Reading each oplog in a fresh process: how much the process's resident "
        "memory grew while it read (beyond what importing convtypes took), and "
        "the most the reader held at once (tracemalloc).\n"
    )
    out.append("| oplog | messages | resident memory grown while reading | tracemalloc peak |")
    out.append("| ---: | ---: | ---: | ---: |")
    for size, peak in peaks:
        baseline, rss = peak["baseline"], peak["rss"]
        grown = None if baseline is None or rss is None else rss - baseline
        traced = peak["traced"] or 0
        out.append(
            f"| {size / MB:.1f} MB | {peak['messages']:,} | {_mb(grown)} | "
            f"{traced / 1024:,.0f} KB |"
        )

    ratios = timings["`iter_jsonl(path)`"].ratios
    ratio = statistics.median(ratios)
    small, large = (peak["traced"] or 0 for _, peak in peaks)
    # Flat: ten times the data adds less than a tenth to the peak (and a
    # batch of lines is a quarter of a megabyte).
    flat = large <= max(small * 1.1, small + 256 * 1024)
    out.append("\n### Targets\n")
    out.append("| target | measured | met |")
    out.append("| --- | --- | --- |")
    out.append(
        f"| iter_jsonl within 10% of the bare loop | {_spread(ratios)} | "
        f"{'yes' if ratio <= 1.10 else 'no'} |"
    )
    out.append(
        f"| peak memory flat as the oplog grows 10x | tracemalloc peak "
        f"{small / 1024:,.0f} KB at 1x, {large / 1024:,.0f} KB at 10x | "
        f"{'yes' if flat else 'no'} |"
    )
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="5 MB, three rounds (CI)")
    print(run(parser.parse_args().quick), end="")


if __name__ == "__main__":
    main()
