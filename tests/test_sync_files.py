"""Op logs on disk: appends that a kill cannot split, and reads from a byte cursor.

Two kinds of test cover a crash during ``append_ops``:

- A file holding ops, cut at every byte offset: every state a write cut
  short can leave on a local file system (a write lays its bytes down in
  order, so what a kill leaves is a prefix of it). This covers every
  place, deterministically.
- Real kills: a forked child appends ops of about 64 KB each (so that
  a good share of the kills land inside a ``write``) and reports each append
  that returned; the parent sends SIGKILL after a random delay, 200 times.
  This covers what the first cannot: the lock, ``O_APPEND`` and the
  acknowledgements of a real process, at the points where timing put them.
"""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

import pytest

import convtypes as ct
from convtypes.sync import (
    AddMessages,
    LenientOp,
    UnknownOp,
    append_ops,
    encode_op,
    fold,
    op_id,
    read_ops,
)


def chain(count: int, device: str = "a", size: int = 10, first: int = 1) -> list[AddMessages]:
    """Ops that follow each other; every other one a whole reply (items and message)."""
    ops: list[AddMessages] = []
    after = None
    for clock in range(first, first + count):
        messages: list[ct.Message]
        if clock % 2:
            messages = [ct.UserMessage(content=f"turn {clock} " + "x" * size)]
        else:
            messages = [
                ct.ProviderOutputItemsMessage(
                    protocol="openai-responses", items=[{"type": "reasoning", "id": f"rs_{clock}"}]
                ),
                ct.AssistantMessage(content=f"reply {clock} " + "y" * size),
            ]
        op = AddMessages(
            id=op_id(clock, device), device=device, clock=clock, after=after, messages=messages
        )
        ops.append(op)
        after = op.id
    return ops


def test_append_then_read_with_a_cursor(tmp_path: Path) -> None:
    log = tmp_path / "ops.jsonl"
    ops = chain(5)
    append_ops(log, ops[:2])
    read, cursor = read_ops(log)
    assert read == ops[:2] and cursor == log.stat().st_size
    append_ops(log, ops[2:], fsync=False)
    more, end = read_ops(log, cursor)
    assert more == ops[2:] and end == log.stat().st_size
    assert read_ops(log, end) == ([], end)
    assert log.read_bytes() == b"".join(encode_op(op) + b"\n" for op in ops)
    append_ops(log, [])
    assert log.stat().st_size == end


def test_every_cut_of_an_append_leaves_whole_ops_only(tmp_path: Path) -> None:
    ops = chain(4, size=0)
    lines = [encode_op(op) + b"\n" for op in ops]
    data = b"".join(lines)
    ends = [sum(map(len, lines[: n + 1])) for n in range(len(lines))]
    extra = chain(1, device="b")[0]
    for size in range(len(data) + 1):
        cut = tmp_path / f"cut-{size}.jsonl"  # a new file: rewriting one may wait for the disk
        cut.write_bytes(data[:size])
        read, cursor = read_ops(cut)
        whole = sum(1 for end in ends if end <= size)
        assert read == ops[:whole], size
        assert cursor == (ends[whole - 1] if whole else 0)
        if size % 13 == 0 or size in ends:
            # The next append cuts the torn tail and nothing acknowledged is lost.
            append_ops(cut, [extra], fsync=False)
            assert read_ops(cut)[0] == [*ops[:whole], extra]


def _child_appends(path: Path, ops: list[AddMessages], batch: int, acks: int) -> None:
    try:
        for start in range(0, len(ops), batch):
            append_ops(path, ops[start : start + batch], fsync=False)
            os.write(acks, b"%d\n" % min(start + batch, len(ops)))
    finally:
        os._exit(0)


def test_kills_at_random_points_of_append_lose_nothing_acknowledged(tmp_path: Path) -> None:
    rng = random.Random(36)
    ops = chain(100, size=1 << 16)
    extra = chain(1, device="b")[0]
    torn, kill = 0, -1
    # At least 200 kills; on a busy machine fewer of them land inside a write,
    # so it goes on (up to 2,000) until enough have for the test to mean something.
    while (kill := kill + 1) < 200 or (torn < 10 and kill < 2000):
        path = tmp_path / f"kill-{kill}.jsonl"
        batch = 1 if kill % 2 else 3
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            os.close(read_end)
            _child_appends(path, ops, batch, write_end)
        os.close(write_end)
        until = time.perf_counter() + rng.uniform(0, 0.004)
        while time.perf_counter() < until:  # sleep() oversleeps on a busy machine
            pass
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        with os.fdopen(read_end, "rb") as acks:
            acknowledged = max((int(n) for n in acks.read().split()), default=0)
        if not path.exists():
            assert acknowledged == 0
            continue  # killed before its first write
        data = path.read_bytes()
        torn += not data.endswith(b"\n") and bool(data)
        read, cursor = read_ops(path)
        # Whole ops only, in order: every acknowledged one, and at most what
        # the append in flight held.
        assert read == ops[: len(read)]
        assert acknowledged <= len(read) <= acknowledged + batch
        assert cursor == data.rfind(b"\n") + 1
        for op in read:
            assert isinstance(op, AddMessages) and op.messages  # a reply is never half there
        append_ops(path, [extra], fsync=False)
        assert read_ops(path)[0] == [*ops[: len(read)], extra]
    # Enough kills fell inside a write for the test to mean something.
    assert torn >= 10, torn


def test_a_reader_following_an_appender_gets_every_op_once(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    ops = chain(300, size=2000)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read_end)
        try:
            start = 0
            while start < len(ops):
                size = 1 + start % 3  # batches of one to three ops
                append_ops(path, ops[start : start + size], fsync=False)
                start += size
                if start % 30 < 3:
                    time.sleep(0.001)
        finally:
            os._exit(0)
    os.close(write_end)
    os.close(read_end)
    got: list[LenientOp] = []
    cursor, reads = 0, 0
    deadline = time.monotonic() + 60
    while len(got) < len(ops) and time.monotonic() < deadline:
        if path.exists():
            more, cursor = read_ops(path, cursor)
            got += more
            reads += 1
    os.waitpid(pid, 0)
    more, cursor = read_ops(path, cursor)
    got += more
    assert got == ops
    assert cursor == path.stat().st_size
    assert reads > 1


def test_a_line_that_grows_while_a_batch_is_read_waits_for_the_next_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # readlines() on a file that an appender is writing reads up to its end,
    # returns the line there without its newline, and goes on: the rest of
    # that line, written meanwhile, comes as a line of its own in the same
    # batch. Here the batch is made so, as a live log makes it at random.
    import convtypes.sync._files as files

    path = tmp_path / "live.jsonl"
    ops = chain(3)
    lines = [encode_op(op) + b"\n" for op in ops]
    path.write_bytes(b"".join(lines))
    cut = len(lines[1]) // 2
    batch = [lines[0], lines[1][:cut], lines[1][cut:], lines[2]]
    monkeypatch.setattr(files, "line_batches", lambda *_, **__: iter([(1, 0, batch)]))
    got, cursor = read_ops(path)
    assert got == ops[:1] and cursor == len(lines[0])
    monkeypatch.undo()
    rest, cursor = read_ops(path, cursor)
    assert got + rest == ops and cursor == path.stat().st_size


NEWER_LOG = (
    b'{"op":"add","id":"1@phone","device":"phone","clock":1,'
    b'"messages":[{"role":"system","content":"Be terse.","cache":"1h"},'
    b'{"role":"user_multimodal","content":[{"type":"text","text":"look"},'
    b'{"type":"hologram","uri":"h://1"}]}],"signature":"abc"}\n'
    b'{"op":"add","id":"2@tablet","device":"tablet","clock":2,"after":"1@phone",'
    b'"messages":[{"role":"developer","content":"new role"},'
    b'{"role":"assistant","content":"ok","tool_calls":[],"mood":"calm"}],"x_trace":[1,{"k":null}]}\n'
    b'{"op":"add","id":"3@phone","device":"phone","clock":3,"after":"2@tablet",'
    b'"messages":[{"role":"user","content":"thanks"}]}\n'
    b'{"op":"pin","node":"2@tablet","by":"tablet"}\n'
    b'{"op":"tombstone","id":"9@tablet","of":"1@phone"}\n'
)  # fmt: skip


def test_a_newer_writers_log_survives_fold_and_resave_byte_for_byte(tmp_path: Path) -> None:
    source = tmp_path / "newer.jsonl"
    source.write_bytes(NEWER_LOG)
    ops, cursor = read_ops(source)
    assert cursor == len(NEWER_LOG)
    tree = fold(reversed(ops))
    assert [op.op for op in tree.unknown] == ["pin", "tombstone"]
    assert tree.heads() == ["3@phone"]
    transcript = tree.transcript()
    assert isinstance(transcript[2], ct.UnknownMessage)
    assert ct.unknown_fields(transcript[0]) == {"cache": "1h"}
    again = tmp_path / "again.jsonl"
    append_ops(again, tree.ops())
    assert again.read_bytes() == NEWER_LOG
    # And the tree keeps going on top of what it does not know.
    op = tree.append([ct.AssistantMessage(content="you are welcome")], after="3@phone", device="b")
    assert op.clock == 4
    system = b'[{"role":"system","content":"Be terse.","cache":"1h"}'
    assert ct.encode(tree.transcript()).startswith(system)


def test_a_corrupt_whole_line_names_its_place_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    good = chain(2)
    append_ops(path, good)
    first = path.stat().st_size
    bad = (
        b'{"op":"add","id":"3@a","device":"a","clock":3,"messages":[{"role":"user","content":5}]}\n'
    )
    with path.open("ab") as out:
        out.write(b"\n" + bad + encode_op(chain(1, first=4)[0]) + b"\n")
    with pytest.raises(ct.WireError) as caught:
        read_ops(path)
    err = caught.value
    assert err.path == "$.messages[0].content"
    assert err.offset == first + 1 + bad.index(b"5")
    assert (err.line, err.column) == (4, bad.index(b"5") + 1)
    with pytest.raises(ct.WireError) as from_cursor:
        read_ops(path, first)
    assert from_cursor.value.offset == err.offset and from_cursor.value.line == 4


def test_a_bad_id_in_a_batch_is_placed_too(tmp_path: Path) -> None:
    path = tmp_path / "id.jsonl"
    append_ops(path, chain(3))
    size = path.stat().st_size
    with path.open("ab") as out:
        out.write(
            b'{"op":"add","id":"7@a","device":"a","clock":4,"messages":[{"role":"user","content":"x"}]}\n'
        )
    with pytest.raises(ct.WireError) as caught:
        read_ops(path)
    assert caught.value.path == "$.id"
    assert caught.value.line == 4 and caught.value.offset is not None
    assert caught.value.offset >= size


def test_a_torn_tail_is_not_an_error_and_the_next_append_cuts_it(tmp_path: Path) -> None:
    path = tmp_path / "torn.jsonl"
    ops = chain(3)
    append_ops(path, ops[:2])
    whole = path.stat().st_size
    with path.open("ab") as out:
        out.write(encode_op(ops[2]))  # whole JSON, but no newline: never acknowledged
    assert read_ops(path) == (ops[:2], whole)
    append_ops(path, [ops[2]])
    assert read_ops(path) == (ops, path.stat().st_size)


def test_read_ops_refuses_a_cursor_that_is_not_at_a_line(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    append_ops(path, chain(2))
    size = path.stat().st_size
    with pytest.raises(ValueError, match="not where a line starts"):
        read_ops(path, 5)
    with pytest.raises(ValueError, match="past the end of the file"):
        read_ops(path, size + 10)
    with pytest.raises(ValueError, match="from 0"):
        read_ops(path, -1)
    with pytest.raises(TypeError):
        read_ops(path, 1.0)  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError):
        read_ops(tmp_path / "missing.jsonl")


def test_append_ops_refuses_what_is_not_ops_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    op = chain(1)[0]
    with pytest.raises(TypeError):
        append_ops(path, op)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        append_ops(path, [op, ct.UserMessage(content="x")])  # type: ignore[list-item]
    bad = AddMessages(
        id="2@a",
        device="a",
        clock=2,
        messages=[ct.AssistantMessage(tool_calls=(ct.ToolCall(name="t", arguments={}),))],
    )
    bad.messages[0].tool_calls[0].arguments["q"] = "\udc80"  # type: ignore[union-attr]
    with pytest.raises(ct.WireError) as caught:
        append_ops(path, [op, bad])
    assert caught.value.path == "$[1].messages[0].tool_calls[0].arguments.q"
    assert not path.exists()
    pin = UnknownOp(op="pin", raw=b'{"op":"pin"}')
    append_ops(path, [pin])
    assert read_ops(path)[0] == [pin]


def test_a_newer_line_or_a_blank_one_amid_plain_ones_costs_no_op(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    ops = chain(30)
    lines = [encode_op(op) + b"\n" for op in ops]
    newer = NEWER_LOG.splitlines(keepends=True)
    mixed = [*lines[:10], b"  \n", newer[3], *lines[10:20], b"\r\n", newer[0], *lines[20:]]
    path.write_bytes(b"".join(mixed))
    read, cursor = read_ops(path)
    assert cursor == path.stat().st_size
    assert [encode_op(op) + b"\n" for op in read] == [
        *lines[:10], newer[3], *lines[10:20], newer[0], *lines[20:]
    ]  # fmt: skip
