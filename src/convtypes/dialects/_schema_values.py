"""Argument values a model wrote as text, typed by the tool's JSON Schema.

The families that write a call as markup rather than JSON (Qwen3.5 and
Qwen3-Coder's ``<parameter=k>v</parameter>``, GLM's ``<arg_value>``,
MiniMax's ``<parameter name="k">``) write each value as text: a string as
itself, anything else as the template prints it (Qwen3.5 in Python's
spelling, ``True`` and ``None``; GLM as JSON). Only the tool's schema
says whether ``42`` was a number or a string, so a value is typed by the
schema of its parameter, as vLLM's parsers do:

- a string type keeps the text as written;
- integer, number and boolean read the text as one, and ``null`` (or
  ``None``) is null where the schema allows it;
- object and array read it as JSON, or as a Python literal;
- text that does not read as the type stays text, for the caller's schema
  check to catch, rather than become something the model did not write;
- a union (``["string", "integer"]``, ``anyOf``) tries its members that
  are not strings in the schema's order, and falls back to the text when
  none reads it (see :func:`typed`), as llama.cpp reads one.

With no schema for the parameter, :func:`untyped` decides per family.
"""

from __future__ import annotations

import re
from typing import Any, Final

import msgspec

from .._jsonvalue import ARGUMENTS_DEPTH
from .._nesting import excess_depth
from . import _py_literal as py_literal

_DECODER: Final = msgspec.json.Decoder()
_INTEGER: Final = re.compile(r"[-+]?\d+")
_STRINGS: Final = frozenset({"string", "str", "text", "varchar", "char", "enum"})
_NULLS: Final = frozenset({"null", "none"})


def schema_of(parameters: dict[str, Any] | None, name: str) -> dict[str, Any] | None:
    """The schema of the parameter ``name`` in a tool's arguments schema, if it has one."""
    if not isinstance(parameters, dict):
        return None
    properties = parameters.get("properties")
    if not isinstance(properties, dict):
        return None
    found = properties.get(name)
    return found if isinstance(found, dict) else None


def _types(schema: dict[str, Any]) -> list[str]:
    """The types a schema allows, in its order; ``anyOf``/``oneOf`` members' too."""
    found: list[str] = []
    kind = schema.get("type")
    if isinstance(kind, str):
        found.append(kind)
    elif isinstance(kind, list):
        found += [item for item in kind if isinstance(item, str)]
    for key in ("anyOf", "oneOf"):
        members = schema.get(key)
        if isinstance(members, list):
            for member in members:
                if isinstance(member, dict):
                    found += _types(member)
    if not found and "enum" in schema:
        found.append("enum")
    return [kind.strip().lower() for kind in found]


def json_value(text: str) -> tuple[bool, Any]:
    """``(True, value)`` if ``text`` is one JSON value (nested within limits)."""
    if excess_depth(text, ARGUMENTS_DEPTH) is not None:
        return False, None
    try:
        return True, _DECODER.decode(text)
    except msgspec.DecodeError:
        return False, None


def typed(text: str, schema: dict[str, Any]) -> Any:
    """``text`` as the type ``schema`` gives it (see the module's doc).

    A union is read by one rule: ``null`` first, for the text ``null`` or
    ``None`` where it is allowed; then each other member that is not a
    string, in the schema's order, the first that reads the text winning;
    then the string, if the union has one, keeps the text as written. So
    ``["string", "integer"]`` reads ``42`` as 42 and ``Oslo`` as text, and
    ``["string", "object"]`` reads ``{"a": 1}`` as an object.
    """
    kinds = _types(schema)
    lowered = text.strip().lower()
    if "null" in kinds and lowered in _NULLS:
        return None
    kinds = [kind for kind in kinds if kind != "null"]
    if not kinds:
        return text
    word = text.strip()
    strings = False
    for kind in kinds:
        if kind in _STRINGS:
            strings = True
            continue
        ok, value = _as_kind(word, lowered, kind)
        if ok:
            return value
    if not strings and lowered in _NULLS:
        return None
    return text


def _as_kind(word: str, lowered: str, kind: str) -> tuple[bool, Any]:
    """``(True, value)`` if ``word`` reads as the (not string) type ``kind``."""
    if kind.startswith(("int", "uint", "long", "short")):
        if _INTEGER.fullmatch(word) and len(word) <= py_literal.DIGITS:
            return True, int(word)
        return False, None
    if kind.startswith(("num", "float", "double")):
        ok, value = json_value(word)
        return (True, value) if ok and type(value) in (int, float) else (False, None)
    if kind in ("boolean", "bool"):
        found = {"true": True, "false": False}.get(lowered)
        return (False, None) if found is None else (True, found)
    if kind in ("object", "array", "list", "dict") or kind.startswith(("dict", "list")):
        ok, value = json_value(word)
        if not ok:
            ok, value = py_literal.value(word)
        wanted = dict if kind in ("object", "dict") or kind.startswith("dict") else list
        return (True, value) if ok and isinstance(value, wanted) else (False, None)
    return False, None


def untyped(text: str, *, as_json: bool) -> Any:
    """A value with no schema: JSON (then a Python literal) when ``as_json``, else the text.

    Read as JSON, a value that is neither is its text without the white
    space around it, as vLLM's GLM parser gives it.
    """
    if not as_json:
        return text
    word = text.strip()
    ok, value = json_value(word)
    if not ok:
        ok, value = py_literal.value(word)
    return value if ok else word
