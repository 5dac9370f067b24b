"""Op logs: a JSONL file of ops, appended whole and read from a byte cursor.

An op log is written as a message oplog is (see ``convtypes._files``): one
line per op, all the lines of a call in one ``write`` on a file opened with
``O_APPEND``, under the appenders' lock. The newline ends an op: a line
without one was never acknowledged (its append had not returned), so a
reader leaves it for later and the next append cuts it. Since a reply is
one op, and so one line, no crash can leave half of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import repeat
from typing import Any

from .._errors import WireError
from .._files import StrPath, append_lines, is_blank, line_batches
from .._files import _line_number as line_number
from .._files import _placed as placed
from .._nesting import skips_may_overflow
from ._ops import AddMessages, LenientOp, UnknownOp, decode_add, decode_op, encode_op

__all__ = ["append_ops", "read_ops"]


def append_ops(path: StrPath, ops: Iterable[LenientOp], *, fsync: bool = True) -> None:
    """Append ops to an op log, one line each, in one ``write``; create the file if missing.

    Every op is encoded first: one that cannot be raises
    :class:`convtypes.WireError` naming it (``$[2].messages[0].content``)
    and nothing is written; what is not an op raises ``TypeError``.
    Appenders in other threads and processes never interleave, and an
    append that fails part-way takes back what it wrote.

    A last line without a newline is what an append killed part-way leaves:
    no call that returned wrote it, and no reader has taken it, so it is cut
    before the new lines go out (:func:`convtypes.append_jsonl` refuses
    instead, since a message oplog may have been written by other means).

    ``fsync=True``, the default, makes the ops durable before the call
    returns, since an op acknowledged to another device must survive a
    power cut; ``fsync=False`` still loses nothing when only the process
    dies.
    """
    if isinstance(ops, (str, bytes, AddMessages, UnknownOp)) or not isinstance(ops, Iterable):
        raise TypeError(f"append_ops takes an iterable of ops, got {type(ops).__name__}")
    lines = []
    for index, op in enumerate(ops):
        if not isinstance(op, (AddMessages, UnknownOp)):
            raise TypeError(f"append_ops writes ops; item {index} is a {type(op).__name__}")
        try:
            lines.append(encode_op(op))
        except WireError as err:
            raise WireError(err.reason, f"$[{index}]{err.path[1:]}") from None
    if lines:
        lines.append(b"")
        append_lines(path, b"\n".join(lines), fsync=fsync, cut_torn=True)


def read_ops(path: StrPath, offset: int = 0) -> tuple[list[LenientOp], int]:
    """The whole ops of an op log from byte ``offset`` on, and where the next read starts.

    The offset returned is just past the last line that ends with a
    newline: a replication cursor. Give it to the next call to read only
    what was appended since. A last line without a newline (an append in
    flight, or one a crash cut short) is left for that call, and is not an
    error. Blank lines are skipped.

    Ops are read as :func:`decode_op` reads them, keeping whatever a newer
    writer added. A whole line that is not an op raises
    :class:`convtypes.WireError`: ``offset`` is its byte in the file,
    ``line`` and ``column`` its place (1-based, in bytes), ``path`` the
    place in the op. ``offset`` must be where a line starts (0, or just
    past a newline) and not past the end: ``ValueError`` otherwise, which a
    cursor kept for another file (or for this one before it was replaced)
    meets.
    """
    if type(offset) is not int:
        raise TypeError(f"read_ops takes an int offset, got {type(offset).__name__}")
    if offset < 0:
        raise ValueError(f"read_ops takes an offset from 0, got {offset}")
    ops: list[LenientOp] = []
    # Where msgspec could skip deeper than a small stack holds, every line
    # goes through decode_op's guard; elsewhere a batch is decoded in C.
    guarded = skips_may_overflow()
    with open(path, "rb") as file:
        if offset:
            file.seek(offset - 1)
            before = file.read(1)
            if before != b"\n":
                where = "past the end of the file" if not before else "not where a line starts"
                raise ValueError(f"read_ops: offset {offset} is {where}")
        cursor = offset
        for _, start, lines in line_batches(file, first_offset=offset):
            # Only the last line of a file lacks its newline, but one that an
            # appender is writing may end a readlines() mid-batch: its rest
            # then comes as another line. The bytes stop at the first such.
            ends = list(map(bytes.endswith, lines, repeat(b"\n")))
            torn = not all(ends)
            if torn:
                del lines[ends.index(False) :]
            batch = _decode_batch(lines, decode_op if guarded else decode_add)
            if batch is None or not _ids_hold(batch):
                _read_lines(file.fileno(), lines, start, [])  # raises, placed in the file
            else:
                ops += batch
            cursor = start + sum(map(len, lines))
            if torn:
                break
    return ops, cursor


def _decode_batch(lines: list[bytes], fast: Callable[[bytes], Any]) -> list[Any] | None:
    """The ops of ``lines``, blank lines skipped; ``None`` if a line is not an op.

    The lines go through ``fast`` in C (``list.extend`` of a ``map``); a line
    it stops on (a newer writer's, a blank one) is read by ``decode_op``
    and the rest of the batch goes on in C.
    """
    out: list[Any] = []
    rest = iter(lines)
    skipped = 0
    while True:
        try:
            out.extend(map(fast, rest))
        except Exception:
            line = lines[len(out) + skipped]  # what map was reading when it stopped
            try:
                out.append(decode_op(line))
            except WireError:
                if not is_blank(line):
                    return None
                skipped += 1
        else:
            return out


def _ids_hold(batch: list[LenientOp]) -> bool:
    """Whether every op of the batch keeps the id rule (see ``check_id``)."""
    for op in batch:
        if type(op) is not UnknownOp and (
            op.id != f"{op.clock}@{op.device}" or op.after == op.id  # type: ignore[union-attr]
        ):
            return False
    return True


def _read_lines(fd: int, lines: list[bytes], start: int, ops: list[LenientOp]) -> None:
    """Decode ``lines`` one by one into ``ops``; raise the first bad one, placed in the file."""
    at = start
    for line in lines:
        try:
            ops.append(decode_op(line))
        except WireError as err:
            if not is_blank(line):
                raise placed(err, line.rstrip(b"\r\n"), line_number(fd, at), at) from None
        at += len(line)
