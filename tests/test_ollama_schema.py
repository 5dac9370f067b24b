"""Tool schemas for Ollama: what its tool type keeps, with the rest in words, says no more.

Ollama keeps a few fields of a tool's schema (``type``, ``enum``, ``items``,
and the parameters' ``properties`` and ``required``); the translation writes
every other rule into a description as ``(key: JSON, ...)`` notes. Read back
together, the kept fields and the notes are a JSON Schema: the one the model
is told. The property tests draw values from that schema and check each
against the tool's own schema with ``jsonschema``, on the same generated
schemas as Gemini's (tests/schema_strategies.py), joins of objects among
them.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from schema_strategies import VALUES, joined_schemas, schemas, wrap

from convtypes.dialects import ToolSchemaError
from convtypes.dialects._ollama_schema import parameters

_DECODER = json.JSONDecoder()


def read_notes(description: str) -> tuple[str, dict[str, Any]]:
    """A description's own text and the ``(key: JSON, ...)`` notes after it."""
    start = description.find("(")
    while start != -1:
        notes = _notes_from(description, start + 1)
        if notes is not None:
            return description[:start].rstrip(), notes
        start = description.find("(", start + 1)
    return description, {}


def _notes_from(text: str, at: int) -> dict[str, Any] | None:
    notes: dict[str, Any] = {}
    while True:
        colon = text.find(": ", at)
        if colon == -1:
            return None
        try:
            value, end = _DECODER.raw_decode(text, colon + 2)
        except json.JSONDecodeError:
            return None
        notes[text[at:colon]] = value
        if text[end:] == ")":
            return notes
        if not text.startswith(", ", end):
            return None
        at = end + 2


def told(kept: dict[str, Any]) -> dict[str, Any]:
    """A property as the model reads it: the kept fields with its notes read back."""
    out = {key: value for key, value in kept.items() if key != "description"}
    if "description" in kept:
        text, notes = read_notes(kept["description"])
        out.update(notes)
        if text:
            out["description"] = text
    return out


def told_parameters(schema: dict[str, Any]) -> dict[str, Any] | None:
    """The whole schema the model is told, or ``None`` where the translation refuses."""
    try:
        kept, notes = parameters(schema, "tool")
    except ToolSchemaError as error:
        assert error.tool == "tool"
        return None
    properties = {name: told(value) for name, value in kept.get("properties", {}).items()}
    return {**kept, **notes, "properties": properties}


def test_notes_read_back() -> None:
    assert read_notes('d (minimum: 1, properties: {"a":{"type":"integer"}})') == (
        "d",
        {"minimum": 1, "properties": {"a": {"type": "integer"}}},
    )
    assert read_notes('(format: "date-time")') == ("", {"format": "date-time"})
    assert read_notes("plain (not notes)") == ("plain (not notes)", {})


def test_a_reference_beside_properties_keeps_the_targets_properties() -> None:
    target = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    schema = wrap(
        {"$ref": "#/$defs/T", "properties": {"b": {"type": "string"}}, "required": ["b"]},
        **{"$defs": {"T": target}},
    )
    out = told_parameters(schema)
    assert out is not None
    assert out["properties"]["x"]["properties"] == {
        "a": {"type": "integer"},
        "b": {"type": "string"},
    }
    assert out["properties"]["x"]["required"] == ["a", "b"]


@pytest.mark.parametrize(
    ("beside", "said"),
    [({"type": "string"}, "'type'"), ({"properties": {"a": {"type": "string"}}}, "'properties'")],
)
def test_a_reference_beside_what_its_target_says_otherwise_is_refused(
    beside: dict[str, Any], said: str
) -> None:
    target = {"type": "object", "properties": {"a": {"type": "integer"}}}
    schema = wrap({"$ref": "#/$defs/T", **beside}, **{"$defs": {"T": target}})
    with pytest.raises(ToolSchemaError) as caught:
        parameters(schema, "tool")
    assert caught.value.path == "/properties/x/$ref"
    assert f"both say {said}" in str(caught.value)


def test_a_target_closed_to_other_properties_refuses_those_beside_it() -> None:
    target = {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "additionalProperties": False,
    }
    schema = wrap(
        {"$ref": "#/$defs/T", "required": ["b"], "properties": {"b": {"type": "integer"}}}
    )
    schema["$defs"] = {"T": target}
    with pytest.raises(ToolSchemaError) as caught:
        parameters(schema, "tool")
    assert caught.value.path == "/properties/x/$ref"
    assert "additionalProperties" in str(caught.value)


def test_an_any_of_keeps_each_members_values_to_its_own_type() -> None:
    # Joined into one list of types, "a" (offered only as an integer, so
    # never valid) would pass as a string, and 1 as an integer.
    members = [{"type": "integer", "enum": ["a", 2]}, {"type": "string", "enum": [1, "b"]}]
    out = told_parameters(wrap({"anyOf": members}))
    assert out is not None
    assert out["properties"]["x"] == {"type": ["integer", "string"], "enum": [2, "b"]}


_FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _told_only_what_the_tool_accepts(schema: dict[str, Any], values: list[Any]) -> None:
    out = told_parameters(schema)
    assume(out is not None)
    assert out is not None
    original = jsonschema.Draft202012Validator(schema)
    translated = jsonschema.Draft202012Validator(out)
    for value in values:
        wrapped = {"x": value}
        # Values drawn broadly, kept where the told schema takes them.
        if translated.is_valid(wrapped):
            assert original.is_valid(wrapped), (out, wrapped)


@_FAST
@given(schemas(exact=False), st.lists(VALUES, min_size=20, max_size=20))
def test_what_the_model_is_told_accepts_only_what_the_tool_accepts(
    schema: dict[str, Any], values: list[Any]
) -> None:
    _told_only_what_the_tool_accepts(schema, values)


@_FAST
@given(joined_schemas(exact=False), st.lists(VALUES, min_size=20, max_size=20))
def test_joined_objects_are_told_as_the_tool_takes_them(
    schema: dict[str, Any], values: list[Any]
) -> None:
    _told_only_what_the_tool_accepts(schema, values)
