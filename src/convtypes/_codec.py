"""Bytes to values and back.

Data flows one way through this module: bytes go through a msgspec decoder
built once at import and come out as values; values go back out through one
shared encoder. Every failure leaves as :class:`WireError` with a JSON path.

Decoding is msgspec's C code and nothing more for the common document: the
value types declare every check msgspec can make (types, tags, required
fields, u32 ranges, JSON that nests only a few levels), so a decoded value
needs no walk in Python. Whatever the fast decoder stops on (unknown fields,
roles, block types or provenance values; deeper JSON; nesting the
interpreter refused) goes to the careful path in ``_careful``, which checks
the nesting on the bytes before anything recurses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar, Union, overload

import msgspec

from ._bigstack import NoBigStack, call_on_big_stack
from ._careful import TAGS, check_nesting, decode_carefully, depth_limit, tags_of, value_classes
from ._content import (
    CONTENT_BLOCK_TYPES,
    AudioBase64Block,
    AudioPathBlock,
    AudioUrlBlock,
    ContentBlock,
    ImageBase64Block,
    ImageUrlBlock,
    TextBlock,
    VideoBase64Block,
    VideoPathBlock,
    VideoUrlBlock,
)
from ._errors import Tags, WireError, from_msgspec
from ._locate import find_repeated_key, format_path
from ._messages import (
    MESSAGE_TYPES,
    AssistantMessage,
    LenientContentBlock,
    LenientMessage,
    Message,
    ProviderOutputItemsMessage,
    SystemMessage,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from ._nesting import GUARD_BYTES, as_bytes, skip_is_bounded, skips_may_overflow
from ._provenance import Provenance, UnknownProvenance
from ._unknown import UnknownBlock, UnknownMessage
from ._value import is_carrier
from ._value import unknown_fields as _kept_fields

__all__ = [
    "LenientContentBlock",
    "LenientMessage",
    "decode",
    "decode_lenient_message",
    "decode_lenient_messages",
    "decode_message",
    "decode_messages",
    "enc_hook",
    "encode",
    "unknown_fields",
]

if TYPE_CHECKING:
    from typing_extensions import TypeForm

T = TypeVar("T")

# What decode can return, as type variables bound to it: one value class
# (Provenance included), a union of message classes, or of block classes.
_Value = TypeVar(
    "_Value",
    bound=Union[
        SystemMessage,
        UserMessage,
        UserMultimodalMessage,
        AssistantMessage,
        ToolResultMessage,
        ProviderOutputItemsMessage,
        TextBlock,
        ImageBase64Block,
        ImageUrlBlock,
        VideoPathBlock,
        VideoUrlBlock,
        VideoBase64Block,
        AudioPathBlock,
        AudioUrlBlock,
        AudioBase64Block,
        ToolCall,
        ThinkingBlock,
        Provenance,
    ],
)
_SomeMessage = TypeVar("_SomeMessage", bound=Message)
_SomeBlock = TypeVar("_SomeBlock", bound=ContentBlock)

Encodable = Union[
    LenientMessage,
    LenientContentBlock,
    ToolCall,
    ThinkingBlock,
    Provenance,
    UnknownProvenance,
    Sequence[LenientMessage],
]

# Built once: a msgspec decoder compiles its type into a fast internal plan,
# and the same decoder and encoder are safe to share between threads.
_MESSAGE_DECODER: Final = msgspec.json.Decoder(Message)
_decode_message: Final = _MESSAGE_DECODER.decode
_TRANSCRIPT_DECODER: Final = msgspec.json.Decoder(list[Message])
_DECODERS: Final[dict[Any, msgspec.json.Decoder[Any]]] = {
    Message: _MESSAGE_DECODER,
    list[Message]: _TRANSCRIPT_DECODER,
    ContentBlock: msgspec.json.Decoder(ContentBlock),
    ToolCall: msgspec.json.Decoder(ToolCall),
    ThinkingBlock: msgspec.json.Decoder(ThinkingBlock),
    Provenance: msgspec.json.Decoder(Provenance),
}
_TARGETS: Final[dict[Any, Any]] = {Message: "message", list[Message]: "messages"}

# ---------------------------------------------------------------- decoding


Data = Union[bytes, bytearray, memoryview, str]


@overload
def decode_messages(
    data: Data, *, lenient: Literal[False] = False, reject_repeated_keys: bool = False
) -> list[Message]: ...
@overload
def decode_messages(
    data: Data, *, lenient: bool, reject_repeated_keys: bool = False
) -> list[LenientMessage]: ...
def decode_messages(
    data: Data, *, lenient: bool = False, reject_repeated_keys: bool = False
) -> list[Any]:
    """Decode a transcript: a JSON array of messages.

    Unknown fields are dropped, as the reference drops them, and an unknown
    role, block type or provenance value is refused. With ``lenient=True``
    nothing is lost: unknown fields stay on their value and are written back
    by :func:`encode`, unknown roles and block types load as
    :class:`UnknownMessage` and :class:`UnknownBlock` (so with ``lenient``
    the list is typed ``list[LenientMessage]``, and a ``match`` must handle
    :class:`UnknownMessage`), and an unknown provenance loads as an
    untrusted one. A document
    in the current schema decodes at the same speed in either mode.

    A key repeated within one object is read as its last value, as most
    JSON readers do. The reference refuses such a document instead; pass
    ``reject_repeated_keys=True`` to refuse it too (at several times the
    cost of the decode). See SECURITY.md for when that matters.
    """
    messages: list[Any] = _decode(
        _TRANSCRIPT_DECODER, data, "messages", lenient, reject_repeated_keys
    )
    return messages


@overload
def decode_message(
    data: Data, *, lenient: Literal[False] = False, reject_repeated_keys: bool = False
) -> Message: ...
@overload
def decode_message(
    data: Data, *, lenient: bool, reject_repeated_keys: bool = False
) -> LenientMessage: ...
def decode_message(
    data: Data, *, lenient: bool = False, reject_repeated_keys: bool = False
) -> LenientMessage:
    """Decode one message; the options are those of :func:`decode_messages`."""
    try:
        large = len(data) >= GUARD_BYTES
    except TypeError:
        raise TypeError(_NOT_DATA.format(type(data).__name__)) from None
    if reject_repeated_keys or large:
        message: LenientMessage = _decode(
            _MESSAGE_DECODER, data, "message", lenient, reject_repeated_keys
        )
        return message
    # The common oplog line: the least Python there can be around msgspec.
    try:
        return _decode_message(data)
    except Exception as exc:
        return _recover(exc, data, "message", lenient)  # type: ignore[no-any-return]


def decode_lenient_messages(data: Data) -> list[LenientMessage]:
    """``decode_messages(data, lenient=True)``, typed as what it can return.

    A ``match`` over :data:`LenientMessage` must handle
    :class:`UnknownMessage`, so a newer writer's message is never taken for a
    known one.
    """
    result: list[LenientMessage] = _decode(_TRANSCRIPT_DECODER, data, "messages", True, False)
    return result


def decode_lenient_message(data: Data) -> LenientMessage:
    """``decode_message(data, lenient=True)``, typed as what it can return."""
    result: LenientMessage = _decode(_MESSAGE_DECODER, data, "message", True, False)
    return result


# The first overload types the value classes for every checker; the others
# need TypeForm. A class matches the first and one of the last two alike,
# with the same result, which mypy cannot see.
@overload
def decode(  # type: ignore[overload-overlap]
    data: Data, type: type[_Value], *, reject_repeated_keys: bool = False
) -> _Value: ...
@overload
def decode(
    data: Data, type: TypeForm[list[Message]], *, reject_repeated_keys: bool = False
) -> list[Message]: ...
@overload
def decode(
    data: Data, type: TypeForm[_SomeMessage], *, reject_repeated_keys: bool = False
) -> _SomeMessage: ...
@overload
def decode(
    data: Data, type: TypeForm[_SomeBlock], *, reject_repeated_keys: bool = False
) -> _SomeBlock: ...
@overload
def decode(data: Data, type: object, *, reject_repeated_keys: bool = False) -> object: ...
def decode(data: Data, type: Any, *, reject_repeated_keys: bool = False) -> Any:
    """Decode ``data`` as ``type``, strictly.

    ``type`` is one of the value classes or ``Provenance``; ``Message``,
    ``ContentBlock``, or any other union of message classes or of block
    classes (``SystemMessage | UserMessage``); or ``list[Message]``.
    Anything else raises ``TypeError``. The result is typed as what it is
    (``decode(data, ContentBlock)`` as a ``ContentBlock``), by a checker
    that reads ``TypeForm`` (PEP 747); one that does not still types the
    value classes. Any other ``type`` (``int``, or a variable typed
    ``object``) gives a result typed ``object``, never the type asked for:
    the call raises ``TypeError`` for a type it cannot decode. Decoders for
    types not built at import are built on first use and kept.
    ``reject_repeated_keys`` as for :func:`decode_messages`.
    """
    try:
        decoder = _DECODERS.get(type)
    except TypeError:  # unhashable, so no type this can decode
        decoder = None
    if decoder is None:
        if value_classes(type) is None:
            raise TypeError(
                "decode reads a value class, Message, ContentBlock, a union of message "
                f"or block classes, or list[Message]; not {type!r}"
            )
        decoder = _DECODERS.setdefault(type, msgspec.json.Decoder(type))
    return _decode(decoder, data, _TARGETS.get(type, type), False, reject_repeated_keys)


def _decode(
    decoder: msgspec.json.Decoder[Any],
    data: Data,
    target: Any,
    lenient: bool,
    reject_repeated_keys: bool,
) -> Any:
    try:
        large = len(data) >= GUARD_BYTES
    except TypeError:
        raise TypeError(_NOT_DATA.format(type(data).__name__)) from None
    if large and skips_may_overflow() and not skip_is_bounded(data):
        value = _decode_on_big_stack(decoder, data, target, lenient)
    else:
        try:
            value = decoder.decode(data)
        except Exception as exc:
            value = _recover(exc, data, target, lenient)
    if reject_repeated_keys:
        _refuse_repeated_keys(data)
    return value


# What the fast decoders stop on that the careful path handles.
_UNKNOWN_FIELD: Final = "Object contains unknown field"
_SHALLOW_JSON: Final = ("Expected `bool | int | float | str | null`, got `",)
_TAG_ENDINGS: Final = (".role`", ".type`")
_UNKNOWN_ENUM: Final = "Invalid enum value "


def _decode_on_big_stack(
    decoder: msgspec.json.Decoder[Any], data: Data, target: Any, lenient: bool
) -> Any:
    """Decode where msgspec may skip deeper than a small thread stack holds.

    The decode runs on a thread whose stack is large (see ``_bigstack``);
    where no such thread can be started, the nesting is measured first.
    """
    try:
        return call_on_big_stack(decoder.decode, data)
    except NoBigStack:
        check_nesting(data, depth_limit(target))
    except Exception as exc:
        return _recover(exc, data, target, lenient)
    try:
        return decoder.decode(data)
    except Exception as exc:
        return _recover(exc, data, target, lenient)


_NOT_DATA: Final = "convtypes decodes bytes, bytearray, memoryview or str, not {}"


def _tags(target: Any) -> Tags:
    """The tag values to name in an error when reading ``target``."""
    if target is ContentBlock or target is Message:
        return TAGS
    classes = value_classes(target)
    return TAGS if classes is None else tags_of(classes)


def _recover(exc: Exception, data: Data, target: Any, lenient: bool) -> Any:
    """After the fast decoder refused ``data``: decode it carefully, or raise WireError."""
    if isinstance(exc, msgspec.ValidationError):
        text = str(exc)
        careful = text.startswith((_UNKNOWN_FIELD, *_SHALLOW_JSON)) or (
            lenient
            and (
                (text.startswith("Invalid value ") and text.endswith(_TAG_ENDINGS))
                or (text.startswith(_UNKNOWN_ENUM) and text.endswith(".provenance`"))
            )
        )
        if not careful:
            raise from_msgspec(exc, data, _tags(target)) from None
    elif type(exc) is TypeError:
        raise TypeError(_NOT_DATA.format(type(data).__name__)) from None
    elif not isinstance(exc, RecursionError):
        raise from_msgspec(exc, data, _tags(target)) from None
    return decode_carefully(data, target, lenient)


def _refuse_repeated_keys(data: Data) -> None:
    found = find_repeated_key(as_bytes(data))
    if found is not None:
        offset, path = found
        raise WireError("expected each key once per object, found it again", path, offset)


# ---------------------------------------------------------------- encoding


def _write_unknown(value: object) -> msgspec.Raw | str:
    # UnknownMessage, UnknownBlock and UnknownProvenance are not Structs or
    # enums: msgspec asks here, and gets their JSON back verbatim.
    if isinstance(value, (UnknownMessage, UnknownBlock)):
        return msgspec.Raw(value.raw)
    if type(value) is UnknownProvenance:
        return value.value
    raise TypeError(f"cannot encode a {type(value).__name__}")


def enc_hook(value: object) -> str | dict[str, Any]:
    """The ``enc_hook`` that lets msgspec's own encoders write lenient values.

    ``UnknownProvenance``, ``UnknownBlock`` and ``UnknownMessage`` are not
    types msgspec knows, so ``msgspec.json.encode``, ``msgspec.to_builtins``
    or ``msgspec.msgpack.encode`` of a leniently decoded value, alone or
    inside a Struct of the program's own, raises unless given this hook:
    ``msgspec.json.encode(record, enc_hook=convtypes.enc_hook)``. It returns
    what :func:`encode` writes for them (the provenance's string, the
    object's JSON as a dict), and raises ``NotImplementedError``, as msgspec
    asks a hook to, for anything else; a program with a hook of its own
    calls this one from it.

    msgspec's encoders write a Struct's declared fields only, so the
    unknown fields a value kept (:func:`unknown_fields`) are left out;
    :func:`encode` is the one that writes them.
    """
    if isinstance(value, (UnknownMessage, UnknownBlock)):
        written: dict[str, Any] = _DECODE_RAW(value.raw)
        return written
    if type(value) is UnknownProvenance:
        return value.value
    raise NotImplementedError(f"convtypes.enc_hook does not encode a {type(value).__name__}")


_DECODE_RAW: Final = msgspec.json.Decoder(dict[str, Any]).decode
_ENCODER: Final = msgspec.json.Encoder(enc_hook=_write_unknown)
_encode: Final = _ENCODER.encode
_VALUES: Final = (
    *MESSAGE_TYPES,
    *CONTENT_BLOCK_TYPES,
    ToolCall,
    ThinkingBlock,
    UnknownMessage,
    UnknownBlock,
    Provenance,
    UnknownProvenance,
)
_PLAIN_VALUES: Final = frozenset(_VALUES)
_MESSAGES: Final = (*MESSAGE_TYPES, UnknownMessage)
_PLAIN_MESSAGES: Final = frozenset(_MESSAGES)
_ACCEPTS: Final = (
    "a convtypes value (a message, content block, tool call, thinking block or "
    "provenance) or a sequence of messages"
)
# Sequences that are not sequences of messages: text and bytes.
_NOT_MESSAGES: Final = (str, bytes, bytearray, memoryview)


def encode(value: Encodable) -> bytes:
    """Encode a value, or a sequence of messages, to the reference's bytes.

    The sequence may be any ``Sequence`` (a list, a tuple, a ``deque``...),
    and is written as a JSON array. Anything else raises ``TypeError``.
    Encoding adds no walk of its own: every field was checked when the
    value was built or decoded. What is left to fail here is what got in by
    changing a value's JSON in place after it was built: text that UTF-8
    cannot carry (a lone surrogate) raises :class:`WireError` naming its
    path.
    """
    if type(value) in _PLAIN_VALUES:
        try:
            return _encode(value)
        except Exception as exc:
            raise _encode_error(exc, value) from None
    return _encode_other(value)


def _encode_other(value: Any) -> bytes:
    """:func:`encode` for a sequence of messages, a carrier, or anything refused."""
    kind = type(value)
    if kind is not list and kind is not tuple and _is_sequence(value):
        try:
            return _encode_other(list(value))
        except TypeError as err:
            raise TypeError(str(err).replace("got a list", f"got a {kind.__name__}")) from None
    if kind is list or kind is tuple:
        # A transcript of plain messages, the common case, passes a check that
        # builds nothing: issuperset walks the types in C and stops at the
        # first that is not a plain message. Only then are the kinds
        # collected, to tell a carrier (a message with unknown fields) from
        # a foreign value.
        if _PLAIN_MESSAGES.issuperset(map(type, value)):
            careful = False
        else:
            kinds = set(map(type, value))
            if not all(issubclass(k, _MESSAGES) for k in kinds):
                raise TypeError(
                    f"encode takes {_ACCEPTS}; got a {kind.__name__} holding other values"
                )
            careful = any(is_carrier(k) for k in kinds)
    elif isinstance(value, _VALUES):
        careful = is_carrier(kind)
    else:
        raise TypeError(f"encode takes {_ACCEPTS}, not {kind.__name__}")
    try:
        return _encode_with_unknowns(value) if careful else _encode(value)
    except Exception as exc:
        raise _encode_error(exc, value) from None


def _is_sequence(value: object) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, _NOT_MESSAGES)


def _encode_error(exc: Exception, value: Any) -> WireError:
    if isinstance(exc, UnicodeEncodeError):
        return WireError(
            "expected text encodable as UTF-8, found a lone surrogate", _find_surrogate(value)
        )
    return WireError(f"cannot encode: {exc}", "$")


def unknown_fields(value: object) -> dict[str, Any]:
    """The unknown fields that lenient decoding kept on ``value``.

    A copy, in the order they were read; empty for a value built in Python
    without them, decoded strictly, or decoded leniently from a document
    that had none.
    """
    return dict(_kept_fields(value))


def _encode_with_unknowns(value: Any) -> bytes:
    """Bytes for a value that carries unknown fields: known fields in wire
    order as msgspec writes them, then the unknown fields in the order read."""
    if type(value) is list or type(value) is tuple:
        return _ENCODER.encode([_spliced(item) for item in value])
    return _ENCODER.encode(_spliced(value))


def _spliced(value: Any) -> Any:
    if not is_carrier(type(value)):
        return value
    # msgspec writes a carrier's known fields as it writes its public class.
    wire = msgspec.json.decode(_ENCODER.encode(value))
    for name in value._all_nested:
        if name in wire:
            wire[name] = [_spliced(item) for item in getattr(value, name)]
    for key, extra in _kept_fields(value).items():
        wire.setdefault(key, extra)
    return msgspec.Raw(_ENCODER.encode(wire))


def _find_surrogate(value: Any) -> str:
    """The path of the first string that UTF-8 cannot encode."""
    stack: list[tuple[Any, list[str | int]]] = [(value, [])]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return format_path(where)
        elif isinstance(item, dict):
            for key, child in item.items():
                stack.append((key, where))
                stack.append((child, [*where, key]))
        elif isinstance(item, (list, tuple)):
            stack.extend((child, [*where, i]) for i, child in enumerate(item))
        elif isinstance(item, msgspec.Struct):
            for field in item.__struct_fields__:
                stack.append((getattr(item, field), [*where, field]))
            stack.extend((extra, [*where, key]) for key, extra in _kept_fields(item).items())
    return "$"
