"""Tool specs to Converse's ``toolConfig``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._cache import Cache, cache_ttl
from .._tools import ToolSpec, checked_tools, object_parameters
from ._cache_marks import _point
from ._wire import DIALECT, _copied, _has_text


def tools_to_request(
    tools: Iterable[ToolSpec], *, choice: str = "auto", cache: Cache = False
) -> dict[str, Any]:
    """The ``toolConfig`` that offers ``tools`` to the model.

    Each tool goes as a ``toolSpec`` with its JSON Schema in
    ``inputSchema.json`` (no ``description`` when it is blank), its root an
    object as the API requires (a root ``$ref`` to one of its own
    definitions is inlined, a root without a ``type`` gets ``"object"``).
    ``choice`` ``"auto"`` sends no ``toolChoice`` (auto is the default, and
    some models refuse the field); ``"required"`` sends ``{"any": {}}`` and a
    tool's name ``{"tool": {"name": ...}}``. Converse has no way to forbid
    calls, so ``"none"`` offers no tools and gives ``{}``, as no tools do;
    mind that the API refuses ``toolUse`` and ``toolResult`` blocks in a
    request without a ``toolConfig``. With ``cache``, a ``cachePoint`` ends
    the tools. Raises :class:`~convtypes.dialects.ToolSchemaError` for a
    name the API refuses, a name given twice, a choice that names no tool,
    or a root that is not an object.
    """
    ttl = cache_ttl(cache)
    specs, chosen = checked_tools(tools, choice, DIALECT)
    if not specs or choice == "none":
        return {}
    out: list[dict[str, Any]] = []
    for spec in specs:
        tool: dict[str, Any] = {"name": spec.name}
        if _has_text(spec.description):
            tool["description"] = spec.description
        tool["inputSchema"] = {"json": _copied(object_parameters(spec, DIALECT))}
        out.append({"toolSpec": tool})
    if ttl is not None:
        out.append(_point(ttl))
    config: dict[str, Any] = {"tools": out}
    if chosen is not None:
        config["toolChoice"] = {"tool": {"name": chosen}}
    elif choice == "required":
        config["toolChoice"] = {"any": {}}
    return {"toolConfig": config}
