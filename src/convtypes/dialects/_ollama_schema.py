"""A tool's JSON Schema, translated into what Ollama's tool type can hold.

Ollama reads a tool's parameters into fixed types (the Go server's, and the
``ollama`` package's ``Tool``, which the Python client validates every tool
through): the parameters object keeps only ``type``, ``properties``,
``required``, ``$defs`` and ``items``, and each property only ``type`` (a
name or a list of names), ``description``, ``enum`` and ``items`` (kept
whole). Anything else is dropped without a word, so ``anyOf`` for an
optional, a ``$ref`` to a nested model or a ``minimum`` would never reach
the model.

This module makes the schema say the same within those fields:

- a property's local ``$ref`` is replaced by what it points to, joined with
  the keywords beside it (a value must match both: where they say different
  things of one keyword, and the two cannot be said as one, the schema is
  refused);
- ``anyOf``/``oneOf`` of plain alternatives (a type, an enum, an array)
  becomes a list of types with the enums joined, which is what it means
  (``Optional[int]`` is ``{"type": ["integer", "null"]}``);
- ``const`` becomes a one-value ``enum``; ``definitions`` becomes ``$defs``;
- ``title``, ``$schema``, ``$id`` and ``$comment`` say nothing to the model
  and are left out;
- everything else a property holds (a nested object's ``properties``, a
  ``format``, a ``minimum``, a ``default``, an ``anyOf`` of models) is
  written into its ``description`` as ``(key: JSON, ...)`` notes, and what
  the parameters object holds beyond its fields goes into the tool's
  description the same way. The model still reads every rule; Ollama never
  enforced any of them.

What cannot be said at all raises :class:`ToolSchemaError` with a JSON
Pointer: parameters that are not an object schema, a ``$ref`` that does not
point into the schema's own ``$defs``, a chain of ``$ref`` that loops, and
a ``false`` schema.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from ._tools import ToolSchemaError, pointer

__all__ = ["describe", "parameters"]

# Keywords that say nothing to the model: they are left out.
_SILENT: Final = frozenset({"title", "$schema", "$id", "$comment"})
# Keywords that describe values without constraining them.
_ANNOTATING: Final = _SILENT | {"description", "default", "examples", "deprecated"}
_PROPERTY_KEYS: Final = ("type", "items", "description", "enum")
_PARAMETER_KEYS: Final = ("type", "properties", "required", "$defs", "items")
# What an alternative of an ``anyOf`` may hold to be joined into a list of types.
_PLAIN_ALTERNATIVE: Final = frozenset({"type", "enum", "items", "const"})

_ENCODER: Final = msgspec.json.Encoder()

Path = tuple[str | int, ...]


class _Schema:
    """One tool's schema: its ``$defs``, for resolving references."""

    __slots__ = ("defs", "tool")

    def __init__(self, tool: str, defs: dict[str, Any]) -> None:
        self.tool = tool
        self.defs = defs

    def fail(self, path: Path, why: str) -> ToolSchemaError:
        where = pointer(path) or "the schema"
        return ToolSchemaError(
            f"tool {self.tool!r}: parameters {where}: {why}", self.tool, pointer(path)
        )

    def resolved(self, schema: dict[str, Any], path: Path) -> dict[str, Any]:
        """``schema`` with its ``$ref`` replaced by the target (its own keys win)."""
        seen: list[str] = []
        while "$ref" in schema:
            ref = schema["$ref"]
            if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
                raise self.fail(
                    (*path, "$ref"),
                    f"a reference outside the schema's own $defs ({_note(ref)}) cannot be inlined",
                )
            if ref in seen:
                raise self.fail((*path, "$ref"), f"the references loop ({' -> '.join(seen)})")
            seen.append(ref)
            name = ref[len("#/$defs/") :].replace("~1", "/").replace("~0", "~")
            target = self.defs.get(name)
            if target is True:
                target = {}
            if not isinstance(target, dict):
                raise self.fail((*path, "$ref"), f"{ref} names no schema in $defs")
            rest = {key: value for key, value in schema.items() if key != "$ref"}
            schema = self._beside(target, rest, path)
        return schema

    def _beside(self, target: dict[str, Any], rest: dict[str, Any], path: Path) -> dict[str, Any]:
        """One schema for a ``$ref``'s target and the keywords beside the ``$ref``.

        A value must match both. Where they say different things of one
        keyword, only annotations (the keywords beside win) and what joins
        exactly (``required``; ``properties`` of different names) are said
        as one; anything else is refused rather than let one side overwrite
        the other, which would let the model send what the tool refuses.
        """
        out = dict(target)
        for key, value in rest.items():
            if key in out and out[key] != value and key not in _ANNOTATING:
                mine = out[key]
                if key == "required" and isinstance(mine, list) and isinstance(value, list):
                    value = list(dict.fromkeys([*mine, *value]))
                elif (
                    key == "properties"
                    and isinstance(mine, dict)
                    and isinstance(value, dict)
                    and all(mine.get(name, item) == item for name, item in value.items())
                ):
                    value = {**mine, **value}
                else:
                    raise self.fail(
                        (*path, "$ref"),
                        f"the $ref's target and the keywords beside it both say {key!r}, "
                        "differently, and Ollama has no way to say both",
                    )
            out[key] = value
        for one, other in ((target, rest), (rest, target)):
            extra = one.get("additionalProperties", True)
            declared = one.get("properties")
            theirs = other.get("properties")
            if (
                extra is not True
                and extra != {}
                and isinstance(theirs, dict)
                and not theirs.keys() <= (declared.keys() if isinstance(declared, dict) else set())
            ):
                raise self.fail(
                    (*path, "$ref"),
                    "the $ref's target and the keywords beside it declare different "
                    "properties, and one of them holds others to its additionalProperties",
                )
        return out

    def property(self, schema: object, path: Path) -> dict[str, Any]:
        """A property schema in the fields Ollama keeps, the rest as notes."""
        if schema is True:
            return {}
        if not isinstance(schema, dict):
            raise self.fail(path, f"a property schema must be an object, not {_note(schema)}")
        schema = self.resolved(schema, path)
        joined = self._joined(schema, path)
        if joined is not None:
            schema = joined
        if "const" in schema and "enum" not in schema:
            schema = {**schema, "enum": [schema["const"]]}
            del schema["const"]
        out: dict[str, Any] = {}
        notes: dict[str, Any] = {}
        for key, value in schema.items():
            if key in _SILENT:
                continue
            if key == "type" and _type_names(value):
                out["type"] = value
            elif key == "items":
                out["items"] = value
            elif key == "description" and isinstance(value, str):
                out["description"] = value
            elif key == "enum" and isinstance(value, list):
                out["enum"] = value
            else:
                notes[key] = value
        if notes:
            out["description"] = _with_notes(out.get("description", ""), notes)
        return {key: out[key] for key in _PROPERTY_KEYS if key in out}

    def _joined(self, schema: dict[str, Any], path: Path) -> dict[str, Any] | None:
        """An ``anyOf``/``oneOf`` of plain alternatives as one list of types, else ``None``."""
        key = "anyOf" if "anyOf" in schema else "oneOf" if "oneOf" in schema else None
        if key is None or "type" in schema or "enum" in schema:
            return None
        alternatives = schema[key]
        if not isinstance(alternatives, list) or not alternatives:
            return None
        types: list[str] = []
        enum: list[Any] = []
        items: list[Any] = []
        constrained = 0  # alternatives of a type that bring an enum
        free = 0  # alternatives of a type other than null without one
        for number, alternative in enumerate(alternatives):
            if not isinstance(alternative, dict):
                return None
            alternative = self.resolved(alternative, (*path, key, number))
            kept = {k: v for k, v in alternative.items() if k not in _SILENT}
            kind = kept.get("type")
            if not kept.keys() <= _PLAIN_ALTERNATIVE or not isinstance(kind, str):
                return None
            if kind not in types:
                types.append(kind)
            if "items" in kept:
                items.append(kept["items"])
            values = [kept["const"]] if "const" in kept else kept.get("enum")
            if values is not None:
                if not isinstance(values, list):
                    return None
                # Only the values of the alternative's own type: joined, the
                # list of types would let another type's member take the rest.
                enum.extend(value for value in values if _of_type(value, kind))
                constrained += 1
            elif kind == "null":
                enum.append(None)
            else:
                free += 1
        if len(items) > 1 or (constrained and free):
            return None
        out = {k: v for k, v in schema.items() if k != key}
        out["type"] = types[0] if len(types) == 1 else types
        if items:
            out["items"] = items[0]
        if constrained:
            out["enum"] = enum
        return out


def parameters(schema: dict[str, Any], tool: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``parameters`` Ollama keeps, and the notes for the tool's description.

    ``schema`` is a :class:`ToolSpec`'s parameters; it is not changed.
    """
    if "definitions" in schema:
        if "$defs" in schema:
            raise ToolSchemaError(
                f"tool {tool!r}: parameters has both $defs and definitions; Ollama keeps one",
                tool,
                "/definitions",
            )
        schema = {
            ("$defs" if key == "definitions" else key): value for key, value in schema.items()
        }
        schema = _renamed_refs(schema)
    defs = schema.get("$defs", {})
    if not isinstance(defs, dict):
        raise ToolSchemaError(f"tool {tool!r}: parameters /$defs is not an object", tool, "/$defs")
    context = _Schema(tool, defs)
    schema = context.resolved(schema, ())
    kind = schema.get("type", "object")
    if kind != "object":
        raise context.fail(
            ("type",), f'Ollama takes an object schema (type "object"), not {_note(kind)}'
        )
    out: dict[str, Any] = {"type": "object"}
    notes: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _SILENT or key == "type":
            continue
        if key == "properties":
            if not isinstance(value, dict):
                raise context.fail(("properties",), "properties must be an object")
            out["properties"] = {
                name: context.property(item, ("properties", name)) for name, item in value.items()
            }
        elif key == "required":
            if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
                raise context.fail(("required",), "required must be a list of names")
            out["required"] = value
        elif key in ("$defs", "items"):
            out[key] = value
        else:
            notes[key] = value
    return {key: out[key] for key in _PARAMETER_KEYS if key in out}, notes


def describe(description: str, notes: dict[str, Any]) -> str:
    """A tool's description with what its parameters could not hold.

    The schema's own ``description`` (a model's docstring, say) is text about
    the arguments: it follows the tool's description after a blank line,
    unless it says the same. Other notes follow in parentheses.
    """
    notes = dict(notes)
    about = notes.get("description")
    if isinstance(about, str):
        del notes["description"]
        if about and about.strip() != description.strip():
            description = f"{description}\n\n{about}" if description else about
    return _with_notes(description, {"parameters": notes}) if notes else description


def _with_notes(description: str, notes: dict[str, Any]) -> str:
    said = ", ".join(f"{key}: {_ENCODER.encode(value).decode()}" for key, value in notes.items())
    return f"{description} ({said})" if description else f"({said})"


def _of_type(value: object, kind: str) -> bool:
    """Whether ``value`` is of the JSON Schema type ``kind`` (an unknown type takes all)."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "integer":
        return number and float(value).is_integer()  # type: ignore[arg-type]
    test = {
        "null": value is None,
        "boolean": isinstance(value, bool),
        "number": number,
        "string": isinstance(value, str),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
    }
    return test.get(kind, True)


def _type_names(value: object) -> bool:
    if isinstance(value, str):
        return True
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def _renamed_refs(value: Any) -> Any:
    """``value`` with every ``#/definitions/`` reference spelled ``#/$defs/``."""
    if isinstance(value, dict):
        out = {key: _renamed_refs(item) for key, item in value.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/definitions/"):
            out["$ref"] = "#/$defs/" + ref[len("#/definitions/") :]
        return out
    if isinstance(value, list):
        return [_renamed_refs(item) for item in value]
    return value


def _note(value: object) -> str:
    text = _ENCODER.encode(value).decode() if _jsonable(value) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _jsonable(value: object) -> bool:
    try:
        _ENCODER.encode(value)
    except (TypeError, ValueError, OverflowError):
        return False
    return True
