"""One identity for a message: its canonical bytes and its content address.

A sync layer must tell whether two devices hold the same message, whoever
wrote the bytes. :func:`canonical` gives the message's wire JSON in RFC 8785
form (with exact integers, see ``_canonical``); :func:`address` is the
SHA-256 of it, or, for a list of messages, a chain of such addresses that
grows by one step per message. docs/identity.md is the specification, for
any language.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Final, Union

import msgspec

from ._canonical import canonical_of_builtins, fast_or_exact, splice_calls
from ._codec import enc_hook, encode
from ._content import (
    CONTENT_BLOCK_TYPES,
    AudioBase64Block,
    AudioPathBlock,
    AudioUrlBlock,
    ContentBlock,
    ImageBase64Block,
    ImageUrlBlock,
    TextBlock,
)
from ._errors import WireError
from ._messages import (
    MESSAGE_TYPES,
    AssistantMessage,
    LenientMessage,
    SystemMessage,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from ._provenance import Provenance, UnknownProvenance
from ._unknown import UnknownBlock, UnknownMessage
from ._value import is_carrier

__all__ = ["EMPTY_TRANSCRIPT", "Addressable", "address", "canonical", "extend"]

Addressable = Union[LenientMessage, ContentBlock, UnknownBlock, ToolCall, ThinkingBlock]
"""What has canonical bytes and an address of its own."""

_PREFIX: Final = "sha256:"

EMPTY_TRANSCRIPT: Final = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
"""The address of a transcript with no messages: the SHA-256 of no bytes."""

# hashlib loads OpenSSL, which costs milliseconds: it is imported on the
# first address, not by ``import convtypes``.
_SHA256: list[Callable[[bytes], Any]] = []


def _hex_sha256(data: bytes) -> str:
    """``"sha256:"`` and the lowercase hex SHA-256 of ``data``."""
    if not _SHA256:
        import hashlib

        _SHA256.append(hashlib.sha256)
    digest: str = _SHA256[0](data).hexdigest()
    return _PREFIX + digest


_ADDRESS: Final = re.compile(r"sha256:[0-9a-f]{64}")
_SORTED: Final = msgspec.json.Encoder(order="sorted", enc_hook=enc_hook)
_decode: Final = msgspec.json.decode
_PLAIN: Final = frozenset((*MESSAGE_TYPES, *CONTENT_BLOCK_TYPES, ToolCall, ThinkingBlock))
# Values whose every field is text (or an integer, or a provenance): the
# sorted bytes are canonical as they are.
_TEXTS_ONLY: Final = frozenset(
    (
        SystemMessage,
        UserMessage,
        ToolResultMessage,
        ThinkingBlock,
        TextBlock,
        ImageBase64Block,
        ImageUrlBlock,
        AudioPathBlock,
        AudioUrlBlock,
        AudioBase64Block,
    )
)
_ACCEPTS: Final = "a message, content block, tool call or thinking block"


def canonical(value: Addressable) -> bytes:
    """The value's wire JSON in canonical form (RFC 8785, integers exact).

    The same bytes for the same message from every writer: keys sorted by
    UTF-16 code units, no white space, strings escaped and doubles written
    as RFC 8785 says, and integers in their exact digits (RFC 8785 would
    round those beyond 2**53, letting two ids share their bytes). Unknown
    fields and unknown messages and blocks, as lenient decoding keeps them,
    are part of the bytes. docs/identity.md gives the rule in full.
    ``TypeError`` for anything else (a list included: see :func:`address`
    for a transcript); :class:`WireError` for JSON changed in place that
    JSON cannot carry.
    """
    kind = type(value)
    if kind in _PLAIN:
        try:
            written = _SORTED.encode(value)
        except Exception:
            raise _unwritable(value) from None
        # Keys outside free-form JSON are ASCII and texts need nothing, so
        # only the JSON a value holds (and an fps, a float) may need work.
        if kind in _TEXTS_ONLY:
            return written
        if kind is AssistantMessage:
            return splice_calls(written, value.tool_calls)  # type: ignore[union-attr]
        if kind is UserMultimodalMessage and all(
            type(block) in _TEXTS_ONLY or getattr(block, "fps", 0) is None
            for block in value.content  # type: ignore[union-attr]
        ):
            return written
        return fast_or_exact(written)
    if (
        kind is UnknownMessage
        or kind is UnknownBlock
        or (isinstance(value, (*_PLAIN, UnknownMessage, UnknownBlock)) and is_carrier(kind))
    ):
        return _exact(value)
    raise TypeError(f"canonical takes {_ACCEPTS}, not {kind.__name__}")


def _exact(value: Addressable) -> bytes:
    """Canonical bytes by way of the wire bytes ``encode`` writes, unknown fields and all."""
    return canonical_of_builtins(_decode(encode(value)))


def _unwritable(value: object) -> WireError:
    """The error for a value holding what JSON cannot carry (put there in place), with its path."""
    try:
        canonical_of_builtins(_as_builtins(value))
    except WireError as err:
        return err
    return WireError("cannot encode the value", "$")  # pragma: no cover - found above


def _as_builtins(value: object) -> object:
    """A value's fields as dicts and lists, JSON left as it is: enough to find a bad place."""
    if isinstance(value, msgspec.Struct):
        return {name: _as_builtins(getattr(value, name)) for name in value.__struct_fields__}
    if type(value) is tuple:
        return [_as_builtins(item) for item in value]
    if isinstance(value, Provenance):
        return value.value
    if isinstance(value, (UnknownProvenance, UnknownMessage, UnknownBlock)):
        return None
    return value


def _address_of(value: Addressable) -> str:
    return _hex_sha256(canonical(value))


def extend(transcript: str, message: str) -> str:
    """The address of a transcript one message longer, from the two addresses.

    ``transcript`` is the address of the transcript so far and ``message``
    the address of the message that follows it; the result is the SHA-256
    of the two, written one after the other as ASCII.
    """
    return _hex_sha256((transcript + message).encode("ascii"))


def address(value: Addressable | Sequence[LenientMessage], *, after: str | None = None) -> str:
    """The content address of a value, or of a transcript so far.

    For one value: ``"sha256:"`` and the 64 lowercase hex digits of the
    SHA-256 of :func:`canonical`. Any program with an RFC 8785
    implementation and SHA-256 gets the same string from any writer's
    bytes of the value (docs/identity.md).

    For a sequence of messages: a chain. It starts at the address of the
    empty transcript (:data:`EMPTY_TRANSCRIPT`, the SHA-256 of no bytes),
    and each message moves it one step, to the SHA-256 of the address so
    far followed by the message's address. So a transcript and its
    continuation are addressed alike everywhere, and the address grows by
    one message at one message's cost: ``address([message], after=before)``
    is the address of the transcript whose address was ``before`` with
    ``message`` appended.
    """
    if type(value) in _PLAIN:
        if after is not None:
            raise TypeError("after= continues a transcript: give a sequence of messages")
        return _address_of(value)  # type: ignore[arg-type]
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray, memoryview)):
        chain = EMPTY_TRANSCRIPT if after is None else _checked(after)
        for index, message in enumerate(value):
            if not isinstance(message, (*MESSAGE_TYPES, UnknownMessage)):
                raise TypeError(
                    f"address takes a sequence of messages; item {index} is a "
                    f"{type(message).__name__}"
                )
            chain = extend(chain, _address_of(message))
        return chain
    if after is not None:
        raise TypeError("after= continues a transcript: give a sequence of messages")
    return _address_of(value)  # type: ignore[arg-type]  # canonical refuses what it must


def _checked(after: object) -> str:
    if type(after) is not str or _ADDRESS.fullmatch(after) is None:
        raise WireError(
            f"expected an address: 'sha256:' and 64 lowercase hex digits, got {after!r:.80}",
            "$.after",
        )
    return after
