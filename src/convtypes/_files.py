"""Transcript files: an append-only JSONL oplog, and whole-transcript JSON files.

Sync and resume code keeps conversations on disk in two shapes. An *oplog*
is a JSONL file, one message per line, appended to as the conversation
happens; :func:`iter_jsonl` reads it lazily, :func:`append_jsonl` adds lines
to it, and :func:`repair_jsonl` cuts the torn line a crash can leave at its
end. A *transcript file* holds one JSON array of messages, replaced whole by
:func:`save_transcript` and read by :func:`load_transcript`.

Every read error is a :class:`WireError` that says where in the file it is:
``line`` and ``column`` (1-based, in bytes) and ``offset`` (bytes from the
start of the file), besides the JSON ``path`` inside the message.

The durability model, in short: an append is one ``write`` on a file opened
with ``O_APPEND``, under an advisory lock, so appenders never interleave and
a crash leaves at most a torn last line; a save writes a temporary file
beside the target and renames it over the target, so a crash leaves the old
file or the new one. ``fsync=True`` makes either durable before it returns.

Nothing here runs at import: the module only defines functions.
"""

from __future__ import annotations

import errno
import io
import operator
import os
import stat
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import IO, Any, Literal, Union, overload

import msgspec

from ._codec import LenientMessage, decode_message, decode_messages, encode
from ._errors import MAX_DEPTH, TornLineError, WireError
from ._locate import offset_of
from ._messages import MESSAGE_TYPES, Message
from ._nesting import excess_depth
from ._unknown import UnknownMessage

__all__ = [
    "append_jsonl",
    "iter_jsonl",
    "load_transcript",
    "repair_jsonl",
    "save_transcript",
]

StrPath = Union[str, os.PathLike[str]]
"""A file system path, as ``open`` takes it."""

Source = Union[str, os.PathLike[str], IO[bytes], io.BufferedIOBase]
"""What :func:`iter_jsonl` reads: a path, or a file object open for reading bytes.

``io.BufferedIOBase`` is named beside ``IO[bytes]`` for the binary streams
typeshed does not count as ``IO[bytes]``, such as ``gzip.open(path, "rb")``.
"""

OnError = Callable[[WireError, bytes], object]
"""What :func:`iter_jsonl` calls for a bad line: its error, and the line as read."""

# Lines are read in batches of about this many bytes (plus one line): large
# enough that the per-batch work vanishes, small enough to stay far below the
# size of any oplog worth streaming. The tests shrink it to check the counting.
_BATCH_BYTES = 1 << 18

# The tail of a file is searched backwards for its last newline in blocks of
# this size, so that repair reads the last line and not the file.
_TAIL_BLOCK = 1 << 16

# What JSON counts as white space; a line of nothing else is blank.
_JSON_SPACE = b" \t\r\n"

_BINARY = getattr(os, "O_BINARY", 0)  # Windows would translate newlines without it
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


# ------------------------------------------------------------------ reading


def line_batches(
    stream: IO[bytes], head: bytes = b"", first_line: int = 1, first_offset: int = 0
) -> Iterator[tuple[int, int, list[bytes]]]:
    """Yield the stream's lines in batches: (first line's number, its offset, lines).

    Each line keeps its ``\\n``; only the last line of the stream can lack
    one. Numbers are 1-based and offsets count bytes, both from where the
    stream stood when reading began. ``head`` is a line the caller already
    read from the stream (to sniff its format); it is counted as line
    ``first_line``, starting at byte ``first_offset`` (the caller may have
    read blank lines before it).

    This is the one JSONL reader: :func:`iter_jsonl` and ``convtypes check``
    both read through it. Batching keeps the per-line cost to what
    ``readlines`` spends in C, and holds at most about ``_BATCH_BYTES`` plus
    one line in memory.

    A stream that cannot seek (a pipe, a socket, a terminal) may still be
    written to, and ``readlines`` would hold back the lines already there
    until the batch filled or the writer closed the stream, which a follower
    of a live log may never see. Such a stream is read as its bytes arrive
    instead: a batch is the whole lines that have come so far.
    """
    batches = _batches(stream) if not head or head.endswith(b"\n") else iter(())
    number, offset = first_line, first_offset
    lines = [head] if head else next(batches, [])
    while lines:
        if isinstance(lines[0], str):
            raise TypeError(_TEXT_STREAM)
        yield number, offset, lines
        number += len(lines)
        offset += sum(map(len, lines))
        lines = next(batches, [])


def _batches(stream: IO[bytes]) -> Iterator[list[bytes]]:
    """The stream's lines, in batches of about ``_BATCH_BYTES`` or of what has arrived."""
    # A seekable stream holds its bytes already (a file, a buffer); a closed
    # one raises ValueError here, as reading it would.
    seekable = getattr(stream, "seekable", None)
    if seekable is not None and seekable():
        while lines := stream.readlines(_BATCH_BYTES):
            yield lines
        return
    read1 = getattr(stream, "read1", None)
    if read1 is None:  # an object with only readlines: one line at a time
        while lines := stream.readlines(1):
            yield lines
        return
    # read1 returns what one read of the pipe gives, waiting only when
    # nothing has come. A line cut between two reads waits for its end.
    pending: list[bytes] = []
    while chunk := read1(_BATCH_BYTES):
        if isinstance(chunk, str):
            raise TypeError(_TEXT_STREAM)
        end = chunk.rfind(b"\n") + 1
        if not end:
            pending.append(chunk)
            continue
        pending.append(chunk[:end])
        lines = io.BytesIO(b"".join(pending)).readlines()
        pending = [chunk[end:]] if end < len(chunk) else []
        yield lines
    if pending:
        yield [b"".join(pending)]


def is_blank(line: bytes) -> bool:
    """Whether a line holds nothing but JSON white space (a blank line is skipped)."""
    return not line.strip(_JSON_SPACE)


def line_and_column(data: bytes, offset: int, first_line: int = 1) -> tuple[int, int]:
    """Line and column (1-based, counted in bytes) of ``offset`` in ``data``.

    ``first_line`` is the number of the line ``data`` starts on, for a
    document that is one line of a larger file.
    """
    offset = max(0, min(offset, len(data)))
    newlines = data.count(b"\n", 0, offset)
    line_start = data.rfind(b"\n", 0, offset) + 1
    return first_line + newlines, offset - line_start + 1


def _placed(err: WireError, data: bytes, first_line: int, base_offset: int) -> WireError:
    """``err``, raised for the document ``data``, located in the file it came from.

    ``data`` starts at byte ``base_offset`` and line ``first_line`` of the
    file. Where the decoder gave no offset (a missing field, a wrong type),
    the place is where the value at ``err.path`` starts, else the document's
    first byte.
    """
    offset = err.offset if err.offset is not None else offset_of(data, err.path)
    offset = max(0, min(offset or 0, len(data)))
    line, column = line_and_column(data, offset, first_line)
    return WireError(err.reason, err.path, base_offset + offset, line, column)


# The first bytes of every gzip file (RFC 1952).
_GZIP_MAGIC = b"\x1f\x8b"


def _gzip_error(caller: str) -> WireError:
    """What reading compressed bytes as JSON says: not 'malformed JSON', but what to do."""
    return WireError(
        f"the file is gzip-compressed, and {caller} reads plain JSON: open it with "
        f"gzip.open(path, 'rb') and pass the file object",
        "$",
        0,
        1,
        1,
    )


_TEXT_STREAM = (
    "iter_jsonl reads bytes: open the file with 'rb' (or pass sys.stdin.buffer), "
    "not a text-mode file"
)


@overload
def iter_jsonl(
    source: Source, *, lenient: Literal[False] = False, on_error: OnError | None = None
) -> Generator[Message, None, None]: ...
@overload
def iter_jsonl(
    source: Source, *, lenient: bool, on_error: OnError | None = None
) -> Generator[LenientMessage, None, None]: ...
def iter_jsonl(
    source: Source, *, lenient: bool = False, on_error: OnError | None = None
) -> Generator[Any, None, None]:
    """Yield the messages of a JSONL oplog, one per line, as they are read.

    ``source`` is a path, or a file object open for reading bytes (``open(p,
    "rb")``, ``io.BytesIO``, ``sys.stdin.buffer``). A text-mode file object
    is refused with :class:`TypeError`: JSONL columns and offsets count
    bytes, and a text layer would have decoded and translated them already.
    A file object is read from where it stands and is left open; a path is
    opened on the first ``next()`` and closed when the iteration ends, raises,
    or is abandoned (when the generator is closed or garbage-collected: wrap
    it in ``contextlib.closing`` to make that moment explicit).

    Memory is bounded by the longest line, not by the file. From a stream
    that is still being written (a pipe, a socket), each message comes as
    soon as its line has arrived. Blank lines
    (nothing but spaces, tabs and ``\\r``) are skipped; ``\\r\\n`` line ends
    are read like ``\\n``.

    A line that is not a message raises :class:`WireError`, after the
    messages before it were yielded. A gzip-compressed file is not read as
    JSON: its first line raises a ``WireError`` that says to open it with
    ``gzip.open(path, "rb")`` and pass the file object, which is read as
    any other. Its ``line`` and ``column`` (1-based,
    in bytes) and ``offset`` (bytes from where reading began: the start of
    the file, for a path) say where in the file, and ``path`` where in the
    message. A last line without a newline that is not whole JSON, as a
    crash in the middle of an append leaves it, raises
    :class:`TornLineError`, a ``WireError`` whose reason suggests
    :func:`repair_jsonl`, which cuts it.

    To go on past bad lines, pass ``on_error``: each bad line is then given
    to it, as its error (placed as above) and the line's bytes as read,
    line end included, and reading goes on with the next line. Nothing is
    dropped without the callback hearing of it; a callback that raises ends
    the iteration with its exception.

    ``lenient=True`` decodes as ``decode_message(line, lenient=True)`` does,
    so a newer writer's lines come back whole and :func:`append_jsonl`
    writes them out again byte for byte (in canonical form).
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        raise TypeError(
            "iter_jsonl takes a path or a binary file object, not the data itself; "
            "wrap bytes in io.BytesIO"
        )
    if isinstance(source, io.TextIOBase):
        raise TypeError(_TEXT_STREAM)
    if not isinstance(source, (str, os.PathLike)) and not hasattr(source, "readlines"):
        raise TypeError(
            f"iter_jsonl takes a path or a binary file object, got {type(source).__name__}"
        )
    if on_error is not None and not callable(on_error):
        raise TypeError(f"on_error must be callable, got {type(on_error).__name__}")
    return _messages(source, lenient, on_error)


def _messages(
    source: Source, lenient: bool, on_error: OnError | None
) -> Generator[LenientMessage, None, None]:
    decode = decode_message  # a local name: looked up once, not per line
    stream: IO[bytes]
    if isinstance(source, (str, os.PathLike)):
        stream = open(source, "rb")
    else:
        stream = source  # type: ignore[assignment]  # a BufferedIOBase reads as IO[bytes] does
    try:
        for first, start, lines in line_batches(stream):
            # The loop body is all the per-line cost there is: a failed line
            # is told apart from a blank one only after it failed to decode.
            # (A keyword in a direct call is free; a functools.partial holding
            # it would cost a third more per line.)
            rest = iter(lines)
            for line in rest:
                try:
                    yield decode(line, lenient=lenient)
                except WireError as err:
                    if is_blank(line):
                        continue
                    if first == 1 and line is lines[0] and line.startswith(_GZIP_MAGIC):
                        raise _gzip_error("iter_jsonl") from None
                    index = len(lines) - operator.length_hint(rest) - 1
                    located = _line_error(err, lines, index, first, start, lenient)
                    if on_error is None:
                        raise located from None
                    on_error(located, line)
    finally:
        if stream is not source:
            stream.close()


def _line_error(
    err: WireError, lines: list[bytes], index: int, first: int, start: int, lenient: bool
) -> WireError:
    """``err``, raised for ``lines[index]``, located in the file."""
    line = lines[index]
    body = line.rstrip(b"\r\n")
    try:
        # Decoded again without its line end, so that an error at the end of
        # the document points just past its last byte, not past the newline.
        decode_message(body, lenient=lenient)
    except WireError as bare:
        err, line = bare, body
    located = _placed(err, line, first + index, start + sum(map(len, lines[:index])))
    if not lines[index].endswith(b"\n") and not _is_whole_json(body):
        # What a cut-short append leaves (and what repair_jsonl cuts). A
        # whole document that is not a message is a bad line like any other.
        located = TornLineError(
            located.reason + " (the last line has no newline: if a crash cut an append "
            "short, repair_jsonl cuts the torn line)",
            located.path,
            located.offset,
            located.line,
            located.column,
        )
    return located


@overload
def load_transcript(path: StrPath, *, lenient: Literal[False] = False) -> list[Message]: ...
@overload
def load_transcript(path: StrPath, *, lenient: bool) -> list[LenientMessage]: ...
def load_transcript(path: StrPath, *, lenient: bool = False) -> list[Any]:
    """Read a transcript file: one JSON array of messages, laid out in any way.

    The whole file is read and decoded as :func:`decode_messages` decodes,
    so an indented, multi-line file reads as well as a compact one. An error
    is a :class:`WireError` with ``line`` and ``column`` (1-based, in bytes)
    and ``offset`` in the file, and ``path`` in the transcript
    (``$[3].content``). ``lenient`` as for :func:`decode_messages`.
    """
    with open(path, "rb") as file:
        data = file.read()
    try:
        return decode_messages(data, lenient=lenient)
    except WireError as err:
        if data.startswith(_GZIP_MAGIC):
            raise _gzip_error("load_transcript") from None
        raise _placed(err, data, 1, 0) from None


# ------------------------------------------------------------------ writing


def _check_messages(messages: Iterable[LenientMessage], caller: str) -> list[LenientMessage]:
    """``messages`` as a list, after making sure each is a message."""
    if isinstance(messages, (str, bytes, msgspec.Struct)) or not isinstance(messages, Iterable):
        raise TypeError(
            f"{caller} takes an iterable of messages (a list, say), got {type(messages).__name__}"
        )
    kinds = (*MESSAGE_TYPES, UnknownMessage)
    items = list(messages)
    for index, item in enumerate(items):
        if not isinstance(item, kinds):
            raise TypeError(f"{caller} writes messages; item {index} is a {type(item).__name__}")
    return items


def _oplog_bytes(messages: Iterable[LenientMessage]) -> bytes:
    """The lines ``append_jsonl`` writes: each message's bytes and a newline."""
    parts = []
    for index, message in enumerate(_check_messages(messages, "append_jsonl")):
        try:
            parts.append(encode(message))
        except WireError as err:
            raise WireError(err.reason, f"$[{index}]{err.path[1:]}") from None
    if not parts:
        return b""
    parts.append(b"")
    return b"\n".join(parts)


def _lock(fd: int) -> None:
    """Hold an exclusive advisory lock on the open file until ``fd`` is closed.

    Appenders and repair take it, so that repair never mistakes a line being
    written for a torn one and the check for a torn tail sees only whole
    appends. Only convtypes takes it: other writers are not held off.
    """
    if os.name == "nt":  # pragma: no cover - no flock; appends are unsafe there anyway
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_EX)


def _read_at(fd: int, offset: int, size: int) -> bytes:
    """``size`` bytes from ``offset`` (fewer at the end of the file)."""
    chunks = []
    while size > 0:
        if hasattr(os, "pread"):
            chunk = os.pread(fd, size, offset)
        else:  # pragma: no cover - Windows
            os.lseek(fd, offset, os.SEEK_SET)
            chunk = os.read(fd, size)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data``, however many calls a short write takes."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:  # pragma: no cover - a regular file writes or raises
            raise OSError(errno.EIO, "write made no progress")
        view = view[written:]


def _last_line_start(fd: int, size: int) -> int:
    """Offset of the file's last line: just past the last ``\\n`` before ``size``."""
    end = size
    while end > 0:
        begin = max(0, end - _TAIL_BLOCK)
        found = _read_at(fd, begin, end - begin).rfind(b"\n")
        if found >= 0:
            return begin + found + 1
        end = begin
    return 0


def _line_number(fd: int, offset: int) -> int:
    """The 1-based number of the line that starts at ``offset``.

    Counting means reading everything before it, so only error paths call this.
    """
    count, position = 0, 0
    while position < offset:
        block = _read_at(fd, position, min(1 << 20, offset - position))
        if not block:
            break
        count += block.count(b"\n")
        position += len(block)
    return count + 1


def _fsync_directory(path: str) -> None:
    """Make a new or renamed entry in ``path``'s directory durable."""
    if os.name == "nt":  # pragma: no cover - directories cannot be opened there
        return
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY | _CLOEXEC)
    try:
        os.fsync(fd)
    except OSError as err:  # pragma: no cover - file systems that cannot sync a directory
        if err.errno != errno.EINVAL:
            raise
    finally:
        os.close(fd)


def _open_for_append(path: str) -> tuple[int, bool]:
    """Open ``path`` to append, creating it if missing; also say whether this call created it."""
    flags = os.O_RDWR | os.O_APPEND | _BINARY | _CLOEXEC
    while True:
        try:
            return os.open(path, flags), False
        except FileNotFoundError:
            pass
        try:
            return os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o666), True
        except FileExistsError:  # another appender created it in between
            continue


def append_jsonl(path: StrPath, messages: Iterable[LenientMessage], *, fsync: bool = False) -> None:
    """Append messages to a JSONL oplog, one line each, in one ``write``.

    The file is created if it is missing. ``messages`` is any iterable of
    messages, lenient ones (:class:`UnknownMessage`, values with unknown
    fields) too; all of them are encoded before the file is touched, so a
    message that cannot be encoded (a lone surrogate put into its arguments
    after it was built) raises :class:`WireError`, with ``path`` naming it
    (``$[2].tool_calls[0].arguments.q``), and nothing is written.

    The lines go out in a single ``write`` on a file opened with
    ``O_APPEND``, under an exclusive advisory lock (``flock``) that every
    convtypes appender takes: appenders in other threads and processes
    never interleave within a line or a batch, and a short write is
    completed under the lock. An append that fails part-way (a full disk)
    cuts what it wrote, so the file is as it was.

    If the file does not end with a newline, its last line is torn (a crash
    cut an append short) or unfinished, and the next line would be glued to
    it: the append is refused with :class:`TornLineError` (a
    :class:`WireError`), located at the end of that line, and nothing is
    written. Call :func:`repair_jsonl` first.

    Besides ``WireError``, a file that cannot be opened or written raises
    ``OSError`` (``IsADirectoryError``, ``PermissionError``, a full disk),
    and what is not an iterable of messages raises ``TypeError``.

    With ``fsync=True`` the lines are on disk when the call returns (and the
    directory entry too, when this call created the file). Without it, a
    crash of the process loses nothing that was written, but a crash of the
    machine can lose the latest appends. See "Durability of transcript
    files" in SECURITY.md for what a crash can leave behind, and for the
    limits (NFS, batches of gigabytes, Windows).
    """
    append_lines(path, _oplog_bytes(messages), fsync=fsync)


def append_lines(path: StrPath, data: bytes, *, fsync: bool, cut_torn: bool = False) -> None:
    """Append ``data``, whole lines each ending in ``\\n``, as :func:`append_jsonl` does.

    The one appender: one ``write`` under the lock, taken back if it fails,
    synced with ``fsync``. A file whose last line has no newline is refused
    with :class:`TornLineError`, or, with ``cut_torn``, that line is cut
    first (for a format whose newline is the mark of a finished append, so
    that such a line was never acknowledged; see ``convtypes.sync``).
    """
    name = os.fsdecode(path)
    fd, created = _open_for_append(name)
    try:
        _lock(fd)
        size = os.fstat(fd).st_size
        if size and _read_at(fd, size - 1, 1) != b"\n":
            start = _last_line_start(fd, size)
            if not cut_torn:
                raise TornLineError(
                    "expected the file to end with a newline, but its last line is torn or "
                    "unfinished; call repair_jsonl(path) before appending",
                    "$",
                    size,
                    _line_number(fd, start),
                    size - start + 1,
                )
            os.ftruncate(fd, start)
            size = start
        try:
            _write_all(fd, data)
        except BaseException:
            _take_back(fd, size, data)
            raise
        if fsync:
            os.fsync(fd)
            if created:
                _fsync_directory(name)
    finally:
        os.close(fd)


def _take_back(fd: int, size: int, data: bytes) -> None:
    """Cut the part of ``data`` that a failed append wrote after byte ``size``.

    Only when everything past ``size`` is a prefix of ``data``: a writer that
    ignores the lock may have appended behind it, and that is not ours to cut.
    Best effort: the error that failed the append is the one to report.
    """
    try:
        end = os.fstat(fd).st_size
        if size < end <= size + len(data) and _read_at(fd, size, end - size) == data[: end - size]:
            os.ftruncate(fd, size)
    except OSError:  # pragma: no cover - the disk is failing; keep the first error
        pass


def repair_jsonl(path: StrPath) -> int:
    """Cut a torn last line off a JSONL oplog; return how many bytes were cut.

    A crash in the middle of :func:`append_jsonl` can leave the file ending
    in part of a line. This cuts that part, so the file ends after its last
    whole line and appends can go on. What counts:

    - The file ends with a newline (or is empty): nothing to do, 0.
    - The last line decodes as a message, leniently (a newer writer's
      message counts), and only lacks its newline: the newline is added, 0.
    - The last line is not whole JSON (what a cut-short write leaves, or only
      white space): it is cut, and the number of its bytes returned.
    - The last line is whole JSON but not a message: no crash leaves that,
      so it is not cut. :class:`WireError` says why it is not a message and
      where (``line``, ``column``, ``offset``, ``path``); fix it by hand.

    Whole lines are never touched, and a second call finds nothing to cut.
    Only the last line is read (it is found by reading the file backwards
    from its end), so repair is cheap on any oplog. It takes the appenders'
    lock, so it never cuts a line another convtypes appender is still
    writing, and it makes its change durable (``fsync``) before it returns.
    A missing file has nothing torn in it: 0, and no file is created, so the
    usual start-up (repair, then append) needs no test for a first run.
    """
    try:
        fd = os.open(os.fsdecode(path), os.O_RDWR | _BINARY | _CLOEXEC)
    except FileNotFoundError:
        return 0
    try:
        _lock(fd)
        size = os.fstat(fd).st_size
        if size == 0 or _read_at(fd, size - 1, 1) == b"\n":
            return 0
        start = _last_line_start(fd, size)
        tail = _read_at(fd, start, size - start)
        try:
            decode_message(tail, lenient=True)
        except WireError as err:
            if _is_whole_json(tail):
                located = _placed(err, tail, _line_number(fd, start), start)
                raise WireError(
                    f"the last line is whole JSON but not a message ({located.reason}), "
                    "so it was not torn by a crash; repair_jsonl leaves it: fix it by hand",
                    located.path,
                    located.offset,
                    located.line,
                    located.column,
                ) from None
            os.ftruncate(fd, start)
            os.fsync(fd)
            return size - start
        os.lseek(fd, 0, os.SEEK_END)
        _write_all(fd, b"\n")
        os.fsync(fd)
        return 0
    finally:
        os.close(fd)


def _is_whole_json(data: bytes) -> bool:
    """Whether ``data`` is one complete JSON document (of any shape).

    A document nested past the reference's limit is taken for whole: a
    torn append never holds one, so it is not cut but reported.
    """
    if excess_depth(data, MAX_DEPTH) is not None:
        return True
    # Invalid UTF-8 inside a string does not make a line torn: only its
    # shape counts. (A cut inside a character leaves the string unclosed.)
    data = data.decode("utf-8", "replace").encode("utf-8")
    try:
        msgspec.json.decode(data)
    except Exception:
        return False
    return True


def save_transcript(
    path: StrPath, messages: Iterable[LenientMessage], *, fsync: bool = True
) -> None:
    """Write a transcript file (a JSON array of messages), replacing it atomically.

    The messages are encoded first; one that cannot be (see
    :func:`append_jsonl`) raises :class:`WireError` naming it before any
    file is touched. The bytes then go to a new temporary file in the same
    directory (named ``.NAME.RANDOM.tmp``), which is renamed over ``path``
    with ``os.replace``. A reader, or a crash, sees the old file or the new
    one, never part of one. A save that fails removes its temporary file and
    leaves the old one as it was (a crash of the process can leave the
    temporary file behind; nothing reads it).

    With ``fsync=True``, the default, the temporary file is synced before
    the rename and the directory after it, so the new file is on disk when
    the call returns. With ``fsync=False`` the save is still atomic for
    readers and against a crash of the process, but after a crash of the
    machine the file may be the old one, or, on some file systems, empty.

    The new file keeps the permission bits of the one it replaces (a new
    one gets the usual ``0o666`` less the umask).

    Only a regular file is ever replaced. When something else is at
    ``path``, the call raises before writing anything: ``IsADirectoryError``
    for a directory, and ``FileExistsError`` for a symbolic link, a FIFO, a
    device (``/dev/null``) or a socket. A symbolic link is refused rather
    than followed or replaced: following it lets whoever can write the
    directory aim the save at any file, and replacing it would cut the link
    from the file it names, leaving that file stale without a word. To save
    through a link on purpose, pass ``os.path.realpath(path)``. (The check
    comes before the rename, so a file made at ``path`` in between by
    another program is replaced like any other.)

    Any other ``OSError`` comes from the file system as it is: a missing
    directory, no permission, a full disk. What is not an iterable of
    messages raises ``TypeError``.
    """
    data = encode(_check_messages(messages, "save_transcript"))
    name = os.fsdecode(path)
    mode = _replaceable_mode(name)
    directory, base = os.path.split(name)
    try:
        fd, temporary = _create_temporary(directory, base)
    except OSError as err:
        # The file that could not be made is a temporary one the caller never
        # named: report the path they gave (a missing directory, no
        # permission to write in it).
        raise OSError(err.errno, err.strerror, name) from err
    try:
        if mode is not None and hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        _write_all(fd, data)
        if fsync:
            os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(temporary, name)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    if fsync:
        _fsync_directory(name)


# What save_transcript says it found at a path it will not replace.
_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _replaceable_mode(name: str) -> int | None:
    """The permission bits of the regular file at ``name``; ``None`` when there is none.

    Raises ``OSError`` when something else is there (see :func:`save_transcript`).
    """
    try:
        found = os.lstat(name)
    except FileNotFoundError:
        return None
    kind = found.st_mode
    if stat.S_ISREG(kind):
        return stat.S_IMODE(kind)
    if stat.S_ISDIR(kind):
        raise IsADirectoryError(
            errno.EISDIR, "save_transcript replaces a file, and this is a directory", name
        )
    what = next((said for test, said in _KINDS if test(kind)), "not a regular file")
    raise FileExistsError(
        errno.EEXIST, f"save_transcript replaces only a regular file, and this is {what}", name
    )


def _create_temporary(directory: str, base: str) -> tuple[int, str]:
    """Create a new, empty file beside ``base``; return its descriptor and path."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _BINARY | _CLOEXEC
    while True:
        candidate = os.path.join(directory, f".{base}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(candidate, flags, 0o666), candidate
        except FileExistsError:  # pragma: no cover - 48 random bits collided
            continue
