"""Where a tool result came from: inside the trust boundary or beyond it.

Two members, and a third kind of value for what a newer writer may send:
:class:`UnknownProvenance`, kept by lenient decoding. It is a class of its
own rather than a disguised member, so that a type checker asks every
``match`` over a tool result's provenance to handle it.
"""

from __future__ import annotations

import enum
from typing import Any, Final, Union

from ._errors import WireError
from ._value import refuse_lone_surrogate

__all__ = [
    "WIRE_VALUES",
    "LenientProvenance",
    "Provenance",
    "UnknownProvenance",
    "as_provenance",
    "from_wire",
]


class Provenance(enum.Enum):
    """Which side of the trust boundary produced a tool result's text.

    The mark travels with the message, so every consumer sees it without
    having to know which tool ran. ``INTERNAL`` is the default and is never
    written to the wire, which keeps transcripts from before this field
    existed byte-identical. Marking is what makes a defence possible (a
    renderer can fence the text, a policy can weigh it less); it does not by
    itself stop a model from acting on what it reads.

    A newer writer may use a value this version does not know. Lenient
    decoding keeps it as an :class:`UnknownProvenance`, which fails closed.
    Decide trust with ``is_internal()``, which both kinds have.
    """

    INTERNAL = "internal"
    """Produced on this side: by the runtime itself, by a tool running
    locally, or as an error message the runtime wrote."""

    EXTERNAL = "external"
    """Fetched from beyond the boundary: a web page, an HTTP body, a remote
    MCP server. Treat it as data only."""

    def is_internal(self) -> bool:
        """``True`` for :attr:`INTERNAL` only."""
        return self is Provenance.INTERNAL

    def is_external(self) -> bool:
        """``True`` for anything but :attr:`INTERNAL`: untrusted unless known safe."""
        return self is not Provenance.INTERNAL


WIRE_VALUES: Final = {member.value: member for member in Provenance}


class UnknownProvenance:
    """A provenance a newer writer used that this version does not know.

    Lenient decoding makes one (strict decoding refuses the value), keeps it
    on its :class:`~convtypes.ToolResultMessage`, and ``encode`` writes
    ``value`` back unchanged. It fails closed: :meth:`is_internal` is
    ``False`` and :meth:`is_external` ``True``, so every check that trusts
    only internal results treats it as untrusted.
    ``UnknownProvenance(value="partner")`` builds one; ``value`` must be a
    string this version does not know. Two are equal when their values are.
    """

    __slots__ = ("_value",)
    __match_args__ = ()
    _value: str

    def __init__(self, *, value: str) -> None:
        if type(value) is not str:
            raise WireError(f"expected str, got {type(value).__name__}", "$")
        if value in WIRE_VALUES:
            raise WireError(f"expected a provenance this version does not know, got {value!r}", "$")
        if not value.isascii():
            refuse_lone_surrogate(value, "$")
        object.__setattr__(self, "_value", value)

    @property
    def value(self) -> str:
        """The provenance as the newer writer spelled it on the wire."""
        return self._value

    def is_internal(self) -> bool:
        """Always ``False``: what this version does not know, it does not trust."""
        return False

    def is_external(self) -> bool:
        """Always ``True``."""
        return True

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("UnknownProvenance is immutable")

    def __eq__(self, other: object) -> bool:
        if type(other) is not UnknownProvenance:
            return NotImplemented
        return self._value == other._value

    def __hash__(self) -> int:
        return hash((UnknownProvenance, self._value))

    def __repr__(self) -> str:
        return f"UnknownProvenance(value={self._value!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (from_wire, (self._value,))

    def __copy__(self) -> UnknownProvenance:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> UnknownProvenance:
        return self


LenientProvenance = Union[Provenance, UnknownProvenance]
"""A tool result's provenance as it can be read: a member, or an unknown value."""


def from_wire(value: str) -> LenientProvenance:
    """The provenance spelled ``value`` on the wire, known or not.

    Only lenient decoding (and unpickling what it made) calls this: strict
    decoding and construction from a string refuse values they do not know.
    """
    found = WIRE_VALUES.get(value)
    return found if found is not None else UnknownProvenance(value=value)


def as_provenance(value: Any, name: str) -> LenientProvenance:
    """Check a ``provenance`` field: a ``Provenance``, its wire string, or an unknown one."""
    if isinstance(value, (Provenance, UnknownProvenance)):
        return value
    if type(value) is str and value in WIRE_VALUES:
        return WIRE_VALUES[value]
    raise WireError(
        f"expected a Provenance or one of 'internal', 'external', got {value!r}", f"$.{name}"
    )


as_provenance.exact_types = (Provenance, UnknownProvenance)  # type: ignore[attr-defined]
