"""The keep-up test: every kind the installed SDKs name is typed or kept, read and replayed.

tests/keepup_sdk.py enumerates, from each provider's installed SDK (or
botocore's service model), the content blocks, stream events and deltas,
stop reasons and roles it names. Each dialect's ``_kinds`` room declares
what it reads each kind as (convtypes.dialects._kinds). Here:

- every enumerated kind is in its dialect's table, or the test fails naming
  the kind, the SDK type it came from, and the fix;
- the check fails on a kind added to a fake SDK union;
- every block kind, built from the SDK's own model, reads (typed, or kept
  verbatim in the provider items) and goes back through ``to_request`` as
  it came, or ``left_out`` says what was left out;
- every stop reason reads as the ``StopReason`` the table names, its raw
  value kept in ``provider_stop_reason``;
- every stream event and delta fed to the dialect's ``Accumulator`` is
  read, never an error unless the table says it reports one;
- ``to_request`` writes no role the SDK does not name.

A kind whose test must fail for a while (a gap being worked on) goes in
:data:`GAPS`, with its reason; its tests are then expected to fail
(strictly, so that the fix shows here as a test to unmark).
"""

from __future__ import annotations

import base64
import importlib
import typing
from collections.abc import Callable, Iterator
from typing import Any, Literal

import pytest
from keepup_replies import STOPS, WRAPS
from keepup_sdk import ENUMERATORS, Enumeration, Found, by_type
from sdk_build import build, build_shape, value_for

import convtypes as ct
from convtypes.dialects import (
    ResponseError,
    StreamError,
    ToolCallDelta,
    ToolCallStart,
    UnansweredCall,
)
from convtypes.dialects._kinds import CATEGORIES, ERROR, KEPT, Table

DIALECTS = tuple(ENUMERATORS)

ENUMERATED: dict[str, Enumeration] = {
    name: enumerate_() for name, enumerate_ in ENUMERATORS.items()
}


def kinds_of(dialect: str) -> dict[str, Table]:
    """The dialect's declared tables (its ``_kinds`` room)."""
    tables: dict[str, Table] = importlib.import_module(f"convtypes.dialects.{dialect}._kinds").KINDS
    return tables


def unlisted(dialect: str, tables: dict[str, Table], enumeration: Enumeration) -> list[str]:
    """What ``enumeration`` names that ``tables`` does not: one message a kind, saying the fix."""
    return [
        f"{dialect}: the {category} kind {kind!r} (from {found.where}) is neither typed nor "
        f"listed as kept verbatim: add a line for it to src/convtypes/dialects/{dialect}/_kinds.py "
        f"(KEPT, if kept in provider items and replayed) or read it into a convtypes type"
        for category in CATEGORIES
        for kind, found in sorted(enumeration.get(category, {}).items())
        if kind not in tables.get(category, {})
    ]


# Kinds whose tests are expected to fail, each with its reason (strictly: a
# fix shows as a test to unmark). None today.
GAPS: dict[tuple[str, str, str], str] = {}


# Kinds that read and replay, but whose call the program is not shown (the
# next request refuses it unanswered). None today.
CALL_GAPS: dict[tuple[str, str, str], str] = {}


def _cases(category: str, gaps: dict[tuple[str, str, str], str] = GAPS) -> Iterator[Any]:
    for dialect in DIALECTS:
        for kind in sorted(ENUMERATED[dialect].get(category, {})):
            gap = gaps.get((dialect, category, kind))
            marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
            yield pytest.param(dialect, kind, id=f"{dialect}-{kind}", marks=marks)


# -- the keep-up check -------------------------------------------------------


def _all_cases() -> Iterator[Any]:
    for category in CATEGORIES:
        for case in _cases(category):
            dialect, kind = case.values
            yield pytest.param(
                dialect, category, kind, id=f"{category}-{case.id}", marks=case.marks
            )


@pytest.mark.parametrize(("dialect", "category", "kind"), list(_all_cases()))
def test_every_kind_the_sdk_names_is_typed_or_kept(dialect: str, category: str, kind: str) -> None:
    one = {category: {kind: ENUMERATED[dialect][category][kind]}}
    assert unlisted(dialect, kinds_of(dialect), one) == []


def test_the_whole_check_passes_but_for_the_known_gaps() -> None:
    problems = [
        problem
        for dialect in DIALECTS
        for problem in unlisted(dialect, kinds_of(dialect), ENUMERATED[dialect])
    ]
    gaps = [f"{category} kind {kind!r}" for (_, category, kind) in GAPS]
    assert [p for p in problems if not any(gap in p for gap in gaps)] == []
    assert len(problems) == len(GAPS)


def test_the_enumeration_found_kinds_in_every_sdk() -> None:
    # A walk that found nothing would pass the check above by finding nothing.
    for dialect, enumeration in ENUMERATED.items():
        assert enumeration["block"], dialect
        assert enumeration["stop_reason"] or dialect == "ollama", dialect


def test_every_table_names_only_its_categories() -> None:
    for dialect in DIALECTS:
        assert tuple(kinds_of(dialect)) == CATEGORIES, dialect


def test_a_kind_added_to_a_fake_sdk_union_fails_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    import anthropic.types
    import pydantic

    class HologramBlock(pydantic.BaseModel):
        type: Literal["hologram"]
        frames: list[str]

    union = typing.Union[anthropic.types.ContentBlock, HologramBlock]
    monkeypatch.setattr(anthropic.types, "ContentBlock", union)
    enumeration = ENUMERATORS["anthropic"]()
    assert "hologram" in enumeration["block"]
    problems = unlisted("anthropic", kinds_of("anthropic"), enumeration)
    assert len(problems) == 1
    assert "'hologram'" in problems[0]
    assert "HologramBlock" in problems[0]
    assert "anthropic/_kinds.py" in problems[0]
    # The same union, now declared: the check passes again.
    tables = {
        **kinds_of("anthropic"),
        "block": {**kinds_of("anthropic")["block"], "hologram": KEPT},
    }
    assert unlisted("anthropic", tables, enumeration) == []


def test_a_value_added_to_a_fake_literal_or_service_model_fails_the_check() -> None:
    enumeration = ENUMERATED["bedrock"]
    grown = {
        **enumeration,
        "stop_reason": {
            **enumeration["stop_reason"],
            "out_of_coffee": Found("a fake StopReason", None),
        },
    }
    problems = unlisted("bedrock", kinds_of("bedrock"), grown)
    assert len(problems) == 1 and "'out_of_coffee'" in problems[0]
    assert "from a fake StopReason" in problems[0]


def test_by_type_passes_over_an_sdk_catch_all() -> None:
    import pydantic

    class Known(pydantic.BaseModel):
        type: Literal["known"]

    class UnknownChunk(pydantic.BaseModel):
        type: Literal["UNKNOWN"]

    found = by_type(typing.Union[Known, UnknownChunk], "fake")
    assert list(found) == ["known"]


# -- blocks: read, typed or kept, and replayed --------------------------------


def _overrides() -> dict[tuple[str, str], dict[str, Any]]:
    """Fields an SDK leaves optional that a reply needs for its kind to mean anything."""
    import cohere
    import mistralai.client.models as mistral

    return {
        ("mistral", "tool_call"): {
            "id": "abcDEF123",
            "function": mistral.FunctionCall(name="f", arguments="{}"),
        },
        ("cohere", "function"): {
            "id": "call_1",
            "function": cohere.ToolCallV2Function(name="f", arguments="{}"),
        },
        ("gemini", "function_call"): {"name": "f", "args": {}},
        ("gemini", "thought"): {"text": "x", "thought": True, "thought_signature": b"sig"},
        ("openai_responses", "reasoning"): {"summary": [{"type": "summary_text", "text": "x"}]},
        ("mistral", "thinking"): {"thinking": [{"type": "text", "text": "x"}]},
        ("ollama", "images"): {"images": ["aGk="]},
        ("ollama", "tool_calls"): {"tool_calls": [{"function": {"name": "f", "arguments": {}}}]},
    }


def block_json(dialect: str, kind: str, found: Found) -> dict[str, Any]:
    """One ``kind`` built from the SDK's own model, as JSON, as the response carries it."""
    given = _overrides().get((dialect, kind))
    if dialect == "bedrock":
        return {kind: build_shape(found.model)}
    if dialect == "gemini":
        from google.genai import types

        if given is not None and kind == "function_call":
            part = types.Part(function_call=types.FunctionCall(**given))
        elif given is not None:
            part = types.Part(**given)
        else:
            part = types.Part(**{kind: value_for(types.Part.model_fields[kind].annotation)})
        dumped: dict[str, Any] = part.model_dump(mode="json", exclude_none=True)
        return dumped
    if dialect == "ollama":
        if given is not None:
            return given
        return {kind: value_for(found.model.model_fields[kind].annotation)}
    instance = build(found.model, **(given or {}))
    dumped = instance.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def _contains(value: Any, target: dict[str, Any], exact: bool) -> bool:
    if isinstance(value, dict):
        if value == target or (not exact and target.items() <= value.items()):
            return True
        return any(_contains(inner, target, exact) for inner in value.values())
    if isinstance(value, list):
        return any(_contains(inner, target, exact) for inner in value)
    return False


def _strings(value: Any) -> set[str]:
    """The strings in ``value`` but the ``type`` tags, which a typed kind is spelled by."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {text for key, inner in value.items() if key != "type" for text in _strings(inner)}
    if isinstance(value, list):
        return {text for inner in value for text in _strings(inner)}
    return set()


def _as_json(value: Any) -> Any:
    """``value`` with its bytes as base64 text, as the dialects keep boto3's blobs."""
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, dict):
        return {key: _as_json(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_as_json(inner) for inner in value]
    return value


def _items(messages: list[ct.Message]) -> list[Any]:
    return [
        item
        for message in messages
        if isinstance(message, ct.ProviderOutputItemsMessage)
        for item in message.items
    ]


@pytest.mark.parametrize(("dialect", "kind"), list(_cases("block")))
def test_every_block_kind_reads_and_replays(dialect: str, kind: str) -> None:
    module: Any = importlib.import_module(f"convtypes.dialects.{dialect}")
    declared = kinds_of(dialect)["block"][kind]
    block = block_json(dialect, kind, ENUMERATED[dialect]["block"][kind])
    reply = module.read_reply(WRAPS[dialect]([block], STOPS[dialect]))
    transcript: list[ct.Message] = [ct.UserMessage(content="hi"), *reply.messages]
    request = module.to_request(transcript)
    exact = dialect not in ("ollama",)  # Ollama's "blocks" are fields of the message
    if declared == KEPT:
        # Kept verbatim: in the provider items as it came, and sent back so.
        assert _contains(_items(reply.messages), _as_json(block), exact), reply.messages
        replayed = _contains(request, block, exact)
    else:
        # Typed: what it says is in the request (the dialect's own spelling).
        replayed = _strings(block) <= _strings(request)
    if not replayed:
        # What the request has no place for, left_out names.
        assert module.left_out(transcript) != [], (block, request)


def test_a_typed_block_gives_its_convtypes_value() -> None:
    # The typed/kept split above is the table's word; here, for the typed
    # kinds every dialect shares, the value itself.
    for dialect in DIALECTS:
        module: Any = importlib.import_module(f"convtypes.dialects.{dialect}")
        for kind, declared in kinds_of(dialect)["block"].items():
            if kind not in ENUMERATED[dialect]["block"] or declared not in (
                "ToolCall",
                "ThinkingBlock",
            ):
                continue
            block = block_json(dialect, kind, ENUMERATED[dialect]["block"][kind])
            reply = module.read_reply(WRAPS[dialect]([block], STOPS[dialect]))
            assistant = [m for m in reply.messages if isinstance(m, ct.AssistantMessage)]
            got = assistant[0].tool_calls if declared == "ToolCall" else assistant[0].thinking
            assert got, (dialect, kind, reply.messages)


# -- stop reasons -------------------------------------------------------------


@pytest.mark.parametrize(("dialect", "kind"), list(_cases("stop_reason")))
def test_every_stop_reason_maps_and_keeps_its_raw_value(dialect: str, kind: str) -> None:
    module: Any = importlib.import_module(f"convtypes.dialects.{dialect}")
    declared = kinds_of(dialect)["stop_reason"][kind]
    response = WRAPS[dialect]([], kind)
    if declared == ERROR:
        with pytest.raises(ResponseError):
            module.read_reply(response)
        return
    reply = module.read_reply(response)
    assert reply.stop_reason == declared
    assert reply.provider_stop_reason == kind.rpartition(":")[2]


def test_every_declared_stop_reason_is_a_stop_reason() -> None:
    for dialect in DIALECTS:
        for kind, declared in kinds_of(dialect)["stop_reason"].items():
            assert declared in (*ct.dialects.STOP_REASONS, ERROR), (dialect, kind)


# -- roles ----------------------------------------------------------------------

_TRANSCRIPT: list[ct.Message] = [
    ct.SystemMessage(content="Be brief."),
    ct.UserMessage(content="Weather?"),
    ct.AssistantMessage(
        content="", tool_calls=(ct.ToolCall(id="call_1", name="weather", arguments={}),)
    ),
    ct.ToolResultMessage(tool_use_id="call_1", content="sun"),
    ct.AssistantMessage(content="Sunny."),
]


def _roles(value: Any) -> set[str]:
    if isinstance(value, dict):
        own = {value["role"]} if isinstance(value.get("role"), str) else set()
        return own | {role for inner in value.values() for role in _roles(inner)}
    if isinstance(value, list):
        return {role for inner in value for role in _roles(inner)}
    return set()


@pytest.mark.parametrize("dialect", DIALECTS)
def test_to_request_writes_only_roles_its_sdk_names(dialect: str) -> None:
    module: Any = importlib.import_module(f"convtypes.dialects.{dialect}")
    written = _roles(module.to_request(_TRANSCRIPT))
    named = set(kinds_of(dialect)["role"])
    assert written and written <= named
    enumerated = set(ENUMERATED[dialect]["role"])
    assert not enumerated or written <= enumerated


# -- stream events ----------------------------------------------------------------


def _dump(instance: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = instance.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def _anthropic_events(category: str, kind: str) -> list[Any]:
    import anthropic.types.beta as beta

    start = _dump(build(beta.BetaRawMessageStartEvent))
    start["message"]["content"] = []
    if category == "event":
        if kind == "message_start":
            return [start]
        event = _dump(build(ENUMERATED["anthropic"]["event"][kind].model))
        if kind == "content_block_start":
            event["content_block"] = {"type": "text", "text": ""}
        if kind in ("content_block_delta", "content_block_stop"):
            return [
                start,
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": "x"},
                }
                if kind == "content_block_delta"
                else event,
            ]
        return [start, event]
    opens = {
        "text_delta": {"type": "text", "text": ""},
        "citations_delta": {"type": "text", "text": ""},
        "thinking_delta": {"type": "thinking", "thinking": "", "signature": ""},
        "signature_delta": {"type": "thinking", "thinking": "", "signature": ""},
        "input_json_delta": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
        "compaction_delta": {"type": "compaction", "content": None},
    }
    delta = _dump(build(ENUMERATED["anthropic"]["delta"][kind].model))
    if kind == "input_json_delta":
        delta["partial_json"] = "{}"
    # A citation cites text the block says (on a blank text block, whole or
    # streamed, it goes with the blank text, which the API refuses as input).
    said = {"type": "text_delta", "text": "Oslo."}
    return [
        start,
        {"type": "content_block_start", "index": 0, "content_block": opens[kind]},
        *(
            [{"type": "content_block_delta", "index": 0, "delta": said}]
            if kind == "citations_delta"
            else []
        ),
        {"type": "content_block_delta", "index": 0, "delta": delta},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 1},
        },
        {"type": "message_stop"},
    ]


def _responses_events(category: str, kind: str) -> list[Any]:
    from openai.types import responses

    created = _dump(build(responses.ResponseCreatedEvent))
    event = _dump(build(ENUMERATED["openai_responses"]["event"][kind].model))
    opens = {
        "response.output_text": "message",
        "response.refusal": "message",
        "response.content_part": "message",
        "response.reasoning": "reasoning",
        "response.function_call_arguments": "function_call",
        "response.custom_tool_call_input": "custom_tool_call",
    }
    item_kind = next((item for prefix, item in opens.items() if kind.startswith(prefix)), None)
    if item_kind is None:
        return [created, event]
    item = block_json(
        "openai_responses", item_kind, ENUMERATED["openai_responses"]["block"][item_kind]
    )
    item["id"] = event.get("item_id", "x")
    if item_kind == "message" and kind != "response.content_part.added":
        item["content"] = [{"type": "output_text", "text": "", "annotations": []}]
    if item_kind == "reasoning":
        added_part = kind == "response.reasoning_summary_part.added"
        item["summary"] = [] if added_part else [{"type": "summary_text", "text": ""}]
        item["content"] = [{"type": "reasoning_text", "text": ""}]
    added = {
        "type": "response.output_item.added",
        "output_index": 0,
        "sequence_number": 0,
        "item": item,
    }
    return [created, added, event]


def _bedrock_events(category: str, kind: str) -> list[Any]:
    model = ENUMERATED["bedrock"][category][kind].model
    start = {"messageStart": {"role": "assistant"}}
    text = {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "x"}}}
    if category == "event":
        if kind == "messageStart":
            return [start]
        if kind == "contentBlockDelta":
            return [start, text]
        event = {kind: build_shape(model)}
        return [start, text, event] if kind == "contentBlockStop" else [start, event]
    where, _, member = kind.partition(":")
    value = build_shape(model)
    if where == "start":
        return [start, {"contentBlockStart": {"contentBlockIndex": 0, "start": {member: value}}}]
    delta = {member: value} if where == "delta" else {"reasoningContent": {member: value}}
    events = [start, {"contentBlockDelta": {"contentBlockIndex": 0, "delta": delta}}]
    starts = ENUMERATED["bedrock"]["delta"]
    if f"start:{member}" in starts:  # a delta of a block that opens with a start
        opened = build_shape(starts[f"start:{member}"].model)
        events.insert(1, {"contentBlockStart": {"contentBlockIndex": 0, "start": {member: opened}}})
    return events


# What a Cohere event's optional fields hold when it says anything; the SDK
# validates each event made with it.
_COHERE: dict[str, dict[str, Any]] = {
    "content-start": {"index": 0, "delta": {"message": {"content": {"type": "text", "text": ""}}}},
    "content-delta": {"index": 0, "delta": {"message": {"content": {"text": "x"}}}},
    "tool-plan-delta": {"delta": {"message": {"tool_plan": "x"}}},
    "tool-call-start": {
        "index": 0,
        "delta": {
            "message": {
                "tool_calls": {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "f", "arguments": ""},
                }
            }
        },
    },
    "tool-call-delta": {
        "index": 0,
        "delta": {"message": {"tool_calls": {"function": {"arguments": "{}"}}}},
    },
    "citation-start": {
        "index": 0,
        "delta": {"message": {"citations": {"start": 0, "end": 1, "text": "x", "sources": []}}},
    },
}
_COHERE_BEFORE = {"content-delta": "content-start", "tool-call-delta": "tool-call-start"}


def _cohere_events(category: str, kind: str) -> list[Any]:
    def event(kind: str) -> Any:
        model = ENUMERATED["cohere"]["event"][kind].model
        return model.model_validate({**_dump(build(model)), **_COHERE.get(kind, {})})

    before = _COHERE_BEFORE.get(kind)
    return [event(before), event(kind)] if before else [event(kind)]


def _chat_deltas(dialect: str) -> Callable[[str, str], list[Any]]:
    def events(category: str, kind: str) -> list[Any]:
        block = block_json(dialect, kind, ENUMERATED[dialect]["delta"][kind])
        if dialect == "openai_chat":
            block = {
                **block,
                "index": 0,
                "id": "call_1",
                "function": {"name": "f", "arguments": "{}"},
            }
            delta: dict[str, Any] = {"role": "assistant", "tool_calls": [block]}
        else:
            delta = {"role": "assistant", "content": [block]}
        choice = {"index": 0, "delta": delta, "finish_reason": None}
        return [
            {
                "id": "c1",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "m",
                "choices": [choice],
            }
        ]

    return events


STREAMS: dict[str, Callable[[str, str], list[Any]]] = {
    "anthropic": _anthropic_events,
    "openai_responses": _responses_events,
    "bedrock": _bedrock_events,
    "cohere": _cohere_events,
    "openai_chat": _chat_deltas("openai_chat"),
    "mistral": _chat_deltas("mistral"),
}


def _stream_cases() -> Iterator[Any]:
    for category in ("event", "delta"):
        for case in _cases(category):
            dialect, kind = case.values
            yield pytest.param(
                dialect, category, kind, id=f"{case.id}-{category}", marks=case.marks
            )


@pytest.mark.parametrize(("dialect", "category", "kind"), list(_stream_cases()))
def test_every_stream_event_is_read(dialect: str, category: str, kind: str) -> None:
    module: Any = importlib.import_module(f"convtypes.dialects.{dialect}")
    declared = kinds_of(dialect)[category][kind]
    events = STREAMS[dialect](category, kind)
    accumulator = module.Accumulator()
    if declared == ERROR:
        with pytest.raises(StreamError):
            for event in events:
                accumulator.feed(event)
        return
    deltas = [delta for event in events for delta in accumulator.feed(event)]
    names = {type(delta).__name__ for delta in deltas}
    for name in ("TextDelta", "ThinkingDelta"):
        if declared == name:
            assert name in names, (kind, deltas)
    if declared.startswith(("ToolCallStart", "ToolCallDelta")):
        assert any(isinstance(delta, (ToolCallStart, ToolCallDelta)) for delta in deltas), deltas
    accumulator.partial()  # what came so far reads, whatever the event was
    if accumulator.finished and declared == KEPT:
        # A whole stream around a kept delta: what it carried is in the items.
        assert _items(accumulator.result()), (kind, accumulator.result())


# -- calls: every call the next request wants answered is one the program saw --


@pytest.mark.parametrize(("dialect", "kind"), list(_cases("block", {**GAPS, **CALL_GAPS})))
def test_no_block_kind_is_a_call_the_program_is_not_shown(dialect: str, kind: str) -> None:
    module: Any = importlib.import_module(f"convtypes.dialects.{dialect}")
    block = block_json(dialect, kind, ENUMERATED[dialect]["block"][kind])
    reply = module.read_reply(WRAPS[dialect]([block], STOPS[dialect]))
    transcript: list[ct.Message] = [ct.UserMessage(content="hi"), *reply.messages]
    shown = {call.id for call in reply.tool_calls} | {call.id for call in ct.open_calls(transcript)}
    try:
        module.to_request([*transcript, ct.UserMessage(content="next")])
    except UnansweredCall as err:
        assert err.call_id in shown, f"{dialect} {kind}: the request wants {err.call_id!r} answered"
