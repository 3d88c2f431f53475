"""The dot product's methods on doubles, value for value as the integer reference of dot_arithmetic.py and
dot_product.py (sequential_running, kahan_running, fused_running) computes them, with a small part of its work.

Every input format is at most FP32 wide, so each product of two stored elements is exact as a double (at most 48
significant bits, exponents from 2^-298 to 2^256), and so is each value the methods hold. A product is rounded to a
format by whole-array arithmetic (its step at each value, numpy's rint: nearest, ties to even). A sum of two values of
a format of p significant bits, rounded to double and then to the format, is the sum rounded once, since 53 >= 2p + 2
(Figueroa, 1995); numpy's float32 and float16 adds and ml_dtypes' adds (through float32, 24 >= 2p + 2 for BF16 and
FP8) are such double roundings, and ufunc.accumulate adds in order, so a sequential sum is one accumulate. TF32 has no
numpy type: its sums are rounded one by one, on doubles. Kahan's four FP32 operations a step run on numpy float32
scalars. A fused adder's terms, truncated at the cut (t − fmod(t, 2^cut), exact), sum exactly on doubles: at most 33
terms of at most 26 bits each, on one grid. Values come back as the reference's: whole numbers of 2^unit, or floats
for ±inf and NaN.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import ml_dtypes
import numpy as np

from app.formats.dot_arithmetic import FusedAdder, Grid, Value

__all__ = ["fused_at", "kahan_at", "product_doubles", "rounded_doubles", "sequential_at", "value_of"]

_ACCUMULATE = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16,
               "float8_e4m3fn": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2}
_FP32_EMIN, _FP32_EMAX = -126, 127


def product_doubles(products: Sequence[int], unit: int) -> np.ndarray:
    """Each product (a whole number of 2^unit) as a double: exact, at most 48 significant bits."""
    return np.ldexp(np.array([float(p) for p in products], dtype=np.float64), unit)


def value_of(x: float, unit: int) -> Value:
    """A double as the reference holds it: a whole number of 2^unit, or ±inf or NaN."""
    return int(math.ldexp(x, -unit)) if math.isfinite(x) else x


def rounded_doubles(x: np.ndarray, to: Grid) -> np.ndarray:
    """Each finite double rounded to the format (nearest, ties to even); past its largest, inf or NaN as the format
    overflows (dot_arithmetic.rounded)."""
    magnitude = np.abs(x)
    exponent = np.maximum(np.frexp(magnitude)[1] - 1, to.emin)
    step = exponent - to.precision + 1
    kept = np.ldexp(np.rint(np.ldexp(magnitude, -step)), step)  # exact: below 2^precision steps
    largest = math.ldexp(float(to.largest), to.unit)
    with np.errstate(invalid="ignore"):
        kept = np.where(kept > largest, np.inf if to.overflow == "inf" else np.nan, kept)
    return np.copysign(kept, x)


def _rounded_scalar(x: float, to: Grid, largest: float) -> float:
    if x == 0 or not math.isfinite(x):
        return x
    step = max(math.frexp(x)[1] - 1, to.emin) - to.precision + 1
    kept = math.ldexp(round(math.ldexp(x, -step)), step)  # round: ties to even, exact on a double below 2^53
    if abs(kept) > largest:
        return math.copysign(math.inf, x) if to.overflow == "inf" else math.nan
    return kept


def sequential_at(products: np.ndarray, to: Grid, picked: Sequence[int]) -> list[float]:
    """The running sums at the picked indices: each product rounded to `to`, each partial sum too
    (sequential_running with one grid for both)."""
    addends = rounded_doubles(products, to)
    with np.errstate(all="ignore"):
        dtype = _ACCUMULATE.get(to.format_id)
        if dtype is not None:
            sums = np.add.accumulate(addends.astype(dtype)).astype(np.float64)
            out: list[float] = sums[np.asarray(picked, dtype=np.intp)].tolist()
            return out
    largest, total, running = math.ldexp(float(to.largest), to.unit), 0.0, []
    for q in addends.tolist():
        total = _rounded_scalar(total + q, to, largest)
        running.append(total)
    return [running[i] for i in picked]


def kahan_at(products: np.ndarray, picked: Sequence[int]) -> list[tuple[float, float]]:
    """Kahan's (sum, compensation) in FP32 at the picked indices, each product rounded to FP32 (kahan_running)."""
    wanted, states = set(picked), {}
    total = compensation = np.float32(0)
    with np.errstate(all="ignore"):
        for i, p in enumerate(products.astype(np.float32)):  # the cast rounds once: nearest-even, inf past max
            y = p - compensation
            t = total + y
            compensation = (t - total) - y
            total = t
            if i in wanted:
                states[i] = (float(total), float(compensation))
    return [states[i] for i in picked]


def _fp32(x: float) -> float:
    """A double rounded to FP32, nearest-even, inf past its largest."""
    with np.errstate(over="ignore"):
        return float(np.float32(x))


def _fused_add(accumulator: float, products: list[float], exponents: list[int | None], adder: FusedAdder) -> float:
    """dot_arithmetic.fused_add on doubles."""
    if not math.isfinite(accumulator):
        return accumulator
    top = max((e for e in exponents if e is not None), default=None)
    if accumulator:
        own = max(math.frexp(accumulator)[1] - 1, _FP32_EMIN)
        top = own if top is None else max(top, own)
    if top is None:
        return 0.0
    grid = math.ldexp(1.0, top - adder.window + 1)
    total = accumulator - math.fmod(accumulator, grid)
    for t in products:
        total += t - math.fmod(t, grid)  # exact: every partial sum lies on the cut's grid, within 34 bits
    if total == 0:
        return 0.0
    exponent = math.frexp(total)[1] - 1
    if exponent > _FP32_EMAX:
        return math.copysign(math.inf, total)
    step = max(exponent, _FP32_EMIN) - adder.output_bits + 1
    return math.ldexp(math.trunc(math.ldexp(total, -step)), step)  # toward zero


def fused_at(products: np.ndarray, exponents: Sequence[int | None], adder: FusedAdder, counts: Sequence[int],
             promote_every: int | None = None) -> tuple[list[float], list[tuple[int, float, float | None]]]:
    """dot_product.fused_running on doubles: the values at the counts and, for each, (block start, accumulator
    before the block, FP32 total before the interval)."""
    p, e = products.tolist(), list(exponents)
    n, interval = len(p), promote_every or len(p)
    before_block: dict[int, float] = {}
    before_interval: dict[int, float] = {}
    total = 0.0
    for start in range(0, n, interval):
        before_interval[start] = total
        accumulator = 0.0
        stop = min(start + interval, n)
        for block in range(start, stop, adder.block):
            before_block[block] = accumulator
            end = min(block + adder.block, stop)
            accumulator = _fused_add(accumulator, p[block:end], e[block:end], adder)
        total = _fp32(total + accumulator) if promote_every else accumulator
    values, traces = [], []
    for k in counts:
        start = (k - 1) // interval * interval
        block = start + (k - 1 - start) // adder.block * adder.block
        partial = _fused_add(before_block[block], p[block:k], e[block:k], adder)
        promoted = before_interval[start] if promote_every else None
        values.append(partial if promoted is None else _fp32(promoted + partial))
        traces.append((block, before_block[block], promoted))
    return values, traces
