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
keys (its escapes are ECMAScript's), so the fast path is one C encode and a
scan of its output. Two things send a value to the exact path, a walk in
Python: a float (msgspec's layout of doubles is not ECMAScript's, ``1.0``
against ``1``) and a character beyond U+FFFF (msgspec sorts keys by code
point, and UTF-16 puts such a character before U+E000..U+FFFF). The tests
hold the two paths to each other and to an independent RFC 8785 package.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
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
]

# A float as msgspec writes it: after ``:``, ``[`` or ``,``, digits then
# ``.`` or ``e`` (msgspec always writes one of them in a float, never in an
# integer). Text may hold the same pattern; that only costs the exact path.
_FLOAT: Final = re.compile(rb"[:,\[]-?[0-9]+[.e]")
# The first byte of a character beyond U+FFFF in UTF-8.
_ASTRAL: Final = re.compile(rb"[\xf0-\xf4]")

_SORTED: Final = msgspec.json.Encoder(order="sorted")
_decode: Final = msgspec.json.decode
_write_text: Final = msgspec.json.encode


def fast_or_exact(written: bytes) -> bytes:
    """Canonical bytes from msgspec's key-sorted bytes of a value.

    ``written`` is returned as it is when it is canonical already (no float,
    no character beyond U+FFFF); otherwise it is read back and written by
    the exact path.
    """
    if _FLOAT.search(written) is None and (written.isascii() or _ASTRAL.search(written) is None):
        return written
    return canonical_of_builtins(_decode(written))


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


def es_number(value: float) -> str:
    """A finite double as ECMAScript's ``Number.prototype.toString`` writes it.

    Python's ``repr`` gives the shortest digits that read back to the same
    double, as ECMAScript asks; only the layout differs, and it is redone
    here (ECMA-262, Number::toString).
    """
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(value)).partition("e")
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
        first = _SORTED.encode(left)
        second = _SORTED.encode(right)
    except Exception:
        return bool(left == right) if fallback is None else fallback(left, right)
    if first == second:
        return True
    if _FLOAT.search(first) is None and _FLOAT.search(second) is None:
        return False
    return fast_or_exact(first) == fast_or_exact(second)


def json_hash(value: Any) -> int:
    """The hash of a JSON value's canonical bytes: equal by :func:`json_equal`, equal hash.

    Raises :class:`~convtypes.WireError` for a value JSON cannot carry.
    """
    return hash(canonical_json(value))
