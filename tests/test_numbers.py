"""Numbers are written the way serde_json writes them.

serde_json formats floats with ryu: the shortest digits that read back to the
same double, laid out by fixed rules. msgspec uses the same digits and the
same layout; these tests pin that for the msgspec versions we support, since
the wire bytes depend on it.
"""

from __future__ import annotations

import math
import struct

import msgspec
from hypothesis import example, given
from hypothesis import strategies as st

import convtypes as ct


def _digits(value: float, shortest: str) -> tuple[str, int]:
    """Split a shortest repr into significant digits and a power of ten."""
    mantissa, _, exp = shortest.partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    power = int(exp or 0) - len(frac)
    stripped = digits.rstrip("0")
    power += len(digits) - len(stripped)
    return stripped, power


def ryu_layout(value: float, shortest: str, limit: int, low: int) -> str:
    """Lay out shortest digits as ryu does (limit 16 and low -5 for f64)."""
    if value == 0:
        return "-0.0" if math.copysign(1, value) < 0 else "0.0"
    sign = "-" if value < 0 else ""
    digits, k = _digits(abs(value), shortest.lstrip("-"))
    length = len(digits)
    kk = length + k
    if 0 <= k and kk <= limit:
        body = digits + "0" * k + ".0"
    elif 0 < kk <= limit:
        body = digits[:kk] + "." + digits[kk:]
    elif low < kk <= 0:
        body = "0." + "0" * -kk + digits
    elif length == 1:
        body = f"{digits}e{kk - 1}"
    else:
        body = f"{digits[0]}.{digits[1:]}e{kk - 1}"
    return sign + body


@given(st.floats(allow_nan=False, allow_infinity=False))
@example(1e-7)
@example(1e-5)
@example(1e15)
@example(1e16)
@example(-0.0)
@example(5e-324)
@example(1.7976931348623157e308)
def test_json_floats_use_serde_json_layout(value: float) -> None:
    expected = ryu_layout(value, repr(value), 16, -5)
    assert msgspec.json.encode(value).decode() == expected
    call = ct.ToolCall(name="n", arguments={"x": value})
    assert ct.encode(call) == f'{{"name":"n","arguments":{{"x":{expected}}}}}'.encode()


def _f32_shortest(value: float) -> str:
    for digits in range(1, 10):
        text = f"{value:.{digits}g}"
        if struct.unpack("<f", struct.pack("<f", float(text)))[0] == value:
            return text
    raise AssertionError("unreachable")


@given(
    st.floats(min_value=1.0000000656873453e-05, max_value=9999998779392.0, width=32),
    st.booleans(),
)
@example(29.97, False)
@example(0.5, False)
@example(30.0, False)
def test_fps_is_written_as_the_reference_writes_an_f32(value: float, negative: bool) -> None:
    value = -value if negative else value
    single = struct.unpack("<f", struct.pack("<f", value))[0]
    # In this range the f32 and f64 layouts of ryu agree (f32: limit 13, low -6).
    expected = ryu_layout(single, _f32_shortest(single), 13, -6)
    block = ct.VideoPathBlock(path="p", fps=value)
    assert ct.encode(block) == f'{{"type":"video_path","path":"p","fps":{expected}}}'.encode()


def test_fps_holds_the_f32_the_reference_holds() -> None:
    doc = b'{"type":"video_path","path":"p","fps":29.970000001}'
    block = ct.decode(doc, ct.VideoPathBlock)
    assert block.fps == 29.97
    assert ct.encode(block) == b'{"type":"video_path","path":"p","fps":29.97}'
    # Integers are read as floats and written with a fraction.
    assert (
        ct.encode(ct.VideoPathBlock(path="p", fps=30))
        == b'{"type":"video_path","path":"p","fps":30.0}'
    )
    # Just above FLT_MAX still rounds to FLT_MAX, as a Rust cast does.
    assert ct.VideoPathBlock(path="p", fps=3.40282350e38).fps == 3.4028235e38
