"""The tool fields of a Cohere request."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._chat_tools import function_tools
from .._tools import ToolSpec, checked_tools
from ._wire import DIALECT


def tools_to_request(tools: Iterable[ToolSpec], *, choice: str = "auto") -> dict[str, Any]:
    """The ``tools`` and ``tool_choice`` fields that offer ``tools`` to the model.

    Each tool goes as a ``function`` tool with its JSON Schema as
    ``parameters``, its root an object (a root ``$ref`` is inlined, a root
    without ``type`` gets ``"object"``). Cohere's ``tool_choice`` says only
    ``"REQUIRED"`` or ``"NONE"``: ``"auto"`` sends none (the default),
    ``"required"`` and ``"none"`` send those, and a tool's name sends that
    tool alone with ``"REQUIRED"``, the one way to make Cohere call it. With
    no tools the result is ``{}``. Raises
    :class:`~convtypes.dialects.ToolSchemaError` when Cohere refuses a
    name, a name comes twice, the choice names no tool, or a schema's root
    is no object.
    """
    specs, chosen = checked_tools(tools, choice, DIALECT)
    if not specs:
        return {}
    if chosen is not None:
        specs = [spec for spec in specs if spec.name == chosen]
    fields: dict[str, Any] = {"tools": function_tools(specs, DIALECT)}
    if chosen is not None or choice == "required":
        fields["tool_choice"] = "REQUIRED"
    elif choice == "none":
        fields["tool_choice"] = "NONE"
    return fields
