"""Stochastic rounding's odds as the visualiser says them: "rounds up with probability 0.6 (to 0.3125), down with
0.4 (to 0.28125)"; the exact chances come from the core (stochastic_odds)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from app.formats import Encoding, Real, StochasticOdds
from app.web.visualise.present import Shown, shown


@dataclass(frozen=True)
class Odds:
    """Stochastic rounding's two outcomes as a page says them: up to `up` with chance `p_up`, else down."""

    p_up: Shown
    up: Shown
    p_down: Shown
    down: Shown
    went_up: bool  # whether this draw stored `up`


def chance(p: Fraction) -> Shown:
    """A probability: its decimal when short (0.6, 0.03125), else the fraction when short (1/3), else ≈3 digits."""
    text = shown(p, 10, 3) or Shown("0", "0")
    fraction = str(p)
    return Shown(fraction, text.full) if text.shortened and len(fraction) <= 9 else text


def _value(x: Real) -> Shown:
    return shown(x, 24, 9) or Shown("", "")


def odds_shown(odds: StochasticOdds | None, stored: Encoding) -> Odds | None:
    """The odds of the rounding that stored `stored`, and which way its draw went; None where it was certain."""
    if odds is None:
        return None
    up, down = odds.up.encoding, odds.down.encoding
    return Odds(chance(odds.p_up), _value(up.value), chance(odds.p_down), _value(down.value), stored.bits == up.bits)
