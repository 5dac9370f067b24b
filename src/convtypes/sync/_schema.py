"""The JSON Schema of one op: the op format, for readers in other languages.

Generated from the types, as the transcript's schema is (``convtypes
schema``), and checked in as ``schema/ops.schema.json``: a change to the op
format shows up as a reviewed diff of that file. Only the id rule (the id is
``"<clock>@<device>"`` of the op's own fields) spans fields, which a schema
cannot say; the pattern says what it can, and the docs say the rest.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from .._jsonvalue import DecodedJson
from .._schema import drop_subschema
from ._ops import AddMessages

__all__ = ["ops_schema", "ops_schema_text"]


def ops_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of one line of an op log."""

    schema = msgspec.json.schema(AddMessages)
    definitions: dict[str, Any] = schema["$defs"]
    for definition in definitions.values():
        # Unknown fields are kept on the wire (see the transcript schema).
        definition.pop("additionalProperties", None)
    drop_subschema(schema, msgspec.json.schema(DecodedJson))
    add = definitions["AddMessages"]
    add["description"] = (
        "An op that adds messages after the node 'after' names (none for a first op). "
        "'id' is the decimal clock, '@', then the device, exactly."
    )
    add["properties"]["id"]["pattern"] = "^[1-9][0-9]*@"
    add["properties"]["after"].pop("default", None)
    definitions["UnknownOp"] = {
        "title": "UnknownOp",
        "description": (
            "An op of a kind a newer writer added: a reader keeps it and writes it back "
            "unchanged, and applies nothing of it."
        ),
        "type": "object",
        "properties": {"op": {"type": "string", "not": {"enum": ["add"]}}},
        "required": ["op"],
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "convtypes op",
        "description": "One line of an op log: an op object, tagged on 'op'.",
        "anyOf": [{"$ref": "#/$defs/AddMessages"}, {"$ref": "#/$defs/UnknownOp"}],
        "$defs": definitions,
    }


def ops_schema_text() -> str:
    """:func:`ops_schema` as the checked-in file holds it."""
    return json.dumps(ops_schema(), indent=2, ensure_ascii=False) + "\n"
