"""The accumulation figure's SVG chart, drawn on the server: running sums against the step, log-x.

The figure comes with at most a few hundred steps (app/learn/accumulation.py chooses them), so every point is
drawn; values that are inf or NaN lift the pen.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.learn import Accumulation
from app.web.platform.catalogs import gettext, local_digits, prose_decimal

WIDTH, HEIGHT = 720, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 34, 14, 34


@dataclass(frozen=True)
class Tick:
    at: float  # pixels along the axis
    label: str


@dataclass(frozen=True)
class Series:
    id: str  # "exact" or a method id
    d: str  # SVG path data


@dataclass(frozen=True)
class Marker:
    """Where a sum stalls: a dot on its line and a dashed line down to the step axis."""

    method: str
    x: float
    y: float
    label: str


@dataclass(frozen=True)
class Chart:
    description: str
    series: tuple[Series, ...]
    markers: tuple[Marker, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    plot: tuple[int, int, int, int] = (LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM)
    size: tuple[int, int] = (WIDTH, HEIGHT)


def _round_step(span: float) -> float:
    """A 1, 2 or 5 times a power of ten near span / 5: the spacing of the value axis's ticks."""
    raw = span / 5 or 1.0
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _number(x: float) -> str:
    """A tick label in the page's notation: 256, 1.5 (1,5 in Turkish), 2e+05."""
    return local_digits(f"{x:.6g}" if abs(x) < 1e6 else f"{x:.3g}")


def _path(steps: Sequence[int], values: Sequence[float], x: Callable[[int], float], y: Callable[[float], float]) -> str:
    parts: list[str] = []
    pen_down = False
    for step, value in zip(steps, values, strict=True):
        if not math.isfinite(value):
            pen_down = False
            continue
        parts.append(f"{'L' if pen_down else 'M'}{x(step):.1f},{y(value):.1f}")
        pen_down = True
    return "".join(parts)


def chart(figure: Accumulation, describe: str) -> Chart:
    """The chart of one figure; `describe` says in words what it shows, for people who cannot see it."""
    steps = figure.counts
    exact = [float(v) for v in figure.exact_at_counts]
    lines = {"exact": exact} | {r.method: list(r.at_counts) for r in figure.results}
    finite = [v for values in lines.values() for v in values if math.isfinite(v)]
    low, high = min(0.0, *finite), max(0.0, *finite)
    if high - low < 1e-300:
        low, high = low - 1.0, high + 1.0
    pad = (high - low) * 0.04
    low, high = low - pad, high + pad
    span_x, span_y = WIDTH - RIGHT - LEFT, HEIGHT - BOTTOM - TOP
    top_log = math.log10(steps[-1]) or 1.0

    def x(step: int) -> float:
        return LEFT + span_x * math.log10(step) / top_log

    def y(value: float) -> float:
        return TOP + span_y * (1 - (value - low) / (high - low))

    every = _round_step(high - low)
    y_ticks = tuple(Tick(y(k * every), _number(k * every))
                    for k in range(math.ceil(low / every), math.floor(high / every) + 1))
    x_ticks = tuple(Tick(x(10**p), prose_decimal(10**p)) for p in range(int(math.log10(steps[-1])) + 1))
    series = tuple(Series(key, _path(steps, values, x, y)) for key, values in lines.items())
    markers = tuple(
        Marker(r.method, x(r.stall), y(r.at_counts[-1]),
               gettext("stalls at %(value)s, step %(step)s") % {"value": _number(r.at_counts[-1]),
                                                                  "step": prose_decimal(r.stall)})
        for r in figure.results if r.stall is not None
    )
    return Chart(describe, series, markers, x_ticks, y_ticks)
