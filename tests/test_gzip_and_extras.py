"""Errors that say what to do: a gzipped file read as JSON, a module without its extra."""

from __future__ import annotations

import gzip
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import convtypes as ct

LINE = b'{"role":"user","content":"hi"}\n'


def _gzipped(path: Path, data: bytes) -> Path:
    with gzip.open(path, "wb") as file:
        file.write(data)
    return path


def test_iter_jsonl_on_a_gzipped_file_says_to_use_gzip_open(tmp_path: Path) -> None:
    path = _gzipped(tmp_path / "log.jsonl.gz", LINE * 3)
    with pytest.raises(ct.WireError) as caught:
        list(ct.iter_jsonl(path))
    error = caught.value
    assert "gzip-compressed" in error.reason
    assert "gzip.open(path, 'rb')" in error.reason
    assert (error.path, error.line, error.column, error.offset) == ("$", 1, 1, 0)
    # Not for on_error to skip past: the whole file is unreadable as JSON.
    with pytest.raises(ct.WireError, match="gzip-compressed"):
        list(ct.iter_jsonl(path, on_error=lambda err, line: None))
    # What the message says to do works.
    with gzip.open(path, "rb") as file:
        assert list(ct.iter_jsonl(file)) == [ct.UserMessage(content="hi")] * 3


def test_a_gzipped_file_object_given_as_it_is_says_so_too(tmp_path: Path) -> None:
    path = _gzipped(tmp_path / "log.bin", LINE)
    with open(path, "rb") as raw, pytest.raises(ct.WireError, match="gzip-compressed"):
        list(ct.iter_jsonl(raw))


def test_load_transcript_on_a_gzipped_file_says_to_use_gzip_open(tmp_path: Path) -> None:
    path = _gzipped(tmp_path / "chat.json.gz", b'[{"role":"user","content":"hi"}]')
    with pytest.raises(ct.WireError) as caught:
        ct.load_transcript(path)
    assert "load_transcript reads plain JSON" in caught.value.reason
    assert "gzip.open(path, 'rb')" in caught.value.reason
    assert (caught.value.path, caught.value.line, caught.value.column) == ("$", 1, 1)


def test_a_plain_bad_first_line_is_still_malformed_json(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"\x1f not gzip\n")
    with pytest.raises(ct.WireError) as caught:
        list(ct.iter_jsonl(path))
    assert "gzip" not in caught.value.reason


def test_strategies_without_hypothesis_name_the_extra() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                """
                import sys
                sys.modules["hypothesis"] = None  # as if it were not installed
                import convtypes  # never needs it
                try:
                    import convtypes.strategies
                except ImportError as err:
                    print(err)
                    print(err.name)
                """
            ),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "convtypes.strategies needs Hypothesis, which is not installed: "
        "pip install 'convtypes[hypothesis]'",
        "hypothesis",
    ]
