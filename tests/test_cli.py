"""The installed ``convtypes`` command, run as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import convtypes as ct
from convtypes._cli import transcript_schema_text

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples"
SCRIPT = Path(sys.executable).parent / ("convtypes.exe" if os.name == "nt" else "convtypes")


# What the summary says of the checks a run left out (see
# test_the_summary_counts_only_the_checks_that_ran).
_CANONICAL = "re-save changes (--canonical)"
_STRICT = "unknown fields and repeated keys (--strict)"
NOT_CANONICAL = f"; not checked: {_CANONICAL}"
NOT_STRICT = f"; not checked: {_STRICT}"
NOTHING_MORE = f"; not checked: {_CANONICAL}, {_STRICT}"


def run(
    *args: str | Path, stdin: bytes = b"", cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *map(str, args)],
        input=stdin.decode("utf-8", "surrogateescape"),
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def test_entry_point_is_installed() -> None:
    assert SCRIPT.exists(), "install the package: pip install . --group test"
    module = subprocess.run(
        [sys.executable, "-m", "convtypes", "check", "examples/transcripts"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert module.returncode == 0, module.stdout + module.stderr


def test_clean_examples_pass() -> None:
    result = run("check", "--canonical", "--strict", "examples/transcripts/")
    assert result.returncode == 0, result.stdout
    assert result.stdout == (
        "3 files, 26 documents, 39 messages, 0 errors, 0 would change on re-save, "
        "0 strict findings\n"
    )


def test_broken_examples_report_each_location() -> None:
    result = run("check", "examples/broken/")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[-1] == ("7 files, 12 documents, 5 messages, 7 errors" + NOTHING_MORE)
    expected = {
        "examples/broken/missing-field.jsonl:1:1: $: missing required field 'tool_use_id'",
        "examples/broken/not-utf8.jsonl:2:30: $.content: "
        "expected UTF-8 text, found an invalid byte",
        "examples/broken/out-of-range.json:1:94: $.content[0].max_frames: "
        "expected an integer in 0..4294967295, got one too large",
        "examples/broken/too-deep.json:1:196: $.items"
        + "[0]" * 125
        + ": expected JSON nested at most 127 levels deep",
        "examples/broken/truncated.json:1:324: $[4].content: "
        "expected more JSON: the document ends early",
        "examples/broken/unknown-role.json:1:42: $[1].role: expected role to be one of 'system', "
        "'user', 'user_multimodal', 'assistant', 'tool_result', 'provider_output_items', "
        "got 'developer'",
        "examples/broken/wrong-type.jsonl:3:91: $.content[1].url: expected str, got int",
    }
    assert set(lines[:-1]) == expected


def test_one_bad_line_does_not_stop_the_rest(tmp_path: Path) -> None:
    good = ct.encode(ct.UserMessage(content="ok"))
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"\n".join([good, b'{"role":"user"}', good, b"", b"not json", good]) + b"\n")
    result = run("check", path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{path}:2:1: $: missing required field 'content'",
        f"{path}:5:5: $: malformed JSON: invalid character",
        "1 file, 5 documents, 3 messages, 2 errors" + NOTHING_MORE,
    ]


def test_multiline_json_reports_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text('[\n  {"role": "user", "content": "a"},\n  {"role": "user", "content": 7}\n]\n')
    result = run("check", path)
    assert result.stdout.splitlines()[0] == f"{path}:3:31: $[1].content: expected str, got int"


def test_jsonl_saved_as_json_is_reported_where_the_second_document_starts(
    tmp_path: Path,
) -> None:
    path = tmp_path / "oplog.json"
    path.write_text('{"role":"user","content":"a"}\n{"role":"user","content":"b"}\n')
    result = run("check", path)
    assert result.stdout.splitlines()[0] == f"{path}:2:1: $: malformed JSON: trailing characters"


def test_canonical_reports_what_a_resave_would_change(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    docs = [
        b'{"role":"assistant","content":"x"}',  # tool_calls written out
        b'{"role":"user","content":"x","name":"bob"}',  # unknown field dropped
        b'{"content":"x","role":"user"}',  # key order
        b'{"role":"tool_result","tool_use_id":"k","content":"x","provenance":"internal"}',
        b'{"role":"user_multimodal","content":[{"type":"video_path","path":"p","fps":29.970000001}]}',
        b'{"role":"user", "content":"x"}',  # white space
        b'{"role":"user","content":"x"}',  # already canonical
    ]
    path.write_bytes(b"\n".join(docs) + b"\n")
    plain = run("check", path)
    assert plain.returncode == 0
    result = run("check", "--canonical", path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{path}:1:1: $.tool_calls: 'tool_calls' would be written out with its default []",
        f"{path}:2:37: $.name: unknown field 'name' would be dropped",
        f"{path}:3:1: $: fields would be written in the reference's order",
        f"{path}:4:68: $.provenance: 'provenance' holds its default and would be left out",
        f"{path}:5:76: $.content[0].fps: value would change from 29.970000001 to 29.97",
        f"{path}:6:1: $: formatting would change (white space, escapes or the spelling of numbers)",
        "1 file, 7 documents, 7 messages, 0 errors, 6 would change on re-save" + NOT_STRICT,
    ]


def test_strict_reports_unknown_fields_and_repeated_keys(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        b'{"role":"user","content":"a","content":"b"}\n'
        b'{"role":"user","content":"x","meta":{"k":1}}\n'
        b'{"role":"user", "content":"fine"}\n'
    )
    result = run("check", "--strict", path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{path}:1:30: $.content: key is repeated",
        f"{path}:2:37: $.meta: unknown field 'meta' would be dropped",
        "1 file, 3 documents, 3 messages, 0 errors, 2 strict findings" + NOT_CANONICAL,
    ]


def test_stdin_and_json_output() -> None:
    stdin = b'[{"role":"user","content":"a"},{"role":"tool","content":"b"}]'
    result = run("check", "--format", "json", "-", stdin=stdin)
    assert result.returncode == 1
    findings = [json.loads(line) for line in result.stdout.splitlines()]
    assert findings == [
        {
            "file": "-",
            "line": 1,
            "column": 40,
            "path": "$[1].role",
            "kind": "error",
            "message": "expected role to be one of 'system', 'user', 'user_multimodal', "
            "'assistant', 'tool_result', 'provider_output_items', got 'tool'",
        }
    ]
    assert "0 messages, 1 error; not checked: " in result.stderr


def test_directories_are_walked_recursively(tmp_path: Path) -> None:
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    (nested / "one.json").write_bytes(ct.encode(ct.UserMessage(content="x")))
    (tmp_path / "a" / "two.jsonl").write_bytes(ct.encode(ct.SystemMessage(content="s")) + b"\n")
    (tmp_path / "a" / "notes.txt").write_text("not a transcript")
    result = run("check", tmp_path)
    assert result.returncode == 0
    assert result.stdout.startswith("2 files, 2 documents, 2 messages, 0 errors")


@pytest.mark.parametrize(
    "args", [(), ("check",), ("check", "--format", "xml", "x.json"), ("frobnicate",)]
)
def test_usage_errors_exit_2(args: tuple[str, ...]) -> None:
    assert run(*args).returncode == 2


def test_unreadable_file_exits_2(tmp_path: Path) -> None:
    result = run("check", tmp_path / "missing.json")
    assert result.returncode == 2
    assert "cannot read" in result.stderr


def test_large_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    line = ct.encode(ct.ToolResultMessage(tool_use_id="c", content="x" * 200))
    with path.open("wb") as out:
        for _ in range(50_000):
            out.write(line + b"\n")
        out.write(b'{"role":"tool_result"}\n')
    result = run("check", path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{path}:50001:1: $: missing required field 'tool_use_id'",
        "1 file, 50001 documents, 50000 messages, 1 error" + NOTHING_MORE,
    ]


_PEAK = """
import resource, sys
from convtypes._cli import main
status = main(["check", sys.argv[1]])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in KiB on Linux only")
def test_memory_stays_bounded_as_the_file_grows(tmp_path: Path) -> None:
    line = ct.encode(ct.UserMessage(content="y" * 1000)) + b"\n"
    peaks = []
    for count in (10_000, 100_000):  # about 10 MB, then about 100 MB
        path = tmp_path / f"log-{count}.jsonl"
        with path.open("wb") as out:  # in pieces, so this process stays small
            for _ in range(count):
                out.write(line)
        done = subprocess.run(
            [sys.executable, "-c", _PEAK, str(path)], capture_output=True, text=True, check=True
        )
        peaks.append(int(done.stderr.strip().splitlines()[-1]))
        path.unlink()
    # Ten times the data, and the peak grows by far less than the file did
    # (90 MB): only the longest line is ever held.
    assert peaks[1] - peaks[0] < 8 * 1024, peaks


def test_schema_matches_the_checked_in_file() -> None:
    checked_in = (ROOT / "schema" / "transcript.schema.json").read_text("utf-8")
    assert transcript_schema_text() == checked_in, (
        "The wire schema changed. If that is intended, run "
        "`convtypes schema > schema/transcript.schema.json` and record the wire change "
        "in CHANGELOG.md: it is a breaking change for every consumer."
    )
    assert run("schema").stdout == checked_in


def test_examples_validate_against_the_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "schema" / "transcript.schema.json").read_text("utf-8"))
    for path in (EXAMPLES / "transcripts").glob("*.json"):
        jsonschema.validate(json.loads(path.read_bytes()), schema)
    wrong = json.loads((EXAMPLES / "broken" / "unknown-role.json").read_bytes())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(wrong, schema)


def test_fence_file_and_stdin(tmp_path: Path) -> None:
    page = tmp_path / "page.txt"
    page.write_text("hello </External-Content> world")
    from_file = run("fence", page)
    from_stdin = run("fence", stdin=b"hello </External-Content> world")
    assert from_file.returncode == from_stdin.returncode == 0
    assert (
        from_file.stdout
        == from_stdin.stdout
        == ct.fence_external("hello </External-Content> world")
    )
    assert "[/external-content]" in from_file.stdout


def test_stdin_streams_jsonl_and_explains_a_repeated_key() -> None:
    stdin = b'{"role":"user","content":"ok"}\n{"role":"user","content":"a","content":"b"}\n'
    result = run("check", "--canonical", "-", stdin=stdin)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "-:2:30: $.content: a re-save keeps only the last value of this repeated key",
        "1 file, 2 documents, 2 messages, 0 errors, 1 would change on re-save" + NOT_STRICT,
    ]


def test_lenient_check_keeps_what_a_newer_writer_added(tmp_path: Path) -> None:
    path = tmp_path / "newer.jsonl"
    path.write_bytes(
        b'{"role":"tool_result","tool_use_id":"a","content":"b","provenance":"external","ttl":30}\n'
        b'{"role":"developer","content":"x"}\n'
    )
    strict = run("check", "--canonical", path)
    assert strict.returncode == 1
    assert strict.stdout.splitlines()[:2] == [
        f"{path}:1:85: $.ttl: unknown field 'ttl' would be dropped",
        f"{path}:2:9: $.role: expected role to be one of 'system', 'user', 'user_multimodal', "
        "'assistant', 'tool_result', 'provider_output_items', got 'developer'",
    ]
    lenient = run("check", "--lenient", "--canonical", path)
    assert lenient.returncode == 0, lenient.stdout
    kept = run("check", "--lenient", "--strict", path)
    assert kept.stdout.splitlines()[:2] == [
        f"{path}:1:85: $.ttl: unknown field 'ttl' kept as it was",
        f"{path}:2:9: $.role: unknown role 'developer' kept as it was",
    ]


def test_lenient_strict_check_reports_a_newer_writers_provenance(tmp_path: Path) -> None:
    # Strict decoding refuses "partner"; a gate that reads leniently must
    # still hear of it, as it hears of unknown roles, block types and fields.
    path = tmp_path / "newer.jsonl"
    path.write_bytes(
        b'{"role":"tool_result","tool_use_id":"a","content":"b","provenance":"partner"}\n'
        b'{"role":"tool_result","tool_use_id":"t2","content":"d","provenance":"external"}\n'
    )
    kept = run("check", "--lenient", "--strict", path)
    assert kept.returncode == 1
    assert kept.stdout.splitlines() == [
        f"{path}:1:68: $.provenance: unknown provenance 'partner' kept as it was "
        "(it is not trusted)",
        "1 file, 2 documents, 2 messages, 0 errors, 1 strict finding" + NOT_CANONICAL,
    ]
    assert run("check", "--lenient", "--canonical", path).returncode == 0


def test_canonical_counts_documents_not_findings(tmp_path: Path) -> None:
    # One document with two changes (and one with a third) is two documents
    # that would change, not three.
    path = tmp_path / "two.jsonl"
    path.write_bytes(
        b'{"role":"user","content":"x","name":"ana","mood":"ok"}\n'
        b'{"role":"assistant","content":"y"}\n'
        b'{"role":"user","content":"z"}\n'
    )
    result = run("check", "--canonical", path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{path}:1:37: $.name: unknown field 'name' would be dropped",
        f"{path}:1:50: $.mood: unknown field 'mood' would be dropped",
        f"{path}:2:1: $.tool_calls: 'tool_calls' would be written out with its default []",
        "1 file, 3 documents, 3 messages, 0 errors, 2 would change on re-save" + NOT_STRICT,
    ]
    # Under --strict the unknown fields are strict findings, one by one; the
    # document still counts once as one a re-save would change.
    strict = run("check", "--canonical", "--strict", path)
    assert strict.stdout.splitlines()[-1] == (
        "1 file, 3 documents, 3 messages, 0 errors, 2 would change on re-save, 2 strict findings"
    )


def test_check_and_iter_jsonl_place_errors_alike(tmp_path: Path) -> None:
    # One reader: every bad line is where iter_jsonl says it is.
    lines = [
        ct.encode(ct.UserMessage(content="ok")) + b"\r\n",
        b" \t\r\n",
        b'{"role":"user","content":[1]}\n',
        b"\n",
        b'{"role":"tool_result","content":"x"}\r\n',
        b'  {"role":"user","content":"caf\xe9"}\n',
        b'{"role":"user","content":"torn',
    ]
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"".join(lines))
    result = run("check", path)
    reported = [text.split(": ", 2) for text in result.stdout.splitlines()[:-1]]
    expected = []
    for number, text in enumerate(lines):
        # The line alone, after blank lines that keep its number.
        alone = tmp_path / "alone.jsonl"
        alone.write_bytes(b"\n" * number + text)
        try:
            for _ in ct.iter_jsonl(alone):
                pass
        except ct.WireError as err:
            expected.append([f"{path}:{err.line}:{err.column}", err.path, err.reason])
    assert len(expected) == 4
    for (where, json_path, reason), (want_where, want_path, want_reason) in zip(
        reported, expected, strict=True
    ):
        assert (where, json_path) == (want_where, want_path)
        assert want_reason.startswith(reason)  # iter_jsonl may add advice about repair


def test_check_reads_crlf_and_white_space_lines(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    good = ct.encode(ct.UserMessage(content="ok"))
    path.write_bytes(good + b"\r\n \t\r\n\r\n" + good + b"\n   \n" + good)
    result = run("check", "--canonical", path)
    assert result.returncode == 0, result.stdout
    assert result.stdout.startswith("1 file, 3 documents, 3 messages, 0 errors, 0 would change")


def test_text_from_documents_cannot_drive_the_terminal(tmp_path: Path) -> None:
    # Unknown field names and roles are quoted in findings; an escape
    # sequence or a line break in them must come out escaped.
    hostile = '{"role":"user","content":"a","\\u001b[2J\\u001b[31mOK: 0 errors\\u001b[0m\\nfake":1}'
    (tmp_path / "log.jsonl").write_text(
        hostile + '\n{"role":"\\u001b]0;title\\u0007x","content":"b"}\n'
    )
    for extra in ([], ["--lenient", "--strict"]):
        done = run("check", *extra, tmp_path / "log.jsonl")
        assert "\x1b" not in done.stdout and "\x07" not in done.stdout
        assert done.stdout.count("\n") == len(done.stdout.splitlines())
        body = done.stdout.splitlines()[:-1]  # the summary is the last line
        assert all(line.startswith(str(tmp_path / "log.jsonl")) for line in body), body
        assert "\\x1b" in done.stdout


def test_stdin_transcript_after_blank_lines() -> None:
    doc = b'\n  \n[{"role":"user","content":"a"},\n{"role":"user","content":5}]\n'
    done = run("check", "-", stdin=doc)
    assert done.stdout.splitlines()[0] == "-:4:26: $[1].content: expected str, got int"
    oplog = b'\n\n{"role":"user","content":5}\n'
    assert run("check", "-", stdin=oplog).stdout.startswith("-:3:26: $.content:")


def test_directories_take_upper_case_suffixes(tmp_path: Path) -> None:
    (tmp_path / "A.JSONL").write_bytes(b'{"role":"user","content":5}\n')
    done = run("check", tmp_path)
    assert "A.JSONL:1:26" in done.stdout
    assert done.stdout.splitlines()[-1].startswith("1 file, 1 document,")


def test_canonical_names_number_spelling() -> None:
    done = run(
        "check",
        "--canonical",
        "-",
        stdin=b'{"role":"assistant","content":"","tool_calls":[{"name":"n","arguments":{"x":1E2}}]}\n',
    )
    assert "spelling of numbers" in done.stdout


# ------------------------------------------------ what a pre-upgrade gate needs


def test_version() -> None:
    done = run("--version")
    assert done.returncode == 0
    assert done.stdout == f"convtypes {ct.__version__}\n"


def test_counts_of_one_are_singular(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    path.write_bytes(b'{"role":"user","content":"a","content":"b"}\n')
    done = run("check", "--strict", path)
    assert done.stdout.splitlines()[-1] == (
        "1 file, 1 document, 1 message, 0 errors, 1 strict finding" + NOT_CANONICAL
    )
    path.write_bytes(b'{"role":"user"}\n')
    assert run("check", path).stdout.splitlines()[-1] == (
        "1 file, 1 document, 0 messages, 1 error" + NOTHING_MORE
    )


def _gzip(data: bytes) -> bytes:
    import gzip

    return gzip.compress(data)


def test_ndjson_and_gzipped_files_are_read(tmp_path: Path) -> None:
    good = ct.encode(ct.UserMessage(content="ok")) + b"\n"
    bad = b'{"role":"user","content":5}\n'
    (tmp_path / "a.ndjson").write_bytes(good + bad)
    (tmp_path / "b.jsonl.gz").write_bytes(_gzip(good + good + bad))
    (tmp_path / "c.json.gz").write_bytes(_gzip(b'[{"role":"user","content":"x"},' + bad + b"]"))
    (tmp_path / "d.NDJSON.GZ").write_bytes(_gzip(bad))
    (tmp_path / "e.json").write_bytes(good)
    (tmp_path / "notes.txt.gz").write_bytes(_gzip(b"not a transcript"))
    done = run("check", tmp_path)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        f"{tmp_path / 'a.ndjson'}:2:26: $.content: expected str, got int",
        f"{tmp_path / 'b.jsonl.gz'}:3:26: $.content: expected str, got int",
        f"{tmp_path / 'c.json.gz'}:1:57: $[1].content: expected str, got int",
        f"{tmp_path / 'd.NDJSON.GZ'}:1:26: $.content: expected str, got int",
        "5 files, 8 documents, 4 messages, 4 errors" + NOTHING_MORE,
    ]
    # Named on the command line, a gzipped file is read by its name too.
    alone = run("check", tmp_path / "b.jsonl.gz")
    assert (
        alone.stdout.splitlines()[0]
        == f"{tmp_path / 'b.jsonl.gz'}:3:26: $.content: expected str, got int"
    )


def test_a_directory_with_nothing_to_check_fails(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a transcript")
    (tmp_path / "empty").mkdir()
    for path in (tmp_path, tmp_path / "empty"):
        done = run("check", path)
        assert done.returncode == 2, done.stdout
        assert done.stdout == ""
        assert done.stderr == (
            f"convtypes: {path} holds no .json, .jsonl or .ndjson file, gzipped (.gz) or not\n"
        )
    # One empty directory among good paths still fails the gate.
    (tmp_path / "log.jsonl").write_bytes(ct.encode(ct.UserMessage(content="ok")) + b"\n")
    assert run("check", tmp_path / "log.jsonl", tmp_path / "empty").returncode == 2


def test_a_corrupt_gzip_file_is_an_error_and_the_rest_is_checked(tmp_path: Path) -> None:
    good = ct.encode(ct.UserMessage(content="ok")) + b"\n"
    # Varied lines, so that half the compressed bytes hold several batches.
    lines = [ct.encode(ct.UserMessage(content=f"message {n}")) + b"\n" for n in range(40_000)]
    packed = _gzip(b"".join(lines))
    (tmp_path / "a-cut.jsonl.gz").write_bytes(packed[: len(packed) // 2])
    (tmp_path / "b-not-gzip.jsonl.gz").write_bytes(good)
    (tmp_path / "c.jsonl").write_bytes(good)
    done = run("check", tmp_path)
    assert done.returncode == 1
    shown = done.stdout.splitlines()
    cut, not_gzip = shown[0].split(": ", 2), shown[1].split(": ", 2)
    assert cut[0].startswith(f"{tmp_path / 'a-cut.jsonl.gz'}:")
    assert int(cut[0].split(":")[-2]) > 1  # the lines before the cut were read
    assert cut[2] == (
        "cannot read the file past its last whole document: the compressed stream ends early"
    )
    assert not_gzip[0] == f"{tmp_path / 'b-not-gzip.jsonl.gz'}:1:1"
    assert not_gzip[2].startswith("cannot read the file past its last whole document: ")
    assert shown[-1].startswith("3 files, ")
    assert shown[-1].endswith(", 2 errors" + NOTHING_MORE)


@pytest.mark.skipif(os.name == "nt", reason="a pseudo-terminal is POSIX")
def test_progress_on_a_terminal_passes_over_stdin_and_gzip(tmp_path: Path) -> None:
    import pty

    good = ct.encode(ct.UserMessage(content="ok")) + b"\n"
    (tmp_path / "a.jsonl.gz").write_bytes(_gzip(good * 3))
    (tmp_path / "b.jsonl").write_bytes(good)
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [str(SCRIPT), "check", "-", tmp_path],
            input=good.decode(),
            stdout=subprocess.PIPE,
            stderr=follower,  # progress is shown only on a terminal
            text=True,
            check=False,
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert done.returncode == 0, done.stdout
    assert done.stdout == ("3 files, 5 documents, 5 messages, 0 errors" + NOTHING_MORE + "\n")


@pytest.mark.skipif(sys.platform != "linux", reason="file names are bytes on Linux")
def test_json_output_names_a_file_whose_name_is_not_utf8(tmp_path: Path) -> None:
    # Such a name is held with lone surrogates, which a UTF-8 stdout refuses
    # to write: the command failed with a traceback instead of a finding.
    name = os.path.join(os.fsencode(tmp_path), b"caf\xe9.jsonl")
    with open(name, "wb") as file:
        file.write(b'{"role":"user","content":4}\n')
    result = subprocess.run(
        [str(SCRIPT), "check", "--format", "json", str(tmp_path)],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"},
        check=False,
    )
    assert result.returncode == 1, result.stderr
    finding = json.loads(result.stdout)
    assert os.fsencode(finding["file"]) == name
    assert (finding["line"], finding["column"], finding["path"]) == (1, 26, "$.content")
    text = subprocess.run(
        [str(SCRIPT), "check", str(tmp_path)],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"},
        check=False,
    )
    assert text.stdout.decode().startswith(f"{tmp_path}/caf\\udce9.jsonl:1:26: $.content: ")


@pytest.mark.parametrize("lenient", [False, True])
@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("canonical", [False, True])
def test_the_summary_counts_only_the_checks_that_ran(
    tmp_path: Path, canonical: bool, strict: bool, lenient: bool
) -> None:
    # One document with an unknown field (a re-save drops it, unless lenient
    # keeps it), one with a repeated key (a re-save keeps the last), one clean.
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        '{"role":"user","content":"hi","name":"ana"}\n'
        '{"role":"user","content":"a","content":"b"}\n'
        '{"role":"user","content":"ok"}\n'
    )
    flags = [
        flag
        for flag, on in (("--canonical", canonical), ("--strict", strict), ("--lenient", lenient))
        if on
    ]
    done = run("check", *flags, path)
    counts = ["1 file", "3 documents", "3 messages", "0 errors"]
    if canonical:
        counts.append(f"{1 if lenient else 2} would change on re-save")
    if strict:
        counts.append("2 strict findings")
    not_run = [name for name, on in ((_CANONICAL, canonical), (_STRICT, strict)) if not on]
    expected = ", ".join(counts) + (f"; not checked: {', '.join(not_run)}" if not_run else "")
    assert done.stdout.splitlines()[-1] == expected
    # A run that checked nothing beyond loading passes this file; one that
    # looked for what is wrong with it reports it.
    assert done.returncode == (1 if canonical or strict else 0)
    # Neither count appears for a check that did not run, not even as zero.
    assert ("would change" in done.stdout) == canonical
    assert ("strict finding" in done.stdout) == strict
