"""Benchmark convtypes against what its users would otherwise pick.

    python benchmarks/run.py                                # the full run, to stdout
    python benchmarks/run.py --output docs/performance.md   # regenerate the docs page
    python benchmarks/run.py --quick                        # smallest sizes, one round (CI)
    python benchmarks/run.py --recorded PATH/TO/sdk_fixtures  # and the SDKs' recorded streams

Prints the performance page as markdown. Every codec peer is measured in a
fresh process of its own (see _worker.py), the peers take turns within each
round (A B C, A B C...), and ratios are taken within a round, then
summarised as the median with the range across rounds. Then the tables of
the other benchmarks, each run side by side in one process: building values
in Python (build.py), reading and appending oplog files (jsonl.py), fencing
pages (fence.py), building provider requests (dialects.py), feeding
provider streams (feed.py), feeding them as the SDKs' objects beside the
SDKs' own accumulators (streaming.py), trimming a transcript and closing its
calls (between.py), folding and reading conversation ops (sync.py),
canonical bytes, addresses and equality (identity.py), exporting a
transcript for a tracer (otel.py), and rendering chat templates
(templates.py). Needs the
``bench`` group (pydantic, orjson, the provider SDKs, pydantic-ai, LiteLLM),
and the ``test`` group for the chat-template table (transformers); a table
whose peer is missing says so.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402

BASE = "convtypes"
PEERS = [
    "convtypes",
    "convtypes-lenient",
    "bare-msgspec",
    "pydantic-v2",
    "stdlib-json",
    "msgspec-dicts",
    "orjson-dicts",
]
FULL_SIZES = {"1 MB": 1_000_000, "10 MB": 10_000_000, "100 MB": 100_000_000}
REPEATS = {"1 MB": 15, "10 MB": 5, "100 MB": 2, "oplog": 3}


def _worker(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(HERE / "_worker.py"), *args],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _available(peers: list[str]) -> list[str]:
    usable = []
    for peer in peers:
        probe = subprocess.run(
            [sys.executable, "-c", f"import peers; peers.load({peer!r})[0](b'[]')"],
            capture_output=True,
            cwd=HERE,
            check=False,
        )
        if probe.returncode == 0:
            usable.append(peer)
        else:
            print(f"<!-- skipped {peer}: it does not load here -->")
    return usable


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}x ({min(values):.2f}\N{EN DASH}{max(values):.2f})"


def measure(name: str, path: Path, peers: list[str], rounds: int) -> dict[str, Any]:
    """Interleaved timings for one file: per peer, per round, decode and encode."""
    size = path.stat().st_size
    times: dict[str, list[dict[str, float]]] = {peer: [] for peer in peers}
    for _ in range(rounds):
        for peer in peers:
            times[peer].append(_worker("timing", peer, str(path), str(REPEATS[name])))
    rows = {}
    for peer in peers:
        row: dict[str, Any] = {}
        for op in ("decode", "encode"):
            seconds = [r[op] for r in times[peer]]
            row[f"{op}_mbps"] = size / statistics.median(seconds) / 1e6
            # How many times longer the peer took than convtypes, round by round.
            row[f"{op}_ratio"] = [
                r[op] / b[op] for r, b in zip(times[peer], times[BASE], strict=True)
            ]
        rows[peer] = row
    return {"size": size, "rows": rows}


def print_timings(name: str, result: dict[str, Any]) -> None:
    print(f"\n### {name} ({result['size'] / 1e6:.1f} MB)\n")
    print(
        "| peer | decode MB/s | encode MB/s | decode time vs convtypes | encode time vs convtypes |"
    )
    print("| --- | ---: | ---: | ---: | ---: |")
    for peer, row in result["rows"].items():
        print(
            f"| {peer} | {row['decode_mbps']:.0f} | {row['encode_mbps']:.0f} | "
            f"{_spread(row['decode_ratio'])} | {_spread(row['encode_ratio'])} |"
        )


def memory(path: Path, peers: list[str]) -> dict[str, dict[str, Any]]:
    return {peer: _worker("memory", peer, str(path)) for peer in peers}


def print_memory(name: str, result: dict[str, dict[str, Any]]) -> None:
    plain = result["msgspec-dicts"]["peak"] if "msgspec-dicts" in result else None
    print(f"\n### Decoded memory, {name} (tracemalloc peak)\n")
    print("| peer | bytes per message | vs plain dicts |")
    print("| --- | ---: | ---: |")
    for peer, row in result.items():
        ratio = f"{row['peak'] / plain:.2f}x" if plain else "n/a"
        print(f"| {peer} | {row['peak'] / row['messages']:,.0f} | {ratio} |")


_IMPORT_LINE = re.compile(r"import time:\s+(\d+)\s+\|\s+(\d+)\s+\|\s+(\s*)(\S+)")


def _import_ms(module: str) -> float:
    """Cumulative import time (ms) of ``module`` in a fresh process.

    Bytecode is allowed to be written (and is, by the first run): an
    installed package imports from cached bytecode, and an environment with
    PYTHONDONTWRITEBYTECODE set would otherwise time the compiler.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    for line in done.stderr.splitlines():
        match = _IMPORT_LINE.match(line)
        if match and not match[3] and match[4] == module:
            return int(match[2]) / 1000
    raise RuntimeError(f"no import time for {module}")


def import_times(runs: int) -> tuple[float, float]:
    """Median import time (ms) of msgspec alone, and of convtypes with msgspec.

    Each is measured in its own fresh process, alternating, so that both
    include everything they pull in (typing, enum, re...).
    """
    msgspec_ms, convtypes_ms = [], []
    _import_ms("convtypes")  # writes the bytecode, if it was not there
    for _ in range(runs):
        msgspec_ms.append(_import_ms("msgspec"))
        convtypes_ms.append(_import_ms("convtypes"))
    return statistics.median(msgspec_ms), statistics.median(convtypes_ms)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import msgspec

    return (
        f"{cpu}; Python {platform.python_version()}; msgspec {msgspec.__version__}; "
        f"{platform.system()} {platform.release()}"
    )


def targets(
    results: dict[str, Any], memory_result: dict[str, Any] | None, imports: tuple[float, float]
) -> None:
    print("\n### Targets\n")
    print("| target | measured | met |")
    print("| --- | --- | --- |")

    def line(what: str, value: str, ok: bool) -> None:
        print(f"| {what} | {value} | {'yes' if ok else 'no'} |")

    for name, result in results.items():
        rows = result["rows"]
        if "bare-msgspec" in rows:
            for op in ("decode", "encode"):
                ratio = statistics.median([1 / r for r in rows["bare-msgspec"][f"{op}_ratio"]])
                line(
                    f"{name}: {op} within 5% of bare msgspec",
                    f"convtypes takes {ratio:.2f}x",
                    ratio <= 1.05,
                )
        if "pydantic-v2" in rows:
            dec = statistics.median(rows["pydantic-v2"]["decode_ratio"])
            enc = statistics.median(rows["pydantic-v2"]["encode_ratio"])
            line(f"{name}: decode >= 3.5x faster than pydantic", f"{dec:.1f}x", dec >= 3.5)
            line(f"{name}: encode >= 6x faster than pydantic", f"{enc:.1f}x", enc >= 6)
        if "orjson-dicts" in rows:
            speed = statistics.median(rows["orjson-dicts"]["encode_ratio"])
            line(f"{name}: encode >= 0.45x orjson's speed", f"{speed:.2f}x", speed >= 0.45)
        if "convtypes-lenient" in rows:
            cost = statistics.median([r for r in rows["convtypes-lenient"]["decode_ratio"]])
            line(f"{name}: lenient decode <= 1.2x strict", f"{cost:.2f}x", cost <= 1.2)
    if "1 MB" in results and "100 MB" in results:
        small = results["1 MB"]["rows"][BASE]["decode_mbps"]
        large = results["100 MB"]["rows"][BASE]["decode_mbps"]
        line(
            "100 MB decode MB/s within 20% of 1 MB",
            f"{large:.0f} vs {small:.0f} MB/s",
            large >= 0.8 * small,
        )
    if memory_result and "msgspec-dicts" in memory_result:
        ratio = memory_result[BASE]["peak"] / memory_result["msgspec-dicts"]["peak"]
        line("decoded memory <= 0.85x plain dicts", f"{ratio:.2f}x", ratio <= 0.85)
    added = imports[1] - imports[0]
    line("import convtypes adds <= 10 ms to msgspec", f"{added:.1f} ms", added <= 10)


PAGE_HEAD = """# Performance

Every figure here comes from one run of `python benchmarks/run.py --output
docs/performance.md --recorded PATH/TO/sdk_fixtures` (after `pip install .
--group bench --group test`; the recorded streams are the providers' SDK
repositories' own, not kept in this one), on the machine
named below: a shared, noisy machine, so each ratio is the median of several
interleaved rounds, with its range. Peers run side by side and take turns
within each round; a codec peer runs in a fresh process of its own.
"bare-msgspec" is the same wire types as plain msgspec Structs without any
of convtypes' checks; "msgspec-dicts" and "orjson-dicts" decode to plain
dicts with no types at all. "Before" is commit a17766b, the last before
this round of work (requests that own their copies, the steps between
turns, three more dialects, more local-model styles), imported beside
today's code (`benchmarks/_baseline.py`).
"""

# The other benchmarks, each run side by side in one process, with the
# heading its table goes under.
SECTIONS = (
    ("build", "Building values in Python"),
    ("jsonl", "Transcript files"),
    ("fence", "The fence"),
    ("dialects", "Provider requests: to_request"),
    ("replies", "Provider requests made of replies: the cost of the copy"),
    ("feed", "Provider streams: Accumulator.feed"),
    ("streaming", "Provider streams: the SDKs' objects, beside the SDKs' own accumulators"),
    ("between", "Between turns: trim and closing calls"),
    ("sync", "Sync: folding and reading conversation ops"),
    ("identity", "Identity: canonical bytes, addresses and equality"),
    ("otel", "Exporting to a tracer: convtypes.otel"),
    ("templates", "Local models: chat templates"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smallest size, one round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--output", type=Path, help="write the page here instead of stdout")
    parser.add_argument(
        "--recorded",
        type=Path,
        help="the SDKs' recorded streams (sdk_fixtures), for the streaming table",
    )
    args = parser.parse_args()
    if args.output is None:
        report(args)
        return
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        report(args)
    args.output.write_text(buffer.getvalue(), encoding="utf-8")


def report(args: argparse.Namespace) -> None:
    rounds = 1 if args.quick else args.rounds
    sizes = {"1 MB": FULL_SIZES["1 MB"]} if args.quick else FULL_SIZES
    oplog_count = 10_000 if args.quick else 100_000

    print(PAGE_HEAD)
    print(f"Machine: {machine()}. Rounds: {rounds}.")
    print("\n## Encoding and decoding transcripts")
    peers = _available(PEERS)
    with tempfile.TemporaryDirectory() as tmp:
        paths = corpus.write(Path(tmp), sizes, oplog_count)
        results = {}
        for name in [*sizes, "oplog"]:
            label = (
                name
                if name != "oplog"
                else f"oplog ({oplog_count:,} small messages, one decode per line)"
            )
            results[name] = measure(name, paths[name], peers, rounds)
            print_timings(label, results[name])
        memory_name = "1 MB" if args.quick else "10 MB"
        memory_result = memory(paths[memory_name], [p for p in peers if p != "convtypes-lenient"])
        print_memory(f"{memory_name} transcript", memory_result)
    imports = import_times(3 if args.quick else 9)
    print(
        f"\nImport time (median of fresh processes, -X importtime): msgspec {imports[0]:.1f} ms, "
        f"convtypes including msgspec {imports[1]:.1f} ms."
    )
    targets(results, memory_result, imports)
    for module, title in SECTIONS:
        print(f"\n## {title}\n")
        try:
            section = importlib.import_module(module)
            if module == "streaming":
                table = section.run(args.quick, recordings=args.recorded)
            else:
                table = section.run(args.quick)
        except ImportError as err:
            print(f"Not measured here: {err}.")
            continue
        print(table.strip())


if __name__ == "__main__":
    main()
