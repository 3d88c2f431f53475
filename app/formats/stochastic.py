"""The odds of stochastic rounding: the two values it chooses between and the exact chance of each.

Stochastic rounding stores x as its upper neighbour with probability (x − down)/(up − down) and else as its
lower one. The chance is read from the codec's own draw (rounding.magnitude_rounds_up), not recomputed, so it is
the one the codec uses wherever x lies: between two subnormals, one step below max where the step up overflows,
between two codebook entries.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from app.formats.codec import encode_drawn
from app.formats.encoding import Rounded
from app.formats.exact import Real
from app.formats.rounding import OverflowPolicy
from app.formats.spec import FormatSpec


@dataclass(frozen=True)
class StochasticOdds:
    """x stored as `up` with probability `p_up`, as `down` with 1 − p_up; up holds the larger value (or is the
    overflow past max, inf or NaN by the format's rule)."""

    down: Rounded
    up: Rounded
    p_up: Fraction

    @property
    def p_down(self) -> Fraction:
        return 1 - self.p_up


def stochastic_odds(spec: FormatSpec, x: Real, overflow: OverflowPolicy = "format_default") -> StochasticOdds | None:
    """Where stochastic rounding of x could go, and how likely each is; None where its result is certain (x held
    exactly, NaN, inf, beyond the range, or both ways of the draw giving the same pattern, as under saturation)."""
    chances: list[Fraction] = []

    def toward_zero(remainder: int, divisor: int) -> bool:
        chances.append(Fraction(remainder, divisor))  # the chance that |x| goes up a step
        return False

    inner = encode_drawn(spec, x, "stochastic", overflow, toward_zero)
    if not chances:
        return None
    outer = encode_drawn(spec, x, "stochastic", overflow, lambda remainder, divisor: True)
    if outer.encoding.bits == inner.encoding.bits:
        return None
    p_outer = chances[0]
    if x.negative:  # a larger magnitude is a smaller value
        return StochasticOdds(down=outer, up=inner, p_up=1 - p_outer)
    return StochasticOdds(down=inner, up=outer, p_up=p_outer)
