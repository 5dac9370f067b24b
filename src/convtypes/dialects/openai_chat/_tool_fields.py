"""The ``tools`` and ``tool_choice`` fields of a Chat Completions request."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._copy import copy_object
from .._tools import ToolSpec, checked_tools, object_parameters
from ._wire import DIALECT


def tools_to_request(tools: Iterable[ToolSpec], *, choice: str = "auto") -> dict[str, Any]:
    """The ``tools`` and ``tool_choice`` fields that offer ``tools`` to the model.

    Each tool goes as a ``function`` tool with its JSON Schema as
    ``parameters``, with an object at its root as the API requires (see
    :func:`~convtypes.dialects.openai_responses.tools_to_request`; Chat
    Completions reads the rest of JSON Schema as it is). ``choice`` is
    ``"auto"``, ``"none"``, ``"required"`` or a tool's name. With no tools
    the result is ``{}``: the API refuses a ``tool_choice`` without tools.
    Raises :class:`~convtypes.dialects.ToolSchemaError` for a name the API
    refuses, a name given twice, a choice that names no tool, or a schema
    whose root is not an object.
    """
    specs, chosen = checked_tools(tools, choice, DIALECT)
    if not specs:
        return {}
    out: list[dict[str, Any]] = []
    for spec in specs:
        function: dict[str, Any] = {"name": spec.name}
        if spec.description:
            function["description"] = spec.description
        function["parameters"] = copy_object(object_parameters(spec, DIALECT))
        out.append({"type": "function", "function": function})
    tool_choice: Any = (
        choice if chosen is None else {"type": "function", "function": {"name": chosen}}
    )
    return {"tools": out, "tool_choice": tool_choice}
