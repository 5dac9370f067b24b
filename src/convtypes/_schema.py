"""The JSON Schema of a transcript, made from the types.

It lives below the CLI so that the sync layer, which writes the schema of
its ops the same way, can share the clean-up without importing the CLI.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from ._jsonvalue import DecodedJson
from ._messages import Message

__all__ = ["drop_subschema", "transcript_schema", "transcript_schema_text"]


def transcript_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of a transcript, generated from the types."""
    schema = msgspec.json.schema(list[Message])
    # The types refuse unknown fields only to route such documents down the
    # careful path; on the wire, unknown fields are allowed and ignored.
    for definition in schema.get("$defs", {}).values():
        definition.pop("additionalProperties", None)
    # Likewise the shallow JSON type of arguments and items only routes deep
    # values to the careful path: on the wire they are any JSON, which a
    # schema says by saying nothing.
    drop_subschema(schema, msgspec.json.schema(DecodedJson))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "convtypes transcript",
        "description": "A JSON array of messages, in the reference's wire form.",
        **schema,
    }


def drop_subschema(node: Any, old: Any) -> None:
    """Remove, in place, every key of ``node`` whose subschema equals ``old``."""
    if isinstance(node, dict):
        for key in [key for key, child in node.items() if child == old]:
            del node[key]
        for child in node.values():
            drop_subschema(child, old)
    elif isinstance(node, list):
        for child in node:
            drop_subschema(child, old)


def transcript_schema_text() -> str:
    """The transcript schema as ``convtypes schema`` prints it and schema/ keeps it."""
    return json.dumps(transcript_schema(), indent=2, ensure_ascii=False) + "\n"
