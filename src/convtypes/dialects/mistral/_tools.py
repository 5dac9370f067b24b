"""The tool fields of a Mistral request."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from .._chat_tools import function_tools, named_choice
from .._tools import ToolSpec, checked_tools
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
    out = function_tools(specs, DIALECT, _SCHEMA_LABELS)
    tool_choice: Any
    if chosen is not None:
        tool_choice = named_choice(chosen)
    else:
        tool_choice = "any" if choice == "required" else choice
    return {"tools": out, "tool_choice": tool_choice}
