"""Defaults add no bytes, and built values write the same bytes as decoded ones."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

import convtypes as ct
from convtypes import strategies as cst

# Fields the reference leaves off the wire at their default, and the JSON a
# writer may have spelled that default with.
OMITTED: list[tuple[type[Any], str, Any, str]] = [
    (ct.AssistantMessage, "thinking", (), "[]"),
    (ct.ToolResultMessage, "provenance", ct.Provenance.INTERNAL, '"internal"'),
    (ct.ToolCall, "id", None, "null"),
    (ct.ThinkingBlock, "signature", None, "null"),
    (ct.ThinkingBlock, "redacted_data", None, "null"),
    *[
        (cls, "fps", None, "null")
        for cls in (ct.VideoPathBlock, ct.VideoUrlBlock, ct.VideoBase64Block)
    ],
    *[
        (cls, "max_frames", None, "null")
        for cls in (ct.VideoPathBlock, ct.VideoUrlBlock, ct.VideoBase64Block)
    ],
    *[
        (cls, "sample_rate", None, "null")
        for cls in (ct.AudioPathBlock, ct.AudioUrlBlock, ct.AudioBase64Block)
    ],
]

# Fields the reference always writes, even at their default.
ALWAYS: list[tuple[type[Any], str, str]] = [
    (ct.AssistantMessage, "content", '""'),
    (ct.AssistantMessage, "tool_calls", "[]"),
    (ct.ThinkingBlock, "text", '""'),
    (ct.ImageUrlBlock, "detail", '"auto"'),
]


def strategy_for(cls: type[Any]) -> st.SearchStrategy[Any]:
    if cls is ct.ToolCall:
        return cst.tool_calls()
    if cls is ct.ThinkingBlock:
        return cst.thinking_blocks()
    if issubclass(cls, (ct.AssistantMessage, ct.ToolResultMessage)):
        return cst.messages(roles=(cls,))
    return cst.content_blocks(kinds=(cls,))


def keys(data: bytes) -> list[str]:
    return list(msgspec.json.decode(data))


def without(data: bytes, field: str) -> bytes:
    """The same document with ``field`` removed, other bytes untouched."""
    obj = json.loads(data)
    obj.pop(field, None)
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


@pytest.mark.parametrize(
    "cls,field,default,spelled", OMITTED, ids=lambda v: str(getattr(v, "__name__", v))
)
@given(data=st.data())
def test_default_fields_add_no_bytes(
    cls: type[Any], field: str, default: Any, spelled: str, data: st.DataObject
) -> None:
    value = data.draw(strategy_for(cls))
    at_default = ct.replace(value, **{field: default})
    encoded = ct.encode(at_default)
    assert field not in keys(encoded)

    # Unset, set to the default, and spelled out in JSON: all the same bytes.
    fields = {f: getattr(at_default, f) for f in at_default.__struct_fields__ if f != field}
    assert ct.encode(cls(**fields)) == encoded
    spelled_doc = encoded[:-1] + f',"{field}":{spelled}}}'.encode()
    decoded = ct.decode(spelled_doc, cls)
    assert decoded == at_default
    assert ct.encode(decoded) == encoded


@pytest.mark.parametrize("cls,field,spelled", ALWAYS, ids=lambda v: str(getattr(v, "__name__", v)))
@given(data=st.data())
def test_some_defaults_are_always_written(
    cls: type[Any], field: str, spelled: str, data: st.DataObject
) -> None:
    value = data.draw(strategy_for(cls))
    fields = {f: getattr(value, f) for f in value.__struct_fields__ if f != field}
    built = cls(**fields)  # the field left at its default
    encoded = ct.encode(built)
    assert f'"{field}":{spelled}'.encode() in encoded
    # The same document read back (field present) and read without the field
    # both write exactly what the built value wrote.
    assert ct.encode(ct.decode(encoded, cls)) == encoded
    assert ct.encode(ct.decode(without(encoded, field), cls)) == encoded


@given(cst.transcripts())
def test_built_and_decoded_values_write_the_same_bytes(messages: list[ct.Message]) -> None:
    encoded = ct.encode(messages)
    decoded = ct.decode_messages(encoded)
    assert [ct.encode(m) for m in decoded] == [ct.encode(m) for m in messages]


def test_defaults_are_the_reference_defaults() -> None:
    assert ct.AssistantMessage() == ct.AssistantMessage(content="", tool_calls=(), thinking=())
    assert ct.ThinkingBlock().text == ""
    assert type(ct.ThinkingBlock().text) is str
    assert type(ct.AssistantMessage().content) is str
    assert ct.ImageUrlBlock(url="u").detail == "auto"
    assert ct.ToolResultMessage(tool_use_id="a", content="b").provenance is ct.Provenance.INTERNAL
    assert ct.encode(ct.AssistantMessage()) == b'{"role":"assistant","content":"","tool_calls":[]}'
    assert ct.encode(ct.ThinkingBlock()) == b'{"text":""}'
    assert ct.encode(ct.ImageUrlBlock(url="u")) == b'{"type":"image_url","url":"u","detail":"auto"}'
