"""Rounding modes, applied to an exact quotient: the one place where a tie or a direction is decided."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Literal, cast, get_args

from app.formats.parse import InputError
from app.messages import N_
from app.refusal import quoted

Rounding = Literal["nearest_even", "nearest_away", "toward_zero", "toward_positive", "toward_negative", "stochastic"]
ROUNDINGS: tuple[str, ...] = get_args(Rounding)

OverflowPolicy = Literal["format_default", "saturate"]
OVERFLOW_POLICIES: tuple[str, ...] = get_args(OverflowPolicy)


def rounding_mode(name: str) -> Rounding:
    """The rounding mode of this name; InputError, with the modes there are, for any other name."""
    if name not in ROUNDINGS:
        raise InputError(template=N_("Unknown rounding %(input)s; choose one of: %(modes)s."),
                         params={"input": quoted(name[:40]), "modes": ", ".join(ROUNDINGS)})
    return cast(Rounding, name)


def overflow_policy(name: str) -> OverflowPolicy:
    """The overflow policy of this name; InputError, with the policies there are, for any other name."""
    if name not in OVERFLOW_POLICIES:
        raise InputError(template=N_("Unknown overflow policy %(input)s; choose one of: %(policies)s."),
                         params={"input": quoted(name[:40]), "policies": ", ".join(OVERFLOW_POLICIES)})
    return cast(OverflowPolicy, name)


# Stochastic rounding's draw: given |x| = q + remainder/divisor, whether it goes to q + 1 (see seeded_draw)
StochasticDraw = Callable[[int, int], bool]


def seeded_draw(seed: int | None) -> StochasticDraw:
    """The draws of one encoding under stochastic rounding: up with probability remainder/divisor, exactly to
    2^-64, from 64 bits of random.Random(seed) (the generator static/js/mt19937.js repeats)."""
    rng = random.Random(seed)

    def draw(remainder: int, divisor: int) -> bool:
        return rng.getrandbits(64) * divisor < remainder << 64

    return draw


def magnitude_rounds_up(
    mode: str, negative: bool, remainder: int, divisor: int, lower_is_even: bool, draw: StochasticDraw | None
) -> bool:
    """Whether |x| = q + remainder/divisor (0 < remainder < divisor) rounds to q + 1 rather than q.

    `negative` is the sign of x, for the directed modes; `lower_is_even` breaks ties for nearest_even; `draw`
    decides a stochastic rounding (seed 0's when None).
    """
    if mode == "toward_zero":
        return False
    if mode == "toward_positive":
        return not negative
    if mode == "toward_negative":
        return negative
    if mode == "stochastic":
        return (draw or seeded_draw(0))(remainder, divisor)
    twice = 2 * remainder
    if twice != divisor:
        return twice > divisor
    return mode == "nearest_away" or not lower_is_even


def rounds_toward_zero(mode: str, negative: bool) -> bool:
    """Whether a mode always shrinks this sign's magnitudes (so it never rounds past max)."""
    return mode == "toward_zero" or (mode == "toward_positive" and negative) or (
        mode == "toward_negative" and not negative
    )
