"""The accumulation figure: N seeded values stored in one format, summed four ways, against their exact sum.

The drawing, the steps the chart shows and the errors live here; the sums themselves come from the formats core
(app/formats/summation.py). Everything is a pure function of (format, distribution, n, seed, methods).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from app.formats.exact import Real
from app.formats.summation import SUMMATION_METHODS, Summed, exact_prefix_sums, sum_values, summable
from app.formats.vector import round_to_format
from app.messages import N_
from app.refusal import Refusal, quoted

__all__ = [
    "ACCUMULATION_DISTRIBUTIONS",
    "MAX_SEED",
    "MAX_VALUES",
    "Accumulation",
    "AccumulationInputError",
    "MethodResult",
    "accumulate",
    "chart_counts",
    "draw_values",
    "parse_count",
    "parse_methods",
    "parse_seed",
]

ACCUMULATION_DISTRIBUTIONS = {
    "uniform": "Uniform on [0, 1)",
    "ones": "All ones",
    "normal": "Normal (mean 0, standard deviation 1)",
    "lognormal": "Long tail (lognormal, σ = 2)",
}
MAX_VALUES = 1_000_000
MAX_SEED = 2**32 - 1
CHART_POINTS = 240  # steps drawn at most, spread evenly on a log scale
LOGNORMAL_SIGMA = 2.0


class AccumulationInputError(Refusal):
    """A setting of the accumulation figure that cannot be read or is out of range."""


def parse_count(text: str) -> int:
    """How many values: a whole number from 1 to MAX_VALUES (1000000, 1_000_000, 1e6 and 10^6 all read)."""
    cleaned = text.strip().replace("_", "").replace(",", "")
    try:
        if cleaned.startswith("10^"):
            count = 10 ** int(cleaned[3:]) if len(cleaned) <= 5 else MAX_VALUES + 1
        else:
            number = float(cleaned) if len(cleaned) <= 20 else math.nan
            count = int(number) if number.is_integer() else -1
    except (ValueError, OverflowError):
        count = -1
    if not 1 <= count <= MAX_VALUES:
        raise AccumulationInputError(
            template=N_("n must be a whole number of values from 1 to %(most)s, such as 10000 or 1e6; "
                        "%(text)s is not."),
            params={"most": f"{MAX_VALUES:,}", "text": quoted(text[:40])})
    return count


def parse_seed(text: str) -> int:
    """The seed of the draw: a whole number from 0 to 2^32 - 1."""
    cleaned = text.strip()
    if not (cleaned.isdigit() and cleaned.isascii() and len(cleaned) <= 10 and int(cleaned) <= MAX_SEED):
        raise AccumulationInputError(template=N_("The seed must be a whole number from 0 to %(most)s; "
                                                 "%(text)s is not."),
                                     params={"most": f"{MAX_SEED:,}", "text": quoted(text[:40])})
    return int(cleaned)


def parse_methods(names: list[str]) -> tuple[str, ...]:
    """The methods asked for, in the figure's order; all four when none is named."""
    unknown = [name for name in names if name not in SUMMATION_METHODS]
    if unknown:
        raise AccumulationInputError(template=N_("%(name)s is not a summation method; choose from %(known)s."),
                                     params={"name": quoted(unknown[0][:40]), "known": ", ".join(SUMMATION_METHODS)})
    return tuple(m for m in SUMMATION_METHODS if m in names) if names else tuple(SUMMATION_METHODS)


def _distribution(name: str) -> str:
    if name not in ACCUMULATION_DISTRIBUTIONS:
        raise AccumulationInputError(template=N_("%(name)s is not a distribution here; choose from %(known)s."),
                                     params={"name": quoted(name[:40]), "known": ", ".join(ACCUMULATION_DISTRIBUTIONS)})
    return name


def draw_values(distribution: str, n: int, seed: int) -> np.ndarray:
    """n values drawn (float64) with numpy's default generator from `seed`: the same values on every request."""
    rng = np.random.default_rng(seed)
    if distribution == "ones":
        return np.ones(n)
    if distribution == "uniform":
        return rng.random(n)
    if distribution == "normal":
        return rng.standard_normal(n)
    return rng.lognormal(0.0, LOGNORMAL_SIGMA, n)


def chart_counts(n: int, points: int = CHART_POINTS) -> np.ndarray:
    """The steps the chart shows: at most `points` counts from 1 to n, evenly spread on a log scale, n included."""
    return np.unique(np.round(np.geomspace(1, n, min(points, n))).astype(np.int64))


@dataclass(frozen=True)
class MethodResult:
    """One method's sums, its result in the format and how far that is from the exact sum."""

    method: str
    name: str
    at_counts: tuple[float, ...]  # the running sum at each chart step (float64; inf or NaN where it overflowed)
    result: Real
    error: Real  # result − exact sum; inf or NaN where the result is not finite
    rel_error: float | None  # |error| / |exact sum|; None where the exact sum is 0 or the result not finite
    stall: int | None  # the step after which the running sum no longer changes (sequential methods)
    stall_value: Real | None
    overflow_step: int | None  # the first step whose running sum is inf or NaN (or the first chart step)


@dataclass(frozen=True)
class Accumulation:
    """The whole figure: the settings, the drawn values' story, the exact sums and every method's sums."""

    format_id: str
    distribution: str
    n: int
    seed: int
    methods: tuple[str, ...]
    counts: tuple[int, ...]
    exact_at_counts: tuple[Fraction, ...]
    exact_sum: Fraction
    clamped: int  # drawn values beyond the format's largest, stored as ± its largest
    zeroed: int  # drawn values that were not zero and became zero
    results: tuple[MethodResult, ...]


def _method_result(summed: Summed, exact: Fraction, counts: np.ndarray) -> MethodResult:
    result = Real.of_float(summed.result)
    if result.is_finite:
        error = Real.of(result.fraction - exact)
        rel = float(abs(error.fraction) / abs(exact)) if exact else None
    else:
        error, rel = result, None
    overflow = summed.overflow
    if overflow is None and not np.isfinite(summed.at_counts).all():  # known at the chart's steps only
        overflow = int(counts[np.flatnonzero(~np.isfinite(summed.at_counts))[0]])
    # a stalled sum keeps its value to the last step (for FP32 accumulation, the accumulator's, before rounding)
    stall_value = Real.of_float(float(summed.at_counts[-1])) if summed.stall else None
    return MethodResult(summed.method, SUMMATION_METHODS[summed.method], tuple(summed.at_counts.tolist()), result,
                        error, rel, summed.stall, stall_value, overflow)


def accumulate(format_id: str, distribution: str, n: int, seed: int,
               methods: tuple[str, ...] = tuple(SUMMATION_METHODS)) -> Accumulation:
    """The figure for these settings; refused with a sentence when the format or distribution is not offered."""
    spec, distribution = summable(format_id), _distribution(distribution)
    if not 1 <= n <= MAX_VALUES or not 0 <= seed <= MAX_SEED:
        raise AccumulationInputError(template=N_("n runs from 1 to %(most)s and the seed from 0 to %(most_seed)s."),
                                     params={"most": f"{MAX_VALUES:,}", "most_seed": f"{MAX_SEED:,}"})
    return _accumulate(spec.id, distribution, n, seed, methods)


@lru_cache(maxsize=16)  # the page, its htmx swap and the API ask for the same figure
def _accumulate(format_id: str, distribution: str, n: int, seed: int, methods: tuple[str, ...]) -> Accumulation:
    spec = summable(format_id)
    drawn = draw_values(distribution, n, seed)
    values = round_to_format(drawn, spec, saturate=True).astype(np.float64)
    clamped = int(np.count_nonzero(np.abs(drawn) > float(spec.max)))
    zeroed = int(np.count_nonzero((values == 0) & (drawn != 0)))
    counts = chart_counts(n)
    exact_at_counts = exact_prefix_sums(values, counts)
    exact = exact_at_counts[-1]
    summed = sum_values(values, spec, counts, methods)
    results = tuple(_method_result(s, exact, counts) for s in summed)
    return Accumulation(format_id, distribution, n, seed, methods, tuple(counts.tolist()), tuple(exact_at_counts),
                        exact, clamped, zeroed, results)
