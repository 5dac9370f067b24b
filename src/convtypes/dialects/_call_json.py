"""A tool call that a model wrote as JSON, into a ``ToolCall``.

The families that wrap a call in JSON (Hermes' ``{"name", "arguments"}``,
Llama's ``{"name", "parameters"}``, Mistral's list of ``{"name",
"arguments", "id"}``) agree on the shape, and so on how to read it: a
``name`` that is text, arguments that are an object (or, as some models
write them, a JSON string of one), an optional ``id`` that is text.
Arguments keep their key order and integers of any size; msgspec decodes
them, after their nesting is checked, as everywhere in convtypes.

Each refusal is an :class:`OutputError` at ``offset``, the start of the call
in the generation.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from .._errors import WireError
from .._jsonvalue import ARGUMENTS_DEPTH
from .._messages import ToolCall
from .._nesting import excess_depth
from ._json import parse_arguments
from ._template_errors import OutputError

_DECODER: Final = msgspec.json.Decoder()


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


def to_call(value: object, offset: int, key: str, aliases: tuple[str, ...] = ()) -> ToolCall:
    """A call from its JSON object: ``name``, arguments under ``key`` (or an alias), ``id``."""
    if not isinstance(value, dict):
        raise OutputError("a tool call is not a JSON object", offset)
    name = value.get("name")
    if not isinstance(name, str) or not name:
        raise OutputError("a tool call has no name", offset)
    arguments: Any = {}
    for candidate in (key, *aliases):
        if candidate in value:
            arguments = value[candidate]
            break
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
    return build(call_id, name, arguments, offset)


def build(call_id: str | None, name: str, arguments: dict[str, Any], offset: int) -> ToolCall:
    """The ``ToolCall``; arguments it cannot hold (nested past the limit) are refused."""
    try:
        return ToolCall(id=call_id, name=name, arguments=arguments)
    except WireError as err:
        raise OutputError(f"tool call {name!r:.60} cannot be kept: {err}", offset) from None


def is_llama_call(value: object) -> bool:
    """Whether a JSON value is shaped as a Llama call rather than an answer that is JSON."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("name"), str)
        and ("parameters" in value or "arguments" in value)
    )
