"""Measure one peer on one file, in a process of its own.

Run by run.py, never imported by it: only this peer's objects are alive
here, so no peer pays for another's garbage. Prints one JSON object.
"""

from __future__ import annotations

import gc
import json
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from peers import load


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def timing(peer: str, path: Path, repeats: int) -> dict[str, object]:
    decode, encode, decode_one, encode_one = load(peer)
    data = path.read_bytes()
    if path.suffix == ".jsonl":
        lines = data.splitlines()

        def run_decode() -> object:
            return [decode_one(line) for line in lines]

        def run_encode(value: object) -> object:
            return [encode_one(item) for item in value]  # type: ignore[attr-defined]

    else:

        def run_decode() -> object:
            return decode(data)

        def run_encode(value: object) -> object:
            return encode(value)

    value = run_decode()  # warm up, and the value to encode
    decode_times, encode_times = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        result = run_decode()
        decode_times.append(time.perf_counter() - start)
        del result
        start = time.perf_counter()
        run_encode(value)
        encode_times.append(time.perf_counter() - start)
    return {"decode": _median(decode_times), "encode": _median(encode_times)}


def memory(peer: str, path: Path) -> dict[str, object]:
    decode, _, decode_one, _ = load(peer)
    data = path.read_bytes()
    gc.collect()
    tracemalloc.start()
    value = (
        [decode_one(line) for line in data.splitlines()]
        if path.suffix == ".jsonl"
        else decode(data)
    )
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    count = len(value)  # type: ignore[arg-type]
    return {"peak": peak, "retained": current, "messages": count}


def main() -> None:
    mode, peer, path = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    if mode == "timing":
        out = timing(peer, path, int(sys.argv[4]))
    else:
        out = memory(peer, path)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
