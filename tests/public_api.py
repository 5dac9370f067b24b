"""The public API of convtypes and its dialects, as JSON: what tests/public_api.json holds.

A user's program depends on the names it imports and on how it calls them,
not on which file defines them. This lists, for ``convtypes`` and every
``convtypes.dialects`` module, each name in ``__all__`` with its kind and
signature (a Struct's fields, a class's public methods, a constant's value),
so that moving code between private modules shows up here only where it
changes what a user sees.

Regenerate after a change to the public API that is meant::

    python tests/public_api.py

tests/test_public_api.py compares a fresh listing with the file.
"""

from __future__ import annotations

import enum
import importlib
import inspect
import json
import re
import sys
import types
import typing
from pathlib import Path
from typing import Any

import msgspec

# Where a default is a function, its repr names its address, which changes with each run.
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")

MODULES = (
    "convtypes",
    "convtypes.dialects",
    "convtypes.dialects.anthropic",
    "convtypes.dialects.bedrock",
    "convtypes.dialects.chat_template",
    "convtypes.dialects.cohere",
    "convtypes.dialects.gemini",
    "convtypes.dialects.mistral",
    "convtypes.dialects.ollama",
    "convtypes.dialects.openai_chat",
    "convtypes.dialects.openai_responses",
)

FILE = Path(__file__).with_name("public_api.json")


def _signature(obj: Any) -> str | None:
    try:
        return _ADDRESS.sub("", str(inspect.signature(obj)))
    except (TypeError, ValueError):
        return None


def _value(obj: Any) -> Any:
    # Constants by value, so that a changed limit or marker shows; sets sorted.
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, (frozenset, set)):
        return sorted(map(repr, obj))
    if isinstance(obj, (tuple, list)):
        return [_value(item) for item in obj]
    if isinstance(obj, dict):
        return {repr(key): _value(item) for key, item in obj.items()}
    return _ADDRESS.sub("", repr(obj))


def _bases(cls: type) -> list[str]:
    # The public ones: a base a user can name (in the __all__ of a module
    # here, or from outside convtypes). A private base is no promise; neither is
    # msgspec's own mixin.
    public = {
        id(getattr(module, item))
        for module in map(importlib.import_module, MODULES)
        for item in module.__all__
    }
    return [
        base.__qualname__
        for base in cls.__mro__[1:]
        if not base.__qualname__.startswith("_")
        and (not base.__module__.startswith("convtypes") or id(base) in public)
    ]


def _members(cls: type) -> dict[str, Any]:
    # Inherited ones too: a user calls feed() on an Accumulator wherever it is defined.
    members: dict[str, Any] = {}
    for name in sorted(dir(cls)):
        if (name.startswith("_") and name not in ("__init__", "__call__")) or any(
            name in vars(base) for base in (object, msgspec.Struct)
        ):
            continue
        member = inspect.getattr_static(cls, name)
        if isinstance(member, (staticmethod, classmethod)):
            members[name] = {"kind": type(member).__name__, "signature": _signature(member)}
        elif isinstance(member, property):
            members[name] = {"kind": "property"}
        elif inspect.isfunction(member):
            members[name] = {"kind": "method", "signature": _signature(member)}
        elif not callable(member) and type(member).__name__ != "member_descriptor":
            members[name] = {"kind": "attribute", "value": _value(member)}
    return members


def _is_class(obj: Any) -> bool:
    # Python 3.10 takes a parametrised alias such as Generator[None, None, None]
    # for a class; it is a value here, on every version.
    return isinstance(obj, type) and not isinstance(obj, types.GenericAlias)


def _describe(obj: Any) -> dict[str, Any]:
    if obj is typing.Any:
        # What a type alias such as JsonValue is at run time; 3.11 made Any a
        # class, so it is named rather than described.
        return {"kind": "alias", "value": "Any"}
    if isinstance(obj, types.ModuleType):
        return {"kind": "module", "name": obj.__name__}
    if _is_class(obj) and issubclass(obj, enum.Enum):
        return {"kind": "enum", "members": {m.name: _value(m.value) for m in obj}}
    if _is_class(obj) and issubclass(obj, msgspec.Struct):
        return {
            "kind": "struct",
            "bases": _bases(obj),
            "fields": [
                f"{f.name}: {f.type}{'' if f.required else ' (optional)'}"
                + ("" if f.encode_name == f.name else f" as {f.encode_name!r}")
                for f in msgspec.structs.fields(obj)
            ],
            "signature": _signature(obj),
            "members": _members(obj),
        }
    if _is_class(obj):
        return {
            "kind": "class",
            "bases": _bases(obj),
            "signature": _signature(obj),
            "members": _members(obj),
        }
    if inspect.isfunction(obj) or inspect.isbuiltin(obj):
        return {"kind": "function", "signature": _signature(obj)}
    if callable(obj) and not hasattr(obj, "__origin__"):
        return {"kind": "callable", "type": type(obj).__name__, "signature": _signature(obj)}
    return {"kind": "value", "value": _value(obj)}


def listing() -> dict[str, Any]:
    """Every module's public names, described."""
    found: dict[str, Any] = {}
    for name in MODULES:
        module = importlib.import_module(name)
        found[name] = {item: _describe(getattr(module, item)) for item in sorted(module.__all__)}
    return found


def dumps(found: dict[str, Any]) -> str:
    """The listing as the file holds it."""
    return json.dumps(found, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    FILE.write_text(dumps(listing()), "utf-8")
    sys.stdout.write(f"wrote {FILE}\n")
