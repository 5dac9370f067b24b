"""Transcripts written before ``thinking`` and ``provenance`` existed still load."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given

import convtypes as ct
from convtypes import strategies as cst

from golden_cases import Case, load

LEGACY = load("legacy/*.jsonl")
NEWER_KEYS = {"thinking", "provenance"}


def test_legacy_corpus_is_present() -> None:
    assert len(LEGACY) == 12


@pytest.mark.parametrize("case", LEGACY, ids=[c.id for c in LEGACY])
def test_legacy_transcript_loads_and_resaves_identically(case: Case) -> None:
    messages = ct.decode_messages(case.doc.encode())
    assert ct.encode(messages) == case.doc.encode()
    for message in messages:
        if isinstance(message, ct.ToolResultMessage):
            assert message.provenance is ct.Provenance.INTERNAL
        if isinstance(message, ct.AssistantMessage):
            assert message.thinking == ()


@given(cst.transcripts())
def test_old_fields_only_write_no_newer_key(messages: list[ct.Message]) -> None:
    old_style = [
        ct.replace(m, thinking=())
        if isinstance(m, ct.AssistantMessage)
        else ct.replace(m, provenance=ct.Provenance.INTERNAL)
        if isinstance(m, ct.ToolResultMessage)
        else m
        for m in messages
    ]
    written = msgspec.json.decode(ct.encode(old_style))
    # Only message-level keys matter: JSON values may use any key they like.
    message_keys = {key for message in written for key in message}
    assert not message_keys & NEWER_KEYS


def test_old_tool_result_means_internal() -> None:
    old = b'{"role":"tool_result","tool_use_id":"k1","content":"hi"}'
    message = ct.decode_message(old)
    assert message == ct.ToolResultMessage(tool_use_id="k1", content="hi")
    assert isinstance(message, ct.ToolResultMessage)
    assert message.provenance.is_internal()
    assert not message.provenance.is_external()


def test_old_assistant_turn_means_no_thinking() -> None:
    old = b'{"role":"assistant","content":"ok","tool_calls":[{"name":"f","arguments":{}}]}'
    message = ct.decode_message(old)
    assert message == ct.AssistantMessage(
        content="ok", tool_calls=(ct.ToolCall(name="f", arguments={}),)
    )
    assert ct.encode(message) == old
