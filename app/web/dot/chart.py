"""The dot-product figure's SVG chart, drawn on the server: each method's running |error| against the number of
elements, the error on a log scale. An error of zero sits on the chart's floor; inf or NaN lifts the pen."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.formats import DotProduct
from app.web.platform.catalogs import local_digits, prose_decimal

WIDTH, HEIGHT = 720, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 24, 14, 34
DECADES_SHOWN = 12  # the floor lies at most this many powers of ten below the largest error


@dataclass(frozen=True)
class Tick:
    at: float
    label: str


@dataclass(frozen=True)
class Series:
    id: str
    d: str


@dataclass(frozen=True)
class Chart:
    description: str
    series: tuple[Series, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    plot: tuple[int, int, int, int] = (LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM)
    size: tuple[int, int] = (WIDTH, HEIGHT)


def _path(counts: Sequence[int], errors: Sequence[float | None], x: Callable[[int], float],
          y: Callable[[float], float]) -> str:
    parts, pen_down = [], False
    for count, error in zip(counts, errors, strict=True):
        if error is None:
            pen_down = False
            continue
        parts.append(f"{'L' if pen_down else 'M'}{x(count):.1f},{y(error):.1f}")
        pen_down = True
    return "".join(parts)


def _count_step(n: int) -> int:
    """1, 2 or 5 times a power of ten near n / 5: the spacing of the element axis's ticks."""
    raw = max(n / 5, 1)
    power = 10 ** math.floor(math.log10(raw))
    return int(next(m * power for m in (1, 2, 5, 10) if m * power >= raw))


def chart(figure: DotProduct, describe: str) -> Chart:
    """The chart of one figure; `describe` says in words what it shows, for people who cannot see it."""
    counts = figure.counts
    positive = [e for r in figure.results for e in r.running_error if e]
    high = math.ceil(math.log10(max(positive))) if positive else 0
    low = max(math.floor(math.log10(min(positive))), high - DECADES_SHOWN) if positive else -1
    if low >= high:
        low = high - 1
    span_x, span_y = WIDTH - RIGHT - LEFT, HEIGHT - BOTTOM - TOP
    last = max(counts[-1] - 1, 1)

    def x(count: int) -> float:
        return LEFT + span_x * (count - 1) / last

    def y(error: float) -> float:
        level = math.log10(error) if error > 0 else low
        return TOP + span_y * (1 - (max(level, low) - low) / (high - low))

    every = max(1, math.ceil((high - low) / 6))
    y_ticks = tuple(Tick(y(10.0**p), local_digits(f"1e{p}")) for p in range(low, high + 1, every))
    step = _count_step(counts[-1])
    x_ticks = tuple(Tick(x(k), prose_decimal(k)) for k in range(step, counts[-1] + 1, step) if k > 1)
    series = tuple(Series(r.method, _path(counts, r.running_error, x, y)) for r in figure.results)
    return Chart(describe, series, (Tick(x(1), prose_decimal(1)), *x_ticks), y_ticks)
