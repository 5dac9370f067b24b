"""Canonical JSON (RFC 8785, with exact integers), and equality and hashing by it.

One JSON value has one canonical byte string: no white space, object keys
sorted by their UTF-16 code units, strings escaped as ECMAScript's
``JSON.stringify`` escapes them, and numbers written by one rule:

- an integer (a number held as a Python ``int``: written without a fraction
  or an exponent) is written in its exact decimal digits;
- any other number is the IEEE double it reads as, written as ECMAScript's
  ``Number.prototype.toString`` writes it.

For every integer between -2**53 and 2**53, and for every double, that is
what RFC 8785 writes. Beyond, RFC 8785 would round an integer to a double,
and two different ids would share their bytes; here each integer keeps its
own. docs/identity.md states the rule for other languages.

Two JSON values are equal here exactly when their canonical bytes are:
``true`` is not ``1``, ``1`` and ``1.0`` are one number, and key order does
not count. :func:`json_equal` and :func:`json_hash` give the values' own
``==`` and ``hash`` that meaning.

Speed: msgspec writes most values canonically already when told to sort
keys (its escapes are ECMAScript's, and so are its digits of a double), so
the fast path is one C encode and a look at its bytes. Two things need more:
a double msgspec lays out otherwise (``1.0`` for ``1``, ``1e21`` for
``1e+21``), which a C decode with a float hook and an encode rewrite; and a
character beyond U+FFFF (msgspec sorts keys by code point, and UTF-16 puts
such a character before U+E000..U+FFFF), which sends the value to the exact
path, a walk in Python. The tests hold the paths to each other and to an
independent RFC 8785 package.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Final

import msgspec

from ._errors import WireError
from ._locate import format_path

__all__ = [
    "canonical_json",
    "canonical_of_builtins",
    "es_number",
    "fast_or_exact",
    "json_equal",
    "json_hash",
    "may_hold_float",
    "splice_calls",
]

_SORTED: Final = msgspec.json.Encoder(order="sorted")
_IN_ORDER: Final = msgspec.json.Encoder()
_decode: Final = msgspec.json.decode
_write_text: Final = msgspec.json.encode


def _astral(written: bytes) -> bool:
    """Whether UTF-8 ``written`` holds a character beyond U+FFFF (lead byte F0 to F4)."""
    return not written.isascii() and bool(written.translate(None, _ALL_BUT_LEADS))


# Every byte but F0 to F4, the lead bytes of characters beyond U+FFFF: what
# deleting them leaves is empty exactly when there is no such character.
_ALL_BUT_LEADS: Final = bytes(byte for byte in range(256) if not 0xF0 <= byte <= 0xF4)


# Every digit as 0. msgspec writes a double as ECMAScript does (the shortest
# digits, in decimal where ECMAScript uses decimal too) but for two cases:
# an integer keeps ".0" ("1.0" for 1), and an exponent has its own layout
# and range ("1e-5" for 0.00001, "1e21" for 1e+21). Bytes in which no
# digit is followed by "e", nor by ".0" and the end of a number, hold no
# double to rewrite.
_ZEROS: Final = bytes.maketrans(b"123456789", b"000000000")


def may_hold_float(written: bytes) -> bool:
    """Whether msgspec's bytes may hold a double it writes otherwise than ECMAScript.

    Text (``"v1.0,"``, a hex id) may say yes; that only costs a rewrite
    that changes nothing.
    """
    zeroed = written.translate(_ZEROS)
    return (
        b"0e" in zeroed
        or b"0.0," in zeroed
        or b"0.0}" in zeroed
        or b"0.0]" in zeroed
        or zeroed.endswith(b"0.0")
    )


def fast_or_exact(written: bytes) -> bytes:
    """Canonical bytes from msgspec's key-sorted bytes of a value.

    Where a double may be written otherwise, the bytes are read back with
    each float in its ECMAScript form and written again (a C decode and encode, cheaper than
    any scan in Python). A character beyond U+FFFF sends the value to the
    exact path, which sorts keys by UTF-16.
    """
    fixed = written
    if may_hold_float(fixed):
        fixed = _IN_ORDER.encode(_FLOATS_AS_ES.decode(fixed))
    if _astral(fixed):
        return canonical_of_builtins(_decode(written))
    return fixed


def splice_calls(written: bytes, calls: Sequence[Any]) -> bytes:
    """``written`` (an assistant message's sorted bytes) with each call's arguments canonical.

    The calls come last in the message and their arguments first in each
    call, so each arguments object is the last place its sorted bytes
    appear before the next call's: found from the end, and replaced there.
    ``{"`` never appears inside a string, so the bytes found are the object
    itself, and canonical bytes are the same standalone or nested.
    """
    bound = len(written)
    for call in reversed(calls):
        mine = _SORTED.encode(call.arguments)
        start = written.rfind(mine, 0, bound)
        if start < 0:  # pragma: no cover - the bytes are in the message
            return fast_or_exact(written)
        fixed = fast_or_exact(mine)
        if fixed != mine:
            written = written[:start] + fixed + written[start + len(mine) :]
        bound = start
    return written


def canonical_json(value: Any) -> bytes:
    """The canonical bytes of a JSON value (dicts, lists, tuples and scalars).

    Raises :class:`~convtypes.WireError`, naming the place, for what JSON
    cannot carry: a value changed in place after it was checked.
    """
    try:
        written = _SORTED.encode(value)
    except Exception:
        # Let the exact path find what is wrong and where.
        return canonical_of_builtins(value)
    return fast_or_exact(written)


def canonical_of_builtins(value: Any) -> bytes:
    """The exact path: canonical bytes by a walk over decoded JSON."""
    pieces: list[bytes] = []
    _write(value, pieces, [])
    return b"".join(pieces)


def _utf16(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def _write(value: Any, out: list[bytes], where: list[str | int]) -> None:
    kind = type(value)
    if kind is str:
        out.append(_text(value, where))
    elif kind is dict:
        keys = list(value)
        for key in keys:
            if type(key) is not str:
                raise WireError(f"expected a string key, got {key!r}", format_path(where))
        keys.sort()
        if not all(key.isascii() for key in keys):
            keys.sort(key=_utf16)
        out.append(b"{")
        first = True
        for key in keys:
            if not first:
                out.append(b",")
            first = False
            out.append(_text(key, where))
            out.append(b":")
            where.append(key)
            _write(value[key], out, where)
            where.pop()
        out.append(b"}")
    elif kind is list or kind is tuple:
        out.append(b"[")
        for index, item in enumerate(value):
            if index:
                out.append(b",")
            where.append(index)
            _write(item, out, where)
            where.pop()
        out.append(b"]")
    elif value is None:
        out.append(b"null")
    elif value is True:
        out.append(b"true")
    elif value is False:
        out.append(b"false")
    elif kind is int:
        try:
            out.append(str(value).encode("ascii"))
        except ValueError:
            raise WireError(
                "expected an integer short enough to write in decimal "
                "(see sys.set_int_max_str_digits)",
                format_path(where),
            ) from None
    elif kind is float:
        if not math.isfinite(value):
            raise WireError(f"expected a finite number, got {value!r}", format_path(where))
        out.append(es_number(value).encode("ascii"))
    else:
        raise WireError(f"expected a JSON value, got {kind.__name__}", format_path(where))


def _text(text: str, where: list[str | int]) -> bytes:
    try:
        written: bytes = _write_text(text)
    except UnicodeEncodeError:
        raise WireError(
            "expected text encodable as UTF-8, found a lone surrogate", format_path(where)
        ) from None
    return written


def _es_literal(literal: str) -> msgspec.Raw:
    # The literals read here are msgspec's own: the shortest digits, laid
    # out in decimal wherever ECMAScript lays them out in decimal too, but
    # with ".0" on an integer; only an exponent needs the full layout.
    if "e" not in literal:
        if literal.endswith(".0"):
            literal = literal[:-2] if literal != "-0.0" else "0"
        return msgspec.Raw(literal)
    return msgspec.Raw(es_number(float(literal)))


# Reads JSON with every float (a literal with a fraction or an exponent) as
# its ECMAScript form, ready to be written back as it is.
_FLOATS_AS_ES: Final = msgspec.json.Decoder(float_hook=_es_literal)


def es_number(value: float) -> str:
    """A finite double as ECMAScript's ``Number.prototype.toString`` writes it.

    Python's ``repr`` gives the shortest digits that read back to the same
    double, as ECMAScript asks; only the layout differs, and it is redone
    here (ECMA-262, Number::toString).
    """
    if value == 0:
        return "0"
    shortest = repr(value)
    if "e" not in shortest:
        # Between 1e-4 and 1e16, repr lays the digits out as ECMAScript
        # does, but for the ".0" it gives an integer.
        return shortest[:-2] if shortest.endswith(".0") else shortest
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = shortest.lstrip("-").partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    # The value is 0.DIGITS times ten to the point.
    point = len(whole) + int(exponent or 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    count = len(digits)
    if count <= point <= 21:
        body = digits + "0" * (point - count)
    elif 0 < point <= 21:
        body = f"{digits[:point]}.{digits[point:]}"
    elif -6 < point <= 0:
        body = "0." + "0" * -point + digits
    else:
        power = point - 1
        shown = f"+{power}" if power >= 0 else str(power)
        head = digits if count == 1 else f"{digits[0]}.{digits[1:]}"
        body = f"{head}e{shown}"
    return sign + body


def json_equal(left: Any, right: Any, fallback: Callable[[Any, Any], bool] | None = None) -> bool:
    """Whether two JSON values have the same canonical bytes.

    Cheap when they do not hold floats: msgspec writes both with sorted
    keys, and equal bytes mean equal values; different bytes mean different
    values unless a float is spelled otherwise (``1.0`` for ``1``), which
    only the canonical bytes settle. A value JSON cannot carry (changed in
    place) compares as Python compares it.
    """
    if left is right:
        return True
    try:
        # Two reads of one document hold their keys in one order: equal
        # bytes in that order settle it without a sort.
        if _IN_ORDER.encode(left) == _IN_ORDER.encode(right):
            return True
        first = _SORTED.encode(left)
        second = _SORTED.encode(right)
    except Exception:
        return bool(left == right) if fallback is None else fallback(left, right)
    if first == second:
        return True
    if not may_hold_float(first) and not may_hold_float(second):
        return False  # canonical but for key order: they differ as the values do
    return fast_or_exact(first) == fast_or_exact(second)


def json_hash(value: Any) -> int:
    """The hash of a JSON value's canonical bytes: equal by :func:`json_equal`, equal hash.

    Raises :class:`~convtypes.WireError` for a value JSON cannot carry.
    """
    return hash(canonical_json(value))
