"""Messages and blocks from a newer schema, kept whole by lenient decoding.

A sync layer that stores and forwards transcripts must not lose what a newer
writer put there. A role or block type this version does not know becomes an
``UnknownMessage`` or ``UnknownBlock``: its tag and its JSON, written back
byte for byte. They are plain classes, not Structs, so no consumer mistakes
one for a known variant, and a type checker asks for them in a ``match`` over
``LenientMessage``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["UnknownBlock", "UnknownMessage"]


class _Unknown:
    __slots__ = ("_raw", "_tag")
    _tag_field = ""
    _tag: str
    _raw: bytes

    def __init__(self, tag: str, raw: bytes) -> None:
        object.__setattr__(self, "_tag", tag)
        object.__setattr__(self, "_raw", bytes(raw))

    @property
    def raw(self) -> bytes:
        """The object's JSON, as it will be written back."""
        return self._raw

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return bool(self._tag == other._tag and self._raw == other._raw)

    def __hash__(self) -> int:
        return hash((type(self), self._tag, self._raw))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._tag_field}={self._tag!r}, raw={self._raw!r})"


class UnknownMessage(_Unknown):
    """A message whose ``role`` this version does not know.

    Only lenient decoding makes one. ``role`` is the tag it carried and
    ``raw`` its whole JSON object, which ``encode`` writes back unchanged. It
    is never a user or assistant turn: a backend building a request should
    drop it or refuse the transcript.
    """

    __slots__ = ()
    __match_args__ = ("role", "raw")
    _tag_field = "role"

    @property
    def role(self) -> str:
        """The role string the newer writer used."""
        return self._tag


class UnknownBlock(_Unknown):
    """A content block whose ``type`` this version does not know.

    Only lenient decoding makes one, inside a ``UserMultimodalMessage``; see
    :class:`UnknownMessage`.
    """

    __slots__ = ()
    __match_args__ = ("type", "raw")
    _tag_field = "type"

    @property
    def type(self) -> str:
        """The block type string the newer writer used."""
        return self._tag
