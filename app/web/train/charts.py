"""Finished runs as SVG line charts drawn on the server, for the page without JavaScript.

Each chart plots one series of every recipe against the step: loss (log10), loss scale (log2, with the
skipped steps marked) and the share of gradient elements that underflowed. Long runs are thinned to the
lowest and highest value of each of MAX_BUCKETS buckets, so a spike survives.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from app.web.platform.catalogs import gettext

WIDTH, HEIGHT = 480, 220
LEFT, RIGHT, TOP, BOTTOM = 56, 22, 12, 30
MAX_BUCKETS = 120
MAX_MARKS = 300  # skipped-step marks per recipe
_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_UNDERFLOW_TOPS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)

Values = Sequence[float | None]
YScale = Callable[[float], float | None]  # a value to pixels down the chart; None where it cannot be drawn


@dataclass(frozen=True)
class Tick:
    at: float  # pixels along the axis
    label: str


@dataclass(frozen=True)
class Line:
    recipe: str
    d: str  # SVG path data


@dataclass(frozen=True)
class Chart:
    id: str
    title: str
    description: str  # what the chart shows, in words, for people who cannot see it
    lines: tuple[Line, ...]
    marks: tuple[Line, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    plot: tuple[int, int, int, int] = (LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM)
    size: tuple[int, int] = (WIDTH, HEIGHT)


def _thinned(values: Values) -> list[tuple[int, float | None]]:
    """(index, value) pairs: every value, or each bucket's lowest and highest in step order."""
    if len(values) <= 2 * MAX_BUCKETS:
        return list(enumerate(values))
    size = math.ceil(len(values) / MAX_BUCKETS)
    points: list[tuple[int, float | None]] = []
    for start in range(0, len(values), size):
        bucket = [(i, v) for i, v in enumerate(values[start:start + size], start) if v is not None]
        if not bucket:
            points.append((start, None))
            continue
        low, high = min(bucket, key=lambda p: p[1]), max(bucket, key=lambda p: p[1])
        points.extend(sorted({low, high}))
    return points


def _path(values: Values, x: Callable[[int], float], y: YScale) -> str:
    """Whole pixels, each point after the first relative to the one before: a long run stays a small page."""
    segments: list[list[tuple[int, int]]] = []
    pen_down = False
    for index, value in _thinned(values):
        at = None if value is None else y(value)
        if at is None:
            pen_down = False
            continue
        point = (round(x(index)), round(at))
        if not pen_down:
            segments.append([point])
        elif point != segments[-1][-1]:
            segments[-1].append(point)
        pen_down = True
    return "".join(_segment(points) for points in segments)


def _segment(points: list[tuple[int, int]]) -> str:
    steps = [f"{b[0] - a[0]},{b[1] - a[1]}" for a, b in zip(points, points[1:], strict=False)] or ["0,0"]
    return f"M{points[0][0]},{points[0][1]}l" + " ".join(steps).replace(" -", "-")


def _x_axis(steps: int) -> tuple[Callable[[int], float], tuple[Tick, ...]]:
    """Step i (0-based) to pixels, and ticks at round step numbers."""
    span = WIDTH - RIGHT - LEFT

    def x(index: int) -> float:
        return LEFT + span * (index / max(steps - 1, 1))

    raw = max(steps / 5, 1)
    power = 10 ** math.floor(math.log10(raw))
    every = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = [1] if every > 1 else []
    return x, tuple(Tick(x(step - 1), str(step)) for step in [*first, *range(every, steps + 1, every)])


def _y_pixels(low: float, high: float) -> Callable[[float], float]:
    span = HEIGHT - BOTTOM - TOP
    return lambda t: TOP + span * (1 - (t - low) / (high - low))


def _log_axis(values: list[float], base: int) -> tuple[YScale, tuple[Tick, ...]]:
    """A log axis over the positive values: ticks at powers of 2, or at 1, 2, 3, 5 times powers of 10."""
    log = math.log2 if base == 2 else math.log10
    positive = [v for v in values if v > 0] or [1.0]
    low, high = log(min(positive)), log(max(positive))
    low, high = (low - 1, high + 1) if high - low < 0.3 else (low - (high - low) / 20, high + (high - low) / 20)
    pixels = _y_pixels(low, high)
    if base == 2:
        powers = range(math.ceil(low), math.floor(high) + 1)
        every = max(1, math.ceil(len(powers) / 6))
        ticks = [Tick(pixels(p), "2" + str(p).translate(_SUPERSCRIPTS)) for p in powers[::every]]
    else:
        for multiples in ((1, 2, 3, 5), (1, 3), (1,)):
            candidates = [m * 10.0**p for p in range(math.floor(low), math.ceil(high) + 1) for m in multiples]
            ticks = [Tick(pixels(log(c)), f"{c:g}") for c in candidates if low <= log(c) <= high]
            if len(ticks) <= 7:
                break
    return (lambda v: pixels(log(v)) if v > 0 else None), tuple(ticks)


def _share_axis(values: list[float]) -> tuple[YScale, tuple[Tick, ...]]:
    """A linear axis from 0 to a round share at least the largest value."""
    top = next(t for t in _UNDERFLOW_TOPS if t >= max(values, default=0.0))
    pixels = _y_pixels(0.0, top)
    return pixels, tuple(Tick(pixels(t * top), f"{100 * t * top:g}%") for t in (0, 0.5, 1))


def _chart(chart_id: str, title: str, description: str, run: dict[str, Any], series: str,
           axis: Callable[[list[float]], tuple[YScale, tuple[Tick, ...]]],
           marks: Callable[[Callable[[int], float], YScale, dict[str, Any]], str] | None = None) -> Chart:
    recipes = run["recipes"]
    steps = run["config"]["steps"]
    x, x_ticks = _x_axis(steps)
    y, y_ticks = axis([v for r in recipes.values() for v in r[series] if v is not None])
    lines = tuple(Line(rid, _path(r[series], x, y)) for rid, r in recipes.items())
    drawn = tuple(Line(rid, marks(x, y, r)) for rid, r in recipes.items()) if marks else ()
    return Chart(chart_id, title, description, lines, tuple(m for m in drawn if m.d), x_ticks, y_ticks)


def _skip_marks(x: Callable[[int], float], y: YScale, record: dict[str, Any]) -> str:
    """A small cross at each skipped step, on the loss scale that step used."""
    skipped = record["skipped_steps"]
    every = max(1, math.ceil(len(skipped) / MAX_MARKS))
    crosses = []
    for step in skipped[::every]:
        at = y(record["loss_scale"][step - 1])
        if at is not None:
            crosses.append(f"M{x(step - 1) - 3:.1f},{at - 3:.1f}l6,6m0,-6l-6,6")
    return "".join(crosses)


def _translated(name: str) -> str:
    """A recipe's name (the run's, in English) in the page's language."""
    return gettext(name)


def charts(run: dict[str, Any]) -> list[Chart]:
    """The charts of a finished run (the POST /api/train result)."""
    recipes = run["recipes"].values()
    names = {id(r): _translated(r["name"]) for r in recipes}  # in the page's language
    skipped = ", ".join(f"{names[id(r)]} {len(r['skipped_steps'])}" for r in recipes if r["skipped_steps"])
    worst = max(recipes, key=lambda r: max(r["underflow_fraction"], default=0.0))
    peak = max(worst["underflow_fraction"], default=0.0)
    return [
        _chart("loss", gettext("Loss per step (log scale)"),
               gettext("Training loss of each recipe per step, on a log scale."),
               run, "loss", lambda v: _log_axis(v, 10)),
        _chart("loss-scale", gettext("Loss scale (log scale); × marks a skipped step"),
               gettext("The loss scale each recipe used per step. Skipped steps: %(skipped)s.")
               % {"skipped": skipped or gettext("none")},
               run, "loss_scale", lambda v: _log_axis(v, 2), _skip_marks),
        _chart("underflow", gettext("Gradient elements flushed to zero (underflow share)"),
               gettext("Share of gradient elements that were not zero in exact arithmetic but became zero; "
                       "the highest, %(share)s, in %(recipe)s.") % {"share": f"≈{100 * peak:.3g}%",
                                                                 "recipe": names[id(worst)]}
               if peak else gettext("Share of gradient elements that were not zero in exact arithmetic but became "
                                    "zero; none did."),
               run, "underflow_fraction", _share_axis),
    ]
