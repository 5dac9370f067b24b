"""The ``tools`` and ``tool_choice`` fields of a Chat Completions request."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._chat_tools import function_tools, named_choice
from .._tools import ToolSpec, checked_tools
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
    tool_choice: Any = choice if chosen is None else named_choice(chosen)
    return {"tools": function_tools(specs, DIALECT), "tool_choice": tool_choice}
