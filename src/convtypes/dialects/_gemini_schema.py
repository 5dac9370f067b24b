"""JSON Schema into the Schema that Gemini's ``FunctionDeclaration.parameters`` takes.

Gemini reads a tool's parameters as its own ``Schema``: a subset of OpenAPI
3.0 with upper-case type names, ``nullable`` instead of a ``null`` type,
``enum`` for strings only, ``any_of`` but no ``$ref``, ``oneOf``, ``allOf``
or ``additionalProperties``. Tools describe their arguments in JSON Schema
(pydantic's ``model_json_schema()``, an MCP server's ``inputSchema``), so
the dialect translates, and the one rule of the translation is that the set
of argument values the schema accepts must not grow: a value Gemini may send
must be one the tool accepts. Where Gemini's subset cannot say a keyword,
the translation either says the same thing another way or refuses the
schema with :class:`ToolSchemaError`, naming the keyword's place as a JSON
Pointer into the schema as given.

Said another way:

- ``$ref`` (to ``#/$defs/...`` or any other place in the same schema) is
  inlined, and so are ``allOf`` members; a reference that leads back into
  itself (a recursive model) cannot be inlined and is refused;
- ``{"type": "null"}`` among ``anyOf`` or ``oneOf`` members, and ``"null"``
  in a ``type`` list, become ``nullable``; a list of several types becomes
  ``any_of``;
- ``const`` and ``enum`` keep strings as ``enum``; integers become
  ``minimum``/``maximum`` ranges (a run of consecutive integers is one
  range), other numbers a range of one value, ``[true, false]`` a plain
  boolean;
- ``oneOf`` becomes ``any_of`` where its members cannot both match a value
  (different types, or objects told apart by a required property's
  values, as pydantic's discriminated unions are);
- ``exclusiveMinimum``/``exclusiveMaximum`` of an integer become the
  inclusive bound next to them;
- a string ``format`` Gemini does not know (it knows ``date-time`` and
  ``enum``; ``int32``/``int64`` and ``float``/``double`` for numbers) moves
  into the description: ``format`` is an annotation in JSON Schema, so no
  value changes validity;
- an array whose ``prefixItems`` are all the same schema, with its length
  fixed, becomes an array of that item;
- ``additionalProperties`` beside declared properties is dropped: Gemini
  sends only the declared properties, which the schema accepts whatever
  it says of others. Where ``allOf`` or a ``$ref`` joins objects, though,
  a property that one of them does not declare is held to that one's
  ``additionalProperties``: left out where it is ``false`` (a required one
  makes the join accept nothing), narrowed by it where it is a schema.

Dropped because they only annotate: ``title`` (Gemini has been seen to read
a nested title as a function name), ``$schema``, ``$id``, ``$comment``,
``$defs``, ``examples``, ``deprecated``, ``readOnly``, ``writeOnly``,
``discriminator``, the ``content*`` keywords, and keywords JSON Schema does
not define.

Refused, because they constrain values in ways the subset cannot say:
``not``, ``if``/``then``/``else``, ``patternProperties``,
``propertyNames``, ``dependentRequired``/``dependentSchemas``,
``contains``, ``multipleOf``, ``uniqueItems: true``, exclusive bounds of
non-integers, a free-form object (no declared properties: ``dict[str, X]``
or ``dict``), an array without an item schema, a schema with no type
(``Any``), ``true`` and ``false`` as schemas, and references that leave the
schema.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, Final, NamedTuple, NoReturn
from urllib.parse import unquote

from ._tools import ToolSchemaError, pointer

__all__ = ["parameters"]

Loc = tuple[str | int, ...]

# The key under which a translated object keeps what its
# ``additionalProperties`` says of undeclared names while joins may still
# need it: ``False``, or the schemas (``_Later``) they must match. It never
# reaches the output (see ``_finish``).
_EXTRA: Final = " additional"

_TYPES: Final = {
    "string": "STRING",
    "number": "NUMBER",
    "integer": "INTEGER",
    "boolean": "BOOLEAN",
    "array": "ARRAY",
    "object": "OBJECT",
    "null": "NULL",
}

# Keywords that constrain values in ways Gemini's Schema has no words for.
_REFUSED: Final = {
    "not": "a 'not' schema",
    "if": "a conditional schema ('if')",
    "then": "a conditional schema ('then')",
    "else": "a conditional schema ('else')",
    "patternProperties": "properties named by a pattern",
    "propertyNames": "a rule on property names",
    "dependentRequired": "properties required by other properties",
    "dependentSchemas": "schemas that depend on a property",
    "dependencies": "properties that depend on others",
    "contains": "an array that must contain a match ('contains')",
    "minContains": "'minContains'",
    "maxContains": "'maxContains'",
    "unevaluatedProperties": "'unevaluatedProperties'",
    "unevaluatedItems": "'unevaluatedItems'",
    "multipleOf": "'multipleOf'",
    "$dynamicRef": "a dynamic reference",
    "$recursiveRef": "a recursive reference",
}

# JSON Schema keyword -> Gemini Schema field, for those said the same way.
_SAME: Final = {
    "description": "description",
    "default": "default",
    "example": "example",
    "pattern": "pattern",
    "minLength": "min_length",
    "maxLength": "max_length",
    "minItems": "min_items",
    "maxItems": "max_items",
    "minProperties": "min_properties",
    "maxProperties": "max_properties",
    "minimum": "minimum",
    "maximum": "maximum",
    "propertyOrdering": "property_ordering",
    "required": "required",
}

_COUNTS: Final = frozenset(
    {"min_length", "max_length", "min_items", "max_items", "min_properties", "max_properties"}
)
_LOWER: Final = frozenset({"minimum", "min_length", "min_items", "min_properties"})
_UPPER: Final = frozenset({"maximum", "max_length", "max_items", "max_properties"})
_ANNOTATIONS: Final = frozenset({"description", "default", "example"})

# The Gemini types each type-specific field applies to; a field beside a
# value of another type constrains nothing, as in JSON Schema.
_APPLIES: Final = {
    "min_length": {"STRING"},
    "max_length": {"STRING"},
    "pattern": {"STRING"},
    "format": {"STRING", "INTEGER", "NUMBER"},
    "minimum": {"INTEGER", "NUMBER"},
    "maximum": {"INTEGER", "NUMBER"},
    "items": {"ARRAY"},
    "min_items": {"ARRAY"},
    "max_items": {"ARRAY"},
    "properties": {"OBJECT"},
    "required": {"OBJECT"},
    "min_properties": {"OBJECT"},
    "max_properties": {"OBJECT"},
    "property_ordering": {"OBJECT"},
    _EXTRA: {"OBJECT"},
}
_OBJECT_KEYS: Final = frozenset({"properties", _EXTRA})

_FORMATS: Final = {
    "STRING": frozenset({"date-time", "enum"}),
    "INTEGER": frozenset({"int32", "int64"}),
    "NUMBER": frozenset({"float", "double"}),
}

# Beyond 2**53 a float bound (Gemini's ``minimum`` is a double) no longer
# pins one integer.
_EXACT: Final = 2**53
DEPTH: Final = 64
"""How deep a translated schema may nest, its references inlined."""
SIZE: Final = 5_000
"""How many schemas a translated schema may hold, its references inlined."""


class _Empty(Exception):
    """The conjunction of two schemas accepts no value."""


class _Later(NamedTuple):
    """An ``additionalProperties`` schema, translated only if a join needs it."""

    node: object
    loc: Loc
    depth: int


def parameters(schema: dict[str, Any], tool: str) -> dict[str, Any] | None:
    """The Gemini ``parameters`` for a tool's JSON Schema; ``None`` for no arguments.

    Raises :class:`ToolSchemaError` (with ``tool`` and ``path``) for a schema
    that cannot be said in Gemini's subset without accepting other values.
    A root with no ``type`` and nothing that could give it one is an object,
    as a tool's arguments always are (the other dialects read it so too).
    """
    if "type" not in schema and not schema.keys() & _TYPING_KEYWORDS:
        schema = {"type": "object", **schema}
    return _Translator(schema, tool).top()


# What may give a schema its type when ``type`` itself is absent.
_TYPING_KEYWORDS: Final = frozenset({"$ref", "allOf", "anyOf", "oneOf", "enum", "const"})


class _Translator:
    """One schema's translation: its root (for references) and what it has cost so far."""

    __slots__ = ("_active", "_count", "_root", "_tool")

    def __init__(self, root: dict[str, Any], tool: str) -> None:
        self._root = root
        self._tool = tool
        self._active: list[Loc] = []  # the references being inlined, outermost first
        self._count = 0

    def fail(self, loc: Loc, why: str) -> NoReturn:
        where = pointer(loc)
        raise ToolSchemaError(
            f"tool {self._tool!r}: {'at ' + where if where else 'the schema'}: {why}",
            self._tool,
            where,
        )

    def top(self) -> dict[str, Any] | None:
        out = self.schema(self._root, (), 0)
        if out.get("type") != "OBJECT":
            self.fail((), "Gemini takes a tool's parameters as one object")
        out.pop("nullable", None)  # Gemini always sends the object: fewer values, so safe
        if not out.get("properties"):
            return None  # no arguments; Gemini refuses an object without properties
        self.check_object(out, ())
        _finish(out)
        return out

    # --- one schema -------------------------------------------------------------

    def schema(self, node: object, loc: Loc, depth: int) -> dict[str, Any]:
        """``node`` as a Gemini schema: its own keywords, one alternative, every part."""
        if depth > DEPTH:
            self.fail(loc, f"nests deeper than {DEPTH} levels once its references are inlined")
        self._count += 1
        if self._count > SIZE:
            self.fail(loc, f"holds more than {SIZE} schemas once its references are inlined")
        if node is True or (isinstance(node, dict) and not node):
            self.fail(loc, "a schema that takes any value has no Gemini form" + _HINT)
        if node is False:
            self.fail(loc, "a schema that takes no value has no Gemini form")
        if not isinstance(node, dict):
            self.fail(loc, f"expected a schema object, got {type(node).__name__}")
        for key in node:
            if key in _REFUSED:
                self.fail((*loc, key), f"Gemini cannot say {_REFUSED[key]}" + _HINT)
        out = self.own(node, loc, depth)
        for key in ("anyOf", "oneOf"):
            if key in node:
                out = self.one_of(node[key], key == "oneOf", out, (*loc, key), depth)
        # The parts join in the order they are written; the node's own
        # annotations win over theirs (a field's description over its model's).
        joined: dict[str, Any] | None = None
        for part, part_loc in self.parts(node, loc, depth):
            try:
                joined = part if joined is None else self.conjoin(joined, part, part_loc)
            except _Empty:
                self.fail(part_loc, "accepts no value that the parts before it accept")
        if joined is not None:
            try:
                out = self.conjoin(joined, out, loc)
            except _Empty:
                self.fail(loc, "accepts no value that its parts accept")
        if not _typed(out):
            self.fail(loc, "a schema with no type (it takes any value) has no Gemini form" + _HINT)
        return out

    def own(self, node: dict[str, Any], loc: Loc, depth: int) -> dict[str, Any]:
        """What ``node``'s own keywords say (all but ``$ref``, ``allOf``, ``anyOf``, ``oneOf``)."""
        fields: dict[str, Any] = {}
        for key, name in _SAME.items():
            if key in node:
                fields[name] = self.plain(name, node[key], (*loc, key))
        if "format" in node:
            if not isinstance(node["format"], str):
                self.fail((*loc, "format"), "expected text")
            fields["format"] = node["format"]
        types, null = self.types(node, loc)
        if "properties" in node:
            properties = node["properties"]
            if not isinstance(properties, dict):
                self.fail((*loc, "properties"), "expected an object of schemas")
            fields["properties"] = {
                name: self.child(value, (*loc, "properties", name), depth + 1)
                for name, value in properties.items()
            }
        extra = node.get("additionalProperties")
        if extra not in (None, False) and not node.get("properties"):
            self.fail((*loc, "additionalProperties"), _FREE_FORM)
        if extra is False:
            fields[_EXTRA] = False
        elif extra is not None and extra is not True and extra != {}:
            fields[_EXTRA] = (_Later(extra, (*loc, "additionalProperties"), depth + 1),)
        self.array_items(node, fields, loc, depth)
        if node.get("uniqueItems", False) is not False:
            self.fail((*loc, "uniqueItems"), "Gemini cannot say that items are unique" + _HINT)
        self.exclusive(node, fields, types, loc)
        if types is None and "enum" not in node and "const" not in node:
            # Properties or items say what a value is where no type does; read
            # so, the schema accepts fewer values, not more.
            if "properties" in fields:
                types = ["OBJECT"]
            elif "items" in fields:
                types = ["ARRAY"]
        annotations = {key: fields.pop(key) for key in _ANNOTATIONS if key in fields}
        if null or node.get("nullable") is True:
            annotations["nullable"] = True
        if "const" in node:
            branches = self.choices([node["const"]], types, null, (*loc, "const"))
        elif "enum" in node:
            values = node["enum"]
            if not isinstance(values, list) or not values:
                self.fail((*loc, "enum"), "expected a non-empty list of values")
            branches = self.choices(values, types, null, (*loc, "enum"))
        elif types is not None:
            branches = [{"type": name} for name in types]
        else:
            # No type here: the fields wait for the parts and members that have one.
            return {**fields, **annotations}
        if annotations.pop("nullable", False) and "enum" not in node and "const" not in node:
            branches.append({"type": "NULL"})
        return self.either(fields, branches, annotations, loc)

    def plain(self, name: str, value: object, loc: Loc) -> object:
        """A keyword Gemini says the same way, its value checked."""
        if name in _COUNTS:
            if type(value) is not int or value < 0:
                self.fail(loc, "expected a count (an integer, 0 or more)")
        elif name in ("minimum", "maximum"):
            if type(value) not in (int, float):
                self.fail(loc, "expected a number")
        elif name in ("description", "pattern"):
            if not isinstance(value, str):
                self.fail(loc, "expected text")
        elif name in ("required", "property_ordering"):
            if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
                self.fail(loc, "expected a list of property names")
            return list(dict.fromkeys(value))
        return value

    def types(self, node: dict[str, Any], loc: Loc) -> tuple[list[str] | None, bool]:
        """The Gemini types ``type`` names (``None`` for none), and whether null is among them."""
        if "type" not in node:
            return None, False
        given = node["type"]
        names = given if isinstance(given, list) else [given]
        types: list[str] = []
        null = False
        for name in names:
            gemini = _TYPES.get(name) if isinstance(name, str) else None
            if gemini is None:
                self.fail((*loc, "type"), f"not a JSON Schema type: {name!r:.40}")
            if gemini == "NULL":
                null = True
            elif gemini not in types:
                types.append(gemini)
        if not types and not null:
            self.fail((*loc, "type"), "an empty list of types accepts no value")
        return types, null

    def array_items(
        self, node: dict[str, Any], fields: dict[str, Any], loc: Loc, depth: int
    ) -> None:
        items = node.get("items")
        if isinstance(items, list):  # the older spelling of prefixItems
            self.tuple_items(items, node.get("additionalItems"), fields, (*loc, "items"), depth)
        elif "prefixItems" in node:
            self.tuple_items(node["prefixItems"], items, fields, (*loc, "prefixItems"), depth)
        elif items is not None:
            fields["items"] = self.child(items, (*loc, "items"), depth + 1)

    def tuple_items(
        self, prefix: object, rest: object, fields: dict[str, Any], loc: Loc, depth: int
    ) -> None:
        """A tuple whose places all take one schema, its length fixed, is an array of it."""
        if not isinstance(prefix, list) or not prefix:
            self.fail(loc, "expected a non-empty list of schemas")
        length = len(prefix)
        fixed = rest is False or fields.get("max_items") == length
        if (
            not fixed
            or any(item != prefix[0] for item in prefix)
            or rest not in (None, False, prefix[0])
        ):
            self.fail(loc, "Gemini cannot say a tuple of different item schemas" + _HINT)
        fields["items"] = self.child(prefix[0], (*loc, 0), depth + 1)
        fields["min_items"] = max(fields.get("min_items", 0), length)
        fields["max_items"] = min(fields.get("max_items", length), length)

    def exclusive(
        self, node: dict[str, Any], fields: dict[str, Any], types: list[str] | None, loc: Loc
    ) -> None:
        """An integer's exclusive bound as the inclusive one next to it."""
        for key, name, lower in (
            ("exclusiveMinimum", "minimum", True),
            ("exclusiveMaximum", "maximum", False),
        ):
            if key not in node or node[key] is False:
                continue  # ``false``: the older spelling of an inclusive bound
            value = node[key]
            if value is True:  # the older spelling: ``minimum`` itself is exclusive
                if name not in fields:
                    continue
                value = fields[name]
            elif type(value) not in (int, float):
                self.fail((*loc, key), "expected a number")
            if types != ["INTEGER"]:
                self.fail(
                    (*loc, key),
                    "Gemini has no exclusive bound, and only an integer's can be made "
                    "inclusive" + _HINT,
                )
            bound = math.floor(value) + 1 if lower else math.ceil(value) - 1
            current = fields.get(name)
            if current is None:
                fields[name] = bound
            else:
                fields[name] = max(current, bound) if lower else min(current, bound)

    def choices(
        self, values: list[Any], types: list[str] | None, null_type: bool, loc: Loc
    ) -> list[dict[str, Any]]:
        """The values of an ``enum`` or ``const`` as Gemini schemas, one per kind of value."""
        strings: list[str] = []
        integers: list[int] = []
        numbers: list[float] = []
        booleans: set[bool] = set()
        null = False
        for value in values:
            if value is None:
                null = True
            elif isinstance(value, bool):
                booleans.add(value)
            elif isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
                integers.append(int(value))
            elif isinstance(value, float):
                numbers.append(value)
            elif isinstance(value, str):
                strings.append(value)
            else:
                self.fail(loc, "Gemini cannot say an object or array as an allowed value" + _HINT)
        allowed = set(_TYPES.values()) if types is None else {*types, *(["NULL"] * null_type)}
        out: list[dict[str, Any]] = []
        if strings and "STRING" in allowed:
            out.append({"type": "STRING", "enum": list(dict.fromkeys(strings))})
        if integers and allowed & {"INTEGER", "NUMBER"}:
            for low, high in _runs(integers):
                if max(abs(low), abs(high)) > _EXACT:
                    self.fail(loc, f"Gemini's bounds (doubles) cannot pin the integer {low}")
                out.append({"type": "INTEGER", "minimum": low, "maximum": high})
        if numbers and "NUMBER" in allowed:
            out += [{"type": "NUMBER", "minimum": n, "maximum": n} for n in dict.fromkeys(numbers)]
        if booleans and "BOOLEAN" in allowed:
            if len(booleans) == 1:
                self.fail(loc, "Gemini cannot pin a boolean to one value" + _HINT)
            out.append({"type": "BOOLEAN"})
        if null and "NULL" in allowed:
            out.append({"type": "NULL"})
        if not out:
            self.fail(loc, "no allowed value is of the schema's type")
        return out

    def one_of(
        self, members: object, exclusive: bool, base: dict[str, Any], loc: Loc, depth: int
    ) -> dict[str, Any]:
        """``base`` and one of ``members`` (``anyOf``; ``oneOf`` when ``exclusive``)."""
        if not isinstance(members, list) or not members:
            self.fail(loc, "expected a non-empty list of schemas")
        branches = [
            self.child(member, (*loc, number), depth + 1) for number, member in enumerate(members)
        ]
        if exclusive:
            for first in range(len(branches)):
                for second in range(first + 1, len(branches)):
                    if not _disjoint(branches[first], branches[second]):
                        self.fail(
                            (*loc, second),
                            f"may match a value that member {first} matches too, and "
                            "Gemini has 'anyOf' but no 'oneOf'" + _HINT,
                        )
        alternative = self.either({}, branches, {}, loc)
        if base.get("nullable") and not _typed(base):
            # OpenAPI's spelling: ``nullable`` beside members, with no type of its own.
            base = {key: value for key, value in base.items() if key != "nullable"}
            alternative["nullable"] = True
        try:
            return self.conjoin(alternative, base, loc)
        except _Empty:
            self.fail(loc, "no member accepts a value that the schema beside it accepts")

    def either(
        self,
        fields: dict[str, Any],
        branches: list[dict[str, Any]],
        annotations: dict[str, Any],
        loc: Loc,
    ) -> dict[str, Any]:
        """Any one of ``branches``, each narrowed by the ``fields`` of its type."""
        null = False
        kept: list[dict[str, Any]] = []
        takes_null = not _typed(fields) or bool(fields.get("nullable"))
        for branch in _flat(branches):
            if branch.get("type") == "NULL":
                null = null or takes_null
                continue
            try:
                narrowed = self.conjoin(branch, _for_type(fields, branch), loc)
            except _Empty:
                continue
            if narrowed.pop("nullable", False):
                null = True
            if narrowed not in kept:
                kept.append(narrowed)
        if not kept:
            if null:
                return {**annotations, "type": "NULL"}
            self.fail(loc, "accepts no value")
        out = {**kept[0], **annotations} if len(kept) == 1 else {**annotations, "any_of": kept}
        if null:
            out["nullable"] = True
        return out

    def parts(
        self, node: dict[str, Any], loc: Loc, depth: int
    ) -> Iterable[tuple[dict[str, Any], Loc]]:
        """The schemas a value must match too: a ``$ref``'s target, each ``allOf`` member."""
        if "$ref" in node:
            yield self.reference(node["$ref"], (*loc, "$ref"), depth), (*loc, "$ref")
        if "allOf" in node:
            members = node["allOf"]
            if not isinstance(members, list) or not members:
                self.fail((*loc, "allOf"), "expected a non-empty list of schemas")
            for number, member in enumerate(members):
                where = (*loc, "allOf", number)
                yield self.schema(member, where, depth + 1), where

    def reference(self, ref: object, loc: Loc, depth: int) -> dict[str, Any]:
        if not isinstance(ref, str) or not ref.startswith("#"):
            self.fail(loc, f"only references within the schema (#/...) can be inlined: {ref!r:.60}")
        target_loc, target = self.resolve(ref, loc)
        if target_loc in self._active:
            self.fail(
                loc,
                f"{ref!r:.60} leads back into itself (a recursive model), which cannot be "
                "inlined" + _HINT,
            )
        self._active.append(target_loc)
        try:
            return self.schema(target, target_loc, depth + 1)
        finally:
            self._active.pop()

    def resolve(self, ref: str, loc: Loc) -> tuple[Loc, object]:
        """The place and value that a ``#/...`` reference names in the schema."""
        text = unquote(ref[1:])
        if text and not text.startswith("/"):
            self.fail(loc, f"a reference to a named anchor cannot be inlined: {ref!r:.60}")
        value: object = self._root
        place: list[str | int] = []
        for raw in text.split("/")[1:]:
            part = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(value, dict) and part in value:
                value = value[part]
                place.append(part)
            elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
                value = value[int(part)]
                place.append(int(part))
            else:
                self.fail(loc, f"{ref!r:.60} names nothing in the schema")
        return tuple(place), value

    def child(self, node: object, loc: Loc, depth: int) -> dict[str, Any]:
        """A schema standing as a property, an item or a member: complete on its own."""
        out = self.schema(node, loc, depth)
        for branch in _flat([out]):
            kind = branch.get("type")
            if kind == "OBJECT":
                if not branch.get("properties"):
                    self.fail(loc, _FREE_FORM)
                self.check_object(branch, loc)
            elif kind == "ARRAY" and "items" not in branch:
                self.fail(loc, "an array of any items has no Gemini form (give 'items')" + _HINT)
        return out

    def check_object(self, schema: dict[str, Any], loc: Loc) -> None:
        properties = schema.get("properties", {})
        for name in schema.get("required", ()):
            if name not in properties:
                self.fail(loc, f"requires {name!r:.40}, which it does not declare" + _HINT)

    def conjoin(self, first: dict[str, Any], second: dict[str, Any], loc: Loc) -> dict[str, Any]:
        """A schema for the values that both accept; ``second``'s annotations win.

        Raises :class:`_Empty` when no value matches both, and
        :class:`ToolSchemaError` where Gemini cannot say what both accept.
        """
        if "any_of" in first or "any_of" in second:
            if "any_of" in first and "any_of" in second:
                self.fail(loc, "Gemini cannot say a value that matches two lists of members")
            either, other = (first, second) if "any_of" in first else (second, first)
            branches = list(either["any_of"])
            if either.get("nullable"):
                branches.append({"type": "NULL"})
            notes = {key: first[key] for key in _ANNOTATIONS if key in first}
            notes.update((key, second[key]) for key in _ANNOTATIONS if key in second)
            fields = {key: value for key, value in other.items() if key not in _ANNOTATIONS}
            return {**self.either(fields, branches, {}, loc), **notes}
        for one, other in ((first, second), (second, first)):
            if one.get("type") == "NULL":
                if _typed(other) and not other.get("nullable"):
                    raise _Empty
                return {**one, **{k: v for k, v in second.items() if k in _ANNOTATIONS}}
        if not _typed(first) or not _typed(second):
            typed = first if _typed(first) else second
            untyped = second if typed is first else first
            narrowed = _for_type(untyped, typed)
            first, second = (typed, narrowed) if typed is first else (narrowed, typed)
        out = {key: value for key, value in first.items() if key not in _OBJECT_KEYS}
        for key, value in second.items():
            if key in _OBJECT_KEYS or key == "nullable":
                continue
            if key not in out or key in _ANNOTATIONS:
                out[key] = value
            elif out[key] == value:
                continue
            elif key == "type":
                if {out[key], value} != {"INTEGER", "NUMBER"}:
                    raise _Empty
                out[key] = "INTEGER"
            elif key in _LOWER:
                out[key] = max(out[key], value)
            elif key in _UPPER:
                out[key] = min(out[key], value)
            elif key == "enum":
                both = [item for item in out[key] if item in value]
                if not both:
                    raise _Empty
                out[key] = both
            elif key in ("required", "property_ordering"):
                out[key] = list(dict.fromkeys([*out[key], *value]))
            elif key == "items":
                out[key] = self.conjoin(out[key], value, (*loc, "items"))
            else:
                self.fail(loc, f"Gemini cannot say two different {key!r} at once")
        if any(key in schema for schema in (first, second) for key in _OBJECT_KEYS):
            self.conjoin_objects(out, first, second, loc)
        with_type = [schema for schema in (first, second) if _typed(schema)]
        if with_type:
            nullable = all(schema.get("nullable") for schema in with_type)
        else:
            nullable = bool(first.get("nullable") or second.get("nullable"))
        out.pop("nullable", None)
        if nullable:
            out["nullable"] = True
        for low, high in _BOUNDS:
            if low in out and high in out and out[low] > out[high]:
                raise _Empty
        if "enum" in out and ("min_length" in out or "max_length" in out):
            # The allowed strings, kept to the allowed lengths: the same values,
            # said in the one keyword Gemini holds to.
            shortest, longest = out.pop("min_length", 0), out.pop("max_length", math.inf)
            out["enum"] = [text for text in out["enum"] if shortest <= len(text) <= longest]
            if not out["enum"]:
                raise _Empty
        return out

    def conjoin_objects(
        self, out: dict[str, Any], first: dict[str, Any], second: dict[str, Any], loc: Loc
    ) -> None:
        """Into ``out``, the properties that both objects accept, and what both say of others.

        A name one object does not declare must satisfy that object's
        ``additionalProperties``: where it is ``false`` the name is left out
        (Gemini must not send it), where it is a schema the property is
        narrowed by it. Raises :class:`_Empty` when a required name is left out.
        """
        merged: dict[str, Any] = {}
        names = dict.fromkeys([*first.get("properties", {}), *second.get("properties", {})])
        for name in names:
            schemas: list[dict[str, Any]] = []
            for side in (first, second):
                declared = side.get("properties", {})
                extra = side.get(_EXTRA)
                if name in declared:
                    schemas.append(declared[name])
                elif extra is False:
                    break  # this side takes no such property
                else:
                    schemas += [self.child(*later) for later in extra or ()]
            else:
                joined = schemas[0]
                for schema in schemas[1:]:
                    try:
                        joined = self.conjoin(joined, schema, loc)
                    except _Empty:
                        self.fail(loc, f"property {name!r:.40} accepts no value" + _HINT)
                merged[name] = joined
        if "properties" in first or "properties" in second:
            out["properties"] = merged
        extras = [side[_EXTRA] for side in (first, second) if _EXTRA in side]
        if any(extra is False for extra in extras):
            out[_EXTRA] = False
        elif extras:
            out[_EXTRA] = tuple(later for extra in extras for later in extra)
        for side in (first, second):
            declared = side.get("properties", {})
            if side.get(_EXTRA) is False and any(
                name not in declared for name in out.get("required", ())
            ):
                raise _Empty  # a required name that this side takes no value for


_HINT: Final = (
    "; json_schema=True sends the schema as it is, as parameters_json_schema, which newer "
    "Gemini models read"
)
_FREE_FORM: Final = (
    "an object without declared properties (a free-form map, such as dict[str, X]) has no "
    "Gemini form" + _HINT
)
_BOUNDS: Final = (
    ("minimum", "maximum"),
    ("min_length", "max_length"),
    ("min_items", "max_items"),
    ("min_properties", "max_properties"),
)


def _runs(values: list[int]) -> list[tuple[int, int]]:
    """Consecutive integers as (first, last) ranges, smallest first."""
    runs: list[tuple[int, int]] = []
    for value in sorted(set(values)):
        if runs and value == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], value)
        else:
            runs.append((value, value))
    return runs


def _typed(schema: Mapping[str, Any]) -> bool:
    return "type" in schema or "any_of" in schema


def _flat(branches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Branches with any nested ``any_of`` lifted into the list (and its null kept)."""
    out: list[dict[str, Any]] = []
    for branch in branches:
        if "any_of" in branch:
            out += _flat(branch["any_of"])
            if branch.get("nullable"):
                out.append({"type": "NULL"})
        else:
            out.append(branch)
    return out


def _for_type(fields: dict[str, Any], branch: Mapping[str, Any]) -> dict[str, Any]:
    """The ``fields`` that constrain a value of ``branch``'s type."""
    kind = branch.get("type")
    return {
        key: value
        for key, value in fields.items()
        if key not in _APPLIES or kind is None or kind in _APPLIES[key]
    }


def _disjoint(first: dict[str, Any], second: dict[str, Any]) -> bool:
    """Whether no value can match both schemas, where that is plain to see."""
    if _admits_null(first) and _admits_null(second):
        return False  # null matches both (``nullable``, or a ``NULL`` type)
    one, other = first.get("type"), second.get("type")
    if one is None or other is None:
        return False
    if one != other:
        return {one, other} != {"INTEGER", "NUMBER"}
    if one == "STRING" and "enum" in first and "enum" in second:
        return not set(first["enum"]) & set(second["enum"])
    if one in ("INTEGER", "NUMBER"):
        return bool(
            first.get("maximum", math.inf) < second.get("minimum", -math.inf)
            or second.get("maximum", math.inf) < first.get("minimum", -math.inf)
        )
    if one == "OBJECT":
        shared = set(first.get("required", ())) & set(second.get("required", ()))
        return any(
            _disjoint(first["properties"][name], second["properties"][name])
            for name in shared
            if name in first.get("properties", {}) and name in second.get("properties", {})
        )
    return False


def _admits_null(schema: dict[str, Any]) -> bool:
    return bool(schema.get("nullable")) or schema.get("type") == "NULL"


def _finish(schema: dict[str, Any]) -> None:
    """Move every ``format`` Gemini does not know for its type into the description.

    ``format`` annotates in JSON Schema (no value's validity depends on it),
    and Gemini refuses formats it does not know, so the note is kept in words.
    What joins needed of ``additionalProperties`` is let go.
    """
    schema.pop(_EXTRA, None)
    fmt = schema.get("format")
    if fmt is not None and fmt not in _FORMATS.get(schema.get("type", ""), ()):
        del schema["format"]
        description = schema.get("description")
        note = f"format: {fmt}"
        schema["description"] = f"{description} ({note})" if description else note
    for value in schema.get("properties", {}).values():
        _finish(value)
    if "items" in schema:
        _finish(schema["items"])
    for branch in schema.get("any_of", ()):
        _finish(branch)
