"""A minimal valid instance of an SDK's model, made from its annotations.

tests/test_keepup.py reads one of every kind an SDK names, and the kinds
are found at run time, so their instances cannot be written out by hand:
:func:`build` fills each required field of a pydantic model (or a
TypedDict) from its annotation, and :func:`build_shape` each required
member of a botocore shape. Strings are ``"x"``, integers ``0`` (an index,
a count), floats ``1.0``, a ``Literal`` its first value, an enum its first member, a list or a dict
empty, a union its first member that is not ``None``; a call's
``arguments`` are ``"{}"``, JSON as the wire has them.
"""

from __future__ import annotations

import enum
import types
import typing
from typing import Any

_LEAVES: dict[Any, Any] = {str: "x", int: 0, float: 1.0, bool: False, bytes: b"x"}

# Strings that must hold JSON, by the field's name: a call's arguments.
_JSON_STRINGS = frozenset({"arguments"})


def value_for(tp: Any, depth: int = 0) -> Any:
    """A small value of type ``tp``, as plain data or SDK objects."""
    if depth > 12:
        raise AssertionError(f"no finite value for {tp!r}")
    if tp in _LEAVES:
        return _LEAVES[tp]
    if tp is Any or tp is object:
        return "x"
    if hasattr(tp, "__value__"):
        return value_for(tp.__value__, depth + 1)
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        return value_for(args[0], depth + 1)
    if origin is typing.Literal:
        return args[0]
    if origin is typing.Union or origin is types.UnionType:
        choices = [arg for arg in args if arg is not type(None)]
        return value_for(choices[0], depth + 1)
    if origin in (list, tuple, set, frozenset) or _is_abc(origin, "Sequence", "Iterable"):
        return []
    if origin is dict or _is_abc(origin, "Mapping"):
        return {}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return next(iter(tp))
    if isinstance(tp, type) and hasattr(tp, "model_fields"):
        return build(tp, depth=depth + 1)
    if typing.is_typeddict(tp):
        hints = typing.get_type_hints(tp)
        return {name: value_for(hints[name], depth + 1) for name in tp.__required_keys__}
    if isinstance(tp, type) and issubclass(tp, str):  # an SDK's open string (UnrecognizedStr)
        return "x"
    raise AssertionError(f"no value for {tp!r}")


def _is_abc(origin: Any, *names: str) -> bool:
    return origin is not None and getattr(origin, "__name__", "") in names


def build(model: type[Any], depth: int = 0, **given: Any) -> Any:
    """An instance of the pydantic ``model`` with its required fields filled, and ``given``."""
    fields = {
        info.alias or name: "{}" if name in _JSON_STRINGS else value_for(info.annotation, depth)
        for name, info in model.model_fields.items()
        if info.is_required() and name not in given
    }
    return model(**fields, **given)


def build_shape(shape: Any, depth: int = 0) -> Any:
    """A value of the botocore ``shape``, as boto3 hands it (bytes for blobs)."""
    if depth > 12:
        raise AssertionError(f"no finite value for {shape.name}")
    kind = shape.type_name
    if kind == "structure":
        if shape.is_document_type:
            return {}
        if shape.metadata.get("union"):
            first = next(iter(shape.members))
            return {first: build_shape(shape.members[first], depth + 1)}
        required = shape.metadata.get("required", [])
        return {name: build_shape(shape.members[name], depth + 1) for name in required}
    if kind == "string":
        return shape.enum[0] if shape.enum else "x"
    if kind in ("integer", "long"):
        return 0
    if kind in ("float", "double"):
        return 1.0
    if kind == "boolean":
        return False
    if kind == "blob":
        return b"x"
    if kind == "list":
        return []
    if kind == "map":
        return {}
    if kind == "timestamp":
        return "2026-01-01T00:00:00Z"
    raise AssertionError(f"no value for the {kind} shape {shape.name}")
