"""Tool specs to Gemini's ``tools`` and ``toolConfig``."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final

from .._copy import owned
from .._gemini_schema import parameters as _parameters
from .._tools import ToolSpec, checked_tools
from ._wire import DIALECT

# Gemini's rule for a function name: a letter or underscore first, then
# letters, digits, underscores, dots, colons or dashes, 128 at most.
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,127}")
_MODES: Final = {"auto": "AUTO", "none": "NONE", "required": "ANY"}


def tools_to_request(
    tools: Iterable[ToolSpec], *, choice: str = "auto", json_schema: bool = False
) -> dict[str, Any]:
    """The ``tools`` and ``tool_config`` fields that offer ``tools`` to the model.

    Each tool is a function declaration, all in one ``tools`` entry. By
    default its JSON Schema is translated into Gemini's own ``Schema``
    (``parameters``; see :mod:`convtypes.dialects._gemini_schema` for what
    is said another way and what is refused), which every Gemini model and
    API version takes; a tool without properties gets no ``parameters``, as
    Gemini refuses an object without any. With ``json_schema=True`` the
    schema goes as it is (a copy), as ``parameters_json_schema``, which
    newer models read as JSON Schema (recursive models included); convtypes
    then checks nothing in it. The fields share nothing with the tools.
    ``choice`` maps to ``function_calling_config``: ``"auto"`` to ``AUTO``,
    ``"none"`` to ``NONE``, ``"required"`` to ``ANY``, and a tool's name to
    ``ANY`` with that name as the only one allowed. With no tools the
    result is ``{}``.

    Raises :class:`~convtypes.dialects.ToolSchemaError` (``.tool``,
    ``.path``) for a schema Gemini's ``Schema`` cannot say without
    accepting other values, a name Gemini refuses, a name given twice, or a
    choice that names no tool.
    """
    specs, chosen = checked_tools(tools, choice, DIALECT, _NAME)
    if not specs:
        return {}
    declarations: list[dict[str, Any]] = []
    for spec in specs:
        declaration: dict[str, Any] = {"name": spec.name}
        if spec.description:
            declaration["description"] = spec.description
        if json_schema:
            declaration["parameters_json_schema"] = owned(spec.parameters)
        else:
            translated = _parameters(spec.parameters, spec.name)
            if translated is not None:
                # The translation may hand on pieces of the schema (an enum, a default).
                declaration["parameters"] = owned(translated)
        declarations.append(declaration)
    config: dict[str, Any] = (
        {"mode": _MODES[choice]}
        if chosen is None
        else {"mode": "ANY", "allowed_function_names": [chosen]}
    )
    return {
        "tools": [{"function_declarations": declarations}],
        "tool_config": {"function_calling_config": config},
    }
