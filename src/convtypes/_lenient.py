"""The careful path: documents with fields or variants this version does not know.

Every value type refuses unknown fields inside msgspec (``forbid_unknown_fields``),
so a document in the current schema decodes at full speed in either mode, and
only a document carrying something unknown comes here. This path reads the
document as plain JSON and builds the values one object at a time:

- strict (the default) drops unknown fields, as the reference does, and
  refuses unknown roles and block types;
- lenient keeps them: unknown fields stay on the value they came with and are
  written back after the known ones, and unknown roles and block types become
  :class:`UnknownMessage` and :class:`UnknownBlock`.

A value that carries unknown fields, or holds one that does, is an instance
of a private subclass of its public class (``isinstance`` and ``match`` work
as usual); its unknown fields are kept beside the Struct's own fields, and
:func:`encode_with_unknowns` splices them back into the bytes.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from ._content import CONTENT_BLOCK_TYPES, ContentBlock
from ._errors import WireError
from ._locate import format_path
from ._messages import (
    MESSAGE_TYPES,
    AssistantMessage,
    Message,
    ThinkingBlock,
    ToolCall,
    UserMultimodalMessage,
)
from ._unknown import UnknownBlock, UnknownMessage

__all__ = ["EXTRA_TYPES", "decode_slowly", "encode_with_unknowns", "unknown_fields"]

_EXTRAS = "_convtypes_unknown_fields"


def _tag_of(cls: type[Any]) -> tuple[str | None, str | None]:
    config = cls.__struct_config__
    tag = config.tag if isinstance(config.tag, str) else None
    return config.tag_field, tag


_ROLES: Final = {_tag_of(cls)[1]: cls for cls in MESSAGE_TYPES}
_BLOCKS: Final = {_tag_of(cls)[1]: cls for cls in CONTENT_BLOCK_TYPES}


def _subclass(cls: type[Any]) -> type[Any]:
    _, tag = _tag_of(cls)
    options: dict[str, Any] = {"frozen": True, "dict": True, "gc": True}
    if tag is not None:
        options["tag"] = tag
    # dict=True gives each instance a __dict__ that msgspec never encodes:
    # the place to keep unknown fields. It needs gc=True.
    metaclass: Any = type(cls)
    made: type[Any] = metaclass(
        f"{cls.__name__}WithUnknownFields", (cls,), {"__module__": cls.__module__}, **options
    )
    return made


_WITH_UNKNOWNS: Final = {
    cls: _subclass(cls) for cls in (*MESSAGE_TYPES, *CONTENT_BLOCK_TYPES, ToolCall, ThinkingBlock)
}
_PUBLIC: Final = {sub: cls for cls, sub in _WITH_UNKNOWNS.items()}
EXTRA_TYPES: Final = frozenset(_WITH_UNKNOWNS.values())


def _announce() -> None:
    # Tell the encoder which classes need the careful path from now on.
    from . import _wire

    _wire.EXTRA_TYPES = EXTRA_TYPES


_announce()


def unknown_fields(value: object) -> dict[str, Any]:
    """The unknown fields lenient decoding kept on ``value`` (a copy; empty if none)."""
    if type(value) in EXTRA_TYPES:
        return dict(value.__dict__.get(_EXTRAS, {}))
    return {}


# ------------------------------------------------------------------ decoding


def _fail(exc: msgspec.ValidationError, where: list[str | int]) -> WireError:
    from ._wire import _explain_validation

    text = str(exc)
    what, _, inner = text.partition(" - at `")
    inner = inner.rstrip("`") or "$"
    reason, path = _explain_validation(what, inner)
    return WireError(reason, format_path(where) + path[1:])


def _expect_object(value: Any, where: list[str | int]) -> dict[str, Any]:
    if not isinstance(value, dict):
        got = {list: "array", str: "str", int: "int", float: "float", bool: "bool"}
        raise WireError(f"expected object, got {got.get(type(value), 'null')}", format_path(where))
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
    known = set(cls.__struct_fields__)
    plain = {k: v for k, v in obj.items() if k in known or k == tag_field}
    extras = {k: v for k, v in obj.items() if k not in known and k != tag_field}
    # Validate the plain fields in C; nested fields stand in as empty arrays.
    for name in nested:
        if name in plain:
            plain[name] = []
    try:
        value = msgspec.convert(plain, cls)
    except msgspec.ValidationError as exc:
        raise _fail(exc, where) from None
    carries = lenient and (extras or any(_holds_unknowns(v) for v in nested.values()))
    target = _WITH_UNKNOWNS[cls] if carries else cls
    fields = {name: getattr(value, name) for name in cls.__struct_fields__}
    fields.update({name: built for name, built in nested.items() if name in plain})
    result = target(**fields)
    if carries:
        result.__dict__[_EXTRAS] = extras
    return result


def _holds_unknowns(value: Any) -> bool:
    if type(value) is tuple:
        return any(type(item) in EXTRA_TYPES or type(item) is UnknownBlock for item in value)
    return type(value) in EXTRA_TYPES


def _block(obj: Any, lenient: bool, where: list[str | int]) -> Any:
    obj = _expect_object(obj, where)
    cls = _BLOCKS.get(obj.get("type"))
    if cls is None:
        if lenient and isinstance(obj.get("type"), str):
            return UnknownBlock(obj["type"], msgspec.json.encode(obj))
        try:
            msgspec.convert(obj, ContentBlock)
        except msgspec.ValidationError as exc:
            raise _fail(exc, where) from None
    return _build(cls, obj, {}, lenient, where)  # type: ignore[arg-type]


def _sequence(value: Any, where: list[str | int]) -> list[Any]:
    if not isinstance(value, list):
        kind = "object" if isinstance(value, dict) else type(value).__name__
        raise WireError(f"expected array, got {kind}", format_path(where))
    return value


def _message(obj: Any, lenient: bool, where: list[str | int]) -> Any:
    obj = _expect_object(obj, where)
    role = obj.get("role")
    cls = _ROLES.get(role)
    if cls is None:
        if lenient and isinstance(role, str):
            return UnknownMessage(role, msgspec.json.encode(obj))
        try:
            msgspec.convert(obj, Message)
        except msgspec.ValidationError as exc:
            raise _fail(exc, where) from None
    nested: dict[str, Any] = {}
    if cls is UserMultimodalMessage and "content" in obj:
        blocks = _sequence(obj["content"], [*where, "content"])
        nested["content"] = tuple(
            _block(b, lenient, [*where, "content", i]) for i, b in enumerate(blocks)
        )
    elif cls is AssistantMessage:
        for name, kind in (("tool_calls", ToolCall), ("thinking", ThinkingBlock)):
            if name in obj and obj[name] is not None:
                items = _sequence(obj[name], [*where, name])
                nested[name] = tuple(
                    _build(
                        kind, _expect_object(x, [*where, name, i]), {}, lenient, [*where, name, i]
                    )
                    for i, x in enumerate(items)
                )
    return _build(cls, obj, nested, lenient, where)  # type: ignore[arg-type]


def decode_slowly(data: Any, target: Any, lenient: bool) -> Any:
    """Decode ``data`` as ``target`` one object at a time (see the module doc).

    ``target`` is ``"messages"``, ``"message"``, ``ContentBlock`` or one of
    the value classes.
    """
    raw = msgspec.json.decode(data)
    if target == "messages":
        return [_message(m, lenient, [i]) for i, m in enumerate(_sequence(raw, []))]
    if target == "message":
        return _message(raw, lenient, [])
    if target is ContentBlock:
        return _block(raw, lenient, [])
    if target in MESSAGE_TYPES or target in CONTENT_BLOCK_TYPES:
        value = _message(raw, lenient, []) if target in MESSAGE_TYPES else _block(raw, lenient, [])
        if not isinstance(value, target):
            try:
                msgspec.convert(raw, target)  # raises the tag error
            except msgspec.ValidationError as exc:
                raise _fail(exc, []) from None
        return value
    return _build(target, _expect_object(raw, []), {}, lenient, [])


# ------------------------------------------------------------------ encoding


def encode_with_unknowns(value: Any, encoder: msgspec.json.Encoder) -> bytes:
    """Bytes for a value that carries unknown fields: known fields in wire
    order as msgspec writes them, then the unknown fields in the order read."""
    if type(value) is list:
        parts = [
            msgspec.Raw(encode_with_unknowns(item, encoder)) if type(item) in EXTRA_TYPES else item
            for item in value
        ]
        return encoder.encode(parts)
    public = _PUBLIC[type(value)]
    fields = {name: getattr(value, name) for name in public.__struct_fields__}
    wire = msgspec.json.decode(encoder.encode(public(**fields)))
    for name, field_value in fields.items():
        if name in wire and type(field_value) is tuple and _holds_unknowns(field_value):
            wire[name] = [
                msgspec.Raw(encode_with_unknowns(item, encoder))
                if type(item) in EXTRA_TYPES
                else item
                for item in field_value
            ]
    for key, extra in value.__dict__.get(_EXTRAS, {}).items():
        wire.setdefault(key, extra)
    return encoder.encode(wire)
