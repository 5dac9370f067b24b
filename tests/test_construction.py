# ruff: noqa: E501
# mypy: disable-error-code="arg-type"
"""A value a program builds is the value it reads back.

Construction checks and normalises every field, so that whatever exists can
be encoded and decodes back equal; ``encode`` takes only convtypes values.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

import convtypes as ct
from convtypes import strategies as cst

# One valid value of every class, with every field set, to vary one at a time.
SAMPLES: list[Any] = [
    ct.TextBlock(text="t"),
    ct.ImageBase64Block(data="d", media_type="image/png"),
    ct.ImageUrlBlock(url="u", detail="low"),
    ct.VideoPathBlock(path="p", fps=2.0, max_frames=3),
    ct.VideoUrlBlock(url="u", fps=2.0, max_frames=3),
    ct.VideoBase64Block(data="d", media_type="video/mp4", fps=2.0, max_frames=3),
    ct.AudioPathBlock(path="p", sample_rate=16000),
    ct.AudioUrlBlock(url="u", sample_rate=16000),
    ct.AudioBase64Block(data="d", media_type="audio/wav", sample_rate=16000),
    ct.ToolCall(id="c", name="n", arguments={"a": 1}),
    ct.ThinkingBlock(text="t", signature="s", redacted_data="r"),
    ct.SystemMessage(content="s"),
    ct.UserMessage(content="u"),
    ct.UserMultimodalMessage(content=(ct.TextBlock(text="t"),)),
    ct.AssistantMessage(
        content="a",
        tool_calls=(ct.ToolCall(name="n", arguments={}),),
        thinking=(ct.ThinkingBlock(signature="s"),),
    ),
    ct.ToolResultMessage(tool_use_id="c", content="r", provenance=ct.Provenance.EXTERNAL),
    ct.ProviderOutputItemsMessage(protocol="p", items=({"type": "x"},)),
]
FIELDS = [(type(v), v, name) for v in SAMPLES for name in v.__struct_fields__]


def fields_of(value: Any) -> dict[str, Any]:
    return {name: getattr(value, name) for name in value.__struct_fields__}


class Strange:
    """A value no field accepts."""


@pytest.mark.parametrize(
    "cls,sample,field", FIELDS, ids=[f"{c.__name__}.{f}" for c, _, f in FIELDS]
)
def test_every_field_refuses_a_value_of_the_wrong_type(cls: Any, sample: Any, field: str) -> None:
    with pytest.raises(ct.WireError) as info:
        cls(**{**fields_of(sample), field: Strange()})
    assert info.value.path == f"$.{field}"
    assert "Strange" in info.value.reason


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda v: type(v).__name__)
def test_construction_is_keyword_only(sample: Any) -> None:
    with pytest.raises(TypeError):
        type(sample)(*fields_of(sample).values())
    assert type(sample).__match_args__ == ()


@pytest.mark.parametrize(
    "build,path",
    [
        (lambda: ct.UserMultimodalMessage(content="text"), "$.content"),
        (lambda: ct.UserMultimodalMessage(content=["text"]), "$.content[0]"),
        (lambda: ct.UserMessage(content=123), "$.content"),
        (lambda: ct.AssistantMessage(tool_calls=[{"name": "n"}]), "$.tool_calls[0]"),
        (lambda: ct.AssistantMessage(thinking=[ct.ToolCall(name="n", arguments={})]), "$.thinking[0]"),
        (lambda: ct.VideoUrlBlock(url="u", fps="30"), "$.fps"),
        (lambda: ct.VideoUrlBlock(url="u", fps=True), "$.fps"),
        (lambda: ct.VideoPathBlock(path="p", max_frames=1.5), "$.max_frames"),
        (lambda: ct.ToolResultMessage(tool_use_id="a", content="b", provenance="External"), "$.provenance"),
        (lambda: ct.ToolResultMessage(tool_use_id="a", content="b", provenance=True), "$.provenance"),
        (lambda: ct.ToolResultMessage(tool_use_id="a", content="b", provenance="partner"), "$.provenance"),
        (lambda: ct.ToolCall(name="n", arguments={"a": math.nan}), "$.arguments.a"),
        (lambda: ct.ProviderOutputItemsMessage(protocol="p", items="[1]"), "$.items"),
    ],
)  # fmt: skip
def test_defects_found_by_a_new_user_are_refused_with_the_field(build: Any, path: str) -> None:
    with pytest.raises(ct.WireError) as info:
        build()
    assert info.value.path == path


def test_sequences_take_lists_and_store_tuples() -> None:
    block = ct.TextBlock(text="hi")
    multimodal = ct.UserMultimodalMessage(content=[block])
    assert multimodal.content == (block,)
    assert type(multimodal.content) is tuple
    call = ct.ToolCall(id="c", name="n", arguments={"q": [1, 2]})
    assistant = ct.AssistantMessage(tool_calls=[call], thinking=[ct.ThinkingBlock(signature="s")])
    assert type(assistant.tool_calls) is tuple and type(assistant.thinking) is tuple
    items = ct.ProviderOutputItemsMessage(protocol="p", items=[{"a": [1]}, 2])
    assert items.items == ({"a": [1]}, 2)
    for value in (multimodal, assistant, items):
        assert ct.decode(ct.encode(value), type(value)) == value
    # Hashable where nothing inside is a dict.
    assert hash(multimodal) == hash(ct.decode(ct.encode(multimodal), ct.Message))


def test_an_empty_sequence_is_stored_as_the_default_and_adds_no_bytes() -> None:
    message = ct.AssistantMessage(content="x", thinking=[])
    assert message.thinking is ct.AssistantMessage.__struct_defaults__[2]
    assert ct.encode(message) == b'{"role":"assistant","content":"x","tool_calls":[]}'
    # A tuple built at run time may not be the interpreter's shared empty one.
    generated = tuple(block for block in message.thinking)
    assert ct.encode(ct.AssistantMessage(thinking=generated)) == ct.encode(ct.AssistantMessage())


def test_provenance_takes_a_member_or_its_wire_string() -> None:
    built = ct.ToolResultMessage(tool_use_id="a", content="b", provenance="external")
    assert built.provenance is ct.Provenance.EXTERNAL
    assert built == ct.ToolResultMessage(
        tool_use_id="a", content="b", provenance=ct.Provenance.EXTERNAL
    )
    internal = ct.ToolResultMessage(tool_use_id="a", content="b", provenance="internal")
    assert internal.provenance is ct.Provenance.INTERNAL
    assert b"provenance" not in ct.encode(internal)


def test_str_subclasses_are_stored_as_str() -> None:
    class Name(str):
        pass

    message = ct.UserMessage(content=Name("hi"))
    assert type(message.content) is str
    assert ct.decode_message(ct.encode(message)) == message


def test_fps_and_u32_normalise_numbers() -> None:
    block = ct.VideoUrlBlock(url="u", fps=30, max_frames=10)
    assert type(block.fps) is float and block.fps == 30.0
    assert ct.decode(ct.encode(block), ct.VideoUrlBlock) == block
    assert ct.VideoUrlBlock(url="u", fps=29.970000001).fps == 29.97


def test_replace_checks_the_copy_like_a_new_value() -> None:
    message = ct.UserMessage(content="hi")
    assert ct.replace(message, content="there") == ct.UserMessage(content="there")
    with pytest.raises(ct.WireError) as info:
        ct.replace(message, content=5)  # type: ignore[call-overload]
    assert info.value.path == "$.content"
    with pytest.raises(TypeError):
        ct.replace(message, contents="x")  # type: ignore[call-overload]
    calls = [ct.ToolCall(name="n", arguments={})]
    assistant = ct.replace(ct.AssistantMessage(), tool_calls=calls)  # type: ignore[call-overload]
    assert type(assistant.tool_calls) is tuple
    with pytest.raises(TypeError):
        ct.replace({"role": "user"}, content="x")  # type: ignore[call-overload]


@pytest.mark.parametrize(
    "value",
    [
        {"role": "bogus", "x": math.nan},
        [1, 2],
        "text",
        b"bytes",
        None,
        [ct.TextBlock(text="a block is not a message")],
        (ct.UserMessage(content="ok"), {"role": "user", "content": "dict"}),
        msgspec.Raw(b"{}"),
    ],
    # msgspec.Raw's repr holds its address, which differs between the
    # processes of pytest-xdist; its type name does not.
    ids=lambda value: "Raw" if isinstance(value, msgspec.Raw) else repr(value),
)
def test_encode_takes_only_convtypes_values(value: Any) -> None:
    with pytest.raises(TypeError, match="convtypes value"):
        ct.encode(value)


def test_encode_takes_a_tuple_of_messages() -> None:
    messages = (ct.UserMessage(content="a"), ct.AssistantMessage(content="b"))
    assert ct.encode(messages) == ct.encode(list(messages))


@given(cst.transcripts())
def test_built_equals_decoded(messages: list[ct.Message]) -> None:
    decoded = ct.decode_messages(ct.encode(messages))
    assert decoded == messages
    for built, read in zip(messages, decoded, strict=True):
        assert type(built) is type(read)
        assert ct.encode(built) == ct.encode(read)


def _as_lists(value: Any) -> Any:
    """``value`` rebuilt by its class from fields given as lists, not tuples."""
    given: dict[str, Any] = {}
    for name in value.__struct_fields__:
        field = getattr(value, name)
        if type(field) is tuple:
            field = [
                _as_lists(item) if isinstance(item, msgspec.Struct) else item for item in field
            ]
        given[name] = field
    return type(value)(**given)


@given(cst.messages())
def test_a_value_built_from_lists_equals_and_round_trips(message: ct.Message) -> None:
    rebuilt = _as_lists(message)
    assert rebuilt == message
    assert ct.decode_message(ct.encode(rebuilt)) == rebuilt


@given(st.one_of(cst.messages(), cst.content_blocks(), cst.tool_calls(), cst.thinking_blocks()))
def test_every_value_hashes_as_its_decoded_copy(value: Any) -> None:
    # JSON inside (arguments, items) included: see tests/test_python_protocols.py.
    decoded = ct.decode(ct.encode(value), type(value))
    assert hash(value) == hash(decoded)
    assert {value, decoded} == {value}


def test_numbers_the_wire_cannot_carry_are_refused_when_built() -> None:
    with pytest.raises(ct.WireError) as info:
        ct.VideoUrlBlock(url="u", fps=10**400)
    assert info.value.path == "$.fps"
    with pytest.raises(ct.WireError) as info:
        ct.ToolCall(name="f", arguments={"n": [1, 10**5000]})
    assert info.value.path == "$.arguments.n[1]"
    # Integers past 64 bits that Python can write stay exact.
    big = ct.ToolCall(name="f", arguments={"n": -(10**400)})
    assert ct.decode(ct.encode(big), ct.ToolCall) == big


def test_arguments_take_any_mapping_and_store_a_dict() -> None:
    # The constructor is typed to take a Mapping[str, object] (so a dict of
    # str and int values type-checks); what it stores is a plain dict.
    from types import MappingProxyType

    call = ct.ToolCall(name="n", arguments=MappingProxyType({"q": "Oslo", "n": 3}))
    assert type(call.arguments) is dict and call.arguments == {"q": "Oslo", "n": 3}
    assert call == ct.decode(b'{"name":"n","arguments":{"q":"Oslo","n":3}}', ct.ToolCall)
    with pytest.raises(ct.WireError) as info:
        ct.ToolCall(name="n", arguments=MappingProxyType({"q": {1, 2}}))
    assert info.value.path == "$.arguments.q"


def test_encode_refuses_a_foreign_value_anywhere_in_a_list() -> None:
    plain = ct.UserMessage(content="ok")
    kept = ct.decode_message(b'{"role":"user","content":"x","ttl":1}', lenient=True)
    unknown = ct.UnknownMessage(role="developer", raw=b'{"role":"developer"}')
    foreign: Any = {"role": "user", "content": "a dict"}
    for mixed in ([plain, kept, unknown], [kept, plain], [unknown, plain], [plain] * 3):
        assert ct.decode_lenient_messages(ct.encode(mixed)) == mixed
        for at in range(len(mixed) + 1):
            with pytest.raises(TypeError, match="holding other values"):
                ct.encode([*mixed[:at], foreign, *mixed[at:]])
