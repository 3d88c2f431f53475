"""Decoding bit patterns, checked against ml_dtypes and numpy (the reference), and stepping between values.

Every pattern of every format up to 16 bits is decoded and compared exactly: the reference value is read
through float64 (which holds every value of these formats exactly) and compared as a Fraction.
"""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from app.formats import (
    FORMATS,
    SCALAR_FORMATS,
    NotScalarError,
    Real,
    decode,
    next_down,
    next_up,
    ulp,
)
from app.formats.spec import FormatSpec
from tests.helpers.formats import format_ids, numpy_type, storage_uint

ML_SCALARS = [s for s in SCALAR_FORMATS if s.ml_dtype is not None]
SMALL_ML = [s for s in ML_SCALARS if s.bits <= 16]
SMALL = [s for s in SCALAR_FORMATS if s.bits <= 16]
WIDE_ML = [s for s in ML_SCALARS if s.bits > 16]
BLOCKS = [s for s in FORMATS.values() if s.kind == "block"]


def random_patterns(spec: FormatSpec, count: int, seed: int) -> np.ndarray:
    """Uniformly random bit patterns of the format, as uint64 (as Python ints past 64 bits: float128's)."""
    rng = np.random.default_rng(seed)
    if spec.bits > 64:
        width = (spec.bits + 7) // 8
        return np.array([int.from_bytes(rng.bytes(width), "little") >> (8 * width - spec.bits) for _ in range(count)],
                        dtype=object)
    return rng.integers(0, 1 << spec.bits, count, dtype=np.uint64)


def reference_values(spec: FormatSpec, patterns: np.ndarray) -> np.ndarray:
    """The values ml_dtypes/numpy gives these bit patterns, as float64 (exact for every format here)."""
    raw = patterns.astype(storage_uint(spec)).view(numpy_type(spec))
    with np.errstate(invalid="ignore"):
        return raw.astype(np.float64)


def reference_class(spec: FormatSpec, values: np.ndarray) -> list[str]:
    """zero / subnormal / normal / inf / nan of float64 values, by the format's smallest normal number."""
    tiny = float(ml_dtypes.finfo(numpy_type(spec)).smallest_normal) if spec.kind == "float" else 1.0
    out = []
    for v in values.tolist():
        if math.isnan(v):
            out.append("nan")
        elif math.isinf(v):
            out.append("inf")
        elif v == 0:
            out.append("zero")
        else:
            out.append("subnormal" if abs(v) < tiny else "normal")
    return out


def assert_same_value(got: Real, want: float, where: str) -> None:
    """Exact agreement of the codec's Real with a float: NaN-ness, infinities and signed zeros included."""
    if math.isnan(want):
        assert got.kind == "nan", where
    elif math.isinf(want):
        assert got.kind == "inf" and got.negative == (want < 0), where
    else:
        assert got.kind == "finite", where
        assert got.fraction == Fraction(want), where
        assert got.negative == (math.copysign(1.0, want) < 0), where  # signed zero


def check_patterns(spec: FormatSpec, patterns: np.ndarray, reference: np.ndarray) -> None:
    classes = reference_class(spec, reference)
    for bits, want, cls in zip(patterns.tolist(), reference.tolist(), classes, strict=True):
        enc = decode(spec, bits)
        where = f"{spec.id} {bits:#x}"
        assert enc.bits == bits, where
        assert_same_value(enc.value, want, where)
        assert enc.cls == cls, where


@pytest.mark.parametrize("spec", SMALL_ML, ids=format_ids(SMALL_ML))
def test_decode_every_pattern_agrees_with_ml_dtypes(spec: FormatSpec) -> None:
    """Exhaustive: value (exact), class and NaN-ness of every bit pattern, as ml_dtypes reads it."""
    patterns = np.arange(1 << spec.bits, dtype=np.uint64)
    check_patterns(spec, patterns, reference_values(spec, patterns))


@pytest.mark.parametrize("spec", WIDE_ML, ids=format_ids(WIDE_ML))
def test_decode_wide_formats_agrees_with_numpy(spec: FormatSpec) -> None:
    """float32 and float64: random patterns over the whole range, plus the patterns around every special."""
    width, m = spec.bits, spec.mantissa_bits
    top = (1 << spec.exponent_bits) - 1
    special = []
    for sign in (0, 1 << (width - 1)):
        for exponent_field in (0, 1, 2, top - 1, top):
            for mantissa_field in (0, 1, 2, (1 << m) - 2, (1 << m) - 1, 1 << (m - 1), (1 << (m - 1)) + 1):
                special.append(sign | exponent_field << m | mantissa_field)
    patterns = np.concatenate([np.array(special, dtype=np.uint64), random_patterns(spec, 20_000, 20)])
    check_patterns(spec, patterns, reference_values(spec, patterns))


@pytest.mark.slow  # decodes all 524,288 TF32 patterns one by one
def test_decode_every_tfloat32_pattern() -> None:
    """TF32 has no ml_dtypes type: its 19-bit pattern shifted left by 13 is the float32 of the same value."""
    spec = FORMATS["tfloat32"]
    assert (spec.bits, spec.exponent_bits, spec.mantissa_bits, spec.bias) == (19, 8, 10, 127)
    patterns = np.arange(1 << 19, dtype=np.uint32)
    with np.errstate(invalid="ignore"):
        reference = (patterns << np.uint32(13)).view(np.float32).astype(np.float64)
    tiny = float(np.finfo(np.float32).smallest_normal)
    for bits, want in zip(patterns.tolist(), reference.tolist(), strict=True):
        enc = decode(spec, bits)
        assert_same_value(enc.value, want, f"tfloat32 {bits:#x}")
        if math.isfinite(want) and want != 0:
            assert enc.cls == ("subnormal" if abs(want) < tiny else "normal")


# bitsandbytes' NF4 table (QLoRA), as published: these decimals are float32 values.
NF4_PUBLISHED = (
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
    -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
    0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
    0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0,
)


def test_decode_nf4_is_the_float32_codebook() -> None:
    spec = FORMATS["nf4"]
    for code, published in enumerate(NF4_PUBLISHED):
        as_float32 = np.float32(published)
        assert float(as_float32) == published  # the published decimals are float32 values
        enc = decode(spec, code)
        assert enc.value == Real.of(Fraction(float(as_float32)))
        assert enc.cls == ("zero" if published == 0 else "normal")


INTS = [s for s in SCALAR_FORMATS if s.kind == "int"]


@pytest.mark.parametrize("spec", INTS, ids=format_ids(INTS))
def test_decode_int_every_pattern(spec: FormatSpec) -> None:
    """Two's complement (signed) or plain binary: ml_dtypes' int4/uint4 and numpy's int8/uint8 views."""
    patterns = np.arange(1 << spec.bits, dtype=np.uint64)
    reference = patterns.astype(np.uint8).view(numpy_type(spec)).astype(np.int64)
    for bits, want in zip(patterns.tolist(), reference.tolist(), strict=True):
        enc = decode(spec, bits)
        assert enc.value == Real.of(want)
        assert enc.cls == ("zero" if want == 0 else "normal")
        assert enc.exponent_field is None and enc.mantissa_field is None


@pytest.mark.parametrize("spec", SCALAR_FORMATS, ids=format_ids(list(SCALAR_FORMATS)))
def test_decode_fields_rebuild_the_pattern(spec: FormatSpec) -> None:
    """sign, exponent_field and mantissa_field are the pattern's fields; exponent × significand is the value."""
    everything = 1 << spec.bits <= 4096
    patterns = range(1 << spec.bits) if everything else random_patterns(spec, 4096, 21).tolist()
    for bits in patterns:
        enc = decode(spec, int(bits))
        assert enc.hex == f"0x{enc.bits:0{(spec.bits + 3) // 4}x}"
        assert len(enc.binary) == spec.bits and int(enc.binary, 2) == enc.bits
        if spec.kind != "float":
            continue
        sign = enc.sign or 0
        rebuilt = sign << (spec.bits - 1) | enc.exponent_field << spec.mantissa_bits | enc.mantissa_field
        assert rebuilt == enc.bits
        if enc.cls in ("normal", "subnormal"):
            assert enc.significand is not None and enc.exponent is not None
            magnitude = enc.significand * Fraction(2) ** enc.exponent
            assert enc.value.magnitude == magnitude
            assert enc.significand_binary is not None
            assert Fraction(int(enc.significand_binary.replace(".", ""), 2), 1 << spec.mantissa_bits) == (
                enc.significand
            )
        else:
            assert enc.exponent is None and enc.significand is None


@pytest.mark.parametrize("spec", BLOCKS, ids=format_ids(BLOCKS))
def test_decode_refuses_block_formats(spec: FormatSpec) -> None:
    with pytest.raises(NotScalarError, match="block format"):
        decode(spec, 0)


@pytest.mark.parametrize("spec", SMALL, ids=format_ids(SMALL))
def test_decode_refuses_patterns_outside_the_width(spec: FormatSpec) -> None:
    for bits in (-1, 1 << spec.bits):
        with pytest.raises(ValueError):
            decode(spec, bits)


# -- neighbours ---------------------------------------------------------------------------------


def _key(value: Real) -> tuple[int, Fraction]:
    """Order of values: -inf < finite (by value; -0 == +0) < inf."""
    if value.kind == "inf":
        return (-1 if value.negative else 1, Fraction(0))
    return (0, value.fraction)


@pytest.mark.slow  # steps up and down from every pattern of each small format
@pytest.mark.parametrize("spec", SMALL, ids=format_ids(SMALL))
def test_next_up_and_down_step_through_the_sorted_values(spec: FormatSpec) -> None:
    """Exhaustive: next_up/next_down land on the adjacent value of all values in sorted order.

    -0 and +0 are one value here; IEEE nextUp(-min_subnormal) is -0, so next_up(next_down(+0)) is -0:
    equal as a value, and that is what the round trip compares.
    """
    encodings = [decode(spec, b) for b in range(1 << spec.bits)]
    values = sorted({_key(e.value) for e in encodings if e.value.kind != "nan"})
    position = {v: i for i, v in enumerate(values)}
    ups = [next_up(e) for e in encodings]
    downs = [next_down(e) for e in encodings]
    for enc, up, down in zip(encodings, ups, downs, strict=True):
        if enc.value.kind == "nan":
            assert up is None and down is None
            continue
        i = position[_key(enc.value)]
        assert (up is None) == (i == len(values) - 1), enc.hex
        assert (down is None) == (i == 0), enc.hex
        if up is not None:
            assert _key(up.value) == values[i + 1], enc.hex
            back = downs[up.bits]  # next_down(next_up(x)), from the table of every pattern's next_down
            assert back is not None and _key(back.value) == _key(enc.value), enc.hex
        if down is not None:
            assert _key(down.value) == values[i - 1], enc.hex
            back = ups[down.bits]
            assert back is not None and _key(back.value) == _key(enc.value), enc.hex


def test_next_up_of_zeros_and_smallest_values() -> None:
    """IEEE nextUp/nextDown at zero: both zeros step to ±min_subnormal, and back to a zero of that sign."""
    spec = FORMATS["float16"]
    min_sub = Real.of(Fraction(1, 1 << 24))
    for zero in (0x0000, 0x8000):
        assert next_up(decode(spec, zero)).value == min_sub
        assert next_down(decode(spec, zero)).value == Real(True, min_sub.magnitude)
    assert next_down(decode(spec, 0x0001)).bits == 0x0000
    assert next_up(decode(spec, 0x8001)).bits == 0x8000
    assert next_up(decode(spec, 0x7BFF)).bits == 0x7C00  # max -> inf
    assert next_up(decode(spec, 0x7C00)) is None
    assert next_down(decode(spec, 0xFC00)) is None
    fnuz = FORMATS["float8_e4m3fnuz"]
    assert next_down(decode(fnuz, 0x00)).bits == 0x81  # no -0: zero steps to -min_subnormal
    assert next_up(decode(fnuz, 0x81)).bits == 0x00
    assert next_up(decode(FORMATS["float8_e4m3fn"], 0x7E)) is None  # max, no inf above it


@pytest.mark.parametrize("spec", WIDE_ML, ids=format_ids(WIDE_ML))
def test_next_up_and_down_agree_with_nextafter(spec: FormatSpec) -> None:
    """Signed zeros included: nextafter(-min_subnormal, +inf) is -0, as IEEE nextUp is."""
    ftype = numpy_type(spec)
    patterns = random_patterns(spec, 5000, 22)
    values = patterns.astype(storage_uint(spec)).view(ftype)
    with np.errstate(invalid="ignore"):
        ups = np.nextafter(values, ftype(np.inf)).astype(np.float64)
        downs = np.nextafter(values, ftype(-np.inf)).astype(np.float64)
    for bits, x, up, down in zip(patterns.tolist(), values.tolist(), ups.tolist(), downs.tolist(), strict=True):
        if math.isnan(x):
            continue
        enc = decode(spec, bits)
        got_up, got_down = next_up(enc), next_down(enc)
        if x == math.inf:
            assert got_up is None
        else:
            assert_same_value(got_up.value, up, f"{spec.id} up {bits:#x}")
        if x == -math.inf:
            assert got_down is None
        else:
            assert_same_value(got_down.value, down, f"{spec.id} down {bits:#x}")


def test_next_up_and_down_tfloat32() -> None:
    """TF32: for positive finite patterns, the next value up is the next pattern (the reference of IEEE order)."""
    spec = FORMATS["tfloat32"]
    rng = np.random.default_rng(23)
    for bits in rng.integers(0, 0x3FC00, 5000).tolist():  # below the inf pattern 0x3fc00
        enc = decode(spec, bits)
        assert next_up(enc).bits == bits + 1
        negative = decode(spec, bits | 1 << 18)
        assert next_down(negative).bits == (bits + 1) | 1 << 18
        if bits:
            assert next_down(enc).bits == bits - 1


@pytest.mark.slow  # the ulp of every pattern of each small format
@pytest.mark.parametrize("spec", SMALL, ids=format_ids(SMALL))
def test_ulp_is_the_gap_to_the_next_larger_magnitude(spec: FormatSpec) -> None:
    """ulp(x) = |next value away from zero| − |x|; at the largest value, the gap the binade would continue with."""
    for bits in range(1 << spec.bits):
        enc = decode(spec, bits)
        if not enc.value.is_finite:
            assert ulp(enc) is None
            continue
        away = next_down(enc) if enc.value.negative else next_up(enc)
        if away is not None and away.value.is_finite:
            assert ulp(enc) == abs(away.value.fraction) - enc.value.magnitude, enc.hex
        elif spec.kind == "float":
            # the top of the range: the spacing of its binade, as if the binade went on
            assert ulp(enc) == Fraction(2) ** (enc.exponent - spec.mantissa_bits), enc.hex
        elif spec.kind == "int":
            assert ulp(enc) == 1
        else:
            # the codebook's ends: the gap to the value next toward zero
            toward_zero = next_up(enc) if enc.value.negative else next_down(enc)
            assert ulp(enc) == enc.value.magnitude - abs(toward_zero.value.fraction), enc.hex


@pytest.mark.parametrize("spec", WIDE_ML, ids=format_ids(WIDE_ML))
def test_ulp_agrees_with_numpy_spacing(spec: FormatSpec) -> None:
    patterns = random_patterns(spec, 5000, 24)
    values = patterns.astype(storage_uint(spec)).view(numpy_type(spec))
    with np.errstate(invalid="ignore", over="ignore"):
        spacing = np.abs(np.spacing(values))
    for bits, gap in zip(patterns.tolist(), spacing.tolist(), strict=True):
        if math.isfinite(gap):
            assert ulp(decode(spec, bits)) == Fraction(gap)
