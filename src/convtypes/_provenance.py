"""Where a tool result came from: inside the trust boundary or beyond it."""

from __future__ import annotations

import _thread
import enum
from typing import TYPE_CHECKING, Any, Final

from ._errors import WireError

__all__ = ["WIRE_VALUES", "Provenance", "as_provenance", "from_wire"]


class Provenance(enum.Enum):
    """Which side of the trust boundary produced a tool result's text.

    The mark travels with the message, so every consumer sees it without
    having to know which tool ran. ``INTERNAL`` is the default and is never
    written to the wire, which keeps transcripts from before this field
    existed byte-identical. Marking is what makes a defence possible (a
    renderer can fence the text, a policy can weigh it less); it does not by
    itself stop a model from acting on what it reads.

    A newer writer may use a value this version does not know. Lenient
    decoding keeps it, as a ``Provenance`` that is neither member and is
    written back unchanged; it fails closed: :meth:`is_internal` is
    ``False`` and :meth:`is_external` is ``True``. Decide trust with
    ``is_internal()``, not by comparing with ``EXTERNAL``.
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

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return (from_wire, (self._value_,))


if TYPE_CHECKING:
    import weakref

# Values from newer writers, one object per value while any is alive, so that
# equality (which is identity for enums) holds between two reads. Weak, so a
# stream of hostile values cannot grow it without bound. Made on first use:
# most programs never meet one.
_UNKNOWN: list[weakref.WeakValueDictionary[str, Provenance]] = []
_UNKNOWN_LOCK: Final = _thread.allocate_lock()


def from_wire(value: str) -> Provenance:
    """The provenance spelled ``value`` on the wire, known or not.

    Only lenient decoding (and unpickling what it made) calls this: strict
    decoding and construction refuse values they do not know.
    """
    try:
        return Provenance(value)
    except ValueError:
        pass
    with _UNKNOWN_LOCK:
        if not _UNKNOWN:
            import weakref

            _UNKNOWN.append(weakref.WeakValueDictionary())
        found = _UNKNOWN[0].get(value)
        if found is None:
            found = object.__new__(Provenance)
            found._value_ = value
            found._name_ = "UNKNOWN"
            _UNKNOWN[0][value] = found
    return found


WIRE_VALUES: Final = {member.value: member for member in Provenance}


def as_provenance(value: Any, name: str) -> Provenance:
    """Check a ``provenance`` field: a ``Provenance``, or its wire string."""
    if isinstance(value, Provenance):
        return value
    if type(value) is str and value in WIRE_VALUES:
        return WIRE_VALUES[value]
    raise WireError(
        f"expected a Provenance or one of 'internal', 'external', got {value!r}", f"$.{name}"
    )


as_provenance.exact_types = (Provenance,)  # type: ignore[attr-defined]
