"""What folding and reading conversation ops cost, and how it grows.

    python benchmarks/sync.py            # five rounds
    python benchmarks/sync.py --quick    # two rounds (CI)

The ops are a long conversation among three devices: each op adds one of the
small messages of corpus.py after the op before it, and every tenth op is a
regenerated reply (a sibling of the op before it). Two sizes, 25,000 and
100,000 ops (10,000 and 40,000 with ``--quick``), so that 4x the ops shows
how the time grows.

- ``fold`` is set beside the least any fold does: a plain dict of the ops by
  id. Once with the ops in order, once shuffled (most ops then wait for the
  op they follow, and join when it comes), each beside the dict of the ops
  in the same order: reading a large set out of order costs more per op as
  it grows, for the dict as for the fold.
- ``read_ops`` reads the op log of those ops; ``iter_jsonl`` reads a message
  oplog of the same messages, one per line. ``read_ops`` returns a list, so
  its baseline is ``list(iter_jsonl(path))``, which holds the same values
  read; ``iter_jsonl`` streamed (each message dropped as the next comes, so
  memory is reused) is shown beside it. The op log is larger (each line
  carries its op's id, device, clock and ``after``), so the table gives the
  time for the same number of lines and the time per byte.

Every timing is the best of a few repeats; the readers and folds take turns
within each round, ratios are taken within a round, and the table gives their
median with the range across rounds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402

try:
    import convtypes as ct
except ImportError:  # run from a checkout without an install
    sys.path.insert(0, str(HERE.parent / "src"))
    import convtypes as ct
from convtypes import sync  # noqa: E402

FULL = (25_000, 100_000)
QUICK = (10_000, 40_000)
DEVICES = ("phone", "laptop", "desk")


def conversation(count: int) -> list[sync.AddMessages]:
    """``count`` ops: a chain with a regenerated reply every tenth op."""
    messages = [ct.decode_message(line) for line in corpus.small_messages(count, seed=36)]
    ops: list[sync.AddMessages] = []
    for clock, message in enumerate(messages, start=1):
        device = DEVICES[clock % 3]
        if not ops:
            after = None
        elif clock % 10 == 0 and ops[-1].after is not None:
            after = ops[-1].after  # a sibling of the last op
        else:
            after = ops[-1].id
        ops.append(
            sync.AddMessages(
                id=sync.op_id(clock, device),
                device=device,
                clock=clock,
                after=after,
                messages=[message],
            )
        )
    return ops


def session_ops(count: int) -> list[sync.AddMessages]:
    """About ``count`` ops of agent sessions (corpus.session): real sizes, whole replies.

    A reply's provider items and the assistant message after them are one op,
    as a sync layer stores them; every other message is an op of its own.
    """
    rng = random.Random(36)
    ops: list[sync.AddMessages] = []
    while len(ops) < count:
        wire = corpus.session(rng, rng.randint(3, 8))
        messages = [ct.decode_message(corpus.dumps(message)) for message in wire]
        groups: list[list[ct.Message]] = []
        for message in messages:
            if groups and isinstance(groups[-1][-1], ct.ProviderOutputItemsMessage):
                groups[-1].append(message)
            else:
                groups.append([message])
        for group in groups:
            clock = len(ops) + 1
            device = DEVICES[clock % 3]
            after = ops[-1].id if ops else None
            ops.append(
                sync.AddMessages(
                    id=sync.op_id(clock, device),
                    device=device,
                    clock=clock,
                    after=after,
                    messages=group,
                )
            )
    return ops[:count]


def reading(ops: list[sync.AddMessages], folder: Path, rounds: int, repeat: int) -> list[float]:
    """read_ops of the ops' log over iter_jsonl of their messages, round by round; and sizes."""
    log, oplog = folder / "reading-ops.jsonl", folder / "reading-messages.jsonl"
    sync.append_ops(log, ops, fsync=False)
    ct.append_jsonl(oplog, [message for op in ops for message in op.messages])
    assert sync.read_ops(log)[0] == ops
    ratios = []
    for round_ in range(rounds):
        trio = [
            lambda: sync.read_ops(log),
            lambda: list(ct.iter_jsonl(oplog)),
            lambda: sum(1 for _ in ct.iter_jsonl(oplog)),
        ]
        order = [0, 1, 2] if round_ % 2 == 0 else [2, 1, 0]
        timed = {at: _best(trio[at], repeat) for at in order}
        ratios.append((timed[0] / timed[1], timed[0] / timed[2]))
    sizes = (log.stat().st_size, oplog.stat().st_size)
    log.unlink()
    oplog.unlink()
    return ratios, sizes


def dict_fold(ops: list[sync.AddMessages]) -> int:
    """The least a fold does: every op by its id."""
    nodes = {}
    for op in ops:
        nodes[op.id] = op
    return len(nodes)


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}x ({min(values):.2f}\N{EN DASH}{max(values):.2f})"


def run(quick: bool = False) -> str:
    small, large = QUICK if quick else FULL
    return _run(quick, small, large)


def _run(quick: bool, small: int, large: int) -> str:
    rounds = 2 if quick else 5
    repeat = 2 if quick else 3
    ops = {size: conversation(size) for size in (small, large)}
    shuffled = {}
    for size, held in ops.items():
        mixed = held[:]
        random.Random(size).shuffle(mixed)
        shuffled[size] = mixed
    # Every fold agrees, in either order.
    for size in (small, large):
        assert sync.fold(ops[size]).heads() == sync.fold(shuffled[size]).heads()

    with tempfile.TemporaryDirectory() as folder:
        logs, oplogs = {}, {}
        for size in (small, large):
            logs[size] = Path(folder) / f"ops-{size}.jsonl"
            oplogs[size] = Path(folder) / f"messages-{size}.jsonl"
            sync.append_ops(logs[size], ops[size], fsync=False)
            ct.append_jsonl(oplogs[size], [op.messages[0] for op in ops[size]])
            assert sync.read_ops(logs[size])[0] == ops[size]

        cases: dict[str, Callable[[int], object]] = {
            "dict": lambda n: dict_fold(ops[n]),
            "dict shuffled": lambda n: dict_fold(shuffled[n]),
            "fold": lambda n: sync.fold(ops[n]),
            "fold shuffled": lambda n: sync.fold(shuffled[n]),
            "read_ops": lambda n: sync.read_ops(logs[n]),
            "list(iter_jsonl)": lambda n: list(ct.iter_jsonl(oplogs[n])),
            "iter_jsonl": lambda n: sum(1 for _ in ct.iter_jsonl(oplogs[n])),
        }
        times: dict[tuple[str, int], list[float]] = {
            (name, n): [] for name in cases for n in (small, large)
        }
        for round_ in range(rounds):
            names = list(cases) if round_ % 2 == 0 else list(reversed(cases))
            for name in names:
                for n in (small, large):
                    times[name, n].append(_best(partial(cases[name], n), repeat))
        op_bytes = logs[large].stat().st_size
        message_bytes = oplogs[large].stat().st_size

    def growth(name: str) -> list[float]:
        return [
            big / small for big, small in zip(times[name, large], times[name, small], strict=True)
        ]

    def median_ms(name: str, n: int) -> str:
        return f"{statistics.median(times[name, n]) * 1e3:.1f} ms"

    dict_growth = growth("dict")
    lines = [
        f"A conversation of three devices, one small message per op, a regenerated reply "
        f"every tenth op; {small:,} and {large:,} ops. Medians of {rounds} interleaved "
        "rounds (each the best of "
        f"{repeat}), the range in brackets.",
        "",
        f"| case | {small:,} ops | {large:,} ops | 4x the ops grows the time | "
        "growth vs the dict's |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    labels = {
        "dict": "plain dict of the ops by id",
        "dict shuffled": "plain dict of the ops by id, shuffled",
        "fold": "`fold(ops)`, in order",
        "fold shuffled": "`fold(ops)`, shuffled",
        "read_ops": "`read_ops(path)`",
        "list(iter_jsonl)": "`list(iter_jsonl(path))`, the same messages",
        "iter_jsonl": "`iter_jsonl(path)` streamed, the same messages",
    }
    for name, label in labels.items():
        grown = growth(name)
        # Each against the dict of the ops in the same order: a shuffled order
        # touches memory out of order, and that alone grows faster than 4x.
        base = growth("dict shuffled") if name.endswith("shuffled") else dict_growth
        versus = [g / d for g, d in zip(grown, base, strict=True)]
        lines.append(
            f"| {label} | {median_ms(name, small)} | {median_ms(name, large)} | "
            f"{_spread(grown)} | {_spread(versus)} |"
        )
    per_line = [
        (r / h, r / i)
        for r, h, i in zip(
            times["read_ops", large],
            times["list(iter_jsonl)", large],
            times["iter_jsonl", large],
            strict=True,
        )
    ]
    lines += [
        "",
        "`read_ops` of an op log against `iter_jsonl` of an oplog of the same messages: "
        "held in a list as `read_ops` holds its ops, and streamed. The op log holds more "
        "bytes (each line also carries the op's id, device, clock and `after`), so each "
        "ratio is also given per byte read.",
        "",
        "| ops | op log | messages' oplog | vs `list(iter_jsonl)` | per byte | "
        "vs `iter_jsonl` streamed | per byte |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        _reading_row(f"{large:,} small messages, one an op", per_line, (op_bytes, message_bytes)),
    ]
    with tempfile.TemporaryDirectory() as folder:
        count = 2_000 if quick else 10_000
        ratios, sizes = reading(session_ops(count), Path(folder), rounds, repeat)
    lines.append(_reading_row(f"{count:,} of agent sessions, a reply one op", ratios, sizes))
    return "\n".join(lines)


def _reading_row(label: str, ratios: list[tuple[float, float]], sizes: tuple[float, float]) -> str:
    op_bytes, message_bytes = sizes
    cells = []
    for at in (0, 1):
        time = [pair[at] for pair in ratios]
        cells += [_spread(time), _spread([ratio * message_bytes / op_bytes for ratio in time])]
    return (
        f"| {label} | {op_bytes / 1e6:.1f} MB | {message_bytes / 1e6:.1f} MB | "
        + " | ".join(cells)
        + " |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    print(run(parser.parse_args().quick))


if __name__ == "__main__":
    main()
