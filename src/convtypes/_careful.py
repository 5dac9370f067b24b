"""The careful path: documents the fast decoder could not finish.

The codec's decoders are msgspec decoders built for the common document: a
current-schema document whose free-form JSON is shallow. They stop on
anything else, and the codec sends the document here:

- a field, role, block type or provenance this version does not know;
- free-form JSON nested deeper than the fast decoder follows;
- nesting the interpreter itself refused (a deep value msgspec skipped).

This path first checks the nesting on the bytes, so that the reference's
limit is enforced before msgspec recurses; then reads the document as plain
JSON and builds the values one object at a time, through the same checks as
values built in Python:

- strict (the default) drops unknown fields, as the reference does, and
  refuses unknown roles, block types and provenance values;
- lenient keeps them: unknown fields ride on a carrier of their value (see
  ``_value``), unknown roles and block types become :class:`UnknownMessage`
  and :class:`UnknownBlock`, and an unknown provenance is kept as a
  provenance that fails closed.
"""

from __future__ import annotations

from types import UnionType
from typing import Any, Final, Union, get_args, get_origin

import msgspec

from ._content import CONTENT_BLOCK_TYPES, ContentBlock
from ._errors import MAX_DEPTH, Tags, WireError, explain_validation, from_msgspec, too_deep
from ._locate import format_path
from ._messages import (
    MESSAGE_TYPES,
    AssistantMessage,
    Message,
    ProviderOutputItemsMessage,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    UserMultimodalMessage,
)
from ._nesting import as_bytes, excess_depth
from ._provenance import WIRE_VALUES, from_wire
from ._unknown import UnknownBlock, UnknownMessage
from ._value import known_tags, rebuild

__all__ = ["TAGS", "check_nesting", "decode_carefully", "depth_limit", "tags_of", "value_classes"]

TAGS: Final[Tags] = {"role": known_tags("role"), "type": known_tags("type")}
"""Every role and block type this version knows, for error messages."""

_GENERIC: Final = msgspec.json.Decoder()
_ENCODE: Final = msgspec.json.Encoder()


def _tag_of(cls: type[Any]) -> tuple[str | None, str | None]:
    config = cls.__struct_config__
    tag = config.tag if isinstance(config.tag, str) else None
    return config.tag_field, tag


_ROLES: Final = {_tag_of(cls)[1]: cls for cls in MESSAGE_TYPES}
_BLOCKS: Final = {_tag_of(cls)[1]: cls for cls in CONTENT_BLOCK_TYPES}
# Free-form JSON fields, and what stands in for them while msgspec checks the
# rest of their object (the value types decode only shallow JSON).
_FREE_FORM: Final[dict[type[Any], tuple[str, Any]]] = {
    ToolCall: ("arguments", {}),
    ProviderOutputItemsMessage: ("items", []),
}


def value_classes(target: Any) -> tuple[type[Any], ...] | None:
    """The classes a decode target names: one value class, or a union of them.

    A union must hold message classes only or block classes only, since the
    two are tagged on different fields. ``None`` for anything else.
    """
    if isinstance(target, type):
        return (target,) if target in MESSAGE_TYPES or target in CONTENT_BLOCK_TYPES else None
    if get_origin(target) not in (Union, UnionType):
        return None
    members = get_args(target)
    for family in (MESSAGE_TYPES, CONTENT_BLOCK_TYPES):
        if all(member in family for member in members):
            return members
    return None


def decode_carefully(data: Any, target: Any, lenient: bool) -> Any:
    """Decode ``data`` as ``target`` one object at a time (see the module doc).

    ``target`` is ``"messages"``, ``"message"``, ``ContentBlock``, one of
    the value classes, or a union of message or block classes (see
    :func:`value_classes`).
    """
    check_nesting(data, depth_limit(target))
    try:
        raw = _GENERIC.decode(data)
    except Exception as exc:
        raise from_msgspec(exc, data, TAGS) from None
    if target == "messages":
        return [_message(m, lenient, [i]) for i, m in enumerate(_sequence(raw, []))]
    if target == "message":
        return _message(raw, lenient, [])
    if target is ContentBlock:
        return _block(raw, lenient, [])
    classes = value_classes(target)
    if classes is not None:
        messages = classes[0] in MESSAGE_TYPES
        value = _message(raw, lenient, []) if messages else _block(raw, lenient, [])
        if not isinstance(value, classes):
            try:
                msgspec.convert(raw, target)  # raises the tag error
            except msgspec.ValidationError as exc:
                raise _fail(exc, [], tags_of(classes)) from None
        return value
    return _build(target, _expect_object(raw, []), {}, lenient, [])


def depth_limit(target: Any) -> int:
    """How deep a document read as ``target`` may nest.

    A transcript may nest as deep as the reference reads. Anything else is
    held to the levels it would have left inside a transcript: a message
    stands one level down, a block, tool call or thinking block three. So
    every value read can be written into a transcript that the reference
    reads back.
    """
    if target == "messages":
        return MAX_DEPTH
    classes = value_classes(target)
    if target == "message" or (classes is not None and classes[0] in MESSAGE_TYPES):
        return MAX_DEPTH - 1
    return MAX_DEPTH - 3


def tags_of(classes: tuple[type[Any], ...]) -> Tags:
    """The tag values of ``classes`` (all tagged on one field), for an error message."""
    config = classes[0].__struct_config__
    return {config.tag_field: tuple(cls.__struct_config__.tag for cls in classes)}


def check_nesting(data: Any, limit: int) -> None:
    """Raise the first problem of ``data`` if it nests deeper than ``limit`` levels.

    The error names the first level over ``limit`` (see :func:`depth_limit`),
    or a syntax error that comes before it.
    """
    found = excess_depth(data, limit)
    if found is not None:
        raise _first_problem(data, *found)


def _first_problem(data: Any, offset: int, path: str) -> WireError:
    """The error for a document that nests too deep at ``offset``.

    A reader going front to back stops at whichever problem comes first, so
    a syntax error before that point wins. The part before it nests within
    the limit, so msgspec may safely read it to find out.
    """
    head = as_bytes(data)[:offset]
    try:
        _GENERIC.decode(head)
    except msgspec.DecodeError as exc:
        earlier = from_msgspec(exc, head, TAGS)
        if earlier.offset is not None and earlier.offset < offset:
            return earlier
    except Exception:  # pragma: no cover - a cut document never decodes whole
        pass
    return too_deep(path, offset)


def _fail(exc: msgspec.ValidationError, where: list[str | int], tags: Tags = TAGS) -> WireError:
    text = str(exc)
    what, _, inner = text.partition(" - at `")
    inner = inner.rstrip("`") or "$"
    reason, path = explain_validation(what, inner, tags)
    return WireError(reason, format_path(where) + path[1:])


def _moved(err: WireError, where: list[str | int]) -> WireError:
    """``err``, raised inside a value, with its path made to start at ``where``."""
    return WireError(err.reason, format_path(where) + err.path[1:])


_JSON_KIND: Final = {list: "array", str: "str", int: "int", float: "float", bool: "bool"}


def _expect_object(value: Any, where: list[str | int]) -> dict[str, Any]:
    if not isinstance(value, dict):
        got = _JSON_KIND.get(type(value), "null")
        raise WireError(f"expected object, got {got}", format_path(where))
    return value


def _sequence(value: Any, where: list[str | int]) -> list[Any]:
    if not isinstance(value, list):
        kind = "object" if isinstance(value, dict) else _JSON_KIND.get(type(value), "null")
        raise WireError(f"expected array, got {kind}", format_path(where))
    return value


def _build(
    cls: type[Any],
    obj: dict[str, Any],
    nested: dict[str, Any],
    lenient: bool,
    where: list[str | int],
) -> Any:
    """Make a ``cls`` from ``obj``, with ``nested`` fields already built."""
    tag_field, _ = _tag_of(cls)
    known = cls.__struct_fields__
    plain = {k: v for k, v in obj.items() if k in known or k == tag_field}
    extras = {k: v for k, v in obj.items() if k not in known and k != tag_field}
    given: dict[str, Any] = {name: built for name, built in nested.items() if name in plain}
    free = _FREE_FORM.get(cls)
    if free is not None and free[0] in plain:
        given[free[0]] = plain[free[0]]
    if lenient and cls is ToolResultMessage:
        provenance = plain.get("provenance")
        if type(provenance) is str and provenance not in WIRE_VALUES:
            given["provenance"] = from_wire(provenance)
    # Let msgspec check the rest in C; what is built here stands in as empty.
    for name in given:
        plain[name] = free[1] if free is not None and name == free[0] else []
    if "provenance" in given:
        plain["provenance"] = "internal"
    try:
        checked = msgspec.convert(plain, cls)
    except msgspec.ValidationError as exc:
        raise _fail(exc, where) from None
    fields = {name: getattr(checked, name) for name in known}
    fields.update(given)
    try:
        if lenient and extras:
            return rebuild(cls, fields, extras)
        return cls(**fields)
    except WireError as err:
        raise _moved(err, where) from None


def _block(obj: Any, lenient: bool, where: list[str | int]) -> Any:
    obj = _expect_object(obj, where)
    kind = obj.get("type")
    cls = _BLOCKS.get(kind)
    if cls is None:
        if lenient and type(kind) is str:
            return _unknown(UnknownBlock, kind, obj, where)
        try:
            msgspec.convert(obj, ContentBlock)
        except msgspec.ValidationError as exc:
            raise _fail(exc, where) from None
    return _build(cls, obj, {}, lenient, where)  # type: ignore[arg-type]


def _unknown(cls: type[Any], tag: str, obj: dict[str, Any], where: list[str | int]) -> Any:
    try:
        if cls is UnknownBlock:
            return UnknownBlock(type=tag, raw=_ENCODE.encode(obj))
        return UnknownMessage(role=tag, raw=_ENCODE.encode(obj))
    except WireError as err:
        raise _moved(err, where) from None


def _message(obj: Any, lenient: bool, where: list[str | int]) -> Any:
    obj = _expect_object(obj, where)
    role = obj.get("role")
    cls = _ROLES.get(role)
    if cls is None:
        if lenient and type(role) is str:
            return _unknown(UnknownMessage, role, obj, where)
        try:
            msgspec.convert(obj, Message)
        except msgspec.ValidationError as exc:
            raise _fail(exc, where) from None
    nested: dict[str, Any] = {}
    if cls is UserMultimodalMessage and "content" in obj:
        blocks = _sequence(obj["content"], [*where, "content"])
        nested["content"] = [
            _block(b, lenient, [*where, "content", i]) for i, b in enumerate(blocks)
        ]
    elif cls is AssistantMessage:
        for name, kind in (("tool_calls", ToolCall), ("thinking", ThinkingBlock)):
            if name in obj and obj[name] is not None:
                items = _sequence(obj[name], [*where, name])
                nested[name] = [
                    _build(
                        kind, _expect_object(x, [*where, name, i]), {}, lenient, [*where, name, i]
                    )
                    for i, x in enumerate(items)
                ]
    return _build(cls, obj, nested, lenient, where)  # type: ignore[arg-type]
