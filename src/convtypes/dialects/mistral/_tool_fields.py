"""The tool fields of a Mistral request."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from .._copy import copy_json
from .._tools import ToolSpec, checked_tools, object_parameters
from ._wire import DIALECT

# A schema's own labels, which constrain nothing: Mistral's grammar refuses them.
_SCHEMA_LABELS: Final = ("$schema", "$id")


def tools_to_request(tools: Iterable[ToolSpec], *, choice: str = "auto") -> dict[str, Any]:
    """The ``tools`` and ``tool_choice`` fields that offer ``tools`` to the model.

    Each tool goes as a ``function`` tool with its JSON Schema as
    ``parameters``, its root an object (as for OpenAI: a root ``$ref`` is
    inlined, a root without ``type`` gets ``"object"``). ``choice`` is
    ``"auto"``, ``"none"``, ``"required"`` (sent as Mistral's ``"any"``) or
    a tool's name. A root ``$schema`` or ``$id``, which label a schema and
    constrain nothing, is left out: Mistral's grammar refuses them (as
    LiteLLM found). With no tools the result is ``{}``. Raises
    :class:`~convtypes.dialects.ToolSchemaError` for a name Mistral refuses,
    a name given twice, a choice that names no tool, or a schema whose root
    is not an object.
    """
    specs, chosen = checked_tools(tools, choice, DIALECT)
    if not specs:
        return {}
    out: list[dict[str, Any]] = []
    for spec in specs:
        function: dict[str, Any] = {"name": spec.name}
        if spec.description:
            function["description"] = spec.description
        parameters = copy_json(object_parameters(spec, DIALECT))
        for key in _SCHEMA_LABELS:
            parameters.pop(key, None)
        function["parameters"] = parameters
        out.append({"type": "function", "function": function})
    tool_choice: Any
    if chosen is not None:
        tool_choice = {"type": "function", "function": {"name": chosen}}
    else:
        tool_choice = "any" if choice == "required" else choice
    return {"tools": out, "tool_choice": tool_choice}
