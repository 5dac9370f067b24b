"""The tool fields of a Ollama request."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._copy import owned
from .._ollama_schema import describe, parameters
from .._tools import ToolSchemaError, ToolSpec, checked_tools
from ._wire import DIALECT


def tools_to_request(tools: Iterable[ToolSpec], *, choice: str = "auto") -> dict[str, Any]:
    """The ``tools`` field that offers ``tools`` to the model.

    Each tool goes as a ``function`` tool, its schema translated into what
    Ollama's tool type holds (see :mod:`convtypes.dialects._ollama_schema`:
    references inlined, optionals as type lists, other rules written into
    the descriptions). Ollama has no tool choice: ``"auto"`` sends the
    tools and ``"none"`` sends none (``{}``); ``"required"`` or a tool's name
    cannot be said and raise :class:`~convtypes.dialects.ToolSchemaError`,
    as do a name the check refuses, a name given twice, and a schema that
    cannot be translated (with ``.tool`` and ``.path``). No tools give ``{}``.
    The field shares nothing with the tools.
    """
    specs, chosen = checked_tools(tools, choice, DIALECT)
    if chosen is not None or choice == "required":
        raise ToolSchemaError(
            f"choice={choice!r:.80}: Ollama has no tool choice and cannot be made to call a "
            'tool; offer the tools with "auto", or none with "none"'
        )
    out: list[dict[str, Any]] = []
    for spec in specs:
        schema, notes = parameters(spec.parameters, spec.name)
        function: dict[str, Any] = {"name": spec.name}
        description = describe(spec.description, notes)
        if description:
            function["description"] = description
        function["parameters"] = owned(schema)  # the translation may hand on pieces of it
        out.append({"type": "function", "function": function})
    if choice == "none" or not out:
        return {}
    return {"tools": out}
