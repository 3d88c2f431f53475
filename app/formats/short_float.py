"""Rounding float32 arrays to a shorter float format by integer arithmetic on their bit patterns.

Nearest-even, bit for bit as ml_dtypes' casts (tests/unit/formats/test_short_float.py holds the two together on
every float32 exponent and every kind of tie), and several times faster for FP8 and FP16 on large arrays: ml_dtypes
converts element by element, this is a dozen whole-array numpy operations. A result in the normal range is
rounded by adding just under half an ULP (plus the kept last bit, for ties to even) to the float32 pattern and
clearing the dropped bits, a carry moving into the exponent as it should (and past max, to be caught); a result
below the smallest normal is rounded by float32 addition of a power of two whose spacing is the format's
subnormal step.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from app.formats.spec import FormatSpec

__all__ = ["ShortFloatRounder", "short_float_rounder"]

_MANTISSA_BITS = 23
_SIGN = np.uint32(0x80000000)
_MAGNITUDE = np.uint32(0x7FFFFFFF)
_INF = np.uint32(0x7F800000)
_QUIET_NAN = np.uint32(0x7FC00000)
_ONE = np.uint32(1)
# ml_dtypes' own bfloat16 cast is bit arithmetic already, and faster than this (measured in bench_training)
_LEFT_TO_ML_DTYPES = frozenset({"bfloat16"})

ShortFloatRounder = Callable[[np.ndarray, bool], np.ndarray]


@cache
def short_float_rounder(spec: FormatSpec) -> ShortFloatRounder | None:
    """How to round a float32 array to `spec` (nearest-even; with saturate=True, overflow and ±inf to ±max),
    giving float32: for a signed float format with NaN, 1 to 22 mantissa bits and an exponent range within
    float32's; None for any other."""
    emin = spec.emin
    if (spec.kind != "float" or not spec.has_nan or not spec.signed or spec.nan_style == "e8m0"
            or not 1 <= spec.mantissa_bits < _MANTISSA_BITS or spec.id in _LEFT_TO_ML_DTYPES
            or emin - spec.mantissa_bits + _MANTISSA_BITS < -126 or spec.emax > 127):
        return None
    drop = _MANTISSA_BITS - spec.mantissa_bits
    keep = np.uint32(~((1 << drop) - 1) & 0xFFFFFFFF)
    below_half = np.uint32((1 << (drop - 1)) - 1)
    # non-zero magnitudes less one under this are below 2^emin, where the format's step stops shrinking (none when
    # emin is float32's own: there dropping bits is right down to float32's subnormals)
    subnormal_floor = np.uint32(((emin + 127) << _MANTISSA_BITS) - 1) if emin > -126 else None
    normal_floor = np.float32(2.0**emin)
    # a float32 addition to this rounds to a multiple of 2^(emin - mantissa_bits), the format's subnormal step
    step_maker = np.float32(2.0 ** (emin - spec.mantissa_bits + _MANTISSA_BITS))
    largest = np.float32(float(spec.max)).view(np.uint32)
    # the largest magnitude that rounds to at most max: half a step above it, the tie itself only when max is even
    last_in_range = largest + np.uint32((1 << (drop - 1)) - ((int(largest) >> drop) & 1))
    overflowed = _INF if spec.has_inf else _QUIET_NAN
    one_zero = not spec.has_negative_zero

    def subnormals(x: np.ndarray) -> np.ndarray:
        """The magnitudes of x, those below 2^emin rounded to the format's subnormal step, as patterns."""
        low = np.fmin(np.abs(x), normal_floor)  # fmin: NaN takes part in no arithmetic
        low += step_maker
        low -= step_maker
        return low.view(np.uint32)

    def rounder(x: np.ndarray, saturate: bool) -> np.ndarray:
        bits = x.view(np.uint32)
        rounded = bits + below_half
        rounded += (bits >> drop) & _ONE
        rounded &= keep
        magnitude = bits & _MAGNITUDE
        if subnormal_floor is not None:
            small = (magnitude - _ONE) < subnormal_floor
            count = int(np.count_nonzero(small))
            if count * 8 > small.size:  # many: whole-array operations beat gathering them
                rounded = np.where(small, subnormals(x) | (bits & _SIGN), rounded)
            elif count:
                rounded[small] = subnormals(x[small]) | (bits[small] & _SIGN)
        special = magnitude > last_in_range  # overflowing, infinite or NaN
        if special.any():
            rounded[special] = (bits[special] & _SIGN) | (largest if saturate else overflowed)
            nan = magnitude > _INF
            rounded[nan] = (bits[nan] & _SIGN) | _QUIET_NAN
        stored = rounded.view(np.float32)
        if one_zero:
            stored += np.float32(0)  # −0 becomes 0: the format has one zero
        return stored

    return rounder
