"""A codebook's levels on a line (NF4's 16 values in [-1, 1], to scale), the stored one marked: what a codebook's
scalar view shows in place of the log-scale number line, whose min normal, subnormal and ULP mean nothing here."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from app.formats import Encoding, Real, decode
from app.web.platform.catalogs import gettext
from app.web.visualise.present import Shown, shown


@dataclass(frozen=True)
class Level:
    code: int
    value: Shown
    x: float  # percent of the line's width
    row: int  # where its code number goes: 0 and 1 alternate below the line, so that close levels stay apart
    current: bool


@dataclass(frozen=True)
class LevelLine:
    levels: tuple[Level, ...]
    current: Level
    typed_x: float | None  # where the typed value lies, when one was typed within the codebook's range
    description: str
    low: str  # the lowest entry and the highest, as the description says them
    high: str


def _at(x: Fraction, low: Fraction, high: Fraction) -> float:
    return round(2 + 96 * float((x - low) / (high - low)), 2)


def level_line(enc: Encoding, typed: Real | None = None) -> LevelLine:
    """The codebook of enc's format on a linear scale from its lowest entry to its highest, enc's entry marked,
    and the typed value where it lies between two entries."""
    spec = enc.format
    values = [decode(spec, code).value.fraction for code in range(len(spec.codebook))]
    low, high = values[0], values[-1]
    levels = tuple(
        Level(code, shown(v, 24, 7) or Shown("0", "0"), _at(v, low, high), code % 2, code == enc.bits)
        for code, v in enumerate(values)
    )
    current = levels[enc.bits]
    typed_x = None
    if typed is not None and typed.is_finite and low <= typed.fraction <= high and typed.fraction != values[enc.bits]:
        typed_x = _at(typed.fraction, low, high)
    description = gettext(
        "The %(n)s levels of %(name)s from %(low)s to %(high)s, to scale; code %(code)s (%(value)s) is stored. The "
        "levels crowd near 0, where most of a normal distribution lies."
    ) % {"n": len(values), "name": spec.name, "low": low, "high": high, "code": enc.bits, "value": current.value.text}
    return LevelLine(levels, current, typed_x, description, str(low), str(high))
