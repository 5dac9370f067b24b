"""The replay examples, checked against the providers' own SDK request types.

No network: the bodies are validated with pydantic against the TypedDicts the
official ``anthropic`` and ``openai`` packages declare for their requests. The
examples are thin wrappers over ``convtypes.dialects``, whose own tests go
further (tests/test_dialects_*.py).
"""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from test_dialects_requests import sends_nothing_to_anthropic

import convtypes as ct
from convtypes import strategies as cst
from convtypes.dialects import DialectError

EXAMPLES = Path(__file__).parent.parent / "examples"
SESSION = ct.decode_messages((EXAMPLES / "transcripts" / "agent-session.json").read_bytes())


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


anthropic_replay = _load("replay_anthropic")
openai_replay = _load("replay_openai")


def _force(value: Any) -> Any:
    """Consume pydantic's lazy iterators so every nested item is validated."""
    if isinstance(value, dict):
        return {key: _force(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)) or hasattr(value, "__next__"):
        return [_force(item) for item in value]
    return value


# The adapters are kept alive: pydantic validates Iterable fields lazily, and
# the iterators it returns need their adapter when they are consumed.
@functools.cache
def _anthropic_adapter() -> Any:
    pytest.importorskip("anthropic")
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
    from pydantic import TypeAdapter

    return TypeAdapter(MessageCreateParamsNonStreaming)


@functools.cache
def _openai_adapter() -> Any:
    pytest.importorskip("openai")
    from openai.types.responses import ResponseInputParam
    from pydantic import TypeAdapter

    return TypeAdapter(ResponseInputParam)


def test_anthropic_body_is_a_valid_request() -> None:
    body = anthropic_replay.build_request(SESSION)
    _force(_anthropic_adapter().validate_python(body))
    json.dumps(body)  # and it is plain JSON


def test_anthropic_validation_would_catch_a_wrong_block() -> None:
    body = anthropic_replay.build_request(SESSION)
    body["messages"][1]["content"][0]["type"] = "thought"
    with pytest.raises(Exception, match="validation error"):
        _force(_anthropic_adapter().validate_python(body))


def test_anthropic_replays_thinking_first_and_verbatim() -> None:
    body = anthropic_replay.build_request(SESSION)
    assert body["system"].startswith("You are a research assistant.")
    second_call = body["messages"][3]["content"]
    assert [block["type"] for block in second_call] == ["thinking", "redacted_thinking", "tool_use"]
    assert second_call[1] == {
        "type": "redacted_thinking",
        "data": "EmwKAhgBEgy3va3pzixRedactedPayload",
    }
    assert second_call[0]["signature"] == "EpYCCkYIBRgCKkCuR2QZbWFyeS1yZWRhY3RlZA=="


def test_anthropic_fences_external_results_only() -> None:
    body = anthropic_replay.build_request(SESSION)
    results = [
        block
        for turn in body["messages"]
        for block in turn["content"]
        if block["type"] == "tool_result"
    ]
    assert [r["tool_use_id"] for r in results] == ["toolu_01A9", "toolu_01B2"]
    assert results[0]["content"].startswith("[EXTERNAL CONTENT")
    assert results[0]["content"].endswith(ct.EXTERNAL_CLOSE)
    assert results[1]["content"] == "## 0.21.0\n- structs.replace calls __post_init__"


@settings(max_examples=40)
@given(cst.conversations())
def test_anthropic_body_is_valid_for_any_well_formed_conversation(
    messages: list[ct.Message],
) -> None:
    try:
        body = anthropic_replay.build_request(messages)
    except DialectError as err:
        # An empty first user message leaves the assistant to speak first,
        # or nobody.
        if sends_nothing_to_anthropic(messages):
            assert "no turn to send" in str(err)
        else:
            assert "first turn to be a user turn" in str(err)
        return
    _force(_anthropic_adapter().validate_python(body))
    uses = [b["id"] for t in body["messages"] for b in t["content"] if b["type"] == "tool_use"]
    answers = [
        b["tool_use_id"]
        for t in body["messages"]
        for b in t["content"]
        if b["type"] == "tool_result"
    ]
    assert len(set(uses)) == len(uses)
    assert sorted(uses) == sorted(answers)


def _id_less_turn() -> list[ct.Message]:
    calls = tuple(ct.ToolCall(name="f", arguments={"n": n}) for n in range(2))
    return [
        ct.AssistantMessage(tool_calls=calls),
        ct.ToolResultMessage(tool_use_id="call_0", content="r0"),
        ct.ToolResultMessage(tool_use_id="call_1", content="r1"),
    ]


def test_two_id_less_turns_no_longer_repeat_a_tool_use_id() -> None:
    # The old example numbered id-less calls call_0, call_1... afresh in
    # every turn, so this request repeated a tool_use id, which the API refuses.
    messages = [ct.UserMessage(content="go"), *_id_less_turn(), *_id_less_turn()]
    body = anthropic_replay.build_request(messages)
    _force(_anthropic_adapter().validate_python(body))
    uses = [b["id"] for t in body["messages"] for b in t["content"] if b["type"] == "tool_use"]
    assert len(uses) == 4 and len(set(uses)) == 4
    items = openai_replay.build_input(messages)
    call_ids = [item["call_id"] for item in items if item.get("type") == "function_call"]
    assert len(set(call_ids)) == 4


def test_openai_input_is_valid() -> None:
    items = openai_replay.build_input(SESSION)
    _force(_openai_adapter().validate_python(items))


def test_openai_validation_would_catch_a_wrong_item() -> None:
    items = openai_replay.build_input(SESSION)
    calls = [item for item in items if item.get("type") == "function_call"]
    del calls[0]["call_id"]
    with pytest.raises(Exception, match="validation error"):
        _force(_openai_adapter().validate_python(items))


def test_openai_reemits_provider_items_verbatim_and_in_place() -> None:
    items = openai_replay.build_input(SESSION)
    source = next(m for m in SESSION if isinstance(m, ct.ProviderOutputItemsMessage))
    start = items.index(source.items[0])
    assert items[start : start + len(source.items)] == list(source.items)
    assert items[start + len(source.items)] == {
        "role": "assistant",
        "content": "Yes: it is the benchmark chart from that post.",
    }


def test_openai_drops_items_of_another_protocol() -> None:
    other = ct.ProviderOutputItemsMessage(protocol="gemini", items=({"x": 1},))
    assert openai_replay.build_input([ct.UserMessage(content="u"), other]) == [
        {"role": "user", "content": "u"}
    ]


@settings(max_examples=40)
@given(cst.conversations())
def test_openai_input_is_valid_for_any_well_formed_conversation(messages: list[ct.Message]) -> None:
    _force(_openai_adapter().validate_python(openai_replay.build_input(messages)))
