"""stochastic_odds: the two neighbours stochastic rounding chooses between and the exact chance of each, held to
exact Fractions worked out by hand and to the directed roundings' neighbours."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from app.formats import SCALAR_FORMATS, Real, encode, get_format, parse_number, stochastic_odds


def odds(format_id: str, value: str, overflow: str = "format_default"):
    return stochastic_odds(get_format(format_id), parse_number(value), overflow)  # type: ignore[arg-type]


@pytest.mark.parametrize(("format_id", "value", "down", "up", "p_up"), [
    # E4M3 holds 0.28125 = 9/32 and 0.3125 = 5/16 around 0.3: (0.3 − 9/32) / (1/32) = 3/5
    ("float8_e4m3fn", "0.3", Fraction(9, 32), Fraction(5, 16), Fraction(3, 5)),
    # the same magnitudes below zero: -0.3 is 2/5 of the way from -5/16 up to -9/32
    ("float8_e4m3fn", "-0.3", Fraction(-5, 16), Fraction(-9, 32), Fraction(2, 5)),
    # FP16 steps by 2^-10 from 1 to 2: 1 + 1/3 of a step
    ("float16", "1 + 1/3072", Fraction(1), Fraction(1025, 1024), Fraction(1, 3)),
    # below FP16's smallest subnormal 2^-24: a quarter of the way from 0
    ("float16", "2^-26", Fraction(0), Fraction(1, 2**24), Fraction(1, 4)),
    # integers: -2.25 lies a quarter of the way down from -2 to -3
    ("int8", "-2.25", Fraction(-3), Fraction(-2), Fraction(3, 4)),
    # float32's neighbours of 0.1: 13421772/2^27 and 13421773/2^27, 0.1 at 4/5 of the gap (2^27/10 = 13421772.8)
    ("float32", "0.1", Fraction(13421772, 2**27), Fraction(13421773, 2**27), Fraction(4, 5)),
])
def test_the_chance_of_each_neighbour_is_exact(format_id, value, down, up, p_up):
    text = value.replace("1 + 1/3072", "3073/3072").replace("2^-26", f"1/{2**26}")
    result = odds(format_id, text)
    assert result is not None
    assert (result.down.encoding.value.fraction, result.up.encoding.value.fraction) == (down, up)
    assert result.p_up == p_up and result.p_down == 1 - p_up


def test_one_step_below_max_the_step_up_overflows_with_its_own_chance():
    # E4M3's max is 448 and its step there 32: 449 goes past max (to NaN) with chance 1/32
    result = odds("float8_e4m3fn", "449")
    assert result is not None
    assert result.down.encoding.value.fraction == 448 and result.up.encoding.cls == "nan"
    assert result.up.overflowed and result.p_up == Fraction(1, 32)
    # saturating, both ways give max: the result is certain
    assert odds("float8_e4m3fn", "449", "saturate") is None


@pytest.mark.parametrize(("format_id", "value"), [
    ("float16", "0.5"), ("float16", "nan"), ("float16", "inf"), ("float8_e4m3fn", "1000"), ("nf4", "1"),
    ("int8", "7"),
])
def test_a_certain_result_has_no_odds(format_id, value):
    assert odds(format_id, value) is None


def test_the_odds_agree_with_the_directed_roundings_everywhere():
    """For random values in every format: down and up are what toward_negative and toward_positive store, and
    p_up is (x − down)/(up − down), exactly."""
    rng = random.Random(11)
    checked = 0
    for spec in SCALAR_FORMATS:
        top = spec.max
        for _ in range(40):
            x = Fraction(rng.randrange(-10**6, 10**6), 10**6) * top * Fraction(rng.choice((1, 1, 2**-4, 2**-12)))
            x = x if spec.signed else abs(x) or top  # E8M0 holds no negative value and no zero
            real = Real.of(x)
            result = stochastic_odds(spec, real)
            below = encode(spec, real, "toward_negative", "saturate").encoding
            above = encode(spec, real, "toward_positive", "saturate").encoding
            if below.value.fraction == above.value.fraction:
                assert result is None
                continue
            assert result is not None, (spec.id, x)
            down, up = result.down.encoding.value.fraction, result.up.encoding.value.fraction
            assert (down, up) == (below.value.fraction, above.value.fraction), (spec.id, x)
            assert result.p_up == (x - down) / (up - down), (spec.id, x)
            checked += 1
    assert checked > 500


def test_seeded_draws_land_on_the_two_neighbours_as_often_as_the_odds_say():
    spec, x = get_format("float8_e4m3fn"), parse_number("0.3")
    result = stochastic_odds(spec, x)
    assert result is not None
    runs = 4000
    ups = 0
    for seed in range(runs):
        bits = encode(spec, x, "stochastic", seed=seed).encoding.bits
        assert bits in (result.down.encoding.bits, result.up.encoding.bits)
        ups += bits == result.up.encoding.bits
    spread = math.sqrt(runs * 0.6 * 0.4)
    assert abs(ups - runs * float(result.p_up)) < 5 * spread
