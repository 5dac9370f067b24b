"""Reading an SDK's event object field by field, where that equals reading its dump.

A dialect reads an SDK object through its JSON dump (``_json.plain``): exact,
but on a stream the dump costs more than the reading, event after event. So
the events that come by the thousand (pieces of text, thinking and
arguments) are read from the object's fields instead, wherever the result
is the same as the dump's, and from the dump otherwise. The same means:

- the object is a pydantic (v2) model, and its class writes each field under
  its own name (no alias where the dump is by alias) and as it is (no
  serializer, no excluded or computed field): see :func:`fields`;
- a field is read only where the dump writes it: if the object was given it
  (``"name" in obj.__pydantic_fields_set__``, for a dump of what was set),
  or if it is not ``None`` (for google-genai's dump, which leaves out
  ``None``);
- an extra field named as a field read is what the dump writes there: such
  an object goes to the dump, and so does one with any extra field where
  the dialect reads every key of that part of the dump;
- only plain values are taken as they are (``str``, ``int``, ``bool``,
  ``None``, checked with ``type(...) is``, which a dump keeps unchanged); a
  model inside is read the same way, level by level.

Anything else (a field holding a dict where a model was expected, which the
SDKs' unvalidated constructors allow; a class with an alias; a rare event)
goes to the dump, so that a shortcut can only ever give what the dump gives.
The tests (``tests/test_stream_objects.py``) spoil objects every such way
and compare what each reads with what its dump reads.
"""

from __future__ import annotations

from typing import Any, Final

PLAIN: Final[set[type]] = set()
"""The classes met so far that dump by alias as :func:`fields` asks.

A hot path may test a class here itself (``type(obj) in PLAIN``, cheaper
than a call), and call :func:`fields` for one that is not (yet) in it.
"""
PLAIN_BY_NAME: Final[set[type]] = set()
"""The same, for a dump by field name (``by_alias=False``)."""
_CHECKED: Final[dict[tuple[type, bool], bool]] = {}

# pydantic's own markers for a field a serializer rewrites.
_SERIALIZERS: Final = frozenset({"PlainSerializer", "WrapSerializer"})


def fields(obj: object, by_alias: bool = True) -> dict[str, Any] | None:
    """``obj``'s field values by name, if reading them equals reading its dump.

    ``None`` for anything that is not a pydantic model whose class dumps its
    fields under their own names (``by_alias``: as a dump by alias names
    them), unchanged. What the object was *given* is
    ``obj.__pydantic_fields_set__``, which the caller checks for the fields it
    reads. The answer for a class is worked out once.
    """
    cls = type(obj)
    plain = _CHECKED.get((cls, by_alias))
    if plain is None:
        plain = _CHECKED[cls, by_alias] = _plain_class(cls, by_alias)
        if plain:
            (PLAIN if by_alias else PLAIN_BY_NAME).add(cls)
    return obj.__dict__ if plain else None


def declared(cls: type) -> dict[str, Any]:
    """The fields a pydantic model class declares, by name (empty for any other class)."""
    found = getattr(cls, "__pydantic_fields__", None) or getattr(cls, "model_fields", None)
    return found if isinstance(found, dict) else {}


def _plain_class(cls: type, by_alias: bool) -> bool:
    """Whether ``cls`` is a pydantic model whose dump writes each field as it is.

    Read from what pydantic notes when it makes the class (its fields and
    decorators), so that it holds before the class's serializer is built
    (the SDKs make their objects without it, and build it on the first dump).
    """
    model_fields = declared(cls)
    decorators = getattr(cls, "__pydantic_decorators__", None)
    if not model_fields or decorators is None:
        return False
    if getattr(cls, "__pydantic_root_model__", False):
        return False
    if decorators.computed_fields or decorators.field_serializers or decorators.model_serializers:
        return False
    for name, info in model_fields.items():
        if info.exclude or getattr(info, "exclude_if", None) is not None:
            return False
        if by_alias and (info.serialization_alias or info.alias or name) != name:
            return False
        if any(type(item).__name__ in _SERIALIZERS for item in info.metadata):
            return False
    return True
