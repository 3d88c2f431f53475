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
import struct
from collections.abc import Sequence
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from app.formats.dot_arithmetic import FusedAdder, Grid, Value

__all__ = ["Terms", "fused_at", "kahan_at", "product_doubles", "rounded_doubles", "sequential_at", "terms", "value_of"]

_ACCUMULATE = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16,
               "float8_e4m3fn": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2}
_FP32_EMIN, _FP32_EMAX = -126, 127
_FLOAT32 = struct.Struct("<f")
_NONE = -(1 << 20)  # an exponent below every other: a zero product's


@dataclass(frozen=True)
class Terms:
    """The products as the fused adders read them, made once for every method: doubles (an array and a list), their
    exponents (a zero product's _NONE; a list and an array with one _NONE more) and the running sums before each."""

    doubles: np.ndarray
    values: list[float]
    exponents: list[int]
    exponent_array: np.ndarray
    before: np.ndarray


def terms(products: np.ndarray, exponents: Sequence[int | None]) -> Terms:
    """Terms of the products (doubles, from product_doubles) with their exponents (product_exponents)."""
    own = [_NONE if x is None else x for x in exponents]
    return Terms(products, products.tolist(), own, np.array([*own, _NONE], dtype=np.int64),
                 np.concatenate(([0.0], np.cumsum(products))))


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
    frexp, ldexp, emin, precision = math.frexp, math.ldexp, to.emin, to.precision
    overflow = math.nan if to.overflow == "nan" else math.inf
    for q in addends.tolist():  # each sum rounded as rounded_doubles rounds
        total += q
        if total != 0 and total - total == 0:
            step = max(frexp(total)[1] - 1, emin) - precision + 1
            total = ldexp(round(ldexp(total, -step)), step)
            if abs(total) > largest:
                total = math.copysign(overflow, total)
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
    """A double rounded to FP32, nearest-even (struct's pack rounds as C's cast does), inf past its largest."""
    try:
        return float(_FLOAT32.unpack(_FLOAT32.pack(x))[0])
    except OverflowError:
        return math.copysign(math.inf, x)


def _output(total: float, adder: FusedAdder) -> float:
    """dot_arithmetic.fused_output on a double: inf past FP32's range, else truncated to the adder's output bits."""
    if total == 0:
        return 0.0
    exponent = math.frexp(total)[1] - 1
    if exponent > _FP32_EMAX:
        return math.copysign(math.inf, total)
    step = max(exponent, _FP32_EMIN) - adder.output_bits + 1
    return math.ldexp(math.trunc(math.ldexp(total, -step)), step)  # toward zero


def _fused_add(accumulator: float, products: list[float], exponents: list[int], adder: FusedAdder) -> float:
    """dot_arithmetic.fused_add on doubles, the exponents of zero products being _NONE."""
    if not math.isfinite(accumulator):
        return accumulator
    top = max(exponents, default=_NONE)
    if accumulator:
        top = max(top, math.frexp(accumulator)[1] - 1, _FP32_EMIN)
    if top == _NONE:
        return 0.0
    grid = math.ldexp(1.0, top - adder.window + 1)
    total = accumulator - math.fmod(accumulator, grid)
    for t in products:
        total += t - math.fmod(t, grid)  # exact: every partial sum lies on the cut's grid, within 34 bits
    return _output(total, adder)


def _guessed_sums(t: Terms, adder: FusedAdder, starts: list[int],
                  firsts: list[int]) -> tuple[list[int], list[int], list[float]]:
    """For each block: its products' largest exponent, the cut guessed from the exact running sum before it (the
    accumulator is close to it, so its exponent mostly is that sum's), and its products truncated at that cut and
    summed (exact, as in _fused_add)."""
    at = np.asarray(starts, dtype=np.intp)
    tops = np.maximum.reduceat(t.exponent_array[:-1], at)
    guessed = t.before[at] - t.before[np.asarray(firsts, dtype=np.intp)]  # since the adder last started from zero
    guessed_exponent = np.where(guessed != 0, np.maximum(np.frexp(guessed)[1] - 1, _FP32_EMIN), _NONE)
    cuts = np.maximum(tops, guessed_exponent) - adder.window + 1
    lengths = np.diff(np.append(at, len(t.values)))
    with np.errstate(all="ignore"):
        grid = np.repeat(np.ldexp(1.0, np.maximum(cuts, -1074)), lengths)
        sums = np.add.reduceat(t.doubles - np.fmod(t.doubles, grid), at)
    return tops.tolist(), cuts.tolist(), sums.tolist()


def fused_at(t: Terms, adder: FusedAdder, counts: Sequence[int],
             promote_every: int | None = None) -> tuple[list[float], list[tuple[int, float, float | None]]]:
    """dot_product.fused_running on doubles: the values at the counts and, for each, (block start, accumulator
    before the block, FP32 total before the interval). A block whose cut is the guessed one adds its guessed sum;
    any other is summed term by term."""
    p, e = t.values, t.exponents
    n, interval = len(p), promote_every or len(p)
    starts = [b for first in range(0, n, interval) for b in range(first, min(first + interval, n), adder.block)]
    firsts = [b // interval * interval for b in starts]
    tops, cuts, sums = _guessed_sums(t, adder, starts, firsts)
    before_block: dict[int, float] = {}
    before_interval: dict[int, float] = {}
    total = accumulator = 0.0
    frexp, fmod, ldexp, trunc = math.frexp, math.fmod, math.ldexp, math.trunc
    window, bits = adder.window, adder.output_bits
    for j, block in enumerate(starts):
        if block == firsts[j]:
            if block:
                total = _fp32(total + accumulator) if promote_every else accumulator
            before_interval[block], accumulator = total, 0.0
        before_block[block] = accumulator
        if accumulator - accumulator != 0:  # inf or NaN stays
            continue
        top = tops[j] if accumulator == 0 else max(tops[j], frexp(accumulator)[1] - 1, _FP32_EMIN)
        if top == _NONE:
            accumulator = 0.0
        elif top - window + 1 == cuts[j]:  # as _fused_add and _output, inline
            grid = ldexp(1.0, cuts[j])
            summed = accumulator - fmod(accumulator, grid) + sums[j]
            exponent = frexp(summed)[1] - 1
            if summed == 0:
                accumulator = 0.0
            elif exponent > _FP32_EMAX:
                accumulator = math.copysign(math.inf, summed)
            else:
                step = max(exponent, _FP32_EMIN) - bits + 1
                accumulator = ldexp(trunc(ldexp(summed, -step)), step)
        else:
            end = min(block + adder.block, firsts[j] + interval, n)
            accumulator = _fused_add(accumulator, p[block:end], e[block:end], adder)
    blocks = [(k - 1) // interval * interval + (k - 1) % interval // adder.block * adder.block for k in counts]
    partials = _partial_blocks(t, adder, [before_block[b] for b in blocks], blocks, list(counts))
    values, traces = [], []
    for k, block, partial in zip(counts, blocks, partials, strict=True):
        promoted = before_interval[(k - 1) // interval * interval] if promote_every else None
        values.append(partial if promoted is None else _fp32(promoted + partial))
        traces.append((block, before_block[block], promoted))
    return values, traces


def _partial_blocks(t: Terms, adder: FusedAdder, accumulators: list[float], starts: list[int],
                    stops: list[int]) -> list[float]:
    """_fused_add of each accumulator and the products from its start to its stop (a block as far as a count):
    the cuts from the ranges' largest exponents, the truncated terms gathered and summed whole."""
    bounds = np.array([x for pair in zip(starts, stops, strict=True) for x in pair], dtype=np.intp)
    tops = np.maximum.reduceat(t.exponent_array, bounds)[::2].tolist()
    cuts = []
    for accumulator, top in zip(accumulators, tops, strict=True):
        if accumulator and math.isfinite(accumulator):
            top = max(top, math.frexp(accumulator)[1] - 1, _FP32_EMIN)
        cuts.append(top - adder.window + 1 if top != _NONE else 0)
    lengths = np.asarray(stops, dtype=np.intp) - np.asarray(starts, dtype=np.intp)
    offsets = np.cumsum(lengths) - lengths
    gathered = t.doubles[np.repeat(np.asarray(starts, dtype=np.intp) - offsets, lengths) + np.arange(lengths.sum())]
    with np.errstate(all="ignore"):
        grid = np.repeat(np.ldexp(1.0, np.maximum(np.asarray(cuts, dtype=np.int64), -1074)), lengths)
        sums = np.add.reduceat(gathered - np.fmod(gathered, grid), offsets).tolist()
    out = []
    for accumulator, top, cut, summed in zip(accumulators, tops, cuts, sums, strict=True):
        if not math.isfinite(accumulator):
            out.append(accumulator)
        elif top == _NONE and accumulator == 0:
            out.append(0.0)
        else:
            grid_step = math.ldexp(1.0, cut)
            out.append(_output(accumulator - math.fmod(accumulator, grid_step) + summed, adder))
    return out
