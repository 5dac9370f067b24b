"""A changed copy of a value, checked like a new one."""

from __future__ import annotations

from typing import Any, TypeVar

from ._unknown import UnknownBlock, UnknownMessage
from ._value import ValueMeta, public_class, rebuild, unknown_fields

__all__ = ["replace"]

T = TypeVar("T")


def replace(value: T, /, **changes: Any) -> T:
    """A copy of ``value`` with the fields named in ``changes`` replaced.

    The copy goes through the same checks as a value built by calling its
    class, so it can always be encoded and read back equal. Fields a newer
    writer added (kept by lenient decoding) are kept on the copy. An unknown
    field name raises ``TypeError``, as calling the class would.

    Prefer this to ``msgspec.structs.replace``, which checks nothing and
    drops unknown fields.
    """
    if isinstance(value, UnknownMessage):
        fields: dict[str, Any] = {"role": value.role, "raw": value.raw, **changes}
        return UnknownMessage(**fields)  # type: ignore[return-value]
    if isinstance(value, UnknownBlock):
        fields = {"type": value.type, "raw": value.raw, **changes}
        return UnknownBlock(**fields)  # type: ignore[return-value]
    if not isinstance(type(value), ValueMeta):
        raise TypeError(f"replace takes a convtypes value, not {type(value).__name__}")
    cls: Any = public_class(type(value))
    fields = {name: getattr(value, name) for name in cls.__struct_fields__}
    fields.update(changes)
    kept = unknown_fields(value)
    if kept:
        made: T = rebuild(cls, fields, kept)
        return made
    built: T = cls(**fields)
    return built
