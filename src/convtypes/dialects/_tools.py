"""Tool definitions: one value for a tool, spelled per provider by each dialect.

A :class:`ToolSpec` holds what every provider needs to offer a tool to the
model: its name, what it does, and a JSON Schema of its arguments. Each
dialect's ``tools_to_request`` turns a list of them, with a tool choice,
into the request fields that provider reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, Final, Literal, Union

from msgspec import Struct, field

from .._canonical import json_equal
from .._errors import MAX_DEPTH, WireError
from .._hashing import hash_json
from .._jsonvalue import check_json
from ._errors import DialectError, short

__all__ = ["ToolChoice", "ToolSchemaError", "ToolSpec"]

ToolChoice = Union[Literal["auto", "none", "required"], str]
"""How the model may use the tools.

``"auto"``: it decides; ``"none"``: it must not call any; ``"required"``:
it must call at least one; any other string: it must call the tool of that
name, which must be among the tools given.
"""

CHOICE_WORDS: Final = ("auto", "none", "required")


def _object_schema() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


class ToolSpec(Struct, frozen=True, kw_only=True):
    """A tool the model may call: ``name``, ``description`` and a JSON Schema.

    ``parameters`` is the JSON Schema of the call's arguments object, as
    pydantic's ``model_json_schema()`` or an MCP server's ``inputSchema``
    gives it; it defaults to an object with no properties, for a tool that
    takes no arguments. The schema is kept as given; each dialect translates
    it for its provider when it builds the request, and raises
    :class:`ToolSchemaError` where that would change its meaning.

    A spec is checked when built: ``name`` is non-empty text, ``description``
    is text, and ``parameters`` is a JSON object (JSON types only, finite
    numbers, nested within :data:`~convtypes.MAX_DEPTH`). Anything else is a
    ``TypeError`` or ``ValueError`` naming the field.
    """

    name: str
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=_object_schema)

    def __post_init__(self) -> None:
        if type(self.name) is not str:
            raise TypeError(f"ToolSpec.name must be a str, not {type(self.name).__name__}")
        if not self.name:
            raise ValueError("ToolSpec.name must not be empty")
        if type(self.description) is not str:
            raise TypeError(
                f"ToolSpec.description must be a str, not {type(self.description).__name__}"
            )
        if not isinstance(self.parameters, dict):
            raise TypeError(
                "ToolSpec.parameters must be a JSON Schema object (a dict), "
                f"not {type(self.parameters).__name__}"
            )
        try:
            check_json(self.parameters, MAX_DEPTH, "parameters")
        except WireError as err:
            raise ValueError(f"ToolSpec.parameters is not JSON: {err}") from None

    def __eq__(self, other: object) -> bool:
        # The schema compares as JSON compares (see convtypes._canonical).
        if type(other) is not ToolSpec:
            return NotImplemented
        return (
            self.name == other.name
            and self.description == other.description
            and json_equal(self.parameters, other.parameters)
        )

    def __hash__(self) -> int:
        # The schema is a dict, which Python does not hash (see convtypes._hashing).
        return hash((ToolSpec, self.name, self.description, hash_json(self.parameters)))


class ToolSchemaError(DialectError):
    """A tool or tool choice a provider cannot take as it is.

    ``tool`` names the tool (``None`` for a wrong tool choice), and ``path``
    is where in its schema the trouble is, as a JSON Pointer (``""`` for the
    schema itself, ``"/properties/when/anyOf/1"`` deeper in).
    """

    def __init__(self, text: str, tool: str | None = None, path: str = "") -> None:
        super().__init__(text, None)
        self.tool = tool
        self.path = path


def pointer(parts: Iterable[str | int]) -> str:
    """A JSON Pointer (RFC 6901) for a path of keys and indices."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


_NAME: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
_NOT_IN_NAME: Final = re.compile(r"[^A-Za-z0-9_-]")


def spelled_name(name: str) -> str:
    """A call's tool name as an API that checks it takes it: each refused character ``_``.

    Letters, digits, ``_`` and ``-``, at most 64: the rule ``checked_tools``
    offers tools by. A call another provider made may have a name outside
    it (Gemini takes dots and colons, Anthropic 128 characters), and the
    APIs that check the names of calls in the history refuse it there.
    """
    if _NAME.fullmatch(name) is not None:
        return name
    return _NOT_IN_NAME.sub("_", name)[:64] or "_"


def checked_tools(
    tools: Iterable[ToolSpec], choice: object, dialect: str, name_rule: re.Pattern[str] = _NAME
) -> tuple[Sequence[ToolSpec], str | None]:
    """The tools as a list, checked, and the chosen tool's name (``None`` for a word).

    Refuses (:class:`ToolSchemaError`) what is not a ``ToolSpec``, a name the
    provider does not take (``name_rule``, by default letters, digits, ``_``
    and ``-``, at most 64), a name given twice, and a choice that is neither
    one of the words nor the name of a tool given.
    """
    if isinstance(tools, (str, bytes, dict, ToolSpec)):
        raise TypeError(f"tools must be a list of ToolSpec, not {type(tools).__name__}")
    specs = list(tools)
    seen: set[str] = set()
    for position, spec in enumerate(specs):
        if not isinstance(spec, ToolSpec):
            raise TypeError(f"tools[{position}] is a {type(spec).__name__}, not a ToolSpec")
        if name_rule.fullmatch(spec.name) is None:
            raise ToolSchemaError(
                f"tool {spec.name!r:.80}: {dialect} takes tool names matching {name_rule.pattern}",
                spec.name,
            )
        if spec.name in seen:
            raise ToolSchemaError(f"tool {spec.name!r}: given twice", spec.name)
        seen.add(spec.name)
    if type(choice) is not str:
        raise TypeError(
            f'choice must be "auto", "none", "required" or a tool\'s name, not {choice!r:.80}'
        )
    if choice in CHOICE_WORDS:
        if choice == "required" and not specs:
            raise ToolSchemaError('choice="required" needs at least one tool')
        return specs, None
    if choice not in seen:
        raise ToolSchemaError(
            f'choice={choice!r:.80} is neither "auto", "none", "required" nor the name of '
            "a tool given"
        )
    return specs, choice


# What may stand beside a root ``$ref`` for it to be inlined without a change
# of meaning (pydantic writes a recursive model's schema this way).
_BESIDE_ROOT_REF: Final = frozenset({"$ref", "$defs", "definitions", "$schema", "title"})


def object_parameters(spec: ToolSpec, dialect: str) -> dict[str, Any]:
    """The tool's schema with an object schema at its root, for the OpenAI APIs.

    A function's arguments are always an object, and OpenAI refuses any
    other root, a root with no ``type`` among them. So a root that is only
    a reference to one of its own definitions (a recursive pydantic model)
    is replaced by that definition, the definitions kept beside it for the
    references inside; a root with no ``type`` gets ``"type": "object"``;
    and a root of another type raises :class:`ToolSchemaError`.
    """
    schema = spec.parameters
    ref = schema.get("$ref")
    if isinstance(ref, str) and set(schema) <= _BESIDE_ROOT_REF:
        target = _definition(schema, ref)
        if target is None:
            raise ToolSchemaError(
                f"tool {spec.name!r}: the root $ref {short(ref)} names no definition "
                "inside the schema",
                spec.name,
                pointer(["$ref"]),
            )
        schema = {**target, **{k: v for k, v in schema.items() if k not in target and k != "$ref"}}
    if "type" not in schema:
        return {"type": "object", **schema}
    if schema["type"] != "object":
        raise ToolSchemaError(
            f"tool {spec.name!r}: {dialect} takes only an object schema at the root of a "
            f"function's parameters, not type {short(schema['type'])}",
            spec.name,
            pointer(["type"]),
        )
    return schema


def _definition(schema: dict[str, Any], ref: str) -> dict[str, Any] | None:
    """The definition a local ``#/$defs/Name`` (or ``#/definitions/Name``) names."""
    for prefix in ("#/$defs/", "#/definitions/"):
        if ref.startswith(prefix):
            defs = schema.get(prefix[2:-1])
            name = ref[len(prefix) :].replace("~1", "/").replace("~0", "~")
            target = defs.get(name) if isinstance(defs, dict) else None
            return target if isinstance(target, dict) else None
    return None
