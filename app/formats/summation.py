"""Summing many values of one format four ways, and the exact sum they are measured against.

The values are the format's own (rounded already). The methods, each rounding as hardware does (nearest-even, the
format's own overflow: inf for IEEE-style formats, NaN for the fn FP8 formats):

- naive: same-format accumulation; every partial sum is rounded to the format.
- fp32: the inputs in the format, the running sum in FP32, only the final sum rounded to the format (for formats
  of at most 32 bits).
- pairwise: halves summed recursively (left = the largest power of two shorter than the list), in the format.
- kahan: Kahan's compensated summation, each of its four operations in the format.

The sequential sums come from numpy's `add.accumulate` on the format's numpy or ml_dtypes type, whose loop rounds
each step to that type (the tests hold it to an exact reference); pairwise sums are whole levels of one vectorised
add. Kahan's recurrence has no vectorised form, so it is a Python loop over the format's scalars (stretches
that leave its state unchanged are stepped over in one vectorised look): the one part whose cost grows as a Python
loop does, most of the figure's time at N = 10^6.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import ml_dtypes
import numpy as np

from app.formats.registry import FORMATS
from app.formats.spec import FormatSpec
from app.formats.vector import round_to_format
from app.messages import N_
from app.refusal import Refusal, quoted

__all__ = [
    "SUMMABLE_FORMATS",
    "SUMMATION_METHODS",
    "NotSummableError",
    "Summed",
    "exact_prefix_sums",
    "first_non_finite",
    "fp32_running_sums",
    "kahan_sums",
    "naive_running_sums",
    "pairwise_sums",
    "stall_step",
    "sum_values",
    "summable",
]

# the scalar float formats whose arithmetic numpy or ml_dtypes carries out, widest first
SUMMABLE_FORMATS = ("float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2")
SUMMATION_METHODS = {
    "naive": "Same-format accumulation",
    "fp32": "FP32 accumulation",
    "pairwise": "Pairwise summation",
    "kahan": "Kahan (compensated) summation",
}
_FLOAT64_SIGNIFICAND_BITS = 53
_LIMB_BITS = 26  # a 53-bit significand in two halves whose sums over 10^6 values stay exact in float64


class NotSummableError(Refusal):
    """A format whose arithmetic the summation figure cannot carry out, or a method it does not know."""


@cache
def _dtype(spec: FormatSpec) -> np.dtype:
    if spec.id not in SUMMABLE_FORMATS:
        raise NotSummableError(template=N_("%(format)s cannot be summed here; choose one of %(formats)s."),
                               params={"format": spec.id, "formats": ", ".join(SUMMABLE_FORMATS)})
    return np.dtype(getattr(ml_dtypes, spec.id, spec.id))


def _typed(values: np.ndarray, spec: FormatSpec) -> np.ndarray:
    """The values (already the format's) in the format's own numpy type; exact, as each is representable."""
    return np.asarray(values, dtype=np.float64).astype(_dtype(spec))


def naive_running_sums(values: np.ndarray, spec: FormatSpec) -> np.ndarray:
    """Every running sum of same-format accumulation, as float64: entry i is the sum of the first i + 1 values."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.add.accumulate(_typed(values, spec)).astype(np.float64)


def fp32_running_sums(values: np.ndarray) -> np.ndarray:
    """Every running sum of an FP32 accumulator fed these values, as float64 (not yet rounded to the format)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.add.accumulate(np.asarray(values, dtype=np.float32)).astype(np.float64)


def pairwise_sums(values: np.ndarray, spec: FormatSpec, counts: np.ndarray) -> np.ndarray:
    """The pairwise sum, in the format, of the first k values for each k in `counts` (1 <= k <= len(values)).

    Level j holds the sums of the aligned blocks of 2^j values; the first k values are the blocks of k's binary
    digits, largest first, and the recursive split adds them from the smallest up.
    """
    counts = np.asarray(counts, dtype=np.int64)
    level = _typed(values, spec)
    total = np.zeros(counts.shape, dtype=level.dtype)
    started = np.zeros(counts.shape, dtype=bool)
    j = 0
    with np.errstate(over="ignore", invalid="ignore"):
        while len(level):
            has = (counts >> j) & 1 == 1
            block = level[((counts >> (j + 1)) << 1)[has]]
            total[has] = np.where(started[has], block + total[has], block)
            started |= has
            pairs = len(level) // 2 * 2
            level = level[0:pairs:2] + level[1:pairs:2]
            j += 1
    return total.astype(np.float64)


def kahan_sums(values: np.ndarray, spec: FormatSpec, counts: np.ndarray) -> np.ndarray:
    """Kahan's compensated sum, every operation in the format, after the first k values for each k in `counts`
    (ascending).

    A Python loop over the format's scalars, but a state that a whole stretch of inputs leaves as it is (a stalled
    sum, or NaN after an overflow) is stepped over: one vectorised Kahan step from that state over the next values
    finds the first that would change it.
    """
    counts = np.asarray(counts, dtype=np.int64)
    typed = _typed(values, spec)
    # Python floats are FP64 and faster than numpy's scalars; the other formats' scalars round every operation
    scalars = typed.tolist() if spec.id == "float64" else typed
    total = compensation = 0.0 if spec.id == "float64" else typed.dtype.type(0)
    out = np.empty(counts.shape, dtype=np.float64)
    stops = counts.tolist()
    i, recorded = 0, 0
    with np.errstate(over="ignore", invalid="ignore"):
        while recorded < len(stops):
            end = min(i + _KAHAN_CHUNK, stops[recorded])
            before = (total, compensation)
            for x in scalars[i:end]:
                y = x - compensation
                t = total + y
                compensation = (t - total) - y
                total = t
            if end - i == _KAHAN_CHUNK and _same(before, (total, compensation)):
                end += _unchanged_run(typed, end, stops[-1], total, compensation)
            i = end
            while recorded < len(stops) and stops[recorded] <= i:
                out[recorded] = float(total)
                recorded += 1
    return out


_KAHAN_CHUNK = 2048  # values between two looks at whether the state has stopped changing


def _same(a: tuple, b: tuple) -> bool:
    """Whether two Kahan states are the same, NaN being the same as NaN."""
    return all(p == q or (p != p and q != q) for p, q in zip(a, b, strict=True))


def _unchanged_run(typed: np.ndarray, start: int, stop: int, total: object, compensation: object) -> int:
    """How many values from typed[start] on (before `stop`) leave the Kahan state (total, compensation) exactly as
    it is, bit for bit: windows that double while every value in them does."""
    state = np.array([total, compensation], dtype=typed.dtype)
    bits = state.view(np.dtype(f"uint{8 * typed.dtype.itemsize}"))
    run, window = 0, _KAHAN_CHUNK
    while start + run < stop:
        x = typed[start + run:min(start + run + window, stop)]
        y = x - state[1]
        t = state[0] + y
        kept = (t.view(bits.dtype) == bits[0]) & (((t - state[0]) - y).view(bits.dtype) == bits[1])
        changed = np.flatnonzero(~kept)
        if len(changed):
            return run + int(changed[0])
        run, window = run + len(x), window * 2
    return run


def exact_prefix_sums(values: np.ndarray, counts: np.ndarray) -> list[Fraction]:
    """The exact sum of the first k values for each k in `counts` (ascending), from finite float64 values.

    Each value is M * 2^E with M a 53-bit integer; the halves of M are summed per exponent and per stretch between
    two counts with np.bincount, whose float64 sums of integers below 2^47 are exact; Python integers join them.
    """
    values = np.asarray(values, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.int64)
    if not np.isfinite(values).all():
        raise ValueError("an exact sum needs finite values")
    fractions, exponents = np.frexp(values)
    significands = (fractions * float(1 << _FLOAT64_SIGNIFICAND_BITS)).astype(np.int64)
    exponents = exponents.astype(np.int64) - _FLOAT64_SIGNIFICAND_BITS
    lowest = int(exponents.min()) if len(values) else 0
    groups = int(exponents.max()) - lowest + 1 if len(values) else 1
    last = int(counts[-1]) if len(counts) else 0
    stretch = np.repeat(np.arange(len(counts)), np.diff(counts, prepend=0))  # which count's stretch holds value i
    key = stretch * groups + (exponents[:last] - lowest)
    size = len(counts) * groups
    high = np.bincount(key, weights=(significands[:last] >> _LIMB_BITS).astype(np.float64), minlength=size)
    low = np.bincount(key, weights=(significands[:last] & ((1 << _LIMB_BITS) - 1)).astype(np.float64), minlength=size)
    scaled = 0  # the running sum in units of 2^lowest
    sums = []
    for index in range(len(counts)):
        row_high, row_low = high[index * groups:(index + 1) * groups], low[index * groups:(index + 1) * groups]
        for group in np.flatnonzero((row_high != 0) | (row_low != 0)).tolist():
            scaled += ((int(row_high[group]) << _LIMB_BITS) + int(row_low[group])) << group
        sums.append(Fraction(scaled) * Fraction(2) ** lowest)
    return sums


def stall_step(running: np.ndarray) -> int | None:
    """The step (1-based) after which the running sum never changes again, when that is before the last step and
    the sum is finite; None when it still changes at the end."""
    if len(running) < 2 or not np.isfinite(running[-1]):
        return None
    changed = np.flatnonzero(running[1:] != running[:-1])
    last = int(changed[-1]) + 2 if len(changed) else 1  # the step whose sum is the final one
    return last if last < len(running) else None


def first_non_finite(running: np.ndarray) -> int | None:
    """The first step (1-based) whose running sum is inf or NaN; None when all are finite."""
    bad = np.flatnonzero(~np.isfinite(running))
    return int(bad[0]) + 1 if len(bad) else None


@dataclass(frozen=True)
class Summed:
    """One method's sums: at each chart count, and after all the values (the result, in the format)."""

    method: str
    at_counts: np.ndarray  # float64, one per count
    result: float
    stall: int | None  # the stall step, for the sequential methods whose every running sum is known
    overflow: int | None  # the first step whose running sum is inf or NaN, for those methods too


def sum_values(values: np.ndarray, spec: FormatSpec, counts: np.ndarray, methods: tuple[str, ...]) -> list[Summed]:
    """Each method's sums of `values` (the format's own), at `counts` (ascending, the last = len(values))."""
    counts = np.asarray(counts, dtype=np.int64)
    out = []
    for method in methods:
        if method == "naive":
            running = naive_running_sums(values, spec)
            out.append(Summed(method, running[counts - 1], float(running[-1]), stall_step(running),
                              first_non_finite(running)))
        elif method == "fp32":
            if spec.id == "float64":
                raise NotSummableError(template=N_(
                    "FP32 accumulation is for formats of at most 32 bits: FP32 is narrower than FP64, so it would "
                    "round FP64's values, not keep their sum."))
            running = fp32_running_sums(values)
            final = float(round_to_format(running[-1:], spec)[0])
            out.append(Summed(method, running[counts - 1], final, stall_step(running), first_non_finite(running)))
        elif method == "pairwise":
            sums = pairwise_sums(values, spec, counts)
            out.append(Summed(method, sums, float(sums[-1]), None, None))
        elif method == "kahan":
            sums = kahan_sums(values, spec, counts)
            out.append(Summed(method, sums, float(sums[-1]), None, None))
        else:
            raise NotSummableError(template=N_("%(input)s is not a summation method; choose from %(methods)s."),
                                   params={"input": quoted(method), "methods": ", ".join(SUMMATION_METHODS)})
    return out


def summable(format_id: str) -> FormatSpec:
    """The format of that id, when the figure can sum in it."""
    spec = FORMATS.get(format_id)
    if spec is None or format_id not in SUMMABLE_FORMATS:
        raise NotSummableError(template=N_("%(input)s is not a format summed here; choose one of %(formats)s."),
                               params={"input": quoted(format_id[:40]), "formats": ", ".join(SUMMABLE_FORMATS)})
    return spec
