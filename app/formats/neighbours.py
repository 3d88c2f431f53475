"""Neighbours in a format: the next value up and down (IEEE nextUp and nextDown) and the unit in the last place,
stepping through the bit patterns of the exact codec."""

from __future__ import annotations

from fractions import Fraction

from app.formats.codec import Encoding, decode, float_bits, int_limits, max_bits
from app.formats.spec import pow2


def next_up(enc: Encoding) -> Encoding | None:
    """The next larger value the format holds (IEEE nextUp), or None at the top."""
    return _step(enc, up=True)


def next_down(enc: Encoding) -> Encoding | None:
    """The next smaller value the format holds (IEEE nextDown), or None at the bottom."""
    return _step(enc, up=False)


def _step(enc: Encoding, up: bool) -> Encoding | None:
    spec, v = enc.format, enc.value
    if v.kind == "nan":
        return None
    if spec.kind == "int":
        lo, hi = int_limits(spec)
        target = int(v.fraction) + (1 if up else -1)
        return decode(spec, target & ((1 << spec.bits) - 1)) if lo <= target <= hi else None
    if spec.kind == "codebook":
        target = enc.bits + (1 if up else -1)
        return decode(spec, target) if 0 <= target < len(spec.codebook) else None
    if v.kind == "inf":
        return decode(spec, max_bits(spec, v.negative)) if v.negative == up else None
    if spec.nan_style == "e8m0":
        target = enc.bits + (1 if up else -1)
        return decode(spec, target) if 0 <= target <= max_bits(spec, False) else None
    sign_bit = 1 << (spec.bits - 1)
    magnitude = enc.bits & (sign_bit - 1)
    away_from_zero = v.is_zero or v.negative != up  # the step grows the magnitude
    if away_from_zero:
        negative = not up
        if v.magnitude == spec.max:
            return decode(spec, float_bits(spec, negative, (1 << spec.exponent_bits) - 1, 0)) if spec.has_inf else None
        return decode(spec, (sign_bit if negative else 0) | (magnitude + 1))
    if magnitude == 1:
        return decode(spec, sign_bit if v.negative and spec.has_negative_zero else 0)
    return decode(spec, (enc.bits & sign_bit) | (magnitude - 1))


def ulp(enc: Encoding) -> Fraction | None:
    """The gap from this value to the next one of larger magnitude (unit in the last place)."""
    spec, v = enc.format, enc.value
    if not v.is_finite:
        return None
    if spec.kind == "int":
        return Fraction(1)
    if spec.kind == "codebook":
        nxt = _step(enc, up=not v.negative) or _step(enc, up=v.negative)
        return abs(nxt.value.fraction - v.fraction) if nxt and nxt.value.is_finite else None
    if v.is_zero:
        return spec.min_positive
    e = enc.exponent if enc.exponent is not None else spec.emin
    return pow2(e - spec.mantissa_bits)
