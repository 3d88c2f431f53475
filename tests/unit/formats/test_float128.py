"""IEEE 754 binary128 (float128), which neither numpy nor ml_dtypes has: known patterns, float64's values carried
over bit by bit, correct rounding back to float64 (Python's own float() of a Fraction), ties, and properties.

numpy's float128 is x87 extended precision on x86 (64 significand bits), not binary128; where numpy's long double
is binary128 (aarch64, for one) the decoding is checked against it too.
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.formats import ROUNDINGS, Real, decimal, decode, encode, get_format, next_down, next_up, parse_number, ulp
from app.formats.vector import NoFastPathError, decode_bits, encode_bits, has_fast_path, round_to_format
from app.refusal import Refusal

SPEC = get_format("float128")
TWO = Fraction(2)
MAX = (2 - TWO**-112) * TWO**16383
PROPERTY = settings(max_examples=300, derandomize=True, database=None, deadline=None)

# pattern, exact value: binary128's landmarks (the hex digits as IEEE 754-2008 and the literature give them)
KNOWN = [
    (0x3FFF_0000_0000_0000_0000_0000_0000_0000, Fraction(1)),
    (0x3FFF_0000_0000_0000_0000_0000_0000_0001, 1 + TWO**-112),  # the next value up from 1
    (0x3FFE_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF, 1 - TWO**-113),  # the next value down from 1
    (0x4000_0000_0000_0000_0000_0000_0000_0000, Fraction(2)),
    (0xC000_0000_0000_0000_0000_0000_0000_0000, Fraction(-2)),
    (0x7FFE_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF, MAX),  # ≈ 1.1897314953572317650857593266280070162e+4932
    (0x0001_0000_0000_0000_0000_0000_0000_0000, TWO**-16382),  # min normal ≈ 3.3621031431120935062626778e-4932
    (0x0000_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF, (1 - TWO**-112) * TWO**-16382),  # the largest subnormal
    (0x0000_0000_0000_0000_0000_0000_0000_0001, TWO**-16494),  # min subnormal ≈ 6.4751751194380251109e-4966
]

# decimal input, the nearest binary128 pattern (round to nearest even)
NEAREST = [
    ("0.1", 0x3FFB_9999_9999_9999_9999_9999_9999_999A),
    ("1/3", 0x3FFD_5555_5555_5555_5555_5555_5555_5555),
    ("3.14159265358979323846264338327950288419716939937510", 0x4000_921F_B544_42D1_8469_898C_C517_01B8),
    ("-0.1", 0xBFFB_9999_9999_9999_9999_9999_9999_999A),
]


def test_the_layout_is_binary128s() -> None:
    assert (SPEC.bits, SPEC.exponent_bits, SPEC.mantissa_bits, SPEC.bias) == (128, 15, 112, 16383)
    assert (SPEC.nan_style, SPEC.signed, SPEC.ml_dtype, SPEC.overflow_default) == ("ieee", True, None, "inf")
    assert (SPEC.emin, SPEC.emax, SPEC.significand_bits) == (-16382, 16383, 113)
    assert SPEC.decimal_digits == pytest.approx(34.02, abs=0.01)


def test_the_constants() -> None:
    assert SPEC.max == MAX and SPEC.lowest == -MAX
    assert SPEC.min_normal == TWO**-16382 and SPEC.min_subnormal == TWO**-16494
    assert SPEC.epsilon == TWO**-112 and SPEC.bits_per_value == 128


@pytest.mark.parametrize(("bits", "value"), KNOWN, ids=[f"{b:#034x}" for b, _ in KNOWN])
def test_known_patterns_decode_and_encode(bits: int, value: Fraction) -> None:
    enc = decode(SPEC, bits)
    assert enc.value == Real.of(value)
    assert enc.hex == f"0x{bits:032x}"
    assert encode(SPEC, Real.of(value)).encoding.bits == bits


@pytest.mark.parametrize(("text", "bits"), NEAREST)
def test_known_nearest_values(text: str, bits: int) -> None:
    result = encode(SPEC, parse_number(text))
    assert result.encoding.bits == bits
    assert abs(result.error.fraction) <= ulp(result.encoding) / 2


def test_specials() -> None:
    assert decode(SPEC, 0x7FFF << 112).value == Real.inf()
    assert decode(SPEC, 0xFFFF << 112).value == Real.inf(True)
    assert decode(SPEC, 1 << 127).value == Real(True, Fraction(0))
    assert decode(SPEC, 0x7FFF8 << 108).cls == "nan" and decode(SPEC, (0x7FFF << 112) | 1).cls == "nan"
    assert encode(SPEC, Real.nan()).encoding.bits == 0x7FFF8 << 108  # the quiet NaN: top mantissa bit
    assert encode(SPEC, Real.inf(True)).encoding.bits == 0xFFFF << 112
    assert encode(SPEC, Real(True, Fraction(0))).encoding.bits == 1 << 127


def test_neighbours_and_ulp() -> None:
    one = decode(SPEC, 0x3FFF << 112)
    assert next_up(one).value == Real.of(1 + TWO**-112)
    assert next_down(one).value == Real.of(1 - TWO**-113)
    assert ulp(one) == TWO**-112
    top = decode(SPEC, 0x7FFE_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF)
    assert next_up(top).value == Real.inf() and ulp(top) == TWO**(16383 - 112)
    assert next_down(decode(SPEC, 0)).value == Real(True, TWO**-16494)


# -- ties ---------------------------------------------------------------------------------------

TIES = [
    # input, rounding, stored value
    (1 + TWO**-113, "nearest_even", Fraction(1)),  # halfway between 1 (even) and 1 + 2^-112
    (1 + TWO**-113, "nearest_away", 1 + TWO**-112),
    (1 + TWO**-113, "toward_positive", 1 + TWO**-112),
    (1 + TWO**-113, "toward_zero", Fraction(1)),
    (1 + 3 * TWO**-113, "nearest_even", 1 + TWO**-111),  # halfway between 1 + 2^-112 (odd) and 1 + 2^-111
    (-(1 + TWO**-113), "toward_negative", -(1 + TWO**-112)),
    (1 + TWO**-113 + TWO**-300, "nearest_even", 1 + TWO**-112),  # just past the tie
    (TWO**-16495, "nearest_even", Fraction(0)),  # half the smallest subnormal: to even, zero
    (3 * TWO**-16496, "nearest_even", TWO**-16494),
    (MAX + TWO**16270 - TWO**16000, "nearest_even", MAX),  # just below the overflow threshold
]


@pytest.mark.parametrize(("x", "rounding", "stored"), TIES)
def test_ties_and_directions(x: Fraction, rounding: str, stored: Fraction) -> None:
    assert encode(SPEC, Real.of(x), rounding).encoding.value == Real.of(stored)


def test_overflow_and_underflow() -> None:
    threshold = MAX + TWO**16270  # max + half its ulp: a tie, and max's mantissa is odd, so it rounds up: to inf
    assert encode(SPEC, Real.of(threshold)).encoding.value == Real.inf()
    saturated = encode(SPEC, Real.of(threshold), overflow="saturate")
    assert saturated.overflowed and saturated.encoding.value == Real.of(MAX)
    assert saturated.note is not None and "≈1.189731495357231765085759326628007016196e+4932" in saturated.note
    tiny = encode(SPEC, Real.of(TWO**-16496))
    assert tiny.underflowed and tiny.encoding.value.is_zero


def test_decimals_of_the_landmarks_agree_with_the_decimal_module() -> None:
    """Exact where they have at most 1200 significant digits; the extremes (max has 4933) rounded to 40."""
    for _, value in KNOWN:
        text, exact = decimal(abs(value))
        with localcontext() as ctx:
            ctx.prec = 40 if not exact else 2000
            reference = Decimal(abs(value).numerator) / Decimal(abs(value).denominator)
        assert Fraction(text) == Fraction(reference) if exact else Decimal(text) == reference, text
    assert decimal(MAX) == ("1.189731495357231765085759326628007016196e+4932", False)
    smallest, exact = decimal(TWO**-16494)
    assert smallest.startswith("6.475175119438025110924438958227646552") and smallest.endswith("e-4966")
    assert not exact


# -- float64 values, carried over bit by bit, and back -------------------------------------------


def float128_bits_of(x: float) -> int:
    """The binary128 pattern of a float64, from its fields (IEEE 754's widening, with no codec involved)."""
    bits = struct.unpack("<Q", struct.pack("<d", x))[0]
    sign, field, mantissa = bits >> 63, (bits >> 52) & 0x7FF, bits & ((1 << 52) - 1)
    if field == 0x7FF:  # inf, or the quiet NaN the codec writes
        exponent_field, wide = 0x7FFF, (1 << 111) if mantissa else 0
    elif field == 0 and mantissa == 0:
        exponent_field, wide = 0, 0
    elif field == 0:  # float64 subnormals are normal in binary128
        length = mantissa.bit_length()
        exponent_field = length - 1 - 1074 + 16383
        wide = (mantissa - (1 << (length - 1))) << (112 - (length - 1))
    else:
        exponent_field, wide = field - 1023 + 16383, mantissa << 60
    return sign << 127 | exponent_field << 112 | wide


def _real(x: float) -> Real:
    if math.isnan(x):
        return Real.nan(math.copysign(1.0, x) < 0)
    if math.isinf(x):
        return Real.inf(x < 0)
    return Real(math.copysign(1.0, x) < 0, abs(Fraction(x)))


def _float64_samples() -> list[float]:
    rng = np.random.default_rng(128)
    patterns = rng.integers(0, 1 << 64, 20_000, dtype=np.uint64)
    values = patterns.view(np.float64).tolist()
    edges = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1.0, 0.1, math.inf,
             -math.inf, 2.225073858507201e-308]
    return [v for v in values + edges if not math.isnan(v)]


def test_every_float64_widens_exactly_and_narrows_back() -> None:
    float64 = get_format("float64")
    for x in _float64_samples():
        wide = encode(SPEC, _real(x))
        assert wide.encoding.bits == float128_bits_of(x), x.hex()
        assert not wide.overflowed and not wide.underflowed and wide.error == Real.of(0) or not math.isfinite(x)
        back = encode(float64, wide.encoding.value).encoding.bits
        assert back == struct.unpack("<Q", struct.pack("<d", x))[0], x.hex()


def _python_float_bits(x: Fraction) -> int:
    """The float64 pattern of Python's float() of a Fraction: an integer division, correctly rounded."""
    try:
        nearest = float(x)
    except OverflowError:
        nearest = math.inf if x > 0 else -math.inf
    return int(struct.unpack("<Q", struct.pack("<d", nearest))[0])


def test_narrowing_to_float64_is_correctly_rounded() -> None:
    """Random binary128 patterns in and around float64's range, rounded to float64 by the codec and by Python,
    bit for bit: overflow to inf, subnormals and underflow to zero included."""
    float64 = get_format("float64")
    rng = np.random.default_rng(64)
    for _ in range(5000):
        sign, exponent_field = int(rng.integers(0, 2)), int(rng.integers(16383 - 1080, 16383 + 1025))
        mantissa = int.from_bytes(rng.bytes(14), "little")  # 112 random bits
        value = decode(SPEC, sign << 127 | exponent_field << 112 | mantissa).value
        assert encode(float64, value).encoding.bits == _python_float_bits(value.fraction), value


# -- properties -----------------------------------------------------------------------------------


@PROPERTY
@given(st.integers(0, (1 << 128) - 1))
def test_decode_then_encode_gives_the_pattern_in_every_rounding(bits: int) -> None:
    value = decode(SPEC, bits).value
    if value.kind == "nan":
        return
    for rounding in ROUNDINGS:
        assert encode(SPEC, value, rounding, seed=bits).encoding.bits == bits, rounding


@PROPERTY
@given(st.integers(-16500, 16390), st.integers(0, (1 << 200) - 1), st.booleans())
def test_encode_picks_the_nearest_of_its_two_neighbours(exponent: int, digits: int, negative: bool) -> None:
    x = (1 + Fraction(digits, 1 << 200)) * TWO**exponent
    result = encode(SPEC, Real(negative, x))
    if result.encoding.value.kind == "inf":
        assert x >= MAX + TWO**16270
        return
    stored = result.encoding.value.magnitude
    down = encode(SPEC, Real.of(x), "toward_zero").encoding
    up = next_up(down)
    assert stored in (down.value.magnitude, up.value.magnitude if up and up.value.is_finite else stored)
    assert abs(stored - x) <= ulp(down) / 2


def test_structural_patterns_round_trip() -> None:
    """Both signs, the exponent fields at every edge, the mantissas at every edge."""
    for sign in (0, 1 << 127):
        for field in (0, 1, 2, 16382, 16383, 16384, 32765, 32766):
            for mantissa in (0, 1, 2, 1 << 111, (1 << 111) + 1, (1 << 112) - 2, (1 << 112) - 1):
                bits = sign | field << 112 | mantissa
                assert encode(SPEC, decode(SPEC, bits).value).encoding.bits == bits, hex(bits)


@pytest.mark.skipif(np.finfo(np.longdouble).nmant != 112, reason="numpy's long double is not binary128 here")
def test_decoding_agrees_with_a_binary128_long_double() -> None:
    rng = np.random.default_rng(3)
    for _ in range(2000):
        bits = int.from_bytes(rng.bytes(16), "little")
        got = decode(SPEC, bits).value
        held = np.frombuffer(bits.to_bytes(16, "little"), dtype=np.longdouble)[0]
        if np.isnan(held):
            assert got.kind == "nan"
        elif np.isinf(held):
            assert got == Real.inf(bool(held < 0))
        else:
            assert got.fraction == Fraction(*held.as_integer_ratio())


# -- no fast path -------------------------------------------------------------------------------


@pytest.mark.parametrize("call", [round_to_format, encode_bits])
def test_the_vectorised_path_refuses_it_with_a_sentence(call) -> None:  # type: ignore[no-untyped-def]
    assert not has_fast_path(SPEC)
    with pytest.raises(NoFastPathError, match="float128 .* has no numpy or ml_dtypes type") as refused:
        call(np.zeros(3), SPEC)
    assert isinstance(refused.value, Refusal) and refused.value.status == 422
    with pytest.raises(NoFastPathError):
        decode_bits(np.zeros(3, dtype=np.uint64), SPEC)
