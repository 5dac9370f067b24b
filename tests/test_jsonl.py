"""Transcript files: the JSONL oplog (iter, append, repair) and whole-transcript files.

The tests break the files the way users and machines do: lines torn by a
killed writer, appenders racing in several processes, saves that fail half
way, text-mode handles, newer writers' lines. Process state (crashes,
concurrency) is tested in fresh child processes.
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import io
import itertools
import os
import random
import re
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import convtypes as ct
from convtypes import _files
from convtypes import strategies as cst

ROOT = Path(__file__).parent.parent
POSIX = pytest.mark.skipif(os.name == "nt", reason="SIGKILL and flock are POSIX")


def line(message: ct.Message) -> bytes:
    return ct.encode(message) + b"\n"


def oplog(messages: list[ct.Message]) -> bytes:
    return b"".join(line(m) for m in messages)


def user(text: str) -> ct.Message:
    return ct.UserMessage(content=text)


def run_child(code: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@contextlib.contextmanager
def batches_of(size: int) -> Iterator[None]:
    """Read JSONL in batches of about ``size`` bytes, to cross many batch edges."""
    with mock.patch.object(_files, "_BATCH_BYTES", size):
        yield


# ------------------------------------------------------------------ iter_jsonl


def test_reads_every_line_skipping_blank_ones(tmp_path: Path) -> None:
    messages = [user("a"), ct.SystemMessage(content="s"), user("b"), user("c")]
    path = tmp_path / "log.jsonl"
    path.write_bytes(
        line(messages[0])
        + b"\n"  # empty
        + b"  \t\r\n"  # spaces, a tab and a carriage return
        + ct.encode(messages[1])
        + b"\r\n"  # a CRLF line end
        + line(messages[2])
        + b"   \n"
        + ct.encode(messages[3])  # a whole last line that lacks only its newline
    )
    assert list(ct.iter_jsonl(path)) == messages
    assert list(ct.iter_jsonl(str(path))) == messages
    with batches_of(1):
        assert list(ct.iter_jsonl(path)) == messages


def test_an_empty_file_has_no_messages(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    assert list(ct.iter_jsonl(path)) == []


GOOD = [user("one"), user("two"), user("three")]

# A bad line, the JSON path of its error and the bytes before the error's column.
BAD_LINES = [
    pytest.param(
        b'{"role":"user","content":7}', "$.content", b'{"role":"user","content":', id="type"
    ),
    pytest.param(b'{"role":"user"}', "$", b"", id="missing-field"),
    pytest.param(b'  {"role":"user"}', "$", b"  ", id="indented-missing-field"),
    pytest.param(
        b'{"role":"user","content":"x"]', "$.content", b'{"role":"user","content":"x"', id="syntax"
    ),
    pytest.param(b"not json", "$", b"not ", id="not-json"),
    pytest.param(
        b'{"role":"user","content":"caf\xe9"}',
        "$.content",
        b'{"role":"user","content":"caf',
        id="not-utf8",
    ),
    pytest.param(b'{"role":"developer","content":"x"}', "$.role", b'{"role":', id="unknown-role"),
    pytest.param(
        b'{"role":"user_multimodal","content":[{"type":"text","text":"a"},{"type":"video_path",'
        b'"path":"p","max_frames":-1}]}',
        "$.content[1].max_frames",
        b'{"role":"user_multimodal","content":[{"type":"text","text":"a"},{"type":"video_path",'
        b'"path":"p","max_frames":',
        id="out-of-range",
    ),
]


@pytest.mark.parametrize(("bad", "path", "before"), BAD_LINES)
def test_a_bad_middle_line_is_reported_where_it_is(
    tmp_path: Path, bad: bytes, path: str, before: bytes
) -> None:
    head = line(GOOD[0]) + b"\n" + ct.encode(GOOD[1]) + b"\r\n"  # lines 1-3
    file = tmp_path / "log.jsonl"
    file.write_bytes(head + bad + b"\n" + line(GOOD[2]))
    seen: list[ct.Message] = []
    with pytest.raises(ct.WireError) as caught:
        for message in ct.iter_jsonl(file):
            seen.append(message)
    assert seen == GOOD[:2]  # yielded before the error
    err = caught.value
    assert (err.line, err.column, err.path) == (4, len(before) + 1, path)
    assert err.offset == len(head) + len(before)
    assert str(err).endswith(f"at {path} (line 4, column {len(before) + 1})")


def test_a_torn_last_line_is_an_error_at_its_line(tmp_path: Path) -> None:
    whole = oplog(GOOD[:2])
    torn = b'{"role":"user","content":"hel'
    path = tmp_path / "log.jsonl"
    path.write_bytes(whole + torn)
    seen: list[ct.Message] = []
    with pytest.raises(ct.WireError) as caught:
        for message in ct.iter_jsonl(path):
            seen.append(message)
    err = caught.value
    assert seen == GOOD[:2]
    assert (err.line, err.column, err.path) == (3, len(torn) + 1, "$.content")
    assert err.offset == len(whole) + len(torn)
    assert err.reason.startswith("expected more JSON: the document ends early")
    assert "repair_jsonl" in err.reason


def test_errors_are_placed_across_batch_edges(tmp_path: Path) -> None:
    # Many small batches: the line and offset of an error must still count
    # every line and byte of the batches before it.
    rng = random.Random(7)
    lines = []
    for index in range(400):
        if rng.random() < 0.2:
            lines.append(rng.choice([b"\n", b"  \n", b"\t\r\n"]))
        else:
            lines.append(ct.encode(user("x" * rng.randint(0, 90))) + rng.choice([b"\n", b"\r\n"]))
        if index == 350:
            lines.append(b'{"role":"user","content":[1]}\n')
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"".join(lines))
    bad = next(i for i, text in enumerate(lines) if b"[1]" in text)
    for size in (1, 50, 700, 1 << 18):
        with batches_of(size), pytest.raises(ct.WireError) as caught:
            list(ct.iter_jsonl(path))
        err = caught.value
        assert (err.line, err.column, err.path) == (bad + 1, 26, "$.content")
        assert err.offset == sum(map(len, lines[:bad])) + 25


@settings(max_examples=60)
@given(
    messages=cst.transcripts(max_size=12),
    blanks=st.lists(st.sampled_from([b"\n", b" \n", b"\t\r\n", b"\r\n"]), max_size=12),
    crlf=st.booleans(),
    bad_at=st.integers(min_value=0, max_value=12),
    batch=st.sampled_from([1, 16, 300, 1 << 18]),
    data=st.data(),
)
def test_reading_matches_the_lines_written(
    messages: list[ct.Message],
    blanks: list[bytes],
    crlf: bool,
    bad_at: int,
    batch: int,
    data: st.DataObject,
) -> None:
    # Good lines with blank lines among them read back as the messages; a
    # bad line placed anywhere is reported at its own line and column.
    lines = [ct.encode(m) + (b"\r\n" if crlf else b"\n") for m in messages]
    for blank in blanks:
        lines.insert(data.draw(st.integers(0, len(lines)), label="blank at"), blank)
    with tempfile.TemporaryDirectory() as directory, batches_of(batch):
        path = Path(directory) / "log.jsonl"
        path.write_bytes(b"".join(lines))
        assert list(ct.iter_jsonl(path)) == messages
        at = min(bad_at, len(lines))
        before = b' {"role":"system","content":'
        path.write_bytes(b"".join([*lines[:at], before + b"null}\n", *lines[at:]]))
        seen: list[ct.Message] = []
        with pytest.raises(ct.WireError) as caught:
            for message in ct.iter_jsonl(path):
                seen.append(message)
        err = caught.value
        assert (err.line, err.column, err.path) == (at + 1, len(before) + 1, "$.content")
        assert err.offset == sum(map(len, lines[:at])) + len(before)
        assert seen == messages[: sum(1 for text in lines[:at] if text.strip())]


def test_messages_before_an_error_are_yielded_in_order(tmp_path: Path) -> None:
    messages = [user(str(i)) for i in range(1000)]
    path = tmp_path / "log.jsonl"
    path.write_bytes(oplog(messages) + b"{}\n" + oplog(messages))
    seen: list[ct.Message] = []
    with batches_of(100), pytest.raises(ct.WireError) as caught:
        for message in ct.iter_jsonl(path):
            seen.append(message)
    assert seen == messages
    assert (caught.value.line, caught.value.column, caught.value.path) == (1001, 1, "$")


def test_lenient_reading_keeps_a_newer_writers_lines_byte_for_byte(tmp_path: Path) -> None:
    newer = [
        b'{"role":"tool_result","tool_use_id":"a","content":"b","provenance":"external","ttl":30}',
        b'{"role":"developer","content":"x","level":{"n":[1,2.5,"z"]}}',
        b'{"role":"user_multimodal","content":[{"type":"text","text":"t"},'
        b'{"type":"hologram","uri":"h://1"},{"type":"image_url","url":"u","detail":"auto","mask":true}]}',
        b'{"role":"assistant","content":"c","tool_calls":[{"id":"1","name":"n",'
        b'"arguments":{},"timeout_ms":5}]}',
        ct.encode(user("plain")),
    ]
    source = tmp_path / "newer.jsonl"
    source.write_bytes(b"\n".join(newer) + b"\n")
    copy = tmp_path / "copy.jsonl"
    ct.append_jsonl(copy, ct.iter_jsonl(source, lenient=True))
    assert copy.read_bytes() == source.read_bytes()
    # Strictly, the unknown field is dropped and the unknown role refused.
    strict = ct.iter_jsonl(source)
    assert next(strict) == ct.ToolResultMessage(
        tool_use_id="a", content="b", provenance=ct.Provenance.EXTERNAL
    )
    with pytest.raises(ct.WireError) as caught:
        next(strict)
    err = caught.value
    assert (err.line, err.column, err.path) == (2, 9, "$.role")
    assert err.offset == len(newer[0]) + 1 + 8


def test_a_binary_file_object_is_read_from_where_it_stands_and_left_open(tmp_path: Path) -> None:
    head = line(user("skipped"))
    path = tmp_path / "log.jsonl"
    path.write_bytes(head + line(user("a")) + b"[]\n")
    with path.open("rb") as file:
        file.seek(len(head))
        with pytest.raises(ct.WireError) as caught:
            list(ct.iter_jsonl(file))
        assert not file.closed
    # Lines and offsets count from where reading began.
    assert (caught.value.line, caught.value.column, caught.value.offset) == (
        2,
        1,
        len(line(user("a"))),
    )
    assert list(ct.iter_jsonl(io.BytesIO(line(user("a")) + line(user("b"))))) == [
        user("a"),
        user("b"),
    ]


def test_a_pipe_yields_each_message_once_its_line_has_arrived() -> None:
    # A reader that follows a live log (a subprocess's output, a socket)
    # must see a line while the writer is still writing, not when the
    # batch fills or the writer closes.
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as pipe:
        os.write(write_end, line(user("a")) + line(user("b"))[:9])
        messages = ct.iter_jsonl(pipe)
        got: list[ct.Message] = []
        reader = threading.Thread(target=lambda: got.append(next(messages)))
        reader.start()
        reader.join(timeout=10)  # returns at once when it works
        arrived = list(got)
        os.write(write_end, line(user("b"))[9:])
        os.close(write_end)
        reader.join()
        assert arrived == [user("a")]
        assert list(messages) == [user("b")]


def test_a_closed_or_write_only_stream_raises_what_the_errors_page_says(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(line(user("a")))
    with path.open("rb") as closed:
        pass
    with pytest.raises(ValueError, match="closed file"):
        next(ct.iter_jsonl(closed))
    read_end, write_end = os.pipe()
    os.close(read_end)
    with path.open("ab") as file, os.fdopen(write_end, "wb") as pipe:
        for write_only in (file, pipe):
            with pytest.raises(io.UnsupportedOperation):
                next(ct.iter_jsonl(write_only))


class _Arriving:
    """A stream that cannot seek, whose bytes arrive in the given pieces, as a pipe's do."""

    def __init__(self, pieces: list[bytes]) -> None:
        self._pieces = pieces

    def seekable(self) -> bool:
        return False

    def readlines(self, hint: int = -1) -> list[bytes]:
        raise AssertionError("a stream still being written must not be read by batches")

    def read1(self, size: int = -1) -> bytes:
        if not self._pieces:
            return b""
        piece = self._pieces.pop(0)
        if 0 <= size < len(piece):
            piece, rest = piece[:size], piece[size:]
            self._pieces.insert(0, rest)
        return piece


def _read_all(source: Any, lenient: bool) -> list[object]:
    """What iter_jsonl gives for ``source``: messages, and each bad line with its error."""
    found: list[object] = []

    def bad(err: ct.WireError, text: bytes) -> None:
        where = (err.line, err.column, err.offset, err.path, err.reason)
        found.append((type(err).__name__, where, text))

    for message in ct.iter_jsonl(source, lenient=lenient, on_error=bad):
        found.append(message)
    return found


@settings(max_examples=60)
@given(
    lines=st.lists(
        st.one_of(
            cst.messages(max_items=1).map(lambda m: ct.encode(m) + b"\n"),
            st.sampled_from([b"{}\n", b'{"role":"user"}\r\n', b"\xff\n", b"\n", b" \n"]),
        ),
        max_size=8,
    ),
    torn=st.booleans(),
    lenient=st.booleans(),
    cuts=st.lists(st.integers(0, 2000), max_size=6),
    batch=st.sampled_from([3, 1 << 18]),
)
def test_a_stream_read_as_it_arrives_reads_as_the_file_does(
    lines: list[bytes], torn: bool, lenient: bool, cuts: list[int], batch: int
) -> None:
    # However the bytes are cut into arrivals (and however small a read is),
    # the messages, the bad lines and where their errors are placed are
    # those of the same bytes read from a file.
    data = b"".join([*lines, b'{"role":"user","cont' if torn else b""])
    points = sorted({cut % (len(data) + 1) for cut in cuts})
    pieces = [data[a:b] for a, b in itertools.pairwise([0, *points, len(data)]) if b > a]
    with batches_of(batch):
        assert _read_all(_Arriving(pieces), lenient) == _read_all(io.BytesIO(data), lenient)


class _StrLines:
    """A file-like object that hands out text: refused once it is read."""

    def readlines(self, hint: int = -1) -> list[str]:
        return ['{"role":"user","content":"a"}\n']


def test_text_sources_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(line(user("a")))
    with path.open("r", encoding="utf-8") as text:
        with pytest.raises(TypeError, match="open the file with 'rb'"):
            ct.iter_jsonl(text)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="open the file with 'rb'"):
        ct.iter_jsonl(io.StringIO("{}"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="open the file with 'rb'"):
        next(ct.iter_jsonl(_StrLines()))  # type: ignore[call-overload]
    with pytest.raises(TypeError, match=r"io\.BytesIO"):
        ct.iter_jsonl(line(user("a")))  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="got int"):
        ct.iter_jsonl(3)  # type: ignore[call-overload]


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every file opened with ``open`` while the test runs."""
    files: list[Any] = []
    real_open = builtins.open

    def recording_open(*args: Any, **kwargs: Any) -> Any:
        file = real_open(*args, **kwargs)
        files.append(file)
        return file

    monkeypatch.setattr(builtins, "open", recording_open)
    return files


def test_a_file_it_opened_is_closed_however_iteration_ends(
    tmp_path: Path, opened: list[Any]
) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(oplog(GOOD) + b"{}\n")
    never_started = ct.iter_jsonl(path)
    assert opened == []  # opened on the first next(), not before
    del never_started

    for _ in ct.iter_jsonl(path):
        break  # stopped early
    assert len(opened) == 1 and opened[-1].closed

    with contextlib.closing(ct.iter_jsonl(path)) as messages:
        next(messages)
        assert not opened[-1].closed
    assert opened[-1].closed

    with pytest.raises(ct.WireError):
        list(ct.iter_jsonl(path))  # an error
    assert opened[-1].closed

    path.write_bytes(oplog(GOOD))
    assert list(ct.iter_jsonl(path)) == GOOD  # the end
    assert len(opened) == 4 and all(file.closed for file in opened)

    with pytest.raises(FileNotFoundError):
        next(ct.iter_jsonl(tmp_path / "missing.jsonl"))


def test_memory_is_bounded_by_the_longest_line(tmp_path: Path) -> None:
    text = ct.encode(ct.ToolResultMessage(tool_use_id="c", content="y" * 1000)) + b"\n"
    peaks = []
    for count in (2_000, 20_000):  # about 2 MB, then about 20 MB
        path = tmp_path / f"log-{count}.jsonl"
        with path.open("wb") as out:
            for _ in range(count):
                out.write(text)
        tracemalloc.start()
        try:
            read = sum(1 for _ in ct.iter_jsonl(path))
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
        assert read == count
    # Ten times the data (18 MB more), and the peak stays one batch of lines.
    assert peaks[1] < peaks[0] + 256 * 1024, peaks
    assert peaks[1] < 2 * 1024 * 1024, peaks


# ------------------------------------------------------------------ append_jsonl


def test_append_creates_the_file_and_adds_one_line_per_message(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    ct.append_jsonl(path, [])
    assert path.read_bytes() == b""  # created, empty
    ct.append_jsonl(path, GOOD[:2])
    ct.append_jsonl(str(path), iter(GOOD[2:]))
    assert path.read_bytes() == oplog(GOOD)
    assert list(ct.iter_jsonl(path)) == GOOD


@settings(max_examples=60)
@given(messages=cst.transcripts(max_size=16), cuts=st.lists(st.integers(0, 16), max_size=6))
def test_appended_batches_read_back_equal(messages: list[ct.Message], cuts: list[int]) -> None:
    edges = sorted({0, len(messages), *(min(c, len(messages)) for c in cuts)})
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "log.jsonl"
        for start, end in itertools.pairwise(edges):
            ct.append_jsonl(path, messages[start:end])
        if not messages:
            assert not path.exists()
            return
        assert path.read_bytes() == b"".join(ct.encode(m) + b"\n" for m in messages)
        assert list(ct.iter_jsonl(path)) == messages


def _unwritable() -> ct.Message:
    """A message that cannot be encoded: its arguments were changed in place.

    Construction refuses a lone surrogate; mutating the arguments dict after
    the call was built is the one way one can still get in.
    """
    call = ct.ToolCall(name="n", arguments={"q": "fine"})
    call.arguments["q"] = "lone \ud800 surrogate"
    return ct.AssistantMessage(tool_calls=(call,))


def test_a_message_that_cannot_be_encoded_writes_nothing(tmp_path: Path) -> None:
    bad = [user("fine"), _unwritable()]
    missing = tmp_path / "new.jsonl"
    with pytest.raises(ct.WireError) as caught:
        ct.append_jsonl(missing, bad)
    assert caught.value.path == "$[1].tool_calls[0].arguments.q"
    assert (caught.value.line, caught.value.column) == (None, None)
    assert not missing.exists()  # not even created
    existing = tmp_path / "log.jsonl"
    existing.write_bytes(oplog(GOOD))
    with pytest.raises(ct.WireError):
        ct.append_jsonl(existing, bad)
    assert existing.read_bytes() == oplog(GOOD)


def test_what_is_not_a_list_of_messages_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    with pytest.raises(TypeError, match=r"iterable of messages .* got UserMessage"):
        ct.append_jsonl(path, user("a"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="item 1 is a ToolCall"):
        ct.append_jsonl(path, [user("a"), ct.ToolCall(name="n", arguments={})])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="iterable of messages"):
        ct.save_transcript(path, "text")  # type: ignore[arg-type]
    assert not path.exists()


def test_append_after_a_torn_tail_is_refused_until_repaired(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    ct.append_jsonl(path, GOOD[:2])
    torn = ct.encode(user("half a line"))[:20]
    with path.open("ab") as out:
        out.write(torn)
    before = path.read_bytes()
    with pytest.raises(ct.WireError) as caught:
        ct.append_jsonl(path, [GOOD[2]])
    err = caught.value
    assert "repair_jsonl" in err.reason
    assert (err.line, err.column, err.path) == (3, len(torn) + 1, "$")
    assert err.offset == len(before)
    assert path.read_bytes() == before  # nothing written
    assert ct.repair_jsonl(path) == len(torn)
    ct.append_jsonl(path, [GOOD[2]])
    assert path.read_bytes() == oplog(GOOD)
    assert list(ct.iter_jsonl(path)) == GOOD


def test_a_whole_last_line_without_its_newline_is_refused_too(tmp_path: Path) -> None:
    # Appending would glue the next line onto it just the same.
    path = tmp_path / "log.jsonl"
    path.write_bytes(ct.encode(GOOD[0]))
    with pytest.raises(ct.WireError) as caught:
        ct.append_jsonl(path, [GOOD[1]])
    err = caught.value
    assert (err.line, err.column, err.path) == (1, len(ct.encode(GOOD[0])) + 1, "$")
    assert ct.repair_jsonl(path) == 0  # it only needed its newline
    ct.append_jsonl(path, [GOOD[1]])
    assert path.read_bytes() == oplog(GOOD[:2])


def _short_writes(limit: int, fail_after: int | None = None) -> Any:
    """An ``os.write`` that writes at most ``limit`` bytes a call, and can fail."""
    real_write = os.write
    written = [0]

    def write(fd: int, data: Any) -> int:
        if fail_after is not None and written[0] >= fail_after:
            raise OSError(errno.ENOSPC, "No space left on device")
        count = real_write(fd, bytes(data[:limit]))
        written[0] += count
        return count

    return write


def test_short_writes_are_completed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "log.jsonl"
    monkeypatch.setattr(os, "write", _short_writes(7))
    ct.append_jsonl(path, GOOD)
    ct.save_transcript(tmp_path / "t.json", GOOD)
    monkeypatch.undo()
    assert path.read_bytes() == oplog(GOOD)
    assert ct.load_transcript(tmp_path / "t.json") == GOOD


def test_an_append_that_fails_part_way_takes_back_what_it_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "log.jsonl"
    ct.append_jsonl(path, GOOD[:1])
    monkeypatch.setattr(os, "write", _short_writes(10, fail_after=25))
    with pytest.raises(OSError) as caught:
        ct.append_jsonl(path, GOOD[1:])
    monkeypatch.undo()
    assert caught.value.errno == errno.ENOSPC
    assert path.read_bytes() == oplog(GOOD[:1])  # the 30 bytes it wrote were cut
    ct.append_jsonl(path, GOOD[1:])
    assert list(ct.iter_jsonl(path)) == GOOD


@pytest.fixture
def fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What ``os.fsync`` is called on while the test runs: "file" or "directory"."""
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append("directory" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return synced


@POSIX
def test_append_fsync(tmp_path: Path, fsyncs: list[str]) -> None:
    path = tmp_path / "log.jsonl"
    ct.append_jsonl(path, GOOD[:1])
    assert fsyncs == []
    ct.append_jsonl(path, GOOD[1:2], fsync=True)
    assert fsyncs == ["file"]
    fsyncs.clear()
    ct.append_jsonl(tmp_path / "new.jsonl", GOOD, fsync=True)
    assert fsyncs == ["file", "directory"]  # it created the file


_APPENDER = """
import sys
import convtypes as ct

path, worker, count, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
print("ready", flush=True)
sys.stdin.readline()  # wait for the others
for i in range(count):
    text = f"{worker}:{i}:" + worker * size
    ct.append_jsonl(path, [ct.ToolResultMessage(tool_use_id=f"{worker}-{i}", content=text)])
"""


def _check_appenders(path: Path, workers: list[str], count: int, size: int) -> None:
    data = path.read_bytes()
    assert data.count(b"\n") == len(workers) * count
    seen: dict[str, list[int]] = {worker: [] for worker in workers}
    for message in ct.iter_jsonl(path):
        assert isinstance(message, ct.ToolResultMessage)
        worker, index = message.tool_use_id.split("-")
        assert message.content == f"{worker}:{index}:" + worker * size
        seen[worker].append(int(index))
    assert seen == {worker: list(range(count)) for worker in workers}


@POSIX
def test_four_processes_append_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    workers = ["a", "b", "c", "d"]
    size = 6000  # each line spans pages, so a torn or interleaved write would show
    children = [run_child(_APPENDER, str(path), w, "300", str(size)) for w in workers]
    try:
        for child in children:
            assert child.stdout is not None
            assert child.stdout.readline() == "ready\n", child.communicate()[1]
        for child in children:
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        for child in children:
            _, err = child.communicate(timeout=120)
            assert child.returncode == 0, err
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    _check_appenders(path, workers, 300, size)


def test_threads_append_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    workers = ["e", "f", "g", "h"]
    start = threading.Barrier(len(workers))
    failures: list[BaseException] = []

    def work(worker: str) -> None:
        try:
            start.wait()
            for i in range(300):
                text = f"{worker}:{i}:" + worker * 6000
                message = ct.ToolResultMessage(tool_use_id=f"{worker}-{i}", content=text)
                ct.append_jsonl(path, [message])
        except BaseException as exc:  # pragma: no cover - reported below
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    _check_appenders(path, workers, 300, 6000)


_CRASHING_APPENDER = """
import sys
import convtypes as ct

path, size = sys.argv[1], int(sys.argv[2])
i = 0
while True:
    content = f"{i:06d}" * size
    ct.append_jsonl(path, [ct.ToolResultMessage(tool_use_id=f"call_{i:06d}", content=content)])
    print(i, flush=True)  # this append returned
    i += 1
"""


def _collect(child: subprocess.Popen[str], reported: list[int]) -> None:
    """Read what the child reports, one number a line, until it dies."""
    assert child.stdout is not None
    reported.extend(int(text) for text in child.stdout)


def _crash_message(i: int, size: int) -> ct.Message:
    return ct.ToolResultMessage(tool_use_id=f"call_{i:06d}", content=f"{i:06d}" * size)


@POSIX
def test_a_writer_killed_mid_append_loses_only_the_line_it_was_writing(tmp_path: Path) -> None:
    size = 700_000  # lines of 4.2 MB: each append is one long write to land in
    length = len(line(_crash_message(0, size)))
    rng = random.Random(12)
    torn = 0
    for attempt in range(4):
        path = tmp_path / f"log-{attempt}.jsonl"
        child = run_child(_CRASHING_APPENDER, str(path), str(size))
        reported: list[int] = []
        reader = threading.Thread(target=_collect, args=(child, reported))
        reader.start()
        try:
            wanted = rng.randint(1, 4)
            deadline = time.monotonic() + 60
            while len(reported) < wanted and child.poll() is None:
                assert time.monotonic() < deadline, "the writer made no progress"
                time.sleep(0.001)
            # Kill it while a write is in progress: the file size is then not
            # a whole number of lines (give up waiting for that after a while).
            deadline = time.monotonic() + 2
            while os.stat(path).st_size % length == 0 and time.monotonic() < deadline:
                pass
            child.send_signal(signal.SIGKILL)
        finally:
            if child.poll() is None:
                child.kill()
            _, err = child.communicate()
            reader.join()
        assert child.returncode == -signal.SIGKILL, err  # it died of the kill, not of a bug
        cut = ct.repair_jsonl(path)
        torn += cut > 0
        messages = list(ct.iter_jsonl(path))
        # Every append that returned is there, in order and whole; the one in
        # flight is there whole or not at all.
        assert reported == list(range(len(reported)))
        assert len(reported) <= len(messages) <= len(reported) + 1
        assert messages == [_crash_message(i, size) for i in range(len(messages))]
        assert path.stat().st_size == len(messages) * length
        ct.append_jsonl(path, [user("after")])  # and the log goes on
        assert list(ct.iter_jsonl(path))[-1] == user("after")
        path.unlink()
    assert torn > 0, "no kill landed in the middle of a write; the test proved nothing"


# ------------------------------------------------------------------ repair_jsonl


def test_repair_cuts_only_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    whole = oplog(GOOD)
    torn = b'{"role":"tool_result","tool_use_id":"k","content":"par'
    path.write_bytes(whole + torn)
    assert ct.repair_jsonl(path) == len(torn)
    assert path.read_bytes() == whole
    assert ct.repair_jsonl(path) == 0  # a second call finds nothing
    assert path.read_bytes() == whole


@pytest.mark.parametrize(
    "tail",
    [
        pytest.param(b"{", id="one-byte"),
        pytest.param(b"   \t", id="blanks"),
        pytest.param(b'{"role":"user","content":"caf\xc3', id="cut-inside-a-character"),
        pytest.param(b"\x00" * 40, id="zeros"),
        pytest.param(b'{"role":"user","content":"a"}{', id="more-after-a-document"),
    ],
)
def test_repair_cuts_any_tail_that_is_not_whole_json(tmp_path: Path, tail: bytes) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(oplog(GOOD) + tail)
    assert ct.repair_jsonl(path) == len(tail)
    assert path.read_bytes() == oplog(GOOD)


def test_repair_gives_a_whole_last_line_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    for last in (ct.encode(GOOD[2]), b'{"role":"developer","content":"from a newer writer"}'):
        path.write_bytes(oplog(GOOD[:2]) + last)
        assert ct.repair_jsonl(path) == 0
        assert path.read_bytes() == oplog(GOOD[:2]) + last + b"\n"
        assert ct.repair_jsonl(path) == 0


def test_repair_of_files_that_need_none(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"")
    assert ct.repair_jsonl(path) == 0
    assert path.read_bytes() == b""
    path.write_bytes(oplog(GOOD) + b"{not even json}\n")  # whole lines, bad or not
    assert ct.repair_jsonl(path) == 0
    assert path.read_bytes() == oplog(GOOD) + b"{not even json}\n"
    path.write_bytes(b'{"role":"us')  # the only line is torn
    assert ct.repair_jsonl(path) == 11
    assert path.read_bytes() == b""
    assert ct.repair_jsonl(tmp_path / "missing.jsonl") == 0
    assert not (tmp_path / "missing.jsonl").exists()


def test_repair_leaves_whole_json_that_is_not_a_message(tmp_path: Path) -> None:
    # No crash leaves a whole JSON document behind; repair does not guess.
    path = tmp_path / "log.jsonl"
    head = oplog(GOOD)
    tail = b'{"role":"user","content":7}'
    path.write_bytes(head + tail)
    with pytest.raises(ct.WireError) as caught:
        ct.repair_jsonl(path)
    err = caught.value
    assert (err.line, err.column, err.path) == (4, 26, "$.content")
    assert err.offset == len(head) + 25
    assert "not a message" in err.reason and "expected str, got int" in err.reason
    assert path.read_bytes() == head + tail


def test_repair_reads_only_the_tail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "log.jsonl"
    whole = oplog([user("x" * 100)] * 40_000)  # about 4 MB
    torn = ct.encode(user("y" * 300_000))[:250_000]  # a long torn line, spanning blocks
    path.write_bytes(whole + torn)
    read = [0]
    real_pread = os.pread

    def pread(fd: int, size: int, offset: int) -> bytes:
        data = real_pread(fd, size, offset)
        read[0] += len(data)
        return data

    monkeypatch.setattr(os, "pread", pread)
    assert ct.repair_jsonl(path) == len(torn)
    # The torn line twice (found backwards, then read) and one block more.
    assert read[0] <= 2 * len(torn) + 2 * _files._TAIL_BLOCK, read[0]
    monkeypatch.undo()
    assert path.read_bytes() == whole


@POSIX
def test_repair_and_append_wait_for_each_other(tmp_path: Path) -> None:
    # An appender holds the lock while it writes; repair must not cut the
    # line it is writing, so it waits, and so does another appender.
    import fcntl

    path = tmp_path / "log.jsonl"
    path.write_bytes(oplog(GOOD[:1]) + b'{"role":"user","con')  # looks torn, mid-append
    results: list[object] = []
    with path.open("rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        repair = threading.Thread(target=lambda: results.append(ct.repair_jsonl(path)))
        repair.start()
        time.sleep(0.3)
        assert repair.is_alive() and results == []  # waiting for the lock
        with path.open("ab") as writer:  # the "appender" finishes its line
            writer.write(b'tent":"b"}\n')
    repair.join(timeout=30)
    assert results == [0]
    assert list(ct.iter_jsonl(path)) == [GOOD[0], user("b")]


# ------------------------------------------------------------------ transcripts


def test_a_save_that_cannot_start_names_the_path_it_was_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The file that could not be made is the temporary one beside the
    # target, named at random; the error names the target instead.
    target = tmp_path / "missing" / "session.json"
    with pytest.raises(FileNotFoundError) as missing:
        ct.save_transcript(target, [user("a")])
    assert missing.value.filename == str(target)
    assert str(missing.value) == f"[Errno {errno.ENOENT}] No such file or directory: '{target}'"
    real_open = os.open

    def refuse_temporary(path: str, flags: int, mode: int = 0o777) -> int:
        if path.endswith(".tmp"):
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_open(path, flags, mode)

    monkeypatch.setattr(os, "open", refuse_temporary)
    with pytest.raises(PermissionError) as refused:
        ct.save_transcript(tmp_path / "session.json", [user("a")])
    assert refused.value.filename == str(tmp_path / "session.json")
    assert refused.value.errno == errno.EACCES
    assert list(tmp_path.iterdir()) == []


def test_save_and_load_a_transcript(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    ct.save_transcript(path, GOOD)
    assert path.read_bytes() == ct.encode(GOOD)
    assert ct.load_transcript(path) == GOOD
    ct.save_transcript(str(path), iter(GOOD[:1]), fsync=False)
    assert ct.load_transcript(str(path)) == GOOD[:1]
    assert sorted(os.listdir(tmp_path)) == ["t.json"]


@settings(max_examples=40)
@given(messages=cst.transcripts())
def test_saved_transcripts_load_equal(messages: list[ct.Message]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "t.json"
        ct.save_transcript(path, messages, fsync=False)
        assert path.read_bytes() == ct.encode(messages)
        assert ct.load_transcript(path) == messages


def test_load_reads_pretty_printed_files_and_places_errors(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(
        b'[\n  {"role": "user", "content": "a"},\n\n  {\n    "role": "system",\n'
        b'    "content": "s"\n  }\n]\n'
    )
    assert ct.load_transcript(path) == [user("a"), ct.SystemMessage(content="s")]
    cases = [
        # (file, line, column, path)
        (
            b'[\n  {"role": "user", "content": "a"},\n  {"role": "user", "content": 7}\n]\n',
            3,
            31,
            "$[1].content",
        ),
        (b'[\n  {"role": "user", "content": "a"},\n  {"role": "user"}\n]', 3, 3, "$[1]"),
        (
            b'[\n  {"role": "user", "content": "a"},\n  {"role": "user", "content": "b',
            3,
            33,
            "$[1].content",
        ),  # the end of the file
        (b'\n\n  {"role": "user", "content": "a"}\n', 3, 3, "$"),
        (b"", 1, 1, "$"),
        (b'[\r\n {"role":"user","content":"a"},\r\n {"role":"tool"}]', 3, 10, "$[1].role"),
    ]
    for data, number, column, where in cases:
        path.write_bytes(data)
        with pytest.raises(ct.WireError) as caught:
            ct.load_transcript(path)
        err = caught.value
        assert (err.line, err.column, err.path) == (number, column, where), data
        assert err.offset == sum(len(text) + 1 for text in data.split(b"\n")[: number - 1]) + (
            column - 1
        )


def test_load_lenient(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    newer = b'[{"role":"developer","content":"x"},{"role":"user","content":"a","mood":"ok"}]'
    path.write_bytes(newer)
    with pytest.raises(ct.WireError) as caught:
        ct.load_transcript(path)
    assert (caught.value.line, caught.value.column, caught.value.path) == (1, 10, "$[0].role")
    loaded = ct.load_transcript(path, lenient=True)
    assert isinstance(loaded[0], ct.UnknownMessage)
    ct.save_transcript(path, loaded)
    assert path.read_bytes() == newer


def test_a_failed_save_keeps_the_old_file_and_leaves_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.json"
    ct.save_transcript(path, GOOD)
    old = path.read_bytes()
    with pytest.raises(ct.WireError) as caught:
        ct.save_transcript(path, [user("a"), _unwritable()])
    assert (caught.value.path, caught.value.line) == ("$[1].tool_calls[0].arguments.q", None)
    assert path.read_bytes() == old and os.listdir(tmp_path) == ["t.json"]

    # Failures after the temporary file exists: while writing, and at the rename.
    monkeypatch.setattr(os, "write", _short_writes(10, fail_after=10))
    with pytest.raises(OSError):
        ct.save_transcript(path, [user("new")])
    monkeypatch.undo()

    def no_replace(source: str, target: str) -> None:
        assert Path(source).parent == tmp_path  # the temporary is beside the target
        raise PermissionError(errno.EACCES, "denied")

    monkeypatch.setattr(os, "replace", no_replace)
    with pytest.raises(PermissionError):
        ct.save_transcript(path, [user("new")])
    monkeypatch.undo()
    assert path.read_bytes() == old and os.listdir(tmp_path) == ["t.json"]


@POSIX
def test_save_keeps_the_permissions_of_the_file_it_replaces(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    ct.save_transcript(path, GOOD)
    plain = tmp_path / "plain"
    plain.write_bytes(b"")  # what open() makes under this umask
    assert stat.S_IMODE(path.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)
    path.chmod(0o640)
    ct.save_transcript(path, GOOD[:1])
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


@POSIX
def test_save_fsync(tmp_path: Path, fsyncs: list[str]) -> None:
    ct.save_transcript(tmp_path / "t.json", GOOD)
    assert fsyncs == ["file", "directory"]  # the data, then the rename
    fsyncs.clear()
    ct.save_transcript(tmp_path / "t.json", GOOD, fsync=False)
    assert fsyncs == []


def test_readers_see_the_old_file_or_the_new_one(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    versions = [[user(letter * 200_000)] * 8 for letter in "ab"]  # about 1.6 MB each
    ct.save_transcript(path, versions[0], fsync=False)
    stop = threading.Event()
    loads: list[int] = []
    failures: list[BaseException] = []

    def read() -> None:
        try:
            while not stop.is_set():
                loads.append(versions.index(ct.load_transcript(path)))
        except BaseException as exc:  # pragma: no cover - reported below
            failures.append(exc)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for i in range(30):
            ct.save_transcript(path, versions[i % 2], fsync=False)
    finally:
        stop.set()
        reader.join()
    assert failures == [] and loads


_CRASHING_SAVER = """
import sys
import convtypes as ct

path = sys.argv[1]
versions = [[ct.UserMessage(content=letter * 500_000)] * 8 for letter in "ab"]
i = 0
while True:
    ct.save_transcript(path, versions[i % 2])  # its fsync is the long step to land in
    print(i, flush=True)
    i += 1
"""


@POSIX
def test_a_save_killed_midway_leaves_the_old_file_or_the_new_one(tmp_path: Path) -> None:
    versions = [[user(letter * 500_000)] * 8 for letter in "ab"]
    rng = random.Random(5)
    interrupted = 0
    for attempt in range(4):
        directory = tmp_path / str(attempt)
        directory.mkdir()
        path = directory / "t.json"
        ct.save_transcript(path, versions[1])
        child = run_child(_CRASHING_SAVER, str(path))
        assert child.stdout is not None
        for _ in range(rng.randint(1, 3)):
            assert child.stdout.readline(), child.communicate()[1]
        # Kill it while a save is under way: its temporary file exists (give
        # up waiting for that after a while).
        deadline = time.monotonic() + 2
        while len(os.listdir(directory)) < 2 and time.monotonic() < deadline:
            pass
        child.send_signal(signal.SIGKILL)
        _, err = child.communicate()
        assert child.returncode == -signal.SIGKILL, err
        assert ct.load_transcript(path) in versions
        # A kill can leave its temporary file behind, never anything else.
        names = set(os.listdir(directory)) - {"t.json"}
        assert all(re.fullmatch(r"\.t\.json\.[0-9a-f]{12}\.tmp", name) for name in names), names
        interrupted += bool(names)
    assert interrupted > 0, "no kill landed in the middle of a save; the test proved nothing"


def test_repair_keeps_a_whole_last_line_with_invalid_utf8(tmp_path: Path) -> None:
    # A whole line whose text is not UTF-8 was not torn by a crash: it is
    # reported, not cut. A line cut inside a character is still cut.
    path = tmp_path / "log.jsonl"
    head = oplog(GOOD)
    tail = b'{"role":"user","content":"\xff"}'
    path.write_bytes(head + tail)
    with pytest.raises(ct.WireError) as caught:
        ct.repair_jsonl(path)
    assert "not a message" in caught.value.reason
    assert path.read_bytes() == head + tail
    cut = '{"role":"user","content":"é'.encode()[:-1]
    path.write_bytes(head + cut)
    assert ct.repair_jsonl(path) == len(cut)
    assert path.read_bytes() == head


# ------------------------------------------------ a torn tail, told by its type


def test_a_torn_tail_is_a_torn_line_error(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(oplog(GOOD[:2]) + b'{"role":"user","con')
    with pytest.raises(ct.TornLineError) as appending:
        ct.append_jsonl(path, [GOOD[2]])
    with pytest.raises(ct.TornLineError) as reading:
        list(ct.iter_jsonl(path))
    for err in (appending.value, reading.value):
        assert isinstance(err, ct.WireError)  # `except WireError` still catches it
        assert err.line == 3
        assert "repair_jsonl" in err.reason
    import pickle

    copied = pickle.loads(pickle.dumps(reading.value))
    assert type(copied) is ct.TornLineError
    assert (copied.reason, copied.path, copied.offset, copied.line, copied.column) == (
        reading.value.reason,
        reading.value.path,
        reading.value.offset,
        reading.value.line,
        reading.value.column,
    )


def test_a_bad_line_is_not_a_torn_line(tmp_path: Path) -> None:
    # Whole JSON that is not a message: repair_jsonl will not cut it, so it
    # is a bad line, with or without a newline after it.
    path = tmp_path / "log.jsonl"
    for tail in (b'{"role":"user","content":5}\n', b'{"role":"user","content":5}'):
        path.write_bytes(oplog(GOOD[:1]) + tail)
        with pytest.raises(ct.WireError) as caught:
            list(ct.iter_jsonl(path))
        assert type(caught.value) is ct.WireError
        assert "repair_jsonl" not in caught.value.reason
        assert (caught.value.line, caught.value.path) == (2, "$.content")
    # Appending after a tail without a newline is refused all the same.
    with pytest.raises(ct.TornLineError):
        ct.append_jsonl(path, GOOD)


# ------------------------------------------------ going on past bad lines


def test_on_error_hears_of_every_bad_line_and_reading_goes_on(tmp_path: Path) -> None:
    lines = [
        line(GOOD[0]),
        b'{"role":"user","content":7}\n',
        b"\n",
        line(GOOD[1]),
        b"not json\r\n",
        line(GOOD[2]),
        b'{"role":"user","content":"to',
    ]
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"".join(lines))
    bad: list[tuple[ct.WireError, bytes]] = []
    seen = list(ct.iter_jsonl(path, on_error=lambda err, text: bad.append((err, text))))
    assert seen == GOOD
    assert [text for _, text in bad] == [lines[1], lines[4], lines[6]]
    assert [(err.line, err.column, err.path) for err, _ in bad] == [
        (2, 26, "$.content"),
        (5, 5, "$"),  # after "not "
        (7, 29, "$.content"),
    ]
    assert [type(err) for err, _ in bad] == [ct.WireError, ct.WireError, ct.TornLineError]
    # Each error is the one a reader without on_error would have met there.
    assert bad[1][0].offset == sum(map(len, lines[:4])) + len(b"not ")
    with pytest.raises(ct.WireError) as first:
        list(ct.iter_jsonl(path))
    assert str(first.value) == str(bad[0][0])


def test_a_callback_that_raises_ends_the_reading(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(line(GOOD[0]) + b"{}\n" + line(GOOD[1]))

    def stop(err: ct.WireError, text: bytes) -> None:
        raise KeyboardInterrupt

    seen: list[ct.Message] = []
    with pytest.raises(KeyboardInterrupt):
        for message in ct.iter_jsonl(path, on_error=stop):
            seen.append(message)
    assert seen == GOOD[:1]
    with pytest.raises(TypeError, match="on_error must be callable, got list"):
        ct.iter_jsonl(path, on_error=[])  # type: ignore[call-overload]


@settings(max_examples=60)
@given(
    lines=st.lists(
        st.one_of(
            cst.messages().map(lambda m: ct.encode(m) + b"\n"),
            st.sampled_from([b"{}\n", b"[1]\n", b'{"role":"user"}\r\n', b"\xff\n", b"\n", b" \n"]),
        ),
        max_size=15,
    ),
    torn=st.booleans(),
    lenient=st.booleans(),
    batch=st.sampled_from([1, 40, 1 << 18]),
)
def test_on_error_loses_nothing(lines: list[bytes], torn: bool, lenient: bool, batch: int) -> None:
    # Every non-blank line comes back, in order: as a message (written in
    # canonical form, so its bytes are the line) or as a bad line's bytes.
    if torn:
        lines = [*lines, b'{"role":"assistant","content":"cut sh']
    got: list[bytes] = []
    with tempfile.TemporaryDirectory() as directory, batches_of(batch):
        path = Path(directory) / "log.jsonl"
        path.write_bytes(b"".join(lines))
        for message in ct.iter_jsonl(
            path, lenient=lenient, on_error=lambda err, text: got.append(text)
        ):
            got.append(ct.encode(message) + b"\n")
    assert got == [text for text in lines if text.strip(b" \t\r\n")]


# ------------------------------------------------ what save_transcript replaces


@POSIX
def test_save_refuses_a_target_that_is_not_a_regular_file(tmp_path: Path) -> None:
    import socket

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    directory = tmp_path / "dir"
    directory.mkdir()
    real = tmp_path / "real.json"
    real.write_bytes(b"[]")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    to_null = tmp_path / "null.json"
    to_null.symlink_to("/dev/null")
    sock = tmp_path / "s"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    cases: list[tuple[Path, type[OSError], str]] = [
        (fifo, FileExistsError, "a FIFO"),
        (directory, IsADirectoryError, "a directory"),
        (link, FileExistsError, "a symbolic link"),
        (to_null, FileExistsError, "a symbolic link"),
        (sock, FileExistsError, "a socket"),
    ]
    try:
        for path, kind, what in cases:
            before = os.lstat(path)
            with pytest.raises(kind) as caught:
                ct.save_transcript(path, GOOD)
            assert caught.value.filename == str(path)
            assert caught.value.strerror is not None and caught.value.strerror.endswith(what)
            after = os.lstat(path)
            assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    finally:
        server.close()
    assert real.read_bytes() == b"[]"  # the link's file is untouched
    assert sorted(os.listdir(tmp_path)) == [
        "dir",
        "fifo",
        "link.json",
        "null.json",
        "real.json",
        "s",
    ]
    # Through the link on purpose: name the file it points to.
    ct.save_transcript(os.path.realpath(link), GOOD)
    assert ct.load_transcript(link) == GOOD and link.is_symlink()


@pytest.mark.parametrize(
    ("kind", "what"), [(stat.S_IFCHR, "a character device"), (stat.S_IFBLK, "a block device")]
)
def test_save_refuses_a_device(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: int, what: str
) -> None:
    # /dev/null itself is not a safe thing to aim a test at: a regression
    # run as root would replace it. A device is faked at a path instead.
    path = tmp_path / "device"
    real_lstat = os.lstat

    def lstat(name: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if os.fspath(name) == str(path):
            return os.stat_result((kind | 0o666, 1, 1, 1, 0, 0, 0, 0, 0, 0))
        return real_lstat(name, *args, **kwargs)

    monkeypatch.setattr(os, "lstat", lstat)
    with pytest.raises(FileExistsError, match=f"this is {what}"):
        ct.save_transcript(path, GOOD)
    monkeypatch.undo()
    assert os.listdir(tmp_path) == []  # nothing made, not even a temporary file
