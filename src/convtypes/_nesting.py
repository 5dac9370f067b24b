"""How deep a document nests, found on the bytes before msgspec recurses.

msgspec's decoder recurses once per level of arrays and objects, guarded
only by the interpreter's recursion limit, which before Python 3.14 does not
know how much stack the thread really has. A document nested a few thousand
levels deep can therefore crash a thread with a small stack. The fast decode
path cannot recurse that deep (see ``_jsonvalue``), except where msgspec
skips over a value; everything that decodes arbitrary JSON asks this module
first.

The check is exact and costs little where it matters: a document with fewer
opening brackets than the limit needs no look at all beyond two counts; any
other is reduced to its brackets (strings removed, in C, by ``re``) and
their running depth is bounded; only a document that may really be too
deep is walked in Python, to name where.
"""

from __future__ import annotations

import itertools
import re
import sys
from typing import Final

from ._locate import find_excess_depth

__all__ = ["GUARD_BYTES", "as_bytes", "excess_depth", "skip_is_bounded", "skips_may_overflow"]

# A string, closed or running to the end of the input. Matching an unclosed
# string to the end keeps the scan linear on hostile input.
_STRING: Final = rb'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)'
_NOT_BRACKET: Final = bytes(b for b in range(256) if b not in b"[]{}")
_PAIR: Final = rb"\[\]|\{\}"
_STEP: Final = tuple(1 if b in b"[{" else -1 if b in b"]}" else 0 for b in range(256))
_QUICK_ROUNDS: Final = 16


def as_bytes(data: bytes | bytearray | memoryview | str) -> bytes:
    """``data`` as bytes; a str keeps lone surrogates, so its brackets do not move."""
    if isinstance(data, str):
        return data.encode("utf-8", "surrogatepass")
    return bytes(data)


def _depth_bound(data: bytes, limit: int) -> int:
    """An upper bound on how deep msgspec can nest reading ``data``.

    Exact for well-formed documents; for malformed ones, at least as deep as
    msgspec gets before it stops at the first error. Returns early with a
    value above ``limit`` as soon as the answer is known to exceed it.
    """
    openers = data.count(b"[") + data.count(b"{")
    if openers <= limit:
        return openers
    # The patterns compile on first use: only the careful path comes here.
    brackets = re.sub(_STRING, b"", data, flags=re.DOTALL).translate(None, _NOT_BRACKET)
    # Peel matched pairs off from the inside, a level per round. Typical
    # documents are a few levels deep and finish here in a few C passes.
    for depth in range(_QUICK_ROUNDS):
        if not brackets:
            return depth
        peeled = re.sub(_PAIR, b"", brackets)
        if len(peeled) == len(brackets):
            break  # only unmatched brackets are left
        brackets = peeled
    else:
        depth = _QUICK_ROUNDS
    # What is left: add the running depth of the rest, in C.
    running = itertools.accumulate(map(_STEP.__getitem__, brackets))
    return depth + max(running, default=0)


def excess_depth(data: bytes | bytearray | memoryview | str, limit: int) -> tuple[int, str] | None:
    """Where ``data`` first nests deeper than ``limit`` levels, or ``None``.

    Returns the byte offset of the bracket that opens the level too many and
    the JSON path there.
    """
    raw = as_bytes(data)
    if _depth_bound(raw, limit) <= limit:
        return None
    return find_excess_depth(raw, limit)


GUARD_BYTES: Final = 2048
"""Below this size a document cannot nest deep enough to exhaust any stack."""

# Deepest skip msgspec may make before the interpreter stops it; on a 256 KiB
# thread stack, skips a few thousand levels deep are safe on every version
# measured (see tests/test_stack.py).
_SAFE_SKIP_LEVELS: Final = 2048
# Up to this size, counting the brackets costs less than handing the decode
# to the big-stack thread (about 30 microseconds).
_COUNT_BELOW: Final = 48 * 1024


def skips_may_overflow() -> bool:
    """Whether msgspec, skipping a deep value, could exhaust a small stack.

    msgspec skips over values when it looks for a tag that is not the first
    key of an object. That recursion is bounded by the interpreter: by the
    recursion limit up to Python 3.11, by a fixed C limit of 1,500 levels on
    3.12, of 10,000 on 3.13 (too many for a 256 KiB stack), and by the real
    stack from 3.14 on.
    """
    version = sys.version_info[:2]
    if version == (3, 13):
        return True
    if version <= (3, 11):
        return sys.getrecursionlimit() > _SAFE_SKIP_LEVELS
    return False


def skip_is_bounded(data: bytes | bytearray | memoryview | str) -> bool:
    """Whether ``data`` is too small to nest as deep as an unsafe skip needs.

    For documents under ``_COUNT_BELOW`` bytes, two counts of the opening
    brackets (in C) say so; a larger document is not looked at, and is
    decoded on a thread with a large stack instead (see ``_bigstack``).
    """
    if len(data) >= _COUNT_BELOW:
        return False
    if isinstance(data, memoryview):
        data = data.tobytes()
    if isinstance(data, str):
        return data.count("[") + data.count("{") < _SAFE_SKIP_LEVELS
    return data.count(b"[") + data.count(b"{") < _SAFE_SKIP_LEVELS
