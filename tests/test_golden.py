"""Parity with the reference: accept what it accepts, write what it writes."""

from __future__ import annotations

import json
from typing import Any

import pytest

import convtypes as ct

from golden_cases import Case, load

CASES = load()
_TYPES: dict[str, Any] = {
    "content_block": ct.ContentBlock,
    "flags": ct.ContentBlock,
    "tool_call": ct.ToolCall,
    "thinking_block": ct.ThinkingBlock,
    "provenance": ct.Provenance,
}


def run(case: Case) -> str:
    """Do what the reference did with the case, and return its output text."""
    data = case.doc.encode("utf-8")
    if case.op == "fence":
        return ct.fence_external(case.doc)
    if case.op == "message":
        return ct.encode(ct.decode_message(data)).decode("utf-8")
    if case.op == "messages":
        return ct.encode(ct.decode_messages(data)).decode("utf-8")
    value = ct.decode(data, _TYPES[case.op])
    if case.op == "flags":
        flags = {"is_audio": value.is_audio(), "is_video": value.is_video()}
        return json.dumps(flags, separators=(",", ":"))
    return ct.encode(value).decode("utf-8")


def test_corpus_is_complete() -> None:
    # Guards against a copy of the corpus that silently lost files or lines.
    counts: dict[str, int] = {}
    for case in CASES:
        counts[case.file] = counts.get(case.file, 0) + 1
    assert counts == {
        "content_blocks.jsonl": 57,
        "fence.jsonl": 14,
        "legacy/transcripts.jsonl": 12,
        "messages.jsonl": 63,
        "thinking_blocks.jsonl": 17,
        "tool_calls.jsonl": 30,
        "transcripts.jsonl": 4,
    }


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_matches_reference(case: Case) -> None:
    if case.ok:
        assert run(case) == case.out
    else:
        with pytest.raises(ct.WireError):
            run(case)


_REREADABLE = [c for c in CASES if c.ok and c.op not in ("fence", "flags")]


@pytest.mark.parametrize("case", _REREADABLE, ids=[c.id for c in _REREADABLE])
def test_reference_output_is_a_fixed_point(case: Case) -> None:
    # What the reference wrote, convtypes reads and writes back unchanged.
    assert case.out is not None
    fixed = Case(case.file, case.line, case.op, case.out, True, case.out)
    assert run(fixed) == case.out


_DOCUMENTS = [c for c in CASES if c.op != "fence"]


@pytest.mark.parametrize("case", _DOCUMENTS, ids=[c.id for c in _DOCUMENTS])
def test_str_and_buffer_inputs_agree(case: Case) -> None:
    # decode takes bytes, bytearray, memoryview and str; all must agree.
    kinds: list[Any] = [case.doc, bytearray(case.doc, "utf-8"), memoryview(case.doc.encode())]
    tp = {"message": ct.Message, "messages": list[ct.Message]}.get(case.op, _TYPES.get(case.op))
    for data in kinds:
        if case.ok:
            assert ct.decode(data, tp) == ct.decode(case.doc.encode(), tp)
        else:
            with pytest.raises(ct.WireError):
                ct.decode(data, tp)
