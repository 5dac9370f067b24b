"""Conversation ops: what one device tells the others, one JSON object each.

An op is a tagged Struct, tagged on ``"op"``, under the rules messages
follow: built with keywords and checked when built, defaults add no bytes,
and what a newer writer added (a field, a whole op kind, a message role)
is kept by the reader and written back byte for byte. This version knows
one kind, :class:`AddMessages`; any other is read as an :class:`UnknownOp`.

The id of an op is not drawn at random nor hashed from its content: it is
``"<clock>@<device>"``, as Automerge names an op by its counter and actor.
A device never uses a clock value twice, so ids never collide, and a reader
checks the rule on every op it reads, without having to agree with the
writer on a canonical form of the content. That is also why unknown fields
survive: nothing a reader verifies depends on them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Final, TypeVar, Union, cast

import msgspec
from msgspec import Meta, Struct

from .._careful import TAGS
from .._codec import decode_messages, encode
from .._errors import MAX_DEPTH, WireError, explain_validation, from_msgspec, too_deep
from .._messages import MESSAGE_TYPES, LenientMessage, Message
from .._nesting import GUARD_BYTES, as_bytes, excess_depth, skip_is_bounded, skips_may_overflow
from .._unknown import UnknownMessage, _Unknown
from .._value import Check, ValueMeta, as_optional_text, as_text, is_carrier, rebuild
from .._value import unknown_fields as kept_fields

T = TypeVar("T")

__all__ = [
    "MAX_CLOCK",
    "OP_DEPTH",
    "AddMessages",
    "LenientOp",
    "Op",
    "UnknownOp",
    "check_id",
    "decode_add",
    "decode_op",
    "encode_op",
    "op_id",
]

MAX_CLOCK: Final = 2**53 - 1
"""The largest clock an op may carry: the largest integer every JSON reader holds exactly."""

OP_DEPTH: Final = MAX_DEPTH + 1
"""How deep an op's JSON may nest: its ``messages`` array is read as a transcript is."""


def op_id(clock: int, device: str) -> str:
    """The id of the op a device writes at a clock: ``"<clock>@<device>"``.

    Decimal digits, ``@``, then the device as it is; so the clock and the
    device can be read back from an id, whatever characters the device
    name holds.
    """
    return f"{clock}@{device}"


def _as_device(value: Any, name: str) -> str:
    text = as_text(value, name)
    if not text:
        raise WireError("expected a device name that is not empty", f"$.{name}")
    return text


def _as_clock(value: Any, name: str) -> int:
    if type(value) is not int:
        raise WireError(f"expected int, got {type(value).__name__}", f"$.{name}")
    if not 1 <= value <= MAX_CLOCK:
        raise WireError(f"expected a clock in 1..{MAX_CLOCK}, got {value}", f"$.{name}")
    clock: int = value
    return clock


_MESSAGE_KINDS: Final = (*MESSAGE_TYPES, UnknownMessage)


def _as_messages(value: Any, name: str) -> tuple[Any, ...]:
    if type(value) is not tuple and type(value) is not list:
        raise WireError(
            f"expected a list or tuple of messages, got {type(value).__name__}", f"$.{name}"
        )
    if not value:
        raise WireError("expected at least one message", f"$.{name}")
    for index, item in enumerate(value):
        if not isinstance(item, _MESSAGE_KINDS):
            raise WireError(f"expected a message, got {type(item).__name__}", f"$.{name}[{index}]")
    return value if type(value) is tuple else tuple(value)


# What msgspec checks by itself when it decodes, so that the fast path needs
# no walk in Python; a value built in Python gets the checks in _checks.
Device = Annotated[str, Meta(min_length=1)]
Clock = Annotated[int, Meta(ge=1, le=MAX_CLOCK)]
if TYPE_CHECKING:
    Messages = tuple[LenientMessage, ...]
else:
    Messages = Annotated[tuple[Message, ...], Meta(min_length=1)]


def check_id(op: AddMessages) -> AddMessages:
    """``op``, once its id is checked against its clock and device: WireError if not."""
    if op.id != f"{op.clock}@{op.device}":
        raise WireError(f"expected the id {op.clock}@{op.device}, got {op.id!r}", "$.id")
    if op.after == op.id:
        raise WireError("expected an op to follow another node, not itself", "$.after")
    return op


class _OpMeta(ValueMeta):
    """Builds an op as :class:`ValueMeta` builds a value, then checks the id.

    The id is the one rule that spans fields. It is not a ``__post_init__``,
    which msgspec would call on every decode: readers check it themselves,
    where a batch of ops costs less.
    """

    def __call__(cls: type[T], *args: Any, **kwargs: Any) -> T:
        value: Any = ValueMeta.__call__(cls, *args, **kwargs)
        check_id(value)
        result: T = value
        return result


class _Op(
    Struct,
    metaclass=_OpMeta,
    frozen=True,
    kw_only=True,
    gc=False,
    omit_defaults=True,
    forbid_unknown_fields=True,
    tag_field="op",
):
    pass


class AddMessages(_Op, frozen=True, kw_only=True, tag="add"):
    """An op that adds messages to the conversation: one node of its tree.

    ``id`` names the node (it must be :func:`op_id` of ``clock`` and
    ``device``), ``device`` is the writer, ``clock`` its logical (Lamport)
    clock, ``after`` the node this one follows (``None`` for the first
    message of a conversation), and ``messages`` what it adds, as one unit:
    a whole reply (provider items and the assistant message) is one op, so
    no crash and no sync can keep part of it.

    Regenerating a reply is adding a sibling (the same ``after`` as the
    reply it replaces), and forking is following an earlier node. Ops are
    usually made by :meth:`Tree.append`, which picks the clock.
    """

    id: str
    device: Device
    clock: Clock
    after: str | None = None
    messages: Messages

    if TYPE_CHECKING:

        def __init__(
            self,
            *,
            id: str,
            device: str,
            clock: int,
            after: str | None = None,
            messages: Sequence[LenientMessage],
        ) -> None: ...

    _checks: ClassVar[dict[str, Check]] = {
        "id": as_text,
        "device": _as_device,
        "clock": _as_clock,
        "after": as_optional_text,
        "messages": _as_messages,
    }
    _nested: ClassVar[tuple[str, ...]] = ("messages",)


Op = Union[AddMessages]
"""An op of a kind this version knows (today only :class:`AddMessages`)."""


class UnknownOp(_Unknown):
    """An op whose kind (its ``"op"``) this version does not know.

    A reader keeps it, as its JSON, and writes it back unchanged; a tree
    lists it in :attr:`Tree.unknown` and applies nothing of it. Built as
    :class:`convtypes.UnknownMessage` is: ``UnknownOp(op=..., raw=...)``.
    """

    __slots__ = ()
    __match_args__ = ()
    _tag_field = "op"
    _room = OP_DEPTH

    def __init__(self, *, op: str, raw: bytes) -> None:
        super().__init__(op, raw)

    @property
    def op(self) -> str:
        """The op kind the newer writer used."""
        return self._tag


LenientOp = Union[AddMessages, UnknownOp]
"""An op as a reader returns it: a known one or an unknown one."""

# ---------------------------------------------------------------- the codec


class _NoKind(Struct, frozen=True, gc=False, tag_field="op", tag=""):
    """Never decoded (its one field takes no value): beside it in a union,
    ``AddMessages`` must carry its ``"op"``, which msgspec does not ask of a
    tagged class decoded alone."""

    never: Annotated[int, Meta(ge=1, le=0)]


# It never returns a _NoKind, so it is typed as what it returns.
decode_add: Final = cast(
    "Callable[[Any], AddMessages]", msgspec.json.Decoder(Union[AddMessages, _NoKind]).decode
)
"""The fast path: msgspec's C decoder alone, for an ``add`` op of the current
format. It raises for anything else (careful path), and does not check ids."""
_FIELDS: Final = msgspec.json.Decoder(dict[str, msgspec.Raw]).decode
_TEXT: Final = msgspec.json.Decoder(str).decode
_OPTIONAL_TEXT: Final = msgspec.json.Decoder(Union[str, None]).decode
_INT: Final = msgspec.json.Decoder(int).decode
_ANY: Final = msgspec.json.Decoder().decode
_KNOWN: Final = ("op", "id", "device", "clock", "after", "messages")
_PLAIN: Final = frozenset((AddMessages, *MESSAGE_TYPES, UnknownMessage))


def _write_unknown(value: object) -> msgspec.Raw:
    if isinstance(value, UnknownMessage):
        return msgspec.Raw(value.raw)
    raise TypeError(f"cannot encode a {type(value).__name__}")


_encode: Final = msgspec.json.Encoder(enc_hook=_write_unknown).encode


def encode_op(op: LenientOp) -> bytes:
    """The op's JSON: compact, known fields in order, then the unknown ones as read.

    An :class:`UnknownOp` is written as it was read. ``TypeError`` for what
    is not an op; :class:`convtypes.WireError` for text UTF-8 cannot carry
    (see :func:`convtypes.encode`).
    """
    kind = type(op)
    if kind is UnknownOp:
        raw: bytes = op.raw  # type: ignore[union-attr]
        return raw
    if not isinstance(op, AddMessages):
        raise TypeError(f"encode_op takes an op, not {kind.__name__}")
    if kind is AddMessages and _PLAIN.issuperset(map(type, op.messages)):
        try:
            return _encode(op)
        except UnicodeEncodeError:
            pass  # convtypes.encode below names the place
    wire: dict[str, Any] = {"op": "add", "id": op.id, "device": op.device, "clock": op.clock}
    if op.after is not None:
        wire["after"] = op.after
    try:
        wire["messages"] = msgspec.Raw(encode(op.messages))
    except WireError as err:
        raise WireError(err.reason, f"$.messages{err.path[1:]}") from None
    if is_carrier(kind):
        for key, extra in kept_fields(op).items():
            wire.setdefault(key, extra)
    try:
        return _encode(wire)
    except UnicodeEncodeError:
        raise WireError("expected text encodable as UTF-8, found a lone surrogate", "$") from None


def decode_op(data: bytes | bytearray | memoryview | str) -> LenientOp:
    """Read one op, keeping whatever a newer writer added.

    Unknown fields stay on the op, unknown roles and fields inside its
    messages are kept as lenient decoding keeps them, and an op kind this
    version does not know comes back as an :class:`UnknownOp`;
    :func:`encode_op` writes each back unchanged (in compact form). What is
    not an op raises :class:`convtypes.WireError` naming where
    (``$.messages[1].content``).
    """
    if not isinstance(data, (bytes, bytearray, memoryview, str)):
        raise TypeError(
            f"decode_op reads bytes, bytearray, memoryview or str, not {type(data).__name__}"
        )
    if len(data) < GUARD_BYTES or not skips_may_overflow() or skip_is_bounded(data):
        try:
            op = decode_add(data)
        except Exception:
            pass
        else:
            return check_id(op)
    return _decode_carefully(as_bytes(data))


def _decode_carefully(raw: bytes) -> LenientOp:
    """An op the fast decoder refused: unknown kind, fields or roles, deep JSON, or bad."""
    found = excess_depth(raw, OP_DEPTH)
    if found is not None:
        raise too_deep(found[1], found[0])
    try:
        fields = _FIELDS(raw)
    except Exception as exc:
        raise from_msgspec(exc, raw, TAGS) from None
    if "op" not in fields:
        raise WireError("missing required field 'op'", "$")
    kind = _field(_TEXT, fields, "op")
    if kind != "add":
        return UnknownOp(op=kind, raw=_whole(raw))
    known: dict[str, Any] = {
        "id": _field(_TEXT, fields, "id"),
        "device": _field(_TEXT, fields, "device"),
        "clock": _field(_INT, fields, "clock"),
        "messages": _messages(fields),
    }
    if "after" in fields:
        known["after"] = _field(_OPTIONAL_TEXT, fields, "after")
    try:
        extra = {key: _ANY(value) for key, value in fields.items() if key not in _KNOWN}
    except Exception:
        _whole(raw)
        raise  # pragma: no cover - _whole finds what a part could not be read for
    if extra:
        return rebuild(AddMessages, known, extra)
    return AddMessages(**known)


def _whole(raw: bytes) -> bytes:
    """``raw``, once read whole; else a WireError at the place.

    Splitting an op into its fields leaves what a field holds unread (bad
    UTF-8, a number beyond a double), and an unknown field or an unknown
    kind's op is then read on its own, where the place would be lost.
    """
    try:
        _ANY(raw)
    except Exception as exc:
        raise from_msgspec(exc, raw, TAGS) from None
    return raw


def _field(decode: Any, fields: dict[str, msgspec.Raw], name: str) -> Any:
    if name not in fields:
        raise WireError(f"missing required field {name!r}", "$")
    try:
        return decode(fields[name])
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        what = str(exc).split(" - at ", 1)[0]
        raise WireError(explain_validation(what, f"$.{name}", TAGS)[0], f"$.{name}") from None


def _messages(fields: dict[str, msgspec.Raw]) -> list[LenientMessage]:
    if "messages" not in fields:
        raise WireError("missing required field 'messages'", "$")
    try:
        return decode_messages(bytes(fields["messages"]), lenient=True)
    except WireError as err:
        # The offset was within the array; the file's place is found from the path.
        raise WireError(err.reason, f"$.messages{err.path[1:]}") from None
