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

import types
import typing
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


def in_declared_order(cls: type, *names: str) -> bool:
    """Whether the model class ``cls`` declares each of ``names``, in that order.

    A dump writes a model's fields in the order its class declares them, so
    a dict made from some of them matches the dump only in that order. The
    answer for a class and names is worked out once.
    """
    key = (cls, names)
    known = _IN_ORDER.get(key)
    if known is None:
        found = list(declared(cls))
        places = [found.index(name) for name in names if name in found]
        known = _IN_ORDER[key] = len(places) == len(names) and places == sorted(places)
    return known


_IN_ORDER: Final[dict[tuple[type, tuple[str, ...]], bool]] = {}


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


def given(obj: object, names: frozenset[str]) -> dict[str, Any] | None:
    """Those of ``names`` that ``obj``'s dump writes, with the values it was given.

    ``None`` where only the dump can tell: ``obj`` is not a model read by its
    fields (:func:`fields`), or an extra field bears one of the names. A
    value is as the object holds it; the caller takes a plain one as it is,
    and dumps a model (:func:`dumps_as_declared` says whether that dump is the
    one its holder's dump would write).
    """
    found = obj.__dict__ if type(obj) in PLAIN else fields(obj)
    if found is None:
        return None
    extra = obj.__pydantic_extra__  # type: ignore[attr-defined]
    if extra and not names.isdisjoint(extra):
        return None
    told = obj.__pydantic_fields_set__  # type: ignore[attr-defined]
    out: dict[str, Any] = {}
    for name in names:
        if name in told:
            if name not in found:
                return None
            out[name] = found[name]
    return out


def dumps_as_declared(holder: object, name: str, value: object) -> bool:
    """Whether ``value``, held in ``holder``'s field ``name``, dumps alone as inside ``holder``.

    It does when its class is exactly one the field declares (the class, or
    a member of the union it declares): a holder writes an instance of a
    subclass, or of another class, by the declared class's rules.
    """
    key = (type(holder), name)
    classes = _DECLARED.get(key)
    if classes is None:
        info = declared(type(holder)).get(name)
        classes = _DECLARED[key] = _classes_in(getattr(info, "annotation", None))
    return type(value) in classes


_DECLARED: Final[dict[tuple[type, str], frozenset[type]]] = {}


def _classes_in(annotation: object) -> frozenset[type]:
    """The classes an annotation names, through ``Annotated``, unions and ``Optional``.

    None through an ``Annotated`` whose metadata holds a serializer.
    """
    if isinstance(annotation, type):
        return frozenset({annotation})
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        inner, *metadata = typing.get_args(annotation)
        if any(type(item).__name__ in _SERIALIZERS for item in metadata):
            return frozenset()  # written its own way
        return _classes_in(inner)
    if origin is typing.Union or origin is types.UnionType:
        found: frozenset[type] = frozenset()
        for member in typing.get_args(annotation):
            found |= _classes_in(member)
        return found
    return frozenset()


# Values a JSON dump writes as they are, where their field's type lets it.
_LEAVES: Final[frozenset[type]] = frozenset({str, int, bool, type(None)})
_ANYTHING: Final[frozenset[type]] = _LEAVES | {list, dict}
_SIMPLE: Final[frozenset[type]] = frozenset({str, int, bool, list, dict})
_WRITTEN_AS_IS: Final[dict[type, dict[str, frozenset[type]]]] = {}


def _as_is(annotation: object) -> frozenset[type]:
    """The classes of value a field of this type is dumped as it is, unchanged.

    The field's own type, where it is text, an integer or a boolean (a
    boolean in an integer field is written as a number); the classes of a
    ``Literal``'s values; each member's, in a union; a list or dict, which
    :func:`flat` takes only empty; anything, for ``Any`` and ``object``,
    which a dump writes by what the value is. ``None`` is written as
    ``null`` in any field. Nothing else: an ``Annotated`` type, whose
    metadata may change how it is written, and other classes go to the dump.
    """
    if annotation is Any or annotation is object:
        return _ANYTHING
    if isinstance(annotation, type) and annotation in _SIMPLE:
        return frozenset((annotation,))
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return frozenset(type(value) for value in typing.get_args(annotation)) & _LEAVES
    if origin is typing.Union or origin is types.UnionType:
        found: frozenset[type] = frozenset()
        for member in typing.get_args(annotation):
            found |= _as_is(member)
        return found
    if origin is list or origin is dict:
        return frozenset({origin})
    return frozenset()


def _written_as_is(cls: type) -> dict[str, frozenset[type]]:
    """For each field ``cls`` declares, the classes of value :func:`flat` can write.

    Those its dump writes unchanged, and the model classes the field
    declares, which a dump writes by their own rules (and ``flat`` by
    reading them in turn).
    """
    known = _WRITTEN_AS_IS.get(cls)
    if known is None:
        known = _WRITTEN_AS_IS[cls] = {}
        for name, info in declared(cls).items():
            annotation = getattr(info, "annotation", None)
            models = frozenset(each for each in _classes_in(annotation) if declared(each))
            known[name] = _as_is(annotation) | models | {type(None)}
    return known


def flat(obj: object, room: int = 8) -> dict[str, Any] | None:
    """``obj``'s dump, made from its fields, when it holds nothing but plain values.

    For a model read by its fields (:func:`fields`) whose given fields hold
    values their types write unchanged (text, integers, booleans, ``None``,
    an empty list or dict: see ``_as_is``) or models of exactly the class
    the field declares, read the same way, ``room`` levels down at most;
    and whose extra fields hold text, integers, booleans or ``None``: the
    dump writes those as they are, given fields in the order the class
    declares them and extra fields after. ``None`` for anything else, which
    only its dump can tell.
    """
    found = obj.__dict__ if type(obj) in PLAIN else fields(obj)
    if found is None or room <= 0:
        return None
    told = obj.__pydantic_fields_set__  # type: ignore[attr-defined]
    extra = obj.__pydantic_extra__  # type: ignore[attr-defined]
    out: dict[str, Any] = {}
    for name, allowed in _written_as_is(type(obj)).items():
        if name in told:
            if name not in found:
                return None
            value = found[name]
            kind = type(value)
            if kind not in allowed:
                return None
            if kind is list or kind is dict:
                if value:
                    return None
                value = kind()
            elif kind not in _LEAVES:
                value = flat(value, room - 1)
                if value is None:
                    return None
            out[name] = value
    if extra:
        for name, value in extra.items():
            if name in out or type(value) not in _LEAVES:
                return None
            out[name] = value
    return out
