"""Messages and blocks from a newer schema, kept whole by lenient decoding.

A sync layer that stores and forwards transcripts must not lose what a newer
writer put there. A role or block type this version does not know becomes an
``UnknownMessage`` or ``UnknownBlock``: its tag and its JSON, written back
byte for byte. They are plain classes, not Structs, so no consumer mistakes
one for a known variant, and a type checker asks for them in a ``match`` over
``LenientMessage``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import msgspec

from ._canonical import canonical_json
from ._errors import WireError
from ._jsonvalue import ITEMS_DEPTH, MAX_DEPTH
from ._nesting import excess_depth
from ._value import known_tags

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._changes import _UnknownBlockChanges, _UnknownMessageChanges

__all__ = ["UnknownBlock", "UnknownMessage"]

_DECODE_JSON = msgspec.json.Decoder()
_ENCODE_JSON = msgspec.json.Encoder()


class _Unknown:
    __slots__ = ("_key", "_raw", "_tag")
    _tag_field: ClassVar[str] = ""
    # Levels a value's own object may open: the deepest place it can stand
    # in a transcript leaves it this many.
    _room: ClassVar[int] = MAX_DEPTH
    _tag: str
    _raw: bytes

    def __init__(self, tag: Any, raw: Any) -> None:
        field = self._tag_field
        if type(tag) is not str:
            raise WireError(f"expected str, got {type(tag).__name__}", f"$.{field}")
        if tag in known_tags(field):
            raise WireError(
                f"expected a {field} this version does not know, got {tag!r}", f"$.{field}"
            )
        if not isinstance(raw, (bytes, bytearray, memoryview)):
            raise WireError(f"expected bytes, got {type(raw).__name__}", "$.raw")
        raw = bytes(raw)
        found = excess_depth(raw, self._room)
        if found is not None:
            raise WireError(f"expected JSON nested at most {MAX_DEPTH} levels deep", "$.raw")
        try:
            obj = _DECODE_JSON.decode(raw)
        except (msgspec.DecodeError, UnicodeDecodeError):
            raise WireError("expected a JSON object", "$.raw") from None
        if type(obj) is not dict or obj.get(field) != tag:
            raise WireError(f"expected a JSON object whose {field} is {tag!r}", "$.raw")
        object.__setattr__(self, "_tag", tag)
        # Held as lenient decoding writes it: compact, keys in their order.
        object.__setattr__(self, "_raw", _ENCODE_JSON.encode(obj))

    @property
    def raw(self) -> bytes:
        """The object's JSON, as it will be written back."""
        return self._raw

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _canonical(self) -> bytes:
        # The raw object's canonical bytes, made on first use and kept:
        # equality and hashing go by them, so == agrees with the address.
        made: bytes | None = getattr(self, "_key", None)
        if made is None:
            made = canonical_json(_DECODE_JSON.decode(self._raw))
            object.__setattr__(self, "_key", made)
        return made

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        if self._raw == other._raw:
            return True
        return self._canonical() == other._canonical()

    def __hash__(self) -> int:
        return hash((type(self), self._canonical()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._tag_field}={self._tag!r}, raw={self._raw!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self._tag, self._raw))

    def __copy__(self) -> Any:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return self

    if not TYPE_CHECKING:  # each class types it for checkers, with its own fields

        def __replace__(self, /, **changes):
            """What ``copy.replace`` calls: :func:`convtypes.replace`, checks and all."""
            return type(self)(**{self._tag_field: self._tag, "raw": self._raw, **changes})


def _rebuild(cls: type[_Unknown], tag: str, raw: bytes) -> _Unknown:
    value = object.__new__(cls)
    _Unknown.__init__(value, tag, raw)
    return value


class UnknownMessage(_Unknown):
    """A message whose ``role`` this version does not know.

    Lenient decoding makes one; ``UnknownMessage(role=..., raw=...)`` builds
    one, checking that ``raw`` is a JSON object with that role and that the
    role is not one this version knows. ``raw`` is kept compact, as lenient
    decoding writes it, and ``encode`` writes it back unchanged. It is never
    a user or assistant turn: a backend building a request should refuse it.
    """

    __slots__ = ()
    __match_args__ = ()
    _tag_field = "role"
    _room = MAX_DEPTH - 1  # inside the transcript's array

    def __init__(self, *, role: str, raw: bytes) -> None:
        super().__init__(role, raw)

    if TYPE_CHECKING:

        def __replace__(self, /, **changes: Unpack[_UnknownMessageChanges]) -> UnknownMessage:
            """What ``copy.replace`` (Python 3.13) calls: :func:`convtypes.replace`."""
            ...

    @property
    def role(self) -> str:
        """The role string the newer writer used."""
        return self._tag


class UnknownBlock(_Unknown):
    """A content block whose ``type`` this version does not know.

    Lenient decoding makes one, inside a ``UserMultimodalMessage``;
    ``UnknownBlock(type=..., raw=...)`` builds one. See
    :class:`UnknownMessage`.
    """

    __slots__ = ()
    __match_args__ = ()
    _tag_field = "type"
    _room = ITEMS_DEPTH  # below the transcript array, message and content array

    def __init__(self, *, type: str, raw: bytes) -> None:
        super().__init__(type, raw)

    if TYPE_CHECKING:

        def __replace__(self, /, **changes: Unpack[_UnknownBlockChanges]) -> UnknownBlock:
            """What ``copy.replace`` (Python 3.13) calls: :func:`convtypes.replace`."""
            ...

    @property
    def type(self) -> str:
        """The block type string the newer writer used."""
        return self._tag
