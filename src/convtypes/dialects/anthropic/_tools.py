"""Tool specs to the Messages API's ``tools`` and ``tool_choice``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from .._cache import Cache, cache_ttl
from .._copy import copy_json
from .._errors import short
from .._tools import ToolSchemaError, ToolSpec, checked_tools, pointer
from ._cache_marks import _marker
from ._wire import _MARKER, DIALECT


def tools_to_request(
    tools: Iterable[ToolSpec], *, choice: str = "auto", cache: Cache = False
) -> dict[str, Any]:
    """The ``tools`` and ``tool_choice`` fields that offer ``tools`` to the model.

    Each tool goes as ``{"name", "description", "input_schema"}`` (no
    ``description`` when it is empty), its JSON Schema as it is: the API
    reads ``$ref``/``$defs``, ``anyOf`` and recursive schemas. Two changes
    that keep the schema's meaning, since a tool's input is always an
    object: a root that is only a ``$ref`` to one of its own ``$defs`` (what
    pydantic writes for a recursive model) becomes that definition, its
    ``$defs`` kept beside it; and a root without a ``type`` gets ``"type":
    "object"``, which the API requires. ``choice`` is ``"auto"``, ``"none"``,
    ``"required"`` (Anthropic's ``any``) or a tool's name. With no tools the
    result is ``{}``. Raises :class:`~convtypes.dialects.ToolSchemaError`
    for a root whose type is not ``"object"`` (``path="/type"``), a root
    ``$ref`` to a definition that is not there (``path="/$ref"``), a name
    the API refuses, a name given twice, or a choice that names no tool.

    ``cache`` (``True``, ``"5m"`` or ``"1h"``) puts a cache breakpoint on the
    last tool, so the tools (which come first in the prompt) are read from
    the cache; with :func:`to_request`'s three, that makes the API's limit
    of four. The fields are the caller's: no dict or list in them is shared
    with the specs.
    """
    ttl = cache_ttl(cache)
    specs, chosen = checked_tools(tools, choice, DIALECT)
    if not specs:
        return {}
    out: list[dict[str, Any]] = []
    for spec in specs:
        tool: dict[str, Any] = {"name": spec.name}
        if spec.description:
            tool["description"] = spec.description
        tool["input_schema"] = copy_json(_input_schema(spec))
        out.append(tool)
    if ttl is not None:
        out[-1][_MARKER] = _marker(ttl)
    if chosen is not None:
        tool_choice: dict[str, Any] = {"type": "tool", "name": chosen}
    else:
        tool_choice = {"type": "any" if choice == "required" else choice}
    return {"tools": out, "tool_choice": tool_choice}


_DEFS_REF: Final = "#/$defs/"


def _input_schema(spec: ToolSpec) -> dict[str, Any]:
    """The tool's schema with an object at its root (see :func:`tools_to_request`)."""
    schema = spec.parameters
    target = schema.get("$ref")
    if set(schema) == {"$ref", "$defs"} and isinstance(target, str):
        defs = schema["$defs"]
        name = target[len(_DEFS_REF) :] if target.startswith(_DEFS_REF) else None
        root = defs.get(name) if isinstance(defs, dict) and name is not None else None
        if not isinstance(root, dict):
            raise ToolSchemaError(
                f"tool {spec.name!r}: the schema's root $ref {short(target)} names no "
                "definition in its $defs",
                spec.name,
                pointer(["$ref"]),
            )
        schema = {**root, "$defs": defs}
    if "type" not in schema:
        return {"type": "object", **schema}
    if schema["type"] != "object":
        raise ToolSchemaError(
            f"tool {spec.name!r}: {DIALECT} takes only an object schema for a tool's input, "
            f"and this one's type is {short(schema['type'])}",
            spec.name,
            pointer(["type"]),
        )
    return schema
