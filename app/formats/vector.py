"""The vectorised codec: whole numpy arrays to and from every scalar format, bit for bit as the exact codec.

ml_dtypes casts a float64 through float32, rounding twice; so float64 input is first narrowed to float32
rounding to odd, after which one more rounding to any format of at most 21 mantissa bits is exact.
Formats that neither numpy nor ml_dtypes holds (binary128, most custom layouts) have no vectorised path: asked for
one, it refuses with NoFastPathError.
"""

from __future__ import annotations

from functools import cache

import ml_dtypes
import numpy as np

from app.formats.codec import NotScalarError
from app.formats.short_float import short_float_rounder
from app.formats.spec import FormatSpec
from app.messages import N_
from app.refusal import Refusal

__all__ = ["NoFastPathError", "decode_bits", "encode_bits", "has_fast_path", "round_to_format"]

_FLOAT32_MANTISSA_BITS = 23
# From this many elements on, short_float's dozen whole-array operations beat ml_dtypes' cast (element by element);
# below it, the cast's smaller fixed cost wins (about 1024 for FP8 and FP16, measured 2026-12-07)
_BIT_ARITHMETIC_FROM = 1024


def round_to_format(x: np.ndarray, spec: FormatSpec, *, saturate: bool = False) -> np.ndarray:
    """The value each element stores in the format (nearest-even), as float32, or float64 for float64."""
    x = _as_float(x, spec)
    out = np.float64 if spec.id == "float64" else np.float32
    if spec.kind == "int":
        return _int_stored(x, spec, saturate).astype(out)
    if spec.kind == "codebook":
        return _codebook_values(spec)[_codebook_codes(x, spec)]
    rounder = short_float_rounder(spec)
    if rounder is not None and (x.size >= _BIT_ARITHMETIC_FROM or spec.ml_dtype is None):
        return rounder(x if x.dtype == np.float32 else _working(x, spec, saturate), saturate)
    return _cast(x, spec, saturate).astype(out, copy=False)


def encode_bits(x: np.ndarray, spec: FormatSpec, *, saturate: bool = False) -> np.ndarray:
    """The bit pattern each element is stored as (nearest-even), as unsigned integers."""
    x = _as_float(x, spec)
    storage = _storage_dtype(spec)
    if spec.kind == "int":
        return (_int_stored(x, spec, saturate).astype(np.int16) & ((1 << spec.bits) - 1)).astype(storage)
    if spec.kind == "codebook":
        return _codebook_codes(x, spec).astype(storage)
    # a layout numpy and ml_dtypes lack but short_float serves: float32 with fewer mantissa bits (TF32)
    if spec.ml_dtype is None and (rounder := short_float_rounder(spec)) is not None:
        drop = _FLOAT32_MANTISSA_BITS - spec.mantissa_bits
        return rounder(_working(x, spec, saturate), saturate).view(np.uint32) >> drop
    bits = _cast(x, spec, saturate).view(storage)
    return _quiet_nan(bits, spec) if spec.has_inf and np.isnan(x).any() else bits


def decode_bits(bits: np.ndarray, spec: FormatSpec) -> np.ndarray:
    """The value of each bit pattern, as float64 (NaN for NaN patterns)."""
    _check_scalar(spec)
    patterns = np.asarray(bits)
    if patterns.dtype.kind not in "iu":
        raise TypeError(f"bit patterns must be integers, not {patterns.dtype}")
    if patterns.size and (patterns.min() < 0 or int(patterns.max()) >> spec.bits):
        raise ValueError(f"{spec.id} has {spec.bits}-bit patterns: 0 to {hex((1 << spec.bits) - 1)}")
    if spec.kind == "int":
        wide = patterns.astype(np.int64)
        signed = np.where(wide >> (spec.bits - 1), wide - (1 << spec.bits), wide) if spec.signed else wide
        return signed.astype(np.float64)
    if spec.kind == "codebook":
        return np.asarray(spec.codebook, dtype=np.float64)[patterns]
    if spec.ml_dtype is None:
        drop = _FLOAT32_MANTISSA_BITS - spec.mantissa_bits
        return (patterns.astype(np.uint32) << drop).view(np.float32).astype(np.float64)
    with np.errstate(invalid="ignore"):  # ml_dtypes warns on casting its NaNs
        return patterns.astype(_storage_dtype(spec)).view(_ml_dtype(spec.ml_dtype)).astype(np.float64)


class NoFastPathError(Refusal):
    """A format that numpy and ml_dtypes cannot hold, asked for the vectorised path."""


def has_fast_path(spec: FormatSpec) -> bool:
    """Whether the vectorised path serves this scalar format: ml_dtypes or numpy has it, it is an integer or a
    codebook, or it is FP32 with a shorter mantissa (TF32's layout), which rounding float32 bit patterns gives."""
    if spec.kind in ("int", "codebook") or spec.ml_dtype is not None:
        return True
    float32_like = (spec.exponent_bits, spec.bias, spec.nan_style, spec.signed) == (8, 127, "ieee", True)
    return spec.kind == "float" and float32_like and 1 <= spec.mantissa_bits <= _FLOAT32_MANTISSA_BITS - 2


# -- helpers ------------------------------------------------------------------------------------


def _check_scalar(spec: FormatSpec) -> None:
    if spec.kind == "block":
        raise NotScalarError(template=N_("%(format)s is a block format: quantise its vectors with quantize_blocks."),
                             params={"format": spec.id})
    if not has_fast_path(spec):
        raise NoFastPathError(
            template=N_("%(format)s (%(name)s) has no numpy or ml_dtypes type, so it has no vectorised path; store its "
                        "values one at a time with the exact codec (encode and decode)."),
            params={"format": spec.id, "name": spec.name},
        )


def _as_float(x: np.ndarray, spec: FormatSpec) -> np.ndarray:
    """float32 and float64 arrays as they are; anything else as float64."""
    _check_scalar(spec)
    x = np.asarray(x)
    return x if x.dtype in (np.float32, np.float64) else x.astype(np.float64)


def _storage_dtype(spec: FormatSpec) -> np.dtype:
    return np.dtype(f"uint{max(8, 1 << (spec.bits - 1).bit_length())}")


@cache
def _largest(spec: FormatSpec) -> float:
    return float(spec.max)


@cache
def _ml_dtype(name: str) -> np.dtype:
    return np.dtype(getattr(ml_dtypes, name, name))


def _working(x: np.ndarray, spec: FormatSpec, saturate: bool) -> np.ndarray:
    """The float array the last rounding starts from: clamped to ±max when saturating, float32 when narrow."""
    if spec.id == "float64":
        x = x.astype(np.float64, copy=False)
    if saturate:
        limit = _largest(spec)
        x = np.minimum(x, limit)
        if spec.signed:  # e8m0 has no sign: negatives stay negative, to become NaN as the codec makes them
            np.maximum(x, -limit, out=x)
    if x.dtype == np.float64 and spec.id not in ("float32", "float64"):
        x = _float32_round_to_odd(x)
    return x


def _cast(x: np.ndarray, spec: FormatSpec, saturate: bool) -> np.ndarray:
    """x in the format's ml_dtypes type, always a new array (never the caller's own)."""
    working = _working(x, spec, saturate)
    if spec.id == "float16" and working.dtype == np.float32:
        working = _float16_subnormals_pre_rounded(working)
    with np.errstate(over="ignore", invalid="ignore"):
        stored = working.astype(_ml_dtype(spec.ml_dtype or ""), copy=working is x)
    if spec.nan_style == "e8m0":
        # ml_dtypes 0.6.0 rounds the float32 subnormals between 2^-127 and 1.5 × 2^-127 up to 2^-126;
        # the nearest E8M0 value is 2^-127, pattern 0
        smallest = float(spec.min_positive)
        stored.view(np.uint8)[(working > smallest) & (working < 1.5 * smallest)] = 0
    return stored


def _float16_subnormals_pre_rounded(x: np.ndarray) -> np.ndarray:
    """x with its values in float16's subnormal range already rounded to multiples of 2^-24.

    numpy's float32 -> float16 cast is about 20 times slower per element when the result is subnormal;
    |x| + 0.5 rounds |x| to the float32 spacing at 0.5, which is 2^-24, nearest-even, exactly as the cast
    would, and the cast of the exact result is fast.
    """
    tiny = np.flatnonzero(np.abs(x) < 2.0**-14)
    if not tiny.size:
        return x
    rounded = x.copy()
    flat, values = rounded.reshape(-1), x.reshape(-1)[tiny]
    flat[tiny] = np.copysign((np.abs(values) + np.float32(0.5)) - np.float32(0.5), values)
    return rounded


def _float32_round_to_odd(x: np.ndarray) -> np.ndarray:
    """float64 -> float32, truncating and then setting the last bit when inexact (rounding to odd)."""
    with np.errstate(over="ignore"):
        narrow = x.astype(np.float32)
    back = narrow.astype(np.float64)
    rounded_away = np.abs(back) > np.abs(x)
    inexact = back != x  # true for NaN too, which stays NaN with its last bit set
    bits = narrow.view(np.uint32)
    bits -= rounded_away
    bits |= inexact
    return narrow


def _quiet_nan(bits: np.ndarray, spec: FormatSpec) -> np.ndarray:
    """IEEE-style NaNs as the codec writes them: the sign kept, only the top mantissa bit set."""
    sign = 1 << (spec.bits - 1)
    inf = ((1 << spec.exponent_bits) - 1) << spec.mantissa_bits
    nan = (bits & (sign - 1)) > inf
    return np.where(nan, (bits & sign) | inf | 1 << (spec.mantissa_bits - 1), bits).astype(bits.dtype)


def _int_stored(x: np.ndarray, spec: FormatSpec, saturate: bool) -> np.ndarray:
    """Round half to even, then wrap modulo 2^bits (as an integer cast does) or clamp; floats holding integers.

    NaN stores 0 and ±inf the nearest end of the range, as the codec does.
    """
    lo, hi = int(spec.lowest), int(spec.max)
    whole = np.rint(x)
    whole += 0.0  # -0.0 becomes 0: integers have one zero
    low, high = (whole.min(), whole.max()) if whole.size else (0.0, 0.0)  # NaN makes both NaN
    if lo <= low and high <= hi:
        return whole
    if saturate:
        return np.nan_to_num(np.clip(whole, lo, hi), nan=0.0)
    if low > -(2.0**31) and high < 2.0**31:  # the common case: int32 arithmetic wraps them all, and fast
        return _wrapped(whole.astype(np.int32), spec).astype(whole.dtype)
    # int64 arithmetic wraps all but these, which fmod (exact) brings near first; ±inf go to the ends
    outliers = ~(np.abs(whole) < 2.0**62)
    if outliers.any():
        wide = whole[outliers]
        with np.errstate(invalid="ignore"):
            near = np.fmod(wide, float(1 << spec.bits))
        whole[outliers] = np.where(np.isfinite(wide), near, np.nan_to_num(np.clip(wide, lo, hi), nan=0.0))
    return _wrapped(whole.astype(np.int64), spec).astype(whole.dtype)


def _wrapped(stored: np.ndarray, spec: FormatSpec) -> np.ndarray:
    """Integers brought into the format's range modulo 2^bits, in place."""
    lo = int(spec.lowest)
    if lo:
        stored -= lo
    stored &= (1 << spec.bits) - 1
    if lo:
        stored += lo
    return stored


@cache
def _codebook_values(spec: FormatSpec) -> np.ndarray:
    return _frozen(np.asarray(spec.codebook, dtype=np.float32))


@cache
def _codebook_thresholds(spec: FormatSpec, dtype: np.dtype) -> np.ndarray:
    """For each pair of neighbouring codes, the smallest `dtype` value that rounds to the upper one."""
    book = np.asarray(spec.codebook, dtype=np.float64)
    midpoints = (book[:-1] + book[1:]) / 2  # exact: the codebook values are float32
    thresholds = midpoints.astype(dtype)
    lower_code_is_even = np.arange(len(midpoints)) % 2 == 0
    # a tie stays at the lower code when that code is even, so its threshold lies just above the midpoint
    step_up = (thresholds < midpoints) | ((thresholds == midpoints) & lower_code_is_even)
    return _frozen(np.where(step_up, np.nextafter(thresholds, dtype.type(np.inf)), thresholds))


def _frozen(table: np.ndarray) -> np.ndarray:
    """A cached table, made read-only so that no caller can change it for the next."""
    table.flags.writeable = False
    return table


def _codebook_codes(x: np.ndarray, spec: FormatSpec) -> np.ndarray:
    """The nearest code (ties to the even code), clamped to the ends; NaN takes the code of 0."""
    codes = np.zeros(x.shape, dtype=np.uint8)
    for threshold in _codebook_thresholds(spec, x.dtype):  # 15 passes beat a binary search per element
        codes += x >= threshold
    codes[np.isnan(x)] = spec.codebook.index(0.0)
    return codes
