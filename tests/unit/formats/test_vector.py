"""The vectorised codec agrees bit for bit with the exact codec, for every scalar format in the registry."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from app.formats.codec import NotScalarError, decode, encode
from app.formats.exact import Real
from app.formats.registry import FORMATS, SCALAR_FORMATS
from app.formats.spec import FormatSpec
from app.formats.vector import NoFastPathError, decode_bits, encode_bits, has_fast_path, round_to_format

IDS = [f.id for f in SCALAR_FORMATS if has_fast_path(f)]
MAX_PROBES = 1500


def _real(v: float) -> Real:
    """A float as the codec's exact input, signed zero, inf and NaN included."""
    negative = math.copysign(1.0, v) < 0
    if math.isnan(v):
        return Real.nan(negative)
    if math.isinf(v):
        return Real.inf(negative)
    return Real(negative, abs(Fraction(v)))


def _patterns(spec: FormatSpec) -> list[int]:
    """Every pattern of a narrow format; for a wide one its edges and a sample, each with its successor."""
    top = 1 << spec.bits
    if spec.bits <= 10:
        return list(range(top))
    half, m = top >> 1, spec.mantissa_bits
    edges = [*range(4), *range(half - 4, half + 4), *range(top - 4, top), (1 << m) - 1, 1 << m, (1 << m) + 1]
    sample = np.random.default_rng(spec.bits).integers(0, top - 1, 400, dtype=np.uint64).tolist()
    return sorted({p for q in edges + sample for p in (q, min(q + 1, top - 1))})


@cache
def _probes(spec: FormatSpec) -> np.ndarray:
    """Inputs that test rounding: stored values, the ties between them and the floats either side of
    those ties, powers of two, the overflow threshold, half the smallest subnormal, zeros, inf and NaN."""
    stored = [decode(spec, p).value.to_float() for p in _patterns(spec)]
    finite = np.unique([v for v in stored if math.isfinite(v)])
    ties = (finite[:-1] + finite[1:]) / 2
    top, tiny = float(spec.max), float(spec.min_positive)
    overflow_tie = top * (1 + 2.0**-spec.mantissa_bits / 2) if spec.kind == "float" else top + 0.5
    edges = [overflow_tie, top * 1.5, top * 2, tiny / 2, tiny * 0.75, 1e300, 1e-300, 2.0**70 + 1, 3e9 + 0.5]
    with np.errstate(over="ignore"):
        binades = np.ldexp(1.0, np.arange(spec.emin - spec.mantissa_bits - 1, spec.emax + 2))
        centre = np.concatenate([finite, ties, edges, binades if spec.kind == "float" else []])
        near = [np.nextafter(centre, np.inf), np.nextafter(centre, -np.inf),
                np.nextafter(centre.astype(np.float32), np.float32(np.inf)).astype(np.float64),
                np.nextafter(centre.astype(np.float32), np.float32(-np.inf)).astype(np.float64)]
    values = np.unique(np.concatenate([centre, *near]))
    values = values[np.isfinite(values)]
    if len(values) > MAX_PROBES:
        values = np.random.default_rng(0).choice(values, MAX_PROBES, replace=False)
    specials = [0.0, math.inf, math.nan]
    return np.concatenate([values, specials, -values, np.negative(specials)])


def _expected_bits(spec: FormatSpec, x: np.ndarray, saturate: bool) -> np.ndarray:
    overflow = "saturate" if saturate else "format_default"
    bits = [encode(spec, _real(float(v)), overflow=overflow).encoding.bits for v in x]
    return np.array(bits, dtype=np.uint64)


def _same_values(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Equal as floats, with the same sign of zero; NaN equals NaN."""
    both_nan = np.isnan(got) & np.isnan(want)
    return both_nan | ((got == want) & (np.signbit(got) == np.signbit(want)))


@pytest.mark.parametrize("format_id", IDS)
@pytest.mark.parametrize("saturate", [False, True], ids=["format_default", "saturate"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_agrees_with_exact_codec(format_id: str, saturate: bool, dtype: type) -> None:
    spec = FORMATS[format_id]
    with np.errstate(over="ignore"):
        x = _probes(spec).astype(dtype)
    bits = encode_bits(x, spec, saturate=saturate)
    want = _expected_bits(spec, x, saturate)
    wrong = np.flatnonzero(bits != want)
    assert not wrong.size, [(float(x[i]), hex(bits[i]), hex(want[i])) for i in wrong[:5]]

    stored = round_to_format(x, spec, saturate=saturate).astype(np.float64)
    value_of = {b: decode(spec, b).value.to_float() for b in set(want.tolist())}
    want_values = np.array([value_of[b] for b in want.tolist()])
    wrong = np.flatnonzero(~_same_values(stored, want_values))
    assert not wrong.size, [(float(x[i]), stored[i], want_values[i]) for i in wrong[:5]]


@pytest.mark.parametrize("format_id", IDS)
def test_decode_bits_agrees_with_exact_codec(format_id: str) -> None:
    spec = FORMATS[format_id]
    patterns = np.array(_patterns(spec), dtype=np.uint64)
    want = np.array([decode(spec, int(p)).value.to_float() for p in patterns])
    got = decode_bits(patterns, spec)
    assert got.dtype == np.float64
    assert _same_values(got, want).all()


@pytest.mark.parametrize("format_id", IDS)
def test_encoded_patterns_decode_to_the_stored_values(format_id: str) -> None:
    spec = FORMATS[format_id]
    x = np.linspace(-1.0, 1.0, 1001) * min(2 * float(spec.max), 1e308)
    bits = encode_bits(x, spec, saturate=True)
    assert bits.dtype.kind == "u" and bits.dtype.itemsize * 8 >= spec.bits
    stored = round_to_format(x, spec, saturate=True).astype(np.float64)
    assert _same_values(decode_bits(bits, spec), stored).all()


@settings(max_examples=25, deadline=None)
@given(
    format_id=st.sampled_from(IDS),
    x=hnp.arrays(st.sampled_from([np.float32, np.float64]), st.integers(1, 40),
                 elements={"allow_nan": True, "allow_infinity": True, "allow_subnormal": True}),
    saturate=st.booleans(),
)
def test_any_floats_agree_with_exact_codec(format_id: str, x: np.ndarray, saturate: bool) -> None:
    spec = FORMATS[format_id]
    assert (encode_bits(x, spec, saturate=saturate) == _expected_bits(spec, x, saturate)).all()


def test_float64_input_is_rounded_once() -> None:
    # 0x1.e2fffff874p+127 lies just below the bfloat16 tie 0x1.e3p+127 between 0x7f71 (0x1.e2p+127)
    # and 0x7f72 (0x1.e4p+127), so it rounds down; a cast through float32 lands on the tie and goes
    # to even, 0x7f72.
    x = np.array([float.fromhex("0x1.e2fffff874p+127")])
    assert encode(FORMATS["bfloat16"], _real(x[0])).encoding.bits == 0x7F71
    assert encode_bits(x, FORMATS["bfloat16"])[0] == 0x7F71


def test_e8m0_rounds_float32_subnormals_to_nearest() -> None:
    # 0x005fffff is just below 1.5 × 2^-127, the tie between 2^-127 (pattern 0) and 2^-126 (pattern 1)
    x = np.array([0x00400001, 0x005FFFFF, 0x00600000], dtype=np.uint32).view(np.float32)
    assert encode_bits(x, FORMATS["float8_e8m0fnu"]).tolist() == [0, 0, 1]


def test_int_wraps_by_default_and_clamps_when_saturating() -> None:
    x = np.array([200.0, -129.0, 2.5, -2.5, 3.5, np.inf, -np.inf, np.nan], dtype=np.float32)
    int8 = FORMATS["int8"]
    # 200 = 256 - 56; -129 = -256 + 127; ties go to even; NaN is 0; inf is the end of the range
    assert round_to_format(x, int8).tolist() == [-56, 127, 2, -2, 4, 127, -128, 0]
    assert round_to_format(x, int8, saturate=True).tolist() == [127, -128, 2, -2, 4, 127, -128, 0]
    assert encode_bits(x, int8).tolist() == [0xC8, 0x7F, 0x02, 0xFE, 0x04, 0x7F, 0x80, 0x00]


@pytest.mark.parametrize("format_id", [f for f in IDS if FORMATS[f].kind == "int"])
def test_int_wraps_exactly_when_every_value_is_finite(format_id: str) -> None:
    """Without inf or NaN, and all within ±2^31, wrapping takes its fast int32 path: it agrees with the codec too."""
    spec = FORMATS[format_id]
    near = _probes(spec)
    near = near[np.isfinite(near)]
    x = np.concatenate([near, 3 * near, near + 1000.5, [-(2.0**31) + 1, 2.0**31 - 1.5, 2.0**30 + 0.5]])
    want = _expected_bits(spec, x, saturate=False)
    bits = encode_bits(x, spec)
    wrong = np.flatnonzero(bits != want)
    assert not wrong.size, [(float(x[i]), hex(bits[i]), hex(want[i])) for i in wrong[:5]]
    stored = round_to_format(x, spec).astype(np.float64)
    want_values = np.array([decode(spec, int(b)).value.to_float() for b in want.tolist()])
    assert np.array_equal(stored, want_values) and not np.signbit(stored[stored == 0]).any()


def test_nf4_ties_go_to_the_even_code() -> None:
    nf4 = FORMATS["nf4"]
    book = np.array(nf4.codebook)
    midpoints = (book[:-1] + book[1:]) / 2  # between code i and i + 1
    codes = encode_bits(midpoints, nf4).tolist()
    assert codes == [i if i % 2 == 0 else i + 1 for i in range(15)]


def test_output_dtypes() -> None:
    x = np.array([0.1, 1e10])
    assert round_to_format(x, FORMATS["float64"]).dtype == np.float64
    assert round_to_format(x, FORMATS["float16"]).dtype == np.float32
    assert round_to_format([1, 2], FORMATS["int4"]).dtype == np.float32
    assert encode_bits(x, FORMATS["float64"]).dtype == np.uint64
    assert encode_bits(x, FORMATS["tfloat32"]).dtype == np.uint32


def test_results_are_new_arrays() -> None:
    x = np.array([1.0, 2.0])
    stored = round_to_format(x, FORMATS["float64"])
    stored[0] = 7.0
    assert x[0] == 1.0


def test_block_formats_are_refused() -> None:
    with pytest.raises(NotScalarError):
        encode_bits(np.zeros(3), FORMATS["mxfp4"])


def test_every_registry_format_but_float128_has_the_fast_path() -> None:
    assert [f.id for f in SCALAR_FORMATS if not has_fast_path(f)] == ["float128"]
    with pytest.raises(NoFastPathError, match="no vectorised path"):
        encode_bits(np.zeros(3), FORMATS["float128"])


def test_patterns_wider_than_the_format_are_refused() -> None:
    with pytest.raises(ValueError, match="4-bit"):
        decode_bits(np.array([16]), FORMATS["float4_e2m1fn"])
