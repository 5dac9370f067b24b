"""Values under Python's own protocols: hash, copy.replace, msgspec's encoders, sequences.

Each of these passed both type checkers and failed at run time before
(issue 30): a set of assistant turns, ``copy.replace`` skipping the checks,
``msgspec.json.encode`` of a lenient value, ``encode`` of a ``deque``.
"""

from __future__ import annotations

import collections
import copy
import functools
import math
import sys
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

import convtypes as ct
from convtypes import strategies as cst
from convtypes.dialects import Reply, ToolSpec, Usage

LENIENT = (
    b'[{"role":"tool_result","tool_use_id":"7","content":"4 C","provenance":"partner"},'
    b'{"role":"user_multimodal","content":[{"type":"hologram","depth":[3,{"a":1}]}]},'
    b'{"role":"assistant","content":"","tool_calls":[{"id":"7","name":"f",'
    b'"arguments":{"q":[1,2]},"added":{"k":[1]}}],"mood":["calm"]},'
    b'{"role":"developer","content":"obey"}]'
)


# --- hashing ---------------------------------------------------------------------------


def test_values_holding_json_hash_and_key_dicts_and_sets() -> None:
    messages = ct.decode_lenient_messages(LENIENT)
    again = ct.decode_lenient_messages(LENIENT)
    assert {*messages, *again} == set(messages)
    counts: dict[ct.LenientMessage, int] = collections.Counter([*messages, *again])
    assert set(counts.values()) == {2}
    items = ct.ProviderOutputItemsMessage(protocol="p", items=[{"a": [1, {"b": None}]}])
    assert len({items, ct.decode_message(ct.encode(items))}) == 1


def test_json_hashes_as_it_compares_by_its_canonical_bytes() -> None:
    # Key order does not count and 1.0 is the number 1, but true is not 1
    # (convtypes.canonical, tests/test_identity.py).
    one = ct.ToolCall(name="f", arguments={"a": 1, "b": [True, 2.5]})
    same = ct.ToolCall(name="f", arguments={"b": [True, 2.5], "a": 1.0})
    other = ct.ToolCall(name="f", arguments={"a": 1, "b": [1, 2.5]})
    assert one == same and hash(one) == hash(same)
    assert one != other and len({one, same, other}) == 2


def test_json_nested_to_the_limit_hashes_without_recursing_through_it() -> None:
    deep: Any = "leaf"
    for _ in range(ct.MAX_DEPTH - 6):
        deep = [deep]
    call = ct.ToolCall(name="f", arguments={"x": deep})
    assert hash(call) == hash(ct.decode(ct.encode(call), ct.ToolCall))


def test_dialect_values_hash_and_cache() -> None:
    @functools.lru_cache(maxsize=4)
    def names(tools: tuple[ToolSpec, ...]) -> list[str]:
        return [tool.name for tool in tools]

    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    tools = (ToolSpec(name="f", parameters=schema),)
    assert names(tools) == names((ToolSpec(name="f", parameters=dict(schema)),)) == ["f"]
    assert names.cache_info().hits == 1
    reply = Reply(
        messages=ct.decode_messages(b'[{"role":"assistant","content":"a","tool_calls":[]}]'),
        stop_reason="end_turn",
        usage=Usage(input_tokens=3, raw={"input": [3]}),
    )
    assert hash(reply) == hash(msgspec.structs.replace(reply))


@given(cst.transcripts(max_size=4))
def test_every_transcript_hashes_as_its_decoded_copy(transcript: list[ct.Message]) -> None:
    decoded = ct.decode_messages(ct.encode(transcript))
    assert [hash(m) for m in transcript] == [hash(m) for m in decoded]


# --- copy.replace -----------------------------------------------------------------------


def _copy_replace(value: Any, **changes: Any) -> Any:
    """``copy.replace`` where Python has it (3.13), else the method it calls."""
    if sys.version_info >= (3, 13):
        return copy.replace(value, **changes)
    return value.__replace__(**changes)


def test_copy_replace_checks_what_it_changes() -> None:
    call = ct.ToolCall(name="f", arguments={})
    with pytest.raises(ct.WireError) as nan:
        _copy_replace(call, arguments={"x": math.nan})
    assert nan.value.path == "$.arguments.x"
    result = ct.ToolResultMessage(tool_use_id="c", content="x")
    with pytest.raises(ct.WireError) as bogus:
        _copy_replace(result, provenance="bogus")
    assert bogus.value.path == "$.provenance"
    with pytest.raises(TypeError, match="contnt"):
        _copy_replace(result, contnt="y")
    assert _copy_replace(result, provenance="external").provenance is ct.Provenance.EXTERNAL
    assert _copy_replace(ct.TextBlock(text="a"), text="b") == ct.TextBlock(text="b")


def test_copy_replace_keeps_what_lenient_decoding_kept() -> None:
    messages = ct.decode_lenient_messages(LENIENT)
    assistant = messages[2]
    changed = _copy_replace(assistant, content="now")
    assert ct.unknown_fields(changed) == {"mood": ["calm"]}
    assert ct.unknown_fields(changed.tool_calls[0]) == {"added": {"k": [1]}}
    block = ct.UnknownBlock(type="hologram", raw=b'{"type":"hologram"}')
    other = _copy_replace(block, type="sculpture", raw=b'{"type":"sculpture"}')
    assert other.type == "sculpture"
    with pytest.raises(ct.WireError):
        _copy_replace(block, type="text", raw=b'{"type":"text"}')


@pytest.mark.skipif(sys.version_info < (3, 13), reason="copy.replace is new in Python 3.13")
def test_copy_replace_is_convtypes_replace() -> None:
    result = ct.decode_lenient_message(
        b'{"role":"tool_result","tool_use_id":"8","content":"4 C","provenance":"partner","t":1}'
    )
    assert isinstance(result, ct.ToolResultMessage)
    if sys.version_info >= (3, 13):  # as the mark says; for the type checker
        assert copy.replace(result, content="y") == ct.replace(result, content="y")


# --- msgspec's own encoders ---------------------------------------------------------------


class Snapshot(msgspec.Struct):
    device: str
    messages: list[ct.LenientMessage]


def test_msgspec_encodes_lenient_values_with_the_hook() -> None:
    messages = ct.decode_lenient_messages(LENIENT)
    record = Snapshot(device="phone", messages=messages)
    with pytest.raises(TypeError):
        msgspec.json.encode(record)  # msgspec alone does not know them
    written = msgspec.json.decode(msgspec.json.encode(record, enc_hook=ct.enc_hook))
    expected = msgspec.json.decode(ct.encode(messages))
    # The known fields as encode writes them; unknown fields are msgspec's to drop.
    assert written["messages"][0] == expected[0]
    assert written["messages"][1] == expected[1]
    assert written["messages"][3] == expected[3]
    assert "mood" not in written["messages"][2] and "mood" in expected[2]
    builtins = msgspec.to_builtins(record, enc_hook=ct.enc_hook)
    assert builtins["messages"][1]["content"][0] == {"type": "hologram", "depth": [3, {"a": 1}]}
    packed = msgspec.msgpack.decode(msgspec.msgpack.encode(messages, enc_hook=ct.enc_hook))
    assert packed[0]["provenance"] == "partner" and packed[3] == expected[3]


def test_the_hook_refuses_what_it_does_not_know() -> None:
    with pytest.raises(NotImplementedError, match="does not encode a object"):
        ct.enc_hook(object())
    with pytest.raises(NotImplementedError, match="complex"):
        msgspec.json.encode({"a": 1j}, enc_hook=ct.enc_hook)


# --- sequences --------------------------------------------------------------------------


@given(cst.transcripts(max_size=4))
def test_encode_takes_any_sequence_of_messages(transcript: list[ct.Message]) -> None:
    expected = ct.encode(transcript)
    assert ct.encode(collections.deque(transcript)) == expected
    assert ct.encode(tuple(transcript)) == expected


def test_a_sequence_keeps_unknown_fields_and_refuses_other_values() -> None:
    messages = ct.decode_lenient_messages(LENIENT)
    assert ct.encode(collections.deque(messages)) == ct.encode(messages)
    with pytest.raises(TypeError, match="got a deque holding other values"):
        ct.encode(collections.deque([1]))  # type: ignore[list-item]
    for text in ("abc", b"abc", bytearray(b"a")):
        with pytest.raises(TypeError, match=f"not {type(text).__name__}"):
            ct.encode(text)  # type: ignore[arg-type]


@given(st.lists(st.sampled_from(["a", "b"]), max_size=3))
def test_a_range_of_messages_encodes_as_a_list(contents: list[str]) -> None:
    class Turns(collections.abc.Sequence[ct.Message]):
        def __init__(self, items: list[ct.Message]) -> None:
            self._items = items

        def __getitem__(self, index: Any) -> Any:
            return self._items[index]

        def __len__(self) -> int:
            return len(self._items)

    messages: list[ct.Message] = [ct.UserMessage(content=text) for text in contents]
    assert ct.encode(Turns(messages)) == ct.encode(messages)
