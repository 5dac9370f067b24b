"""What every convtypes value shares: checked when built, exact when copied.

Values are frozen msgspec Structs built with keywords only. Two kinds of
code make them, and each pays only for what it needs:

- msgspec's C decoder builds decoded values; it has already checked every
  type, so nothing here runs for them.
- Python code builds values by calling the class. :class:`ValueMeta` runs
  then, and only then: it checks each field and normalises what has one
  obvious meaning (a list where a tuple is declared, ``"external"`` for a
  provenance, an empty sequence for its default). A value that exists can
  therefore always be encoded and read back equal.

Lenient decoding may keep fields this version does not know. Such a value is
an instance of a *carrier*: a private subclass of its public class that keeps
the unknown fields beside the known ones, and whose equality, hash, copies
and pickles include them. ``isinstance`` and ``match`` see the public class.
"""

from __future__ import annotations

import _thread
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar

from msgspec import StructMeta
from msgspec.structs import force_setattr

from ._canonical import json_equal
from ._errors import WireError
from ._hashing import hash_json

__all__ = [
    "UNKNOWN_FIELDS",
    "Check",
    "ValueMeta",
    "as_optional_text",
    "as_text",
    "as_tuple_of",
    "carrier_of",
    "is_carrier",
    "known_tags",
    "public_class",
    "rebuild",
    "refuse_lone_surrogate",
    "replaced",
    "unknown_fields",
]

T = TypeVar("T")

Check = Callable[[Any, str], Any]
"""A field check: takes the value given and the field's name, returns the
value to store (the same object when nothing changes) or raises WireError."""

UNKNOWN_FIELDS: Final = "unknown_fields"
"""The key under which a carrier keeps its unknown fields in ``__dict__``."""

# Every carrier class made so far, and the public class of each. Empty until
# lenient decoding first keeps an unknown field, so the checks below cost
# nothing in programs that never meet one.
_CARRIERS: dict[type[Any], type[Any]] = {}
_PUBLIC: dict[type[Any], type[Any]] = {}
_CARRIER_LOCK: Final = _thread.allocate_lock()

# Tag values of every tagged class, by tag field, in definition order.
_TAGS: dict[str, dict[str, None]] = {}


class ValueMeta(StructMeta):
    """The metaclass of every convtypes value.

    A class lists its field checks in ``_checks`` (field name to
    :data:`Check`) and the fields that hold other values in ``_nested``;
    both are inherited. Calling the class runs msgspec's own constructor,
    then the checks; decoding never calls the metaclass. A check may say
    when its call can be skipped (see :func:`_first_settle`).
    """

    _all_checks: tuple[tuple[str, Check], ...]
    _all_nested: tuple[str, ...]
    _settle: Any

    def __init__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **kw: Any):
        super().__init__(name, bases, namespace, **kw)
        checks: dict[str, Check] = {}
        nested: list[str] = []
        for klass in reversed(cls.__mro__):
            checks.update(klass.__dict__.get("_checks", {}))
            nested.extend(n for n in klass.__dict__.get("_nested", ()) if n not in nested)
        cls._all_checks = tuple(checks.items())
        cls._all_nested = tuple(nested)
        cls._settle = staticmethod(_first_settle)
        config = cls.__struct_config__
        if "tag" in kw and isinstance(config.tag, str) and config.tag_field is not None:
            _TAGS.setdefault(config.tag_field, {})[config.tag] = None

    def __call__(cls: type[T], *args: Any, **kwargs: Any) -> T:
        value: Any = _construct(cls, *args, **kwargs)
        value._settle(value)
        if _CARRIERS and type(value) not in _PUBLIC and _holds_carrier(value):
            # A value holding one with unknown fields must be a carrier too,
            # so that encoding knows to look inside it.
            value = rebuild(type(value), _fields(value), {})
        result: T = value
        return result


# msgspec's own constructor: what calling the class does without this metaclass.
_construct: Final = StructMeta.__call__


def _first_settle(value: Any) -> None:
    """Run a class's field checks the first time: write its own function, then run it.

    A loop over the checks costs about three times what a function written
    out for the class costs (no tuple unpacking, no ``getattr``, and no call
    at all for a field whose value the check would keep as it is), so each
    class gets one, made on first use so that import pays nothing. A check
    says when it may be skipped with ``skip_when``, an expression over
    ``given``, or with ``exact_types``, the types it passes unchanged.
    """
    cls = type(value)
    lines = ["def settle(value):"]
    namespace: dict[str, Any] = {"force": force_setattr}
    for number, (name, check) in enumerate(cls._all_checks):
        namespace[f"check{number}"] = check
        lines.append(f"    given = value.{name}")
        skip = getattr(check, "skip_when", None)
        passes = getattr(check, "exact_types", ())
        if skip is None and passes:
            namespace[f"passes{number}"] = passes
            skip = f"type(given) in passes{number}"
        if skip is not None:
            lines.append(f"    if not ({skip}):")
            lines.append(f"        settled = check{number}(given, {name!r})")
            lines.append("        if settled is not given:")
            lines.append(f"            force(value, {name!r}, settled)")
        else:
            lines.append(f"    settled = check{number}(given, {name!r})")
            lines.append("    if settled is not given:")
            lines.append(f"        force(value, {name!r}, settled)")
    lines.append("    return None")
    exec("\n".join(lines), namespace)
    type.__setattr__(cls, "_settle", staticmethod(namespace["settle"]))
    namespace["settle"](value)


def _holds_carrier(value: Any) -> bool:
    for name in value._all_nested:
        for item in getattr(value, name):
            if type(item) in _PUBLIC:
                return True
    return False


def _fields(value: Any) -> dict[str, Any]:
    return {name: getattr(value, name) for name in value.__struct_fields__}


def known_tags(tag_field: str) -> tuple[str, ...]:
    """The tag values of the value classes tagged on ``tag_field``, in order."""
    return tuple(_TAGS.get(tag_field, ()))


# ------------------------------------------------------------------ checks


def _kind(value: Any) -> str:
    return type(value).__name__


def as_text(value: Any, name: str) -> str:
    """A ``str`` field; a ``str`` subclass is stored as a plain ``str``.

    Text holding a lone surrogate (``"\\ud800"``, which Python allows in a
    ``str``) is refused: UTF-8 cannot carry it, so no document could.
    """
    if type(value) is not str:
        if not isinstance(value, str):
            raise WireError(f"expected str, got {_kind(value)}", f"$.{name}")
        value = str.__str__(value)
    text: str = value
    if not text.isascii():
        refuse_lone_surrogate(text, f"$.{name}")
    return text


def refuse_lone_surrogate(text: str, path: str) -> None:
    """Raise WireError, at ``path``, if ``text`` holds a lone surrogate.

    Only text that is not ASCII needs the look (``isascii`` costs nothing).
    The look is an encoding: UTF-32 is the quickest of the codecs that
    refuse a lone surrogate, for every width of string.
    """
    try:
        text.encode("utf-32-le")
    except UnicodeEncodeError as err:
        raise WireError(
            f"expected text that UTF-8 can carry, found a lone surrogate at character {err.start}",
            path,
        ) from None


def as_optional_text(value: Any, name: str) -> str | None:
    """A ``str | None`` field."""
    return None if value is None else as_text(value, name)


# ASCII text, the common case, passes the check unchanged, so construction
# skips the call for it (see _first_settle).
as_text.skip_when = "type(given) is str and given.isascii()"  # type: ignore[attr-defined]
as_optional_text.skip_when = (  # type: ignore[attr-defined]
    "given is None or (type(given) is str and given.isascii())"
)


def as_tuple_of(kinds: tuple[type[Any], ...], what: str, empty: tuple[Any, ...] = ()) -> Check:
    """A check for a tuple of ``kinds``: a list is stored as a tuple.

    An empty sequence is stored as ``empty``, the field's own default object:
    msgspec leaves a default out of the bytes only when it is that very
    object, and an empty tuple built at run time is not always the same one.
    """

    def check(value: Any, name: str) -> tuple[Any, ...]:
        if type(value) is not tuple and type(value) is not list:
            raise WireError(f"expected a list or tuple of {what}, got {_kind(value)}", f"$.{name}")
        for index, item in enumerate(value):
            if not isinstance(item, kinds):
                raise WireError(f"expected {what}, got {_kind(item)}", f"$.{name}[{index}]")
        if not value:
            return empty
        return value if type(value) is tuple else tuple(value)

    return check


# ---------------------------------------------------------------- carriers


def carrier_of(cls: type[T]) -> type[T]:
    """The carrier class of the public value class ``cls``, made on first use."""
    made = _CARRIERS.get(cls)
    if made is not None:
        return made
    config = cls.__struct_config__  # type: ignore[attr-defined]
    options: dict[str, Any] = {"frozen": True, "kw_only": True, "dict": True, "gc": True}
    if isinstance(config.tag, str):
        options["tag"] = config.tag
    namespace = {
        "__module__": cls.__module__,
        "__qualname__": f"{cls.__qualname__}WithUnknownFields",
        "__doc__": f"A {cls.__name__} that keeps fields a newer writer added.",
        "__eq__": _carrier_eq,
        "__hash__": _carrier_hash,
        "__copy__": _carrier_copy,
        "__deepcopy__": _carrier_deepcopy,
        "__reduce__": _carrier_reduce,
        "__repr__": _carrier_repr,
    }
    # dict=True gives each instance a __dict__ that msgspec never encodes:
    # the place for the unknown fields. It needs gc=True.
    metaclass: Any = type(cls)
    new = metaclass(f"{cls.__name__}WithUnknownFields", (cls,), namespace, **options)
    with _CARRIER_LOCK:
        # Two threads may race to make one; both keep the first made.
        chosen = _CARRIERS.setdefault(cls, new)
        _PUBLIC[chosen] = cls
    return chosen


def is_carrier(cls: type[Any]) -> bool:
    """Whether ``cls`` is a carrier class."""
    return cls in _PUBLIC


def public_class(cls: type[T]) -> type[T]:
    """The public class of a carrier class; any other class unchanged."""
    return _PUBLIC.get(cls, cls)


def unknown_fields(value: object) -> dict[str, Any]:
    """The unknown fields a carrier keeps (the stored dict itself); empty otherwise."""
    if type(value) in _PUBLIC:
        found: dict[str, Any] = value.__dict__.get(UNKNOWN_FIELDS, {})
        return found
    return {}


def rebuild(cls: type[T], fields: Mapping[str, Any], unknown: Mapping[str, Any]) -> T:
    """A carrier of ``cls`` (public or carrier) with ``fields`` and ``unknown``.

    The fields go through the usual checks. Used for pickles and copies of
    carriers, and by lenient decoding.
    """
    value: Any = carrier_of(public_class(cls))(**fields)
    value.__dict__[UNKNOWN_FIELDS] = dict(unknown)
    result: T = value
    return result


def replaced(value: Any, changes: Mapping[str, Any]) -> Any:
    """A copy of the value ``value`` with ``changes``, checked as a new one.

    What :func:`convtypes.replace` and each class's ``__replace__`` do; here,
    below the values, so that they need not import ``replace``.
    """
    cls: Any = public_class(type(value))
    fields = {name: getattr(value, name) for name in cls.__struct_fields__}
    fields.update(changes)
    kept = unknown_fields(value)
    if kept:
        return rebuild(cls, fields, kept)
    return cls(**fields)


def _carrier_eq(self: Any, other: Any) -> Any:
    # Equal to a value of the same public class (carrier or not) with equal
    # fields and unknown fields; JSON compares as JSON (see _canonical), so
    # == agrees with convtypes.address.
    public: Any = public_class(type(self))
    if public_class(type(other)) is not public:
        return NotImplemented
    json_fields = getattr(public, "_json_fields", ())
    for name in public.__struct_fields__:
        mine, theirs = getattr(self, name), getattr(other, name)
        if name in json_fields:
            if not json_equal(mine, theirs):
                return False
        elif mine != theirs:
            return False
    return json_equal(unknown_fields(self), unknown_fields(other))


def _carrier_hash(self: Any) -> int:
    # The public class's hash, and the unknown fields hashed as JSON; with
    # none, the hash of the public value it equals.
    public: Any = public_class(type(self))
    unknown = unknown_fields(self)
    if not unknown:
        plain: int = hash(_construct(public, **_fields(self)))
        return plain
    known: int = public.__hash__(self)
    return hash((known, hash_json(unknown)))


def _carrier_copy(self: Any) -> Any:
    return rebuild(type(self), _fields(self), unknown_fields(self))


def _carrier_deepcopy(self: Any, memo: dict[int, Any]) -> Any:
    import copy  # only a deep copy needs it; keeps it out of import time

    fields = copy.deepcopy(_fields(self), memo)
    return rebuild(type(self), fields, copy.deepcopy(unknown_fields(self), memo))


def _carrier_reduce(self: Any) -> tuple[Any, ...]:
    return (rebuild, (public_class(type(self)), _fields(self), unknown_fields(self)))


def _carrier_repr(self: Any) -> str:
    parts = [f"{name}={value!r}" for name, value in _fields(self).items()]
    parts.append(f"unknown_fields={unknown_fields(self)!r}")
    return f"{public_class(type(self)).__name__}({', '.join(parts)})"
