"""A provider SDK's pydantic models, made strict: a field they do not declare is refused.

The ``mistralai`` models ignore unknown fields, and the ``cohere`` models
keep them as extras; either way, a request with a misspelt or invented key
would validate, and the API would then refuse or ignore it. So a value is
validated by the SDK's own model, and then walked beside what the model
made of it: every key of every object must be a field (or its alias) of
the model that object became. A union member the SDK keeps for types it
does not know (Mistral's ``Unknown...`` chunks, its ``UnrecognizedStr``
enum values) is refused too. This is a test helper, never shipped.
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel, TypeAdapter


class StrictError(AssertionError):
    """A value the SDK's model takes, but only by ignoring or guessing part of it."""


@functools.cache
def _adapter(kind: Any) -> TypeAdapter[Any]:
    return TypeAdapter(kind)


def strict_validate(kind: Any, data: Any) -> Any:
    """``data`` validated as ``kind`` (a model or any type), with nothing left unknown."""
    value = _adapter(kind).validate_python(data)
    check_known(value, data, "$")
    return value


def _field_names(model: type[BaseModel]) -> dict[str, str]:
    names: dict[str, str] = {}
    for name, info in model.model_fields.items():
        names[name] = name
        for alias in (info.alias, info.validation_alias):
            if isinstance(alias, str):
                names[alias] = name
    return names


def check_known(value: Any, data: Any, path: str) -> None:
    """Walk ``data`` beside ``value``, what the SDK made of it, refusing unknown keys."""
    if isinstance(value, BaseModel):
        model = type(value)
        if getattr(value, "is_unknown", False) is True or model.__name__.startswith("Unknown"):
            raise StrictError(f"{path}: a variant the SDK does not know ({model.__name__})")
        if not isinstance(data, dict):
            return  # the SDK took a model object as given
        names = _field_names(model)
        for key, item in data.items():
            if key not in names:
                raise StrictError(f"{path}: {model.__name__} has no field {key!r}")
            check_known(getattr(value, names[key]), item, f"{path}.{key}")
    elif isinstance(value, (list, tuple)):
        if isinstance(data, (list, tuple)) and len(data) == len(value):
            for number, (inner, item) in enumerate(zip(value, data, strict=True)):
                check_known(inner, item, f"{path}[{number}]")
    elif isinstance(value, dict):
        if isinstance(data, dict):
            for key, item in data.items():
                check_known(value.get(key), item, f"{path}.{key}")
    elif type(value).__name__ == "UnrecognizedStr":
        raise StrictError(f"{path}: {data!r} is not one of the values the SDK knows")
