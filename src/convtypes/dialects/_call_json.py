"""A tool call that a model wrote as JSON, into its name, arguments and id.

The families that wrap a call in JSON (Hermes' ``{"name", "arguments"}``,
Llama's ``{"name", "parameters"}``, Mistral's list of ``{"name",
"arguments", "id"}``, Granite's, Nemotron's...) agree on the shape, and so on
how to read it: a ``name`` that is text, arguments that are an object (or,
as some models write them, a JSON string of one) under ``arguments``,
``parameters`` or ``args``, an optional ``id`` that is text and an optional
``type``. A key beyond those is refused rather than dropped: it is most
likely the arguments under a name nobody foresaw, and a call read without
them would run with none. Arguments keep their key order and integers of
any size; msgspec decodes them, after their nesting is checked, as
everywhere in convtypes.

Each refusal is an :class:`OutputError` at ``offset``, the start of the call
in the generation.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from .._jsonvalue import ARGUMENTS_DEPTH
from .._nesting import excess_depth
from ._json import parse_arguments
from ._template_errors import OutputError

_DECODER: Final = msgspec.json.Decoder()

ARGUMENT_KEYS: Final = ("arguments", "parameters", "args")
"""Where the families put a call's arguments, in the order they are looked for."""

_KEYS: Final = frozenset({"name", "id", "type", *ARGUMENT_KEYS})


def decode(raw: str, offset: int, levels: int = 2) -> Any:
    """JSON text that holds a call (``levels`` deep to its arguments object) as a value."""
    if excess_depth(raw, ARGUMENTS_DEPTH + levels) is not None:
        raise OutputError("the tool call nests too deeply to keep", offset)
    try:
        return _DECODER.decode(raw)
    except msgspec.DecodeError as err:
        raise OutputError(f"the tool call is not valid JSON ({err})", offset) from None


def decode_quietly(raw: str) -> Any:
    """``raw`` decoded, or ``None`` if it is not JSON: for text that may be prose."""
    if excess_depth(raw, ARGUMENTS_DEPTH + 2) is not None:
        return None
    try:
        return _DECODER.decode(raw)
    except msgspec.DecodeError:
        return None


def read_call(value: object, offset: int) -> tuple[str, dict[str, Any], str | None]:
    """``(name, arguments, id)`` of a call's JSON object."""
    if not isinstance(value, dict):
        raise OutputError("a tool call is not a JSON object", offset)
    name = value.get("name")
    if not isinstance(name, str) or not name:
        raise OutputError("a tool call has no name", offset)
    if not value.keys() <= _KEYS:
        extra = [key for key in value if key not in _KEYS]
        raise OutputError(
            f"tool call {name!r:.60} has a key {extra[0]!r:.40} that a call does not have "
            "(expected name, arguments, parameters or args, id, type)",
            offset,
        )
    given = [key for key in ARGUMENT_KEYS if key in value]
    if len(given) > 1:
        raise OutputError(
            f"tool call {name!r:.60} has arguments under both {given[0]!r} and {given[1]!r}",
            offset,
        )
    arguments: Any = value[given[0]] if given else {}
    if isinstance(arguments, str):
        # Some models write the arguments as a JSON string of the object.
        try:
            arguments = parse_arguments(arguments)
        except ValueError as err:
            raise OutputError(
                f"the arguments of tool call {name!r:.60} cannot be read: {err}", offset
            ) from None
    if not isinstance(arguments, dict):
        raise OutputError(f"the arguments of tool call {name!r:.60} are not a JSON object", offset)
    call_id = value.get("id")
    if call_id is not None and not isinstance(call_id, str):
        raise OutputError(f"tool call {name!r:.60} has an id that is not text", offset)
    kind = value.get("type")
    if kind is not None and not isinstance(kind, str):
        raise OutputError(f"tool call {name!r:.60} has a type that is not text", offset)
    return name, arguments, call_id


def is_bare_call(value: object) -> bool:
    """Whether a JSON value is shaped as a call rather than an answer that is JSON.

    For the families that write a call bare, as the whole answer (Llama),
    only the shape tells: a ``name`` that is text, arguments under one of
    the keys, and no key a call does not have.
    """
    return (
        isinstance(value, dict)
        and isinstance(value.get("name"), str)
        and any(key in value for key in ARGUMENT_KEYS)
        and all(key in _KEYS for key in value)
    )
