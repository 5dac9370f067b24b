"""Bytes to values and back: the codec, its limits and its checks.

Data flows one way through this module: bytes go through a msgspec decoder
built once at import, the decoded values get the few checks msgspec cannot
make, and values go back out through one shared encoder. Every failure
leaves as :class:`WireError` with a JSON path.

What msgspec checks, in C: JSON syntax, UTF-8, lone surrogate escapes, types,
tags, required fields, the u32 range and numbers that overflow a float. What
this module adds: the reference's nesting limit, and on encode, that JSON
values are finite, JSON-typed and encodable as UTF-8.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final, TypeVar, Union, overload

import msgspec

from ._content import U32_MAX, ContentBlock
from ._errors import WireError
from ._jsonvalue import MAX_DEPTH
from ._locate import find_excess_depth, find_repeated_key, format_path, path_at
from ._messages import (
    Message,
    ThinkingBlock,
    ToolCall,
)
from ._provenance import Provenance
from ._unknown import UnknownBlock, UnknownMessage

__all__ = [
    "LenientContentBlock",
    "LenientMessage",
    "decode",
    "decode_lenient_message",
    "decode_lenient_messages",
    "decode_message",
    "decode_messages",
    "encode",
    "unknown_fields",
]

T = TypeVar("T")

LenientMessage = Union[Message, UnknownMessage]
"""A message as lenient decoding returns it: a known one or an unknown one."""

LenientContentBlock = Union[ContentBlock, UnknownBlock]
"""A content block as lenient decoding can leave it inside a message."""

Encodable = Union[
    LenientMessage,
    LenientContentBlock,
    ToolCall,
    ThinkingBlock,
    Provenance,
    Sequence[LenientMessage],
]

# Built once: a msgspec decoder compiles its type into a fast internal plan,
# and the same decoder and encoder are safe to share between threads.
_MESSAGE_DECODER: Final = msgspec.json.Decoder(Message)
_TRANSCRIPT_DECODER: Final = msgspec.json.Decoder(list[Message])


def _write_unknown(value: object) -> msgspec.Raw:
    # UnknownMessage and UnknownBlock are not Structs: msgspec asks here, and
    # gets their JSON back verbatim.
    if isinstance(value, (UnknownMessage, UnknownBlock)):
        return msgspec.Raw(value.raw)
    raise TypeError(f"cannot encode a {type(value).__name__}")


_ENCODER: Final = msgspec.json.Encoder(enc_hook=_write_unknown)
_DECODERS: dict[Any, msgspec.json.Decoder[Any]] = {
    Message: _MESSAGE_DECODER,
    list[Message]: _TRANSCRIPT_DECODER,
    list[Message]: _TRANSCRIPT_DECODER,
    ContentBlock: msgspec.json.Decoder(ContentBlock),
    ToolCall: msgspec.json.Decoder(ToolCall),
    ThinkingBlock: msgspec.json.Decoder(ThinkingBlock),
    Provenance: msgspec.json.Decoder(Provenance),
}

# ---------------------------------------------------------------- decoding


Data = Union[bytes, bytearray, memoryview, str]


def decode_messages(
    data: Data, *, lenient: bool = False, reject_repeated_keys: bool = False
) -> list[Message]:
    """Decode a transcript: a JSON array of messages.

    Unknown fields are dropped, as the reference drops them, and an unknown
    role or block type is refused. With ``lenient=True`` nothing is lost:
    unknown fields stay on their value and are written back by
    :func:`encode`, and unknown roles and block types load as
    :class:`UnknownMessage` and :class:`UnknownBlock` (so the list is really
    a ``list[LenientMessage]``; use :func:`decode_lenient_messages` for that
    type). A document in the current schema decodes at the same speed in
    either mode.

    A key repeated within one object is read as its last value, as most
    JSON readers do. The reference refuses such a document instead; pass
    ``reject_repeated_keys=True`` to refuse it too (at about nine times the
    cost of the decode). See SECURITY.md for when that matters.
    """
    try:
        messages: list[Message] = _TRANSCRIPT_DECODER.decode(data)
    except Exception as exc:
        messages = _recover(exc, data, "messages", lenient)
    if reject_repeated_keys:
        _refuse_repeated_keys(data)
    return messages


def decode_message(
    data: Data, *, lenient: bool = False, reject_repeated_keys: bool = False
) -> Message:
    """Decode one message; the options are those of :func:`decode_messages`."""
    # The body of _decode, inlined: one call less on every oplog line.
    try:
        message: Message = _MESSAGE_DECODER.decode(data)
    except Exception as exc:
        message = _recover(exc, data, "message", lenient)
    if reject_repeated_keys:
        _refuse_repeated_keys(data)
    return message


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


@overload
def decode(data: Data, type: type[T], *, reject_repeated_keys: bool = False) -> T: ...
@overload
def decode(data: Data, type: Any, *, reject_repeated_keys: bool = False) -> Any: ...
def decode(data: Data, type: Any, *, reject_repeated_keys: bool = False) -> Any:
    """Decode ``data`` as ``type``.

    ``type`` is one of the value types, a union alias such as
    ``ContentBlock`` or ``Message``, or ``list[Message]``. Decoders for
    types not built at import are built on first use and kept.
    ``reject_repeated_keys`` as for :func:`decode_messages`.
    """
    decoder = _DECODERS.get(type)
    if decoder is None:
        if not _is_wire_type(type):
            raise TypeError(f"convtypes cannot decode {type!r}")
        decoder = _DECODERS.setdefault(type, msgspec.json.Decoder(type))
    target = {Message: "message", list[Message]: "messages", list[Message]: "messages"}.get(
        type, type
    )
    return _decode(decoder, data, target, False, reject_repeated_keys)


def _decode(
    decoder: msgspec.json.Decoder[Any],
    data: Data,
    target: Any,
    lenient: bool,
    reject_repeated_keys: bool,
) -> Any:
    try:
        value = decoder.decode(data)
    except Exception as exc:
        value = _recover(exc, data, target, lenient)
    if reject_repeated_keys:
        _refuse_repeated_keys(data)
    return value


def _recover(exc: Exception, data: Data, target: Any, lenient: bool) -> Any:
    """After msgspec refused ``data``: decode it carefully, or raise WireError."""
    if not isinstance(exc, msgspec.ValidationError) or not _has_unknowns(str(exc), lenient):
        raise _decode_error(exc, data) from None
    # Something this version does not know: take the careful path.
    from ._lenient import decode_slowly

    try:
        return decode_slowly(data, target, lenient)
    except WireError:
        raise
    except Exception as slow_exc:
        raise _decode_error(slow_exc, data) from None


def _has_unknowns(message: str, lenient: bool) -> bool:
    """Whether msgspec stopped at an unknown field (or, leniently, an unknown tag)."""
    if message.startswith("Object contains unknown field"):
        return True
    return lenient and message.startswith("Invalid value ") and message.endswith(_TAG_ENDINGS)


_TAG_ENDINGS: Final = (".role`", ".type`")


def _refuse_repeated_keys(data: Data) -> None:
    raw = _as_bytes(data)
    found = find_repeated_key(raw) if raw is not None else None
    if found is not None:
        offset, path = found
        raise WireError("expected each key once per object, found it again", path, offset)


def _is_wire_type(tp: Any) -> bool:
    from ._content import CONTENT_BLOCK_TYPES
    from ._messages import MESSAGE_TYPES

    return tp in CONTENT_BLOCK_TYPES or tp in MESSAGE_TYPES


# msgspec phrases its errors as "<what> - at `<path>`".
_MSGSPEC_ERROR = re.compile(r"^(?P<what>.*?)(?: - at `(?P<path>[^`]*)`)?$", re.DOTALL)
# A \\uD800-\\uDBFF escape not followed by a low half, or a lone low half.
_LONE_SURROGATE = re.compile(
    rb"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)
_BYTE_OFFSET = re.compile(r"\s*\(byte (\d+)\)$")
_OWN_PATH = re.compile(r"^(?P<what>.*) at \$(?P<rest>.*)$", re.DOTALL)
_U32_FIELDS: Final = (".max_frames", ".sample_rate")
_TAG_VALUES = {
    "role": (
        "system",
        "user",
        "user_multimodal",
        "assistant",
        "tool_result",
        "provider_output_items",
    ),
    "type": (
        "text",
        "image_base64",
        "image_url",
        "video_path",
        "video_url",
        "video_base64",
        "audio_path",
        "audio_url",
        "audio_base64",
    ),
}


def _decode_error(exc: BaseException, data: bytes | bytearray | memoryview | str) -> WireError:
    """Turn whatever msgspec raised into a WireError naming a JSON path."""
    if isinstance(exc, WireError):
        return exc
    if isinstance(exc, RecursionError):
        raw = _as_bytes(data)
        try:
            found = find_excess_depth(raw, MAX_DEPTH) if raw is not None else None
        except Exception:  # pragma: no cover - see _path_at
            found = None
        if found is None:
            return WireError(f"expected JSON nested at most {MAX_DEPTH} levels deep", "$")
        return WireError(
            f"expected JSON nested at most {MAX_DEPTH} levels deep", found[1], found[0]
        )
    if isinstance(exc, UnicodeDecodeError):
        # Older msgspec reports invalid UTF-8 this way; newer as a DecodeError.
        raw = _as_bytes(data)
        offset = 0
        if raw is not None:
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as bad:
                offset = bad.start
        path = _path_at(raw, offset) if raw is not None else "$"
        return WireError("expected UTF-8 text, found an invalid byte", path, offset)
    if isinstance(exc, UnicodeError):
        return WireError("expected text encodable as UTF-8 (a lone surrogate?)", "$")
    if not isinstance(exc, (msgspec.ValidationError, msgspec.DecodeError)):
        return WireError(f"unreadable document: {exc}", "$")
    text = str(exc)
    match = _MSGSPEC_ERROR.match(text)
    assert match is not None  # the pattern matches any string
    what, path = match["what"], match["path"] or "$"
    if isinstance(exc, msgspec.ValidationError):
        return WireError(*_explain_validation(what, path))
    # A syntax error: msgspec gives a byte offset; name the JSON path there.
    offset_match = _BYTE_OFFSET.search(what)
    raw = _as_bytes(data)
    if offset_match:
        offset = int(offset_match[1])
        what = what[: offset_match.start()]
    else:
        offset = len(raw) if raw is not None else 0
    if raw is not None and raw.startswith(b"\xef\xbb\xbf"):
        return WireError("expected JSON, found a UTF-8 byte-order mark", "$", 0)
    lone = _LONE_SURROGATE.search(raw) if raw is not None else None
    surrogate_errors = (
        "Input data was truncated",
        "JSON is malformed: invalid utf-16 surrogate pair",
    )
    if lone and what in surrogate_errors:
        offset = lone.start()
        what = "expected a valid string, found a lone surrogate escape"
    elif what == "Invalid UTF-8 encoded string" and raw is not None:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as bad:
            offset = bad.start
        what = "expected UTF-8 text, found an invalid byte"
    elif what == "Input data was truncated":
        what = "expected more JSON: the document ends early"
    else:
        what = "malformed JSON: " + what.removeprefix("JSON is malformed: ")
    # Trailing data follows a complete document: it belongs to no path inside.
    inside = raw is not None and "trailing characters" not in what
    path = _path_at(raw, offset) if inside and raw is not None else "$"
    return WireError(what, path, offset)


def _path_at(raw: bytes, offset: int) -> str:
    # The locator is a second reader of hostile bytes; if it ever fails, the
    # error still leaves as a WireError, only with a coarser path.
    try:
        return path_at(raw, offset)
    except Exception:  # pragma: no cover - a defect in the locator, not in the input
        return "$"


def _explain_validation(what: str, path: str) -> tuple[str, str]:
    own = _OWN_PATH.match(what)
    if own:
        # Raised by a value type's own check, with a path relative to it.
        return own["what"], path + own["rest"]
    what = what.replace("`", "")
    if what.startswith(("Expected int >= 0", "Expected int <= ")) and path.endswith(_U32_FIELDS):
        side = "negative" if ">=" in what else "too large"
        what = f"expected an integer in 0..{U32_MAX}, got one {side}"
    elif what.startswith("Expected "):
        what = "expected " + what[len("Expected ") :]
    elif what.startswith("Object missing required field "):
        what = "missing required field '" + what[len("Object missing required field ") :] + "'"
    elif what.startswith("Invalid enum value "):
        what = f"expected 'internal' or 'external', got {what[len('Invalid enum value ') :]}"
    elif what.startswith("Invalid value ") and path.rsplit(".", 1)[-1] in _TAG_VALUES:
        field = path.rsplit(".", 1)[-1]
        choices = ", ".join(f"'{tag}'" for tag in _TAG_VALUES[field])
        what = f"expected {field} to be one of {choices}, got {what[len('Invalid value ') :]}"
    elif what == "Number out of range":
        what = "expected a number within the range of a 64-bit float"
    else:
        what = what[:1].lower() + what[1:]
    return what, path


def _as_bytes(data: bytes | bytearray | memoryview | str) -> bytes | None:
    if isinstance(data, str):
        try:
            return data.encode("utf-8")
        except UnicodeEncodeError:
            return None
    return bytes(data)


# ---------------------------------------------------------------- encoding


def encode(value: Encodable) -> bytes:
    """Encode a value, or a list of messages, to the reference's bytes.

    Encoding adds no walk of its own: every field with a fixed range
    (``max_frames``, ``fps``, the JSON in arguments and items) was checked
    when the value was built or decoded. What is left to fail here is text
    that UTF-8 cannot carry (a lone surrogate), which raises
    :class:`WireError` naming its path.
    """
    try:
        if EXTRA_TYPES and _carries_unknowns(value):
            from ._lenient import encode_with_unknowns

            return encode_with_unknowns(value, _ENCODER)
        return _ENCODER.encode(value)
    except UnicodeEncodeError:
        raise WireError(
            "expected text encodable as UTF-8, found a lone surrogate", _find_surrogate(value)
        ) from None
    except (TypeError, ValueError, OverflowError) as exc:
        raise WireError(f"cannot encode: {exc}", "$") from None


def unknown_fields(value: object) -> dict[str, Any]:
    """The unknown fields that lenient decoding kept on ``value``.

    A copy, in the order they were read; empty for a value built in Python,
    decoded strictly, or decoded leniently from a document without them.
    """
    import sys

    lenient = sys.modules.get("convtypes._lenient")
    if lenient is None:
        return {}
    found: dict[str, Any] = lenient.unknown_fields(value)
    return found


# The classes that carry unknown fields; _lenient fills this in when it is
# first imported, so until a document is decoded leniently it stays empty and
# encode pays one truth test.
EXTRA_TYPES: frozenset[type] = frozenset()


def _carries_unknowns(value: object) -> bool:
    """Whether ``value`` holds unknown fields kept by lenient decoding."""
    if type(value) is list:
        return not EXTRA_TYPES.isdisjoint(map(type, value))
    return type(value) in EXTRA_TYPES


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
    return "$"
