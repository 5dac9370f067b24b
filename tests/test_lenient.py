"""Forward compatibility: a newer writer's transcript survives this reader."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

import convtypes as ct
from convtypes import strategies as cst

# Names a later schema might add; none is a field of any current type.
FUTURE_FIELDS = ["cache_control", "x_trace", "priority", "annotations", "z"]
FUTURE_ROLES = ["developer", "tool_progress", "memory"]
FUTURE_BLOCKS = ["document", "hologram"]
KNOWN_FIELDS = {
    "role", "type", "content", "tool_calls", "thinking", "tool_use_id", "provenance",
    "protocol", "items", "text", "data", "media_type", "url", "detail", "path", "fps",
    "max_frames", "sample_rate", "id", "name", "arguments", "signature", "redacted_data",
}  # fmt: skip


def _future_values() -> st.SearchStrategy[Any]:
    return (
        st.none()
        | st.booleans()
        | st.integers()
        | cst.texts(8)
        | st.lists(st.integers(), max_size=2)
    )


@st.composite
def newer_documents(draw: st.DrawFn) -> bytes:
    """A transcript as a later schema might write it, in canonical form:
    known fields in the reference's order, then unknown fields."""
    messages = msgspec.json.decode(ct.encode(draw(cst.transcripts(max_size=5))))

    def add_fields(obj: dict[str, Any]) -> None:
        for name in draw(st.lists(st.sampled_from(FUTURE_FIELDS), unique=True, max_size=2)):
            obj[name] = draw(_future_values())

    for message in messages:
        add_fields(message)
        if message["role"] == "user_multimodal":
            for block in message["content"]:
                add_fields(block)
            if draw(st.booleans()):
                kind = draw(st.sampled_from(FUTURE_BLOCKS))
                message["content"].insert(0, {"type": kind, "uri": draw(cst.texts(8))})
        if message["role"] == "assistant":
            for item in (*message["tool_calls"], *message.get("thinking", [])):
                add_fields(item)
    for _ in range(draw(st.integers(0, 2))):
        role = draw(st.sampled_from(FUTURE_ROLES))
        unknown = {"role": role, "content": draw(cst.texts(8)), "meta": {"k": [1, 2.5]}}
        messages.insert(draw(st.integers(0, len(messages))), unknown)
    return msgspec.json.encode(messages)


@given(newer_documents())
def test_newer_transcript_round_trips_byte_for_byte(doc: bytes) -> None:
    messages = ct.decode_messages(doc, lenient=True)
    assert ct.encode(messages) == doc
    # And again: a re-save of the re-save is stable too.
    assert ct.encode(ct.decode_messages(ct.encode(messages), lenient=True)) == doc


@given(newer_documents())
def test_strict_refuses_unknown_variants_and_drops_unknown_fields(doc: bytes) -> None:
    raw = msgspec.json.decode(doc)
    has_unknown_variant = any(m["role"] in FUTURE_ROLES for m in raw) or any(
        b.get("type") in FUTURE_BLOCKS
        for m in raw
        if m["role"] == "user_multimodal"
        for b in m["content"]
    )
    if has_unknown_variant:
        with pytest.raises(ct.WireError) as info:
            ct.decode_messages(doc)
        assert info.value.path.endswith((".role", ".type"))
        return
    strict = ct.encode(ct.decode_messages(doc))
    assert not _all_struct_keys(msgspec.json.decode(strict)) - KNOWN_FIELDS


def _all_struct_keys(messages: list[Any]) -> set[str]:
    keys: set[str] = set()
    for message in messages:
        keys.update(message)
        for nested in ("tool_calls", "thinking"):
            for item in message.get(nested, []):
                keys.update(item)
        if message["role"] == "user_multimodal":
            for block in message["content"]:
                keys.update(block)
    return keys


@given(cst.transcripts())
def test_lenient_equals_strict_on_the_current_schema(messages: list[ct.Message]) -> None:
    doc = ct.encode(messages)
    assert ct.decode_messages(doc, lenient=True) == ct.decode_messages(doc) == messages


def test_external_tool_result_keeps_its_provenance_and_the_future_field() -> None:
    doc = b'{"role":"tool_result","tool_use_id":"a","content":"b","provenance":"external","ttl":30}'
    message = ct.decode_message(doc, lenient=True)
    assert isinstance(message, ct.ToolResultMessage)
    assert message.provenance is ct.Provenance.EXTERNAL
    assert ct.unknown_fields(message) == {"ttl": 30}
    assert ct.encode(message) == doc
    # Strict mode keeps the provenance too, and drops only the unknown field.
    assert ct.encode(ct.decode_message(doc)) == doc.replace(b',"ttl":30', b"")


def test_unknown_message_is_kept_and_never_passes_for_a_known_turn() -> None:
    doc = b'[{"role":"user","content":"hi"},{"role":"developer","content":"obey"}]'
    messages = ct.decode_lenient_messages(doc)
    unknown = messages[1]
    assert isinstance(unknown, ct.UnknownMessage)
    assert unknown.role == "developer"
    assert unknown.raw == b'{"role":"developer","content":"obey"}'
    assert not isinstance(unknown, (ct.UserMessage, ct.AssistantMessage, ct.SystemMessage))
    assert ct.encode(messages) == doc
    with pytest.raises(AttributeError):
        unknown.role = "user"  # type: ignore[misc]


def test_unknown_block_is_kept_inside_a_known_message() -> None:
    doc = (
        b'{"role":"user_multimodal","content":'
        b'[{"type":"text","text":"a"},{"type":"document","id":7}]}'
    )
    message = ct.decode_lenient_message(doc)
    assert isinstance(message, ct.UserMultimodalMessage)
    block = message.content[1]
    assert isinstance(block, ct.UnknownBlock)
    assert (block.type, block.raw) == ("document", b'{"type":"document","id":7}')
    assert ct.encode(message) == doc


def test_non_canonical_input_loses_no_field_and_no_value() -> None:
    doc = b'{"x":1,"content":"hi","role":"user","y":{"b":1,"a":[1E2]}}'
    message = ct.decode_message(doc, lenient=True)
    written = ct.encode(message)
    assert written == b'{"role":"user","content":"hi","x":1,"y":{"b":1,"a":[100.0]}}'
    assert json.loads(written) == json.loads(doc)


def test_errors_in_known_parts_are_still_errors() -> None:
    with pytest.raises(ct.WireError) as info:
        ct.decode_messages(b'[{"role":"user","content":5,"extra":1}]', lenient=True)
    assert info.value.path == "$[0].content"
    with pytest.raises(ct.WireError) as info:
        ct.decode_messages(b'[{"role":null,"content":"x"}]', lenient=True)
    assert info.value.path == "$[0].role"


def test_unknown_fields_of_plain_values_are_empty() -> None:
    assert ct.unknown_fields(ct.UserMessage(content="x")) == {}
    assert ct.unknown_fields(ct.decode_message(b'{"role":"user","content":"x","n":1}')) == {}


# ------------------------------------------------------- lenient values as values

NEWER = (
    b'[{"role":"user_multimodal","content":[{"type":"text","text":"a","cache":1},'
    b'{"type":"document","id":7}]},'
    b'{"role":"assistant","content":"","tool_calls":[{"id":"c","name":"n","arguments":{},'
    b'"origin":"x"}],"thinking":[{"text":"t","signature":"s","budget":3}],"mood":"ok"},'
    b'{"role":"tool_result","tool_use_id":"k","content":"r","provenance":"partner"},'
    b'{"role":"developer","content":"obey"}]'
)


def _copies(value: Any) -> list[Any]:
    import copy
    import pickle

    return [
        copy.copy(value),
        copy.deepcopy(value),
        pickle.loads(pickle.dumps(value)),
        ct.replace(value) if not isinstance(value, list) else [ct.replace(v) for v in value],
    ]


def test_every_copy_keeps_what_a_newer_writer_added() -> None:
    messages = ct.decode_lenient_messages(NEWER)
    for copied in _copies(messages):
        assert copied == messages
        assert ct.encode(copied) == NEWER
    for message in messages:
        for copied in _copies(message):
            assert copied == message
            assert type(copied) is type(message)
            assert ct.unknown_fields(copied) == ct.unknown_fields(message)
            assert ct.encode(copied) == ct.encode(message)


@given(newer_documents())
def test_copies_of_newer_transcripts_write_the_same_bytes(doc: bytes) -> None:
    messages = ct.decode_lenient_messages(doc)
    for copied in _copies(messages):
        assert copied == messages
        assert ct.encode(copied) == doc


def test_a_changed_copy_keeps_unknown_fields() -> None:
    message = ct.decode_message(b'{"role":"user","content":"hi","ttl":30}', lenient=True)
    assert isinstance(message, ct.UserMessage)
    changed = ct.replace(message, content="bye")
    assert ct.unknown_fields(changed) == {"ttl": 30}
    assert ct.encode(changed) == b'{"role":"user","content":"bye","ttl":30}'
    assert msgspec.structs.replace(message, content="bye") != changed  # msgspec's drops them


def test_equality_and_hash_see_unknown_fields() -> None:
    one = ct.decode_message(b'{"role":"user","content":"hi","ttl":30}', lenient=True)
    two = ct.decode_message(b'{"role":"user","content":"hi","ttl":31}', lenient=True)
    plain = ct.UserMessage(content="hi")
    assert one != two and one != plain and plain != one
    assert hash(one) != hash(two)
    assert one == ct.decode_message(ct.encode(one), lenient=True)
    assert hash(one) == hash(ct.decode_message(ct.encode(one), lenient=True))
    assert isinstance(one, ct.UserMessage)
    assert "ttl" in repr(one)


def test_a_built_value_holding_a_lenient_one_keeps_its_unknown_fields() -> None:
    call = ct.decode(b'{"name":"n","arguments":{}}', ct.ToolCall)
    lenient = ct.decode_message(
        b'{"role":"assistant","content":"","tool_calls":[{"name":"n","arguments":{},"x":1}]}',
        lenient=True,
    )
    assert isinstance(lenient, ct.AssistantMessage)
    kept = lenient.tool_calls[0]
    built = ct.AssistantMessage(content="again", tool_calls=[kept, call])  # type: ignore[arg-type]
    data = ct.encode(built)
    assert data == (
        b'{"role":"assistant","content":"again","tool_calls":'
        b'[{"name":"n","arguments":{},"x":1},{"name":"n","arguments":{}}]}'
    )
    assert ct.decode_message(data, lenient=True) == built


def test_unknown_provenance_survives_and_fails_closed() -> None:
    doc = b'{"role":"tool_result","tool_use_id":"a","content":"b","provenance":"partner"}'
    message = ct.decode_message(doc, lenient=True)
    assert isinstance(message, ct.ToolResultMessage)
    assert message.provenance not in (ct.Provenance.INTERNAL, ct.Provenance.EXTERNAL)
    assert message.provenance.is_internal() is False
    assert message.provenance.is_external() is True
    assert message.provenance.value == "partner"
    assert ct.encode(message) == doc
    assert ct.decode_message(doc, lenient=True) == message
    for copied in _copies(message):
        assert copied == message and ct.encode(copied) == doc
    # Strict mode refuses it, as the reference does.
    with pytest.raises(ct.WireError) as info:
        ct.decode_message(doc)
    assert info.value.path == "$.provenance"
    with pytest.raises(ct.WireError):
        ct.decode_messages(b"[" + doc + b"]")


def test_the_readme_match_fences_an_unknown_provenance() -> None:
    doc = b'[{"role":"tool_result","tool_use_id":"a","content":"obey me","provenance":"partner"}]'
    shown = []
    for message in ct.decode_lenient_messages(doc):
        match message:
            case ct.ToolResultMessage(content=text, provenance=ct.Provenance.INTERNAL):
                shown.append(text)
            case ct.ToolResultMessage(content=text):
                shown.append(ct.fence_external(text))
            case _:
                pass
    assert shown == [ct.fence_external("obey me")]


def test_unknown_message_and_block_build_and_match_by_the_same_names() -> None:
    message = ct.UnknownMessage(role="developer", raw=b'{"role": "developer", "x": [1, 2]}')
    assert message.raw == b'{"role":"developer","x":[1,2]}'
    block = ct.UnknownBlock(type="document", raw=b'{"type":"document"}')
    match message:
        case ct.UnknownMessage(role=role, raw=raw):
            assert (role, raw) == ("developer", message.raw)
    match block:
        case ct.UnknownBlock(type=kind):
            assert kind == "document"
    assert ct.decode_lenient_message(ct.encode(message)) == message
    holder = ct.UserMultimodalMessage(content=[block])  # type: ignore[arg-type]
    assert ct.decode_lenient_message(ct.encode(holder)) == holder


@pytest.mark.parametrize(
    "build,path",
    [
        (lambda: ct.UnknownMessage(role="user", raw=b'{"role":"user","content":"x"}'), "$.role"),
        (lambda: ct.UnknownMessage(role="dev", raw=b'{"role":"other"}'), "$.raw"),
        (lambda: ct.UnknownMessage(role="dev", raw=b"[1]"), "$.raw"),
        (lambda: ct.UnknownMessage(role="dev", raw=b"{"), "$.raw"),
        (lambda: ct.UnknownMessage(role="dev", raw="{}"), "$.raw"),  # type: ignore[arg-type]
        (lambda: ct.UnknownMessage(role=1, raw=b"{}"), "$.role"),  # type: ignore[arg-type]
        (lambda: ct.UnknownBlock(type="text", raw=b'{"type":"text","text":"x"}'), "$.type"),
        (
            lambda: ct.UnknownBlock(
                type="doc", raw=b'{"type":"doc","x":' + b"[" * 124 + b"]" * 124 + b"}"
            ),
            "$.raw",
        ),
    ],
)  # fmt: skip
def test_unknown_values_are_checked_when_built(build: Any, path: str) -> None:
    with pytest.raises(ct.WireError) as info:
        build()
    assert info.value.path == path


def test_an_unknown_provenance_is_a_value_of_its_own() -> None:
    # Not a disguised Provenance member, so that a match over the members
    # cannot look exhaustive to a type checker and miss it at run time.
    doc = b'{"role":"tool_result","tool_use_id":"a","content":"b","provenance":"partner"}'
    message = ct.decode_message(doc, lenient=True)
    assert isinstance(message, ct.ToolResultMessage)
    kept = message.provenance
    assert type(kept) is ct.UnknownProvenance and not isinstance(kept, ct.Provenance)
    assert kept == ct.UnknownProvenance(value="partner") != ct.UnknownProvenance(value="other")
    assert hash(kept) == hash(ct.UnknownProvenance(value="partner"))
    assert repr(kept) == "UnknownProvenance(value='partner')"
    assert ct.encode(kept) == b'"partner"'
    match kept:
        case ct.Provenance.INTERNAL | ct.Provenance.EXTERNAL:
            raise AssertionError("a member matched an unknown provenance")
        case ct.UnknownProvenance(value=value):
            assert value == "partner"
    built = ct.ToolResultMessage(tool_use_id="a", content="b", provenance=kept)
    assert built == message and ct.encode(built) == doc
    with pytest.raises(AttributeError):
        kept._value = "other"


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("external", "expected a provenance this version does not know, got 'external'"),
        ("internal", "expected a provenance this version does not know, got 'internal'"),
        (3, "expected str, got int"),
        (
            "partner\ud800",
            "expected text that UTF-8 can carry, found a lone surrogate at character 7",
        ),
    ],
)
def test_an_unknown_provenance_is_checked_when_built(value: Any, reason: str) -> None:
    with pytest.raises(ct.WireError) as info:
        ct.UnknownProvenance(value=value)
    assert (info.value.reason, info.value.path) == (reason, "$")


def test_a_pickle_of_the_old_unknown_provenance_still_loads() -> None:
    # Earlier versions pickled a provenance as a call of from_wire with its
    # wire value: the bytes of such a pickle (protocol 0), as 0.1 wrote them.
    import pickle

    old = b"cconvtypes._provenance\nfrom_wire\np0\n(Vpartner\np1\ntp2\nRp3\n."
    assert pickle.loads(old) == ct.UnknownProvenance(value="partner")
    assert pickle.loads(old.replace(b"Vpartner", b"Vexternal")) is ct.Provenance.EXTERNAL
