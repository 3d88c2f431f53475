"""Custom float layouts: a layout equal to a registry format encodes and decodes exactly as that format (every
pattern up to 16 bits, samples beyond), a new layout agrees with a brute-force table of its values, and a layout the
codec cannot hold is refused with a sentence."""

from __future__ import annotations

import bisect
from fractions import Fraction

import numpy as np
import pytest

from app.formats import (
    MAX_BIAS,
    ROUNDINGS,
    FormatSpec,
    InputError,
    LayoutError,
    Real,
    custom_format,
    decode,
    default_bias,
    encode,
    get_format,
    next_up,
)
from app.formats.vector import encode_bits, has_fast_path, round_to_format
from app.refusal import Refusal

# custom_format's arguments, and the registry format of that layout
SAME = [
    ((5, 10), "float16"),
    ((8, 7), "bfloat16"),
    ((4, 3, None, "fn"), "float8_e4m3fn"),
    ((5, 2, None, "fnuz"), "float8_e5m2fnuz"),  # FNUZ's default bias is 2^(e-1): 16
    ((4, 3, None, "fnuz"), "float8_e4m3fnuz"),
    ((4, 3, 11, "fnuz"), "float8_e4m3b11fnuz"),
    ((5, 2), "float8_e5m2"),
    ((4, 3), "float8_e4m3"),
    ((3, 4), "float8_e3m4"),
    ((2, 3, None, "none"), "float6_e2m3fn"),
    ((3, 2, None, "none"), "float6_e3m2fn"),
    ((2, 1, None, "none"), "float4_e2m1fn"),
    ((8, 10), "tfloat32"),
    ((8, 23), "float32"),
    ((11, 52), "float64"),
    ((15, 112), "float128"),
]
IDS = [registry for _, registry in SAME]
FIELDS = ("bits", "exponent_bits", "mantissa_bits", "bias", "nan_style", "signed", "has_inf", "has_nan",
          "has_negative_zero", "has_zero", "has_subnormals", "overflow_default", "emin", "emax", "max", "lowest",
          "min_normal", "min_subnormal", "min_positive", "epsilon", "significand_bits")


def _values_between(spec: FormatSpec, patterns: list[int]) -> list[Fraction]:
    """Every stored value of the patterns, the midpoint to the next value up, and points just off it."""
    points = []
    for bits in patterns:
        enc = decode(spec, bits)
        if not enc.value.is_finite:
            continue
        up = next_up(enc)
        points.append(enc.value.fraction)
        if up is not None and up.value.is_finite:
            mid = (enc.value.fraction + up.value.fraction) / 2
            nudge = (up.value.fraction - enc.value.fraction) / 1024
            points += [mid, mid + nudge, mid - nudge]
    return points


def _patterns(spec: FormatSpec, seed: int, every_up_to: int = 16) -> list[int]:
    """Every pattern of a format up to `every_up_to` bits; for a wider one, its edges and a sample."""
    if spec.bits <= every_up_to:
        return list(range(1 << spec.bits))
    rng = np.random.default_rng(seed)
    sample = {int.from_bytes(rng.bytes(16), "little") % (1 << spec.bits) for _ in range(1500)}
    m, top = spec.mantissa_bits, (1 << spec.exponent_bits) - 1
    edges = {sign << (spec.bits - 1) | field << m | mantissa
             for sign in (0, 1) for field in (0, 1, top - 1, top) for mantissa in (0, 1, (1 << m) - 1)}
    return sorted(sample | edges)


@pytest.mark.parametrize(("args", "registry"), SAME, ids=IDS)
def test_the_same_layout_makes_the_same_format(args: tuple, registry: str) -> None:
    mine, theirs = custom_format(*args), get_format(registry)
    assert {f: getattr(mine, f) for f in FIELDS} == {f: getattr(theirs, f) for f in FIELDS}
    assert mine.id == "custom" and mine.ml_dtype is None
    assert f"The same layout as {registry}." in mine.summary


@pytest.mark.parametrize(("args", "registry"), SAME, ids=IDS)
def test_the_same_layout_decodes_every_pattern_alike(args: tuple, registry: str) -> None:
    """Exhaustive up to 16 bits, sampled beyond: value (sign of zero included) and class of every pattern."""
    mine, theirs = custom_format(*args), get_format(registry)
    for bits in _patterns(mine, 1):
        a, b = decode(mine, bits), decode(theirs, bits)
        assert (a.value, a.cls) == (b.value, b.cls), hex(bits)


@pytest.mark.parametrize(("args", "registry"), SAME, ids=IDS)
def test_the_same_layout_encodes_alike(args: tuple, registry: str) -> None:
    """Stored values, midpoints and points just off them (of every pattern up to 12 bits, of a sample beyond),
    beyond max, tiny values and the specials; nearest-even always, every rounding and both overflow policies for
    formats up to 8 bits and on a sample of the others."""
    mine, theirs = custom_format(*args), get_format(registry)
    points = _values_between(mine, _patterns(mine, 2, every_up_to=12))
    points += [2 * mine.max, mine.max * 3 / 2, mine.min_positive / 2, mine.min_positive / 3]
    xs = [Real.of(p) for p in points] + [Real.of(-p) for p in points]
    xs += [Real.inf(), Real.inf(True), Real.nan(), Real.nan(True), Real(True, Fraction(0))]
    rng = np.random.default_rng(3)
    for i, x in enumerate(xs):
        every = mine.bits <= 8 or rng.random() < 0.02
        for rounding in ROUNDINGS if every else ("nearest_even",):
            for overflow in ("format_default", "saturate") if every else ("format_default",):
                a, b = encode(mine, x, rounding, overflow, i), encode(theirs, x, rounding, overflow, i)
                assert (a.encoding.bits, a.overflowed, a.underflowed) == (b.encoding.bits, b.overflowed, b.underflowed)


# -- new layouts, against a table of their values worked out here ----------------------------------

NEW = [(1, 1, None, "fn"), (1, 2, None, "fnuz"), (1, 3, None, "none"), (2, 1, None, "ieee"), (6, 3, None, "ieee"),
       (3, 1, -4, "ieee"), (3, 3, 9, "fn"), (5, 4, 3, "fnuz"), (4, 5, 0, "none"), (2, 7, None, "fnuz")]


def brute_force(e: int, m: int, bias: int, style: str) -> dict[int, Real]:
    """Every pattern's value, from the layout's rules as the OCP FP8 and IEEE 754 texts state them."""
    n, top, ones = 1 + e + m, (1 << e) - 1, (1 << m) - 1
    table = {}
    for bits in range(1 << n):
        negative, field, mantissa = bool(bits >> (n - 1)), (bits >> m) & top, bits & ones
        if style == "ieee" and field == top:
            table[bits] = Real.nan(negative) if mantissa else Real.inf(negative)
        elif (style == "fn" and field == top and mantissa == ones) or (style == "fnuz" and bits == 1 << (n - 1)):
            table[bits] = Real.nan()
        elif field == 0:
            table[bits] = Real(negative, mantissa * Fraction(2) ** (1 - bias - m))
        else:
            table[bits] = Real(negative, (ones + 1 + mantissa) * Fraction(2) ** (field - bias - m))
    return table


@pytest.mark.parametrize("args", NEW, ids=str)
def test_a_new_layout_holds_the_values_its_rules_give(args: tuple) -> None:
    spec = custom_format(*args)
    table = brute_force(spec.exponent_bits, spec.mantissa_bits, spec.bias, spec.nan_style)
    for bits, want in table.items():
        got = decode(spec, bits).value
        assert got.kind == want.kind and (want.kind == "nan" or got == want), (args, hex(bits))
    finite = sorted({v.fraction for v in table.values() if v.is_finite})
    assert (spec.max, spec.lowest) == (finite[-1], finite[0])
    assert spec.min_positive == min(v for v in finite if v > 0)


@pytest.mark.parametrize("args", NEW, ids=str)
def test_a_new_layout_rounds_to_the_nearest_value_ties_to_even(args: tuple) -> None:
    """Brute force: the nearest finite value, a tie going to the even pattern (mantissa's last bit 0)."""
    spec = custom_format(*args)
    table = brute_force(spec.exponent_bits, spec.mantissa_bits, spec.bias, spec.nan_style)
    patterns: dict[Fraction, set[int]] = {}
    for bits, value in table.items():
        if value.is_finite:
            patterns.setdefault(value.fraction, set()).add(bits)
    values = sorted(patterns)
    points = [(a + b) / 2 for a, b in zip(values, values[1:], strict=False)]
    points += [(3 * a + b) / 4 for a, b in zip(values, values[1:], strict=False)] + values
    for x in points:
        i = bisect.bisect_left(values, x)
        around = values[max(i - 1, 0):i + 2]
        best = min(abs(v - x) for v in around)
        nearest = [v for v in around if abs(v - x) == best]
        # a tie goes to the value whose pattern is even (its mantissa's last bit 0)
        want = nearest[0] if len(nearest) == 1 else next(v for v in nearest if min(patterns[v]) % 2 == 0)
        assert encode(spec, Real.of(x)).encoding.value.fraction == want, (args, x)


@pytest.mark.parametrize("args", NEW, ids=str)
def test_a_new_layout_overflows_by_its_rule(args: tuple) -> None:
    spec = custom_format(*args)
    beyond = encode(spec, Real.of(2 * spec.max))
    expected = {"ieee": "inf", "fn": "nan", "fnuz": "nan", "none": "normal"}[spec.nan_style]
    assert beyond.overflowed and (beyond.encoding.cls == expected or beyond.encoding.value == Real.of(spec.max))
    assert encode(spec, Real.of(2 * spec.max), overflow="saturate").encoding.value == Real.of(spec.max)


@pytest.mark.parametrize("mantissa_bits", [1, 5, 10, 21])
def test_a_float32_like_layout_takes_the_fast_path_and_agrees(mantissa_bits: int) -> None:
    """8 exponent bits, bias 127, IEEE specials: float32 rounded at fewer bits, as TF32 is; checked bit for bit."""
    spec = custom_format(8, mantissa_bits)
    assert has_fast_path(spec)
    rng = np.random.default_rng(mantissa_bits)
    x = rng.integers(0, 1 << 32, 3000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x = x[~np.isnan(x)]
    want = [encode(spec, Real(bool(v < 0) or (v == 0 and np.signbit(v)), abs(Fraction(float(v))))).encoding.bits
            if np.isfinite(v) else encode(spec, Real.inf(bool(v < 0))).encoding.bits for v in x]
    assert encode_bits(x, spec).tolist() == want


@pytest.mark.parametrize("args", [(5, 10), (4, 3, None, "fn"), (8, 22), (15, 112)])
def test_other_layouts_have_no_fast_path(args: tuple) -> None:
    spec = custom_format(*args)
    assert not has_fast_path(spec)
    with pytest.raises(Refusal, match="no vectorised path"):
        round_to_format(np.zeros(2), spec)


# -- defaults, caching, refusals --------------------------------------------------------------------


def test_the_default_bias_is_ieees_and_fnuzs_one_more() -> None:
    assert [default_bias(e) for e in (2, 4, 5, 8, 11, 15)] == [1, 7, 15, 127, 1023, 16383]
    assert [default_bias(e, "fnuz") for e in (4, 5)] == [8, 16]
    assert custom_format(5, 10, 15) == custom_format(5, 10)


def test_specifications_are_kept_in_a_bounded_cache() -> None:
    assert custom_format(6, 9) is custom_format(6, 9)
    assert custom_format.cache_info().maxsize == 256


REFUSED = [
    ((0, 3), "1 to 15 exponent bits", "exponent_bits=0"),
    ((16, 3), "1 to 15 exponent bits", "exponent_bits=16"),
    ((-1, 3), "1 to 15 exponent bits", "exponent_bits=-1"),
    ((999_999_999_999, 3), "1 to 15 exponent bits", "exponent_bits=999999999999"),
    ((10**40, 3), "1 to 15 exponent bits", "exponent_bits with more than 15 digits"),
    ((5, 0), "1 to 112 mantissa bits", "mantissa_bits=0"),
    ((5, -1), "1 to 112 mantissa bits", "mantissa_bits=-1"),
    ((5, 113), "1 to 112 mantissa bits", "mantissa_bits=113"),
    ((1, 3), "at least 2 exponent bits", "choose nan_style fn, fnuz or none"),
    ((5, 10, MAX_BIAS + 1), f"from -{MAX_BIAS} to {MAX_BIAS}", f"bias={MAX_BIAS + 1}"),
    ((5, 10, -MAX_BIAS - 1), f"from -{MAX_BIAS} to {MAX_BIAS}", "is refused"),
    ((5, 10, None, "ieee754"), "Unknown nan_style 'ieee754'", "ieee, fn, fnuz, none"),
    ((5, 10, None, "e8m0"), "Unknown nan_style 'e8m0'", "choose one of"),
]


@pytest.mark.parametrize(("args", "rule", "named"), REFUSED, ids=[str(a)[:30] for a, _, _ in REFUSED])
def test_a_layout_it_cannot_hold_is_refused_with_a_sentence(args: tuple, rule: str, named: str) -> None:
    with pytest.raises(LayoutError) as refused:
        custom_format(*args)
    text = str(refused.value)
    assert rule in text and named in text and text[0].isupper() and text.endswith(".")
    assert isinstance(refused.value, InputError) and refused.value.status == 422


@pytest.mark.parametrize(("e", "m", "style"), [(1, 1, "fn"), (1, 1, "fnuz"), (1, 1, "none"), (2, 1, "ieee"),
                                               (15, 112, "ieee"), (15, 112, "fnuz"), (1, 112, "none")])
def test_the_edges_of_what_it_accepts(e: int, m: int, style: str) -> None:
    for bias in (None, MAX_BIAS, -MAX_BIAS):
        spec = custom_format(e, m, bias, style)
        assert spec.bits == 1 + e + m and spec.max > 0 and spec.min_positive > 0
        top = decode(spec, int(encode(spec, Real.of(spec.max)).encoding.bits))
        assert top.value == Real.of(spec.max)
