"""The pinned GenAI message schemas, and a strict validator built from them.

The schemas (``tests/otel_schemas/``, see its README) end every part union
in ``GenericPart``, which takes any object with a string ``type``: a
``text`` part without its ``content`` passes as a generic part. The strict
validator rewrites each such union to dispatch on ``type``: a part of a
named type must match that type's own ``$defs`` entry, and any other part
must be a ``GenericPart`` whose ``type`` names a provider (holds a ``.``).
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import json
from pathlib import Path
from typing import Any

# jsonschema ships no type hints; imported as a module, its names read as Any.
jsonschema = importlib.import_module("jsonschema")

HERE = Path(__file__).parent / "otel_schemas"

NAMED: dict[str, str] = {
    "text": "TextPart",
    "tool_call": "ToolCallRequestPart",
    "tool_call_response": "ToolCallResponsePart",
    "server_tool_call": "ServerToolCallPart",
    "server_tool_call_response": "ServerToolCallResponsePart",
    "blob": "BlobPart",
    "file": "FilePart",
    "uri": "UriPart",
    "reasoning": "ReasoningPart",
    "compaction": "CompactionPart",
}
"""Each named part type and its ``$defs`` entry."""

_GENERIC = {"$ref": "#/$defs/GenericPart"}


def raw(name: str) -> bytes:
    return (HERE / f"gen-ai-{name}.json").read_bytes()


def git_blob(data: bytes) -> str:
    """The git blob hash of ``data``, as ``git hash-object`` gives it."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(raw(name))
    return loaded


def _dispatch() -> dict[str, Any]:
    cases: list[dict[str, Any]] = [
        {
            "if": {"properties": {"type": {"const": kind}}, "required": ["type"]},
            "then": {"$ref": f"#/$defs/{definition}"},
        }
        for kind, definition in NAMED.items()
    ]
    cases.append(
        {
            "if": {"not": {"properties": {"type": {"enum": list(NAMED)}}, "required": ["type"]}},
            "then": {"allOf": [_GENERIC, {"properties": {"type": {"pattern": r"\."}}}]},
        }
    )
    return {"type": "object", "required": ["type"], "allOf": cases}


def _strictly(node: Any) -> Any:
    if isinstance(node, dict):
        union = node.get("anyOf")
        if isinstance(union, list) and _GENERIC in union:
            rest = {key: value for key, value in node.items() if key != "anyOf"}
            return {**rest, **_dispatch()}
        return {key: _strictly(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_strictly(value) for value in node]
    return node


def loose(name: str) -> Any:
    """The schema as published."""
    return jsonschema.Draft202012Validator(schema(name))


def strict(name: str) -> Any:
    """The schema with each part union dispatching on ``type``."""
    rewritten = _strictly(copy.deepcopy(schema(name)))
    jsonschema.Draft202012Validator.check_schema(rewritten)
    return jsonschema.Draft202012Validator(rewritten)


def problems(validator: Any, value: Any) -> list[str]:
    return [
        f"{list(error.absolute_path)}: {error.message}" for error in validator.iter_errors(value)
    ]
