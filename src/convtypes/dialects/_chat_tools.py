"""The ``tools`` of a chat-completions-shaped request: each a ``function`` tool.

OpenAI's Chat Completions, Mistral and Cohere offer a tool alike: its name,
its description when it has one, and its JSON Schema, with an object at the
root, as ``parameters``. Each says its own ``tool_choice``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ._copy import copy_json
from ._tools import ToolSpec, object_parameters


def function_tools(
    specs: Iterable[ToolSpec], dialect: str, dropped: Iterable[str] = ()
) -> list[dict[str, Any]]:
    """Each tool as a ``function`` tool; its schema's root keys among ``dropped`` left out.

    The schemas are copies: the request shares nothing with the tools.
    """
    out: list[dict[str, Any]] = []
    for spec in specs:
        function: dict[str, Any] = {"name": spec.name}
        if spec.description:
            function["description"] = spec.description
        parameters = copy_json(object_parameters(spec, dialect))
        for key in dropped:
            parameters.pop(key, None)
        function["parameters"] = parameters
        out.append({"type": "function", "function": function})
    return out


def named_choice(name: str) -> dict[str, Any]:
    """A ``tool_choice`` that names the one tool to call."""
    return {"type": "function", "function": {"name": name}}
