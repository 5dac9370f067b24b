"""Tool specs to the Responses API's ``tools`` and ``tool_choice``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._copy import copy_object
from .._tools import ToolSpec, checked_tools, object_parameters
from ._wire import DIALECT


def tools_to_request(tools: Iterable[ToolSpec], *, choice: str = "auto") -> dict[str, Any]:
    """The ``tools`` and ``tool_choice`` fields that offer ``tools`` to the model.

    Each tool goes as a ``function`` tool with its JSON Schema as
    ``parameters`` and ``"strict": False``: strict mode asks that every
    property be required and ``additionalProperties`` be false, which a
    schema with optional fields is not. To turn it on for a tool whose schema
    meets those rules, set ``"strict": True`` on its entry in the result.
    ``choice`` is ``"auto"``, ``"none"``, ``"required"`` or a tool's name.
    With no tools the result is ``{}``. Raises
    :class:`~convtypes.dialects.ToolSchemaError` for a name the API refuses,
    a name given twice, a choice that names no tool, or a schema whose root
    is not an object. A root that is only a ``$ref`` to one of its own
    definitions (a recursive pydantic model) is replaced by that
    definition, and a root with no ``type`` gets ``"type": "object"``.
    """
    specs, chosen = checked_tools(tools, choice, DIALECT)
    if not specs:
        return {}
    out: list[dict[str, Any]] = []
    for spec in specs:
        tool: dict[str, Any] = {"type": "function", "name": spec.name}
        if spec.description:
            tool["description"] = spec.description
        tool["parameters"] = copy_object(object_parameters(spec, DIALECT))
        tool["strict"] = False
        out.append(tool)
    tool_choice: Any = choice if chosen is None else {"type": "function", "name": chosen}
    return {"tools": out, "tool_choice": tool_choice}
