"""The ``convtypes`` command: check and address stored transcripts, print the schema, fence text.

``check`` answers the question an operator has before an upgrade: will every
stored transcript still load, and would a re-save change any byte? It
streams, so a multi-gigabyte oplog is checked in memory bounded by its
longest line. Nothing here needs more than the runtime dependency.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

import msgspec

from ._codec import LenientMessage, decode_message, decode_messages, encode, unknown_fields
from ._errors import WireError
from ._fence import fence_external
from ._files import is_blank, line_and_column, line_batches
from ._locate import find_repeated_key, format_path, offset_of
from ._provenance import UnknownProvenance
from ._schema import transcript_schema_text
from ._unknown import UnknownBlock, UnknownMessage

__all__ = ["main"]

# What a directory walk picks up, in lower case. A JSONL oplog goes by
# either name; each may be gzipped (read with the standard library).
_JSONL = (".jsonl", ".ndjson")
_PLAIN = (".json", *_JSONL)
_SUFFIXES = (*_PLAIN, *(suffix + ".gz" for suffix in _PLAIN))
_LOOKED_FOR = ".json, .jsonl or .ndjson file, gzipped (.gz) or not"


@dataclass(frozen=True)
class Finding:
    """One thing ``check`` reports about one document."""

    file: str
    line: int
    column: int
    path: str
    kind: str  # "error", "canonical", "unknown-field" or "repeated-key"
    message: str

    def text(self) -> str:
        # Paths and messages quote text from the documents: a terminal must
        # not act on control characters (escape sequences, line breaks) in it.
        return _printable(f"{self.file}:{self.line}:{self.column}: {self.path}: {self.message}")

    def json(self) -> str:
        text = json.dumps(
            {
                "file": self.file,
                "line": self.line,
                "column": self.column,
                "path": self.path,
                "kind": self.kind,
                "message": self.message,
            },
            ensure_ascii=False,
        )
        # A file name that is not UTF-8 holds lone surrogates (Python's
        # surrogateescape), which a UTF-8 stream refuses to write. Escaped,
        # the line is still JSON, and os.fsencode of the decoded name gives
        # back the bytes of the name.
        return _SURROGATE.sub(lambda found: f"\\u{ord(found[0]):04x}", text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _printable(text: str) -> str:
    """``text`` with every character that is not printable written as an escape."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


@dataclass
class Totals:
    files: int = 0
    documents: int = 0
    messages: int = 0
    errors: int = 0
    changes: int = 0
    strict: int = 0

    def line(self, canonical: bool, strict: bool) -> str:
        """The summary: the counts of the checks that ran, then those that did not.

        A count of zero for a check that was not run would read as a pass,
        so the checks left out are named instead, with the flag that runs them.
        """
        counts = [
            _count(self.files, "file"),
            _count(self.documents, "document"),
            _count(self.messages, "message"),
            _count(self.errors, "error"),
        ]
        skipped = []
        if canonical:
            counts.append(f"{self.changes} would change on re-save")
        else:
            skipped.append("re-save changes (--canonical)")
        if strict:
            counts.append(_count(self.strict, "strict finding"))
        else:
            skipped.append("unknown fields and repeated keys (--strict)")
        line = ", ".join(counts)
        return f"{line}; not checked: {', '.join(skipped)}" if skipped else line


def _count(number: int, noun: str) -> str:
    """``1 file``, ``2 files``, ``0 files``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


@dataclass(frozen=True)
class Document:
    """One JSON document inside a file: its bytes and where it starts."""

    data: bytes
    line: int  # 1-based line of the document's first byte
    transcript: bool  # a JSON array of messages, or one message


# ------------------------------------------------------------------ reading


def _files(name: str) -> list[str]:
    """The files to check for one command-line path: a directory's transcripts, or itself."""
    if name == "-" or not os.path.isdir(name):
        return [name]
    found = []
    for root, dirs, files in os.walk(name):
        dirs.sort()
        for file in sorted(files):
            if file.lower().endswith(_SUFFIXES):
                found.append(os.path.join(root, file))
    return found


def _is_gzip(name: str) -> bool:
    return name != "-" and name.lower().endswith(".gz")


def _is_jsonl(name: str) -> bool:
    """Whether a file is read as JSONL (by its name, ``.gz`` aside) rather than as one document."""
    lower = name.lower()
    return lower.removesuffix(".gz").endswith(_JSONL)


def _lines(stream: IO[bytes], skipped: list[bytes] | None = None) -> Iterator[Document]:
    """Each non-blank line of a JSONL stream, read as ``iter_jsonl`` reads it.

    ``skipped`` are lines already read from the stream: blank ones, then the
    line to start with.
    """
    head = skipped[-1] if skipped else b""
    first_line = len(skipped) if skipped else 1
    first_offset = sum(map(len, skipped[:-1])) if skipped else 0
    for first, _, lines in line_batches(stream, head, first_line, first_offset):
        for number, line in enumerate(lines, first):
            if not is_blank(line):
                yield Document(line.rstrip(b"\r\n"), number, transcript=False)


def _documents(name: str, stream: IO[bytes]) -> Iterator[Document]:
    """Yield each document of a file, reading no more than one at a time.

    Standard input is a transcript when its first non-blank line starts with
    ``[`` and JSONL otherwise, so that an oplog can be piped in and still be
    streamed.
    """
    if name == "-":
        read = [stream.readline()]
        while read[-1] and is_blank(read[-1]):
            read.append(stream.readline())
        if not read[-1].lstrip().startswith(b"["):
            yield from _lines(stream, read)
            return
        data = b"".join(read) + stream.read()
    elif _is_jsonl(name):
        yield from _lines(stream)
        return
    else:
        # A .json file holds one document: a message or a transcript.
        data = stream.read()
    body = data[:-1] if data.endswith(b"\n") else data
    yield Document(body, 1, transcript=body.lstrip()[:1] == b"[")


# ------------------------------------------------------------------ checking


def _position(doc: Document, offset: int | None) -> tuple[int, int]:
    """Line and column (1-based, in bytes) of ``offset`` within the file."""
    if offset is None:
        return doc.line, 1
    return line_and_column(doc.data, offset, doc.line)


def _fields(value: object) -> frozenset[str] | None:
    """The wire fields of a decoded Struct, tag included; ``None`` for other values."""
    if not isinstance(value, msgspec.Struct):
        return None
    config = value.__struct_config__
    tag = {config.tag_field} if config.tag_field else set()
    return frozenset(value.__struct_fields__) | tag


def _differences(
    old: Any, new: Any, value: object, where: list[str | int]
) -> Iterator[tuple[str, str, str]]:
    """Yield (path, kind, message) for each way ``new`` differs from ``old``.

    ``old`` and ``new`` are generic JSON (msgspec with no type) for the stored
    and the re-encoded document; ``value`` is the decoded value at the same
    place, which says which keys are fields and which are free-form JSON.
    """
    fields = _fields(value)
    if fields is not None and isinstance(old, dict) and isinstance(new, dict):
        for key in old:
            if key not in new:
                kind, message = (
                    ("canonical", f"'{key}' holds its default and would be left out")
                    if key in fields
                    else ("unknown-field", f"unknown field '{key}' would be dropped")
                )
                yield format_path([*where, key]), kind, message
        for key in new:
            if key not in old:
                default = json.dumps(new[key])
                message = f"'{key}' would be written out with its default {default}"
                yield format_path([*where, key]), "canonical", message
        common_old = [k for k in old if k in new]
        common_new = [k for k in new if k in old]
        if common_old != common_new:
            yield (
                format_path(where),
                "canonical",
                "fields would be written in the reference's order",
            )
        for key in common_new:
            child = getattr(value, key, None) if key in fields else None
            yield from _differences(old[key], new[key], child, [*where, key])
    elif isinstance(value, (list, tuple)) and isinstance(old, list) and isinstance(new, list):
        for index, (a, b, item) in enumerate(zip(old, new, value, strict=False)):
            yield from _differences(a, b, item, [*where, index])
    elif type(old) is not type(new) or old != new or repr(old) != repr(new):
        # A scalar, or free-form JSON compared as a whole.
        yield (
            format_path(where),
            "canonical",
            f"value would change from {json.dumps(old)} to {json.dumps(new)}",
        )


def _kept_unknowns(value: object, where: list[str | int]) -> Iterator[tuple[str, str]]:
    """Yield (path, message) for everything lenient decoding kept but does not know."""
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _kept_unknowns(item, [*where, index])
    elif isinstance(value, UnknownMessage):
        yield format_path([*where, "role"]), f"unknown role '{value.role}' kept as it was"
    elif isinstance(value, UnknownBlock):
        yield format_path([*where, "type"]), f"unknown block type '{value.type}' kept as it was"
    elif isinstance(value, msgspec.Struct):
        for key in unknown_fields(value):
            yield format_path([*where, key]), f"unknown field '{key}' kept as it was"
        provenance = getattr(value, "provenance", None)
        if isinstance(provenance, UnknownProvenance):
            yield (
                format_path([*where, "provenance"]),
                f"unknown provenance '{provenance.value}' kept as it was (it is not trusted)",
            )
        for field in ("content", "tool_calls", "thinking"):
            nested = getattr(value, field, None)
            if isinstance(nested, tuple):
                yield from _kept_unknowns(nested, [*where, field])


def _check_document(
    name: str, doc: Document, canonical: bool, strict: bool, lenient: bool, totals: Totals
) -> list[Finding]:
    totals.documents += 1
    try:
        value: list[LenientMessage] | LenientMessage = (
            decode_messages(doc.data, lenient=lenient)
            if doc.transcript
            else decode_message(doc.data, lenient=lenient)
        )
    except WireError as err:
        totals.errors += 1
        offset = err.offset if err.offset is not None else offset_of(doc.data, err.path)
        line, column = _position(doc, offset)
        return [Finding(name, line, column, err.path, "error", err.reason)]
    totals.messages += len(value) if isinstance(value, list) else 1
    findings: list[Finding] = []
    # A repeated key always makes the re-encoding differ, so a document that
    # re-encodes to its own bytes needs no search for one (the costly part).
    written = encode(value) if canonical or strict else doc.data
    differs = written != doc.data
    repeated = find_repeated_key(doc.data) if strict or differs else None
    if strict and repeated is not None:
        line, column = _position(doc, repeated[0])
        findings.append(Finding(name, line, column, repeated[1], "repeated-key", "key is repeated"))
    if strict and lenient:
        for path, message in _kept_unknowns(value, []):
            line, column = _position(doc, offset_of(doc.data, path))
            findings.append(Finding(name, line, column, path, "unknown-field", message))
    if differs:
        old, new = msgspec.json.decode(doc.data), msgspec.json.decode(written)
        found = list(_differences(old, new, value, []))
        if not found and canonical:
            if repeated is not None:
                message = "a re-save keeps only the last value of this repeated key"
                found = [(repeated[1], "canonical", message)]
            else:
                found = [
                    (
                        "$",
                        "canonical",
                        "formatting would change (white space, escapes or the spelling of numbers)",
                    )
                ]
        for path, kind, message in found:
            if kind == "canonical" and not canonical:
                continue
            offset = repeated[0] if repeated and path == repeated[1] else None
            line, column = _position(doc, offset or offset_of(doc.data, path))
            findings.append(Finding(name, line, column, path, kind, message))
    # "Would change" counts documents, however many changes each has; the
    # strict findings (repeated keys, unknown fields under --strict) count
    # one by one.
    if canonical and differs:
        totals.changes += 1
    totals.strict += sum(
        finding.kind == "repeated-key" or (finding.kind == "unknown-field" and strict)
        for finding in findings
    )
    return findings


class _Progress:
    """Bytes read of the total on stderr, only when stderr is a terminal.

    Counted in the files' own bytes, so a gzipped file advances by what was
    read of it on disk, not by what it holds.
    """

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.enabled = sys.stderr.isatty() and total > 0
        self.last = time.monotonic()

    def show(self, done: int) -> None:
        self.done = done
        now = time.monotonic()
        if now - self.last > 0.5:
            self.last = now
            percent = 100 * self.done / self.total
            sys.stderr.write(f"\r{self.done:,} of {self.total:,} bytes ({percent:.0f}%)")
            sys.stderr.flush()

    def finish(self) -> None:
        if self.enabled and self.done:
            sys.stderr.write("\r" + " " * 60 + "\r")
            sys.stderr.flush()


def _check(args: argparse.Namespace) -> int:
    totals = Totals()
    files: list[str] = []
    for path in args.paths:
        found = _files(path)
        if not found:
            # A gate that checked nothing must not pass.
            print(f"convtypes: {path} holds no {_LOOKED_FOR}", file=sys.stderr)
            return 2
        files += found
    sizes = {f: os.path.getsize(f) for f in files if f != "-" and os.path.isfile(f)}
    progress = _Progress(sum(sizes.values()))
    before = 0  # bytes of the files already checked, for progress
    out = sys.stdout
    found_any = False
    for name in files:
        with contextlib.ExitStack() as closing:
            try:
                raw, stream = _open(name, closing)
            except OSError as err:
                print(f"convtypes: cannot read {name}: {err.strerror or err}", file=sys.stderr)
                return 2
            totals.files += 1
            last_line = 0
            try:
                for doc in _documents(name, stream):
                    last_line = doc.line
                    findings = _check_document(
                        name, doc, args.canonical, args.strict, args.lenient, totals
                    )
                    for finding in findings:
                        found_any = True
                        out.write(_shown(finding, args.format))
                    if progress.enabled and name != "-":  # a pipe cannot tell
                        progress.show(before + raw.tell())
            except (OSError, EOFError, zlib.error) as err:
                # A gzip stream that is corrupt or cut short (or a failing
                # disk): what was read has been checked; the rest cannot be.
                totals.errors += 1
                found_any = True
                reason = f"cannot read the file past its last whole document: {_why(err)}"
                unread = Finding(name, last_line + 1, 1, "$", "error", reason)
                out.write(_shown(unread, args.format))
        before += sizes.get(name, 0)
    progress.finish()
    summary = sys.stderr if args.format == "json" else out
    print(totals.line(args.canonical, args.strict), file=summary)
    return 1 if found_any else 0


def _open(name: str, closing: contextlib.ExitStack) -> tuple[IO[bytes], IO[bytes]]:
    """The file as stored, and the bytes to check (decompressed when it ends in ``.gz``).

    What is opened here is closed when ``closing`` is; standard input is left open.
    """
    if name == "-":
        return sys.stdin.buffer, sys.stdin.buffer
    raw = closing.enter_context(open(name, "rb"))
    if not _is_gzip(name):
        return raw, raw
    import gzip  # only for gzipped files: no need to import it otherwise

    unpacked = closing.enter_context(gzip.GzipFile(fileobj=raw, mode="rb"))
    return raw, cast("IO[bytes]", unpacked)


def _why(err: BaseException) -> str:
    if isinstance(err, EOFError):
        return "the compressed stream ends early"
    return str(err) or type(err).__name__


def _shown(finding: Finding, form: str) -> str:
    return (finding.json() if form == "json" else finding.text()) + "\n"


def _schema(args: argparse.Namespace) -> int:
    if args.ops:
        from .sync._schema import ops_schema_text  # the sync package, only when asked

        sys.stdout.write(ops_schema_text())
    else:
        sys.stdout.write(transcript_schema_text())
    return 0


def _fence(args: argparse.Namespace) -> int:
    try:
        if args.file in (None, "-"):
            raw = sys.stdin.buffer.read()
        else:
            raw = Path(args.file).read_bytes()
        text = raw.decode("utf-8")
    except OSError as err:
        print(f"convtypes: cannot read {args.file}: {err.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as err:
        print(f"convtypes: {args.file or 'stdin'} is not UTF-8 (byte {err.start})", file=sys.stderr)
        return 2
    sys.stdout.buffer.write(fence_external(text).encode("utf-8"))
    return 0


def _address(args: argparse.Namespace) -> int:
    """Print each message's address (or the transcript's, with --chain), one a line."""
    from ._address import EMPTY_TRANSCRIPT, address, extend

    out = sys.stdout
    for name in args.files:
        chain = EMPTY_TRANSCRIPT
        with contextlib.ExitStack() as closing:
            try:
                _, stream = _open(name, closing)
                for doc in _documents(name, stream):
                    try:
                        messages: list[LenientMessage] = (
                            decode_messages(doc.data, lenient=True)
                            if doc.transcript
                            else [decode_message(doc.data, lenient=True)]
                        )
                    except WireError as err:
                        offset = err.offset
                        if offset is None:
                            offset = offset_of(doc.data, err.path)
                        line, column = _position(doc, offset)
                        where = f"{name}:{line}:{column}: {err.path}: {err.reason}"
                        print(f"convtypes: {_printable(where)}", file=sys.stderr)
                        return 1
                    for message in messages:
                        own = address(message)
                        if args.chain:
                            chain = extend(chain, own)
                            out.write(chain + "\n")
                        else:
                            out.write(own + "\n")
                if args.chain and chain == EMPTY_TRANSCRIPT:
                    out.write(chain + "\n")  # no message: the last line is still the file's
            except (OSError, EOFError, zlib.error) as err:
                why = err.strerror if isinstance(err, OSError) and err.strerror else _why(err)
                print(f"convtypes: cannot read {name}: {why}", file=sys.stderr)
                return 2
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="convtypes", description="Check, address, describe and fence convtypes transcripts."
    )
    from . import __version__

    parser.add_argument("--version", action="version", version=f"convtypes {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    check = commands.add_parser(
        "check",
        help="report documents that do not load (or would change on re-save)",
        description=(
            "Read .json files (one message or a JSON array of messages) and .jsonl or "
            ".ndjson files (one message per line), each of them gzipped (.gz) or not; "
            "walk directories; '-' is standard input. Exit 0 when clean, 1 when anything "
            "was reported, 2 on a usage error, an unreadable path, or a directory that "
            "holds no such file."
        ),
    )
    check.add_argument("paths", nargs="+", metavar="PATH")
    check.add_argument(
        "--canonical",
        action="store_true",
        help="also report documents a re-save would change, and what would change",
    )
    check.add_argument(
        "--strict", action="store_true", help="also report unknown fields and repeated keys"
    )
    check.add_argument(
        "--lenient",
        action="store_true",
        help="decode as a sync layer would: keep unknown roles, block types and fields",
    )
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.set_defaults(run=_check)

    schema = commands.add_parser("schema", help="print the JSON Schema of a transcript")
    schema.add_argument(
        "--ops", action="store_true", help="the schema of one op of an op log (convtypes.sync)"
    )
    schema.set_defaults(run=_schema)

    addresses = commands.add_parser(
        "address",
        help="print the content address of each message, one a line",
        description=(
            "Print the address of each message of each FILE (a .jsonl file of one message a "
            "line, or a .json transcript; gzipped or not; '-' is standard input), one a line, "
            "so that two devices' files compare with diff. Messages are read leniently: "
            "unknown roles, block types and fields are part of a message's address. With "
            "--chain, print instead the address of the transcript so far after each message. "
            "Exit 1 at the first document that does not load, 2 for a file that cannot be read."
        ),
    )
    addresses.add_argument("files", nargs="+", metavar="FILE")
    addresses.add_argument(
        "--chain",
        action="store_true",
        help="print the transcript's address after each message (its last line is the file's)",
    )
    addresses.set_defaults(run=_address)

    fence = commands.add_parser("fence", help="wrap a file or standard input as external content")
    fence.add_argument("file", nargs="?", metavar="FILE")
    fence.set_defaults(run=_fence)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return its exit status."""
    args = _parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except BrokenPipeError:
        # The reader went away (``| head``); that is not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
