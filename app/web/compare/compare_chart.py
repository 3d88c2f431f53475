"""The chart of /compare: |relative error| of every format, scalar and block, as bars on a log scale.

The scale runs over whole decades, aligned to its ticks: from below the smallest nonzero error to at least 1
(an error as large as the value), in steps of a whole number of decades chosen so that at most MAX_STEPS
ticks are drawn. An exact value (error 0) has no place on a log scale, so it gets a mark at the left end and
the word "exact"; an error that is not a finite number (NaN stored, or overflow to infinity) gets its word
and no bar. static/js/compare.js draws the same chart as the visitor types, and
tests/browser/test_compare_instant.py holds the two together.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from app.formats import Rounded
from app.web.visualise.present import relative

MAX_STEPS = 6
STEPS = (1, 2, 4, 5, 8, 10, 16, 20, 25, 40, 50, 100, 200, 500, 1000)  # decades per tick
TINY = 1e-308  # stands for a relative error below what a double holds
MIN_WIDTH = 0.5  # percent: the shortest bar, so that a nonzero error never looks like no bar


@dataclass(frozen=True)
class Bar:
    format_id: str
    group: str  # "scalar" or "block": NF4 is both, a codebook of its own and a block format with an absmax
    kind: str  # "bar", "exact", "nan" (NaN stored or typed), "infinite" (an infinite error), "none" (no block)
    magnitude: float | None  # |relative error|, for "bar"
    width: float  # percent of the scale, for "bar"
    text: str  # what the chart says of it beside the bar


@dataclass(frozen=True)
class Tick:
    x: float  # percent
    label: str


@dataclass(frozen=True)
class Chart:
    bars: list[Bar]
    ticks: list[Tick]
    low: int  # the scale's ends, as powers of ten
    high: int


def bar_of(format_id: str, group: str, result: Rounded | None) -> Bar:
    """What the chart shows of one format, before the scale is known (width 0)."""
    def bar(kind: str, text: str, magnitude: float | None = None) -> Bar:
        return Bar(format_id, group, kind, magnitude, 0.0, text)

    if result is None:
        return bar("none", "no block")
    error = result.error
    if error.kind == "nan":
        return bar("nan", "NaN")
    if error.kind == "inf":
        return bar("infinite", "infinite")
    if error.is_zero:
        return bar("exact", "exact")
    rel = result.rel_error
    if rel is None:  # a finite error of a zero input has no relative size
        return bar("none", "—")
    if rel == 0:  # a nonzero error too small for a double relative to the value (10^-5000 of it, say)
        return bar("bar", "< 1e-307", TINY)
    return bar("bar", relative(abs(rel)), abs(rel))


def tick_label(power: int) -> str:
    return "1" if power == 0 else f"1e{power}"


def scale(magnitudes: list[float]) -> tuple[int, int, int]:
    """(low, high, step) in powers of ten: whole multiples of step, low at or below the smallest magnitude, high at
    or above the largest and at least 0."""
    finite = [m for m in magnitudes if math.isfinite(m)]
    smallest = math.floor(math.log10(min(finite))) if finite else -1
    largest = max(0, math.ceil(math.log10(max(finite)))) if finite else 0
    for step in STEPS:
        low, high = math.floor(smallest / step) * step, math.ceil(largest / step) * step
        if high == low:
            low -= step
        if (high - low) // step <= MAX_STEPS:
            return low, high, step
    return low, high, step  # past 1000 decades per step, every double fits in a few steps


def two_decimals(x: float) -> float:
    """x to two decimals, half up: the script rounds the same way, so that both write the same numbers."""
    return math.floor(x * 100 + 0.5) / 100


def width(magnitude: float, low: int, high: int) -> float:
    """Percent of the scale from 10^low to the magnitude (at least MIN_WIDTH), to two decimals."""
    share = (math.log10(magnitude) - low) / (high - low) if math.isfinite(magnitude) else 1.0
    return two_decimals(min(max(100 * share, MIN_WIDTH), 100.0))


def chart(bars: list[Bar]) -> Chart:
    """The bars placed on one log scale, and its ticks."""
    low, high, step = scale([b.magnitude for b in bars if b.magnitude is not None])
    placed = [replace(b, width=width(b.magnitude, low, high)) if b.magnitude is not None else b for b in bars]
    ticks = [Tick(two_decimals(100 * (p - low) / (high - low)), tick_label(p)) for p in range(low, high + 1, step)]
    return Chart(placed, ticks, low, high)
