"""Properties of the codec over every scalar format, with hypothesis (derandomised, so runs repeat).

Inputs are exact Fractions: near a value the format holds, exactly halfway between two, or anywhere in
(or, for monotonicity, beyond) the format's range, spread uniformly or across binades.
"""

from __future__ import annotations

import bisect
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.formats import SCALAR_FORMATS, Real, decode, encode, next_down, next_up
from app.formats.spec import FormatSpec

PROPERTY = settings(
    max_examples=200, derandomize=True, database=None, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
NEAREST = ("nearest_even", "nearest_away")
DIRECTED = ("toward_zero", "toward_positive", "toward_negative")
SPECS = list(SCALAR_FORMATS)
IDS = [s.id for s in SPECS]


def _key(value: Real) -> tuple[int, Fraction]:
    """Order of non-NaN values: -inf < finite (by value; -0 == +0) < inf."""
    if value.kind == "inf":
        return (-1 if value.negative else 1, Fraction(0))
    return (0, value.fraction)


def _exponent(x: Fraction) -> int:
    """floor(log2(x)) of x > 0, exactly."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    return e if Fraction(2) ** e <= x else e - 1


def spacing(spec: FormatSpec, x: Fraction) -> Fraction:
    """The gap between the two values of the format around x, for lowest <= x <= max (not from the codec)."""
    if spec.kind == "int":
        return Fraction(1)
    if spec.kind == "codebook":
        values = sorted(Fraction(v) for v in spec.codebook)
        i = min(bisect.bisect_right(values, x), len(values) - 1)
        return values[i] - values[i - 1]
    emin = _exponent(spec.min_normal)
    e = max(_exponent(abs(x)), emin) if x else emin
    return Fraction(2) ** (e - spec.mantissa_bits)


@st.composite
def values(draw: st.DrawFn, spec: FormatSpec, beyond: bool = False) -> Fraction:
    """A value from lowest to max (to 2 × max and -2 × max where `beyond`)."""
    low, high = (spec.lowest, spec.max) if not beyond else (-2 * spec.max, 2 * spec.max)
    how = draw(st.sampled_from(["near", "tie", "uniform", "binades"]))
    if how in ("near", "tie"):
        enc = decode(spec, draw(st.integers(0, (1 << spec.bits) - 1).filter(
            lambda b: decode(spec, b).value.is_finite)))
        step = next_up(enc) or next_down(enc)
        gap = abs(step.value.fraction - enc.value.fraction) if step and step.value.is_finite else Fraction(1)
        offset = Fraction(1, 2) if how == "tie" else Fraction(draw(st.integers(-(1 << 40), 1 << 40)), 1 << 41)
        x = enc.value.fraction + offset * gap
    elif how == "uniform":
        x = low + (high - low) * Fraction(draw(st.integers(0, 1 << 64)), 1 << 64)
    else:
        smallest = _exponent(spec.min_positive) - 3
        e = draw(st.integers(smallest, _exponent(spec.max) + 1))
        magnitude = Fraction(2) ** e * (1 + Fraction(draw(st.integers(0, (1 << 60) - 1)), 1 << 60))
        x = -magnitude if draw(st.booleans()) else magnitude
    return min(max(x, low), high)


def _real(x: Fraction) -> Real:
    return Real.of(x)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
@PROPERTY
@given(data=st.data())
def test_encoding_is_monotonic(spec: FormatSpec, data: st.DataObject) -> None:
    """x <= y gives stored(x) <= stored(y) under nearest rounding, overflow included.

    NaN results aside, and integers that wrap on overflow (wrapping is not monotonic, by design).
    """
    x, y = sorted((data.draw(values(spec, beyond=True)), data.draw(values(spec, beyond=True))))
    for rounding in NEAREST:
        for overflow in ("format_default", "saturate"):
            rx, ry = encode(spec, _real(x), rounding, overflow), encode(spec, _real(y), rounding, overflow)
            if rx.encoding.value.kind == "nan" or ry.encoding.value.kind == "nan":
                continue
            if overflow == "format_default" and spec.overflow_default == "wrap" and (rx.overflowed or ry.overflowed):
                continue
            assert _key(rx.encoding.value) <= _key(ry.encoding.value), (x, y, rounding, overflow)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
@PROPERTY
@given(data=st.data())
def test_every_value_round_trips(spec: FormatSpec, data: st.DataObject) -> None:
    """encode(decode(b).value) == b for every non-NaN pattern, in every rounding mode (wide formats sampled)."""
    bits = data.draw(st.integers(0, (1 << spec.bits) - 1))
    value = decode(spec, bits).value
    if value.kind == "nan":
        return
    for rounding in (*NEAREST, *DIRECTED, "stochastic"):
        assert encode(spec, value, rounding, seed=bits).encoding.bits == bits, rounding


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
@PROPERTY
@given(data=st.data())
def test_nearest_error_is_at_most_half_a_spacing(spec: FormatSpec, data: st.DataObject) -> None:
    """From lowest to max, nearest rounding is off by at most half the gap between the values around x."""
    x = data.draw(values(spec))
    for rounding in NEAREST:
        result = encode(spec, _real(x), rounding)
        assert result.encoding.value.is_finite and not result.overflowed
        assert abs(result.encoding.value.fraction - x) <= spacing(spec, x) / 2, rounding


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
@PROPERTY
@given(data=st.data())
def test_directed_rounding_goes_its_way(spec: FormatSpec, data: st.DataObject) -> None:
    """toward_positive >= x, toward_negative <= x, toward_zero |result| <= |x|: each less than a gap away."""
    x = data.draw(values(spec))
    up = encode(spec, _real(x), "toward_positive").encoding.value.fraction
    down = encode(spec, _real(x), "toward_negative").encoding.value.fraction
    zero = encode(spec, _real(x), "toward_zero").encoding.value.fraction
    gap = spacing(spec, x)
    assert x <= up < x + gap
    assert x - gap < down <= x
    assert abs(zero) <= abs(x) and zero * x >= 0
    assert zero == (down if x >= 0 else up)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
@PROPERTY
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_stochastic_rounding_is_repeatable_and_picks_a_neighbour(
    spec: FormatSpec, data: st.DataObject, seed: int
) -> None:
    x = data.draw(values(spec))
    first = encode(spec, _real(x), "stochastic", seed=seed).encoding
    assert encode(spec, _real(x), "stochastic", seed=seed).encoding == first
    neighbours = {
        encode(spec, _real(x), "toward_negative").encoding.bits,
        encode(spec, _real(x), "toward_positive").encoding.bits,
    }
    assert first.bits in neighbours
