"""Exact values (Real) and their decimal strings (decimal)."""

from __future__ import annotations

import math
import struct
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.formats import Real, decimal
from app.formats.exact import MAX_EXACT_DIGITS, ROUNDED_DIGITS

PROPERTY = settings(max_examples=500, derandomize=True, database=None, deadline=None)


def _significant_digits(text: str) -> str:
    mantissa = text.lower().split("e")[0].replace(".", "").lstrip("0")
    return mantissa


@PROPERTY
@given(st.floats(allow_nan=False, allow_infinity=False, min_value=0.0))
def test_decimal_of_every_float64_is_exact(x: float) -> None:
    """Every float64 is dyadic, so its decimal terminates: the text is exact and float() reads x back."""
    text, is_exact = decimal(Fraction(x))
    assert is_exact
    assert Fraction(text) == Fraction(x)
    assert float(text) == x
    assert text == text.strip() and "E" not in text


def test_decimal_of_random_float64_patterns() -> None:
    """The whole range, from random bit patterns (subnormals and huge values included)."""
    rng = np.random.default_rng(5)
    for x in np.abs(rng.integers(0, 1 << 63, 3000, dtype=np.uint64).view(np.float64)).tolist():
        if math.isfinite(x):
            text, is_exact = decimal(Fraction(x))
            assert is_exact and Fraction(text) == Fraction(x) and float(text) == x


KNOWN = [
    # value, exact decimal (from the decimal module or by hand)
    (Fraction(0), "0"),
    (Fraction(1), "1"),
    (Fraction(123456), "123456"),
    (Fraction(0.1), "0.1000000000000000055511151231257827021181583404541015625"),
    (Fraction(1, 2**24), "5.9604644775390625e-8"),
    (Fraction(1, 10**6), "0.000001"),  # plain down to 1e-6, as JavaScript prints numbers
    (Fraction(1, 10**7), "1e-7"),
    (Fraction(10**20), "100000000000000000000"),
    (Fraction(10**21), "1e+21"),
    (Fraction(65504), "65504"),
    (Fraction(3 * 2**127), "5.10423550381407695195061911147652317184e+38"),
    (Fraction(12345, 100), "123.45"),
]


@pytest.mark.parametrize(("value", "text"), KNOWN)
def test_known_decimals(value: Fraction, text: str) -> None:
    assert decimal(value) == (text, True)


def test_the_smallest_float64_subnormal_is_written_out() -> None:
    """2^-1074 has 751 significant digits: exact, well within MAX_EXACT_DIGITS."""
    value = Fraction(1, 2**1074)
    text, is_exact = decimal(value)
    assert is_exact and Fraction(text) == value
    assert len(_significant_digits(text)) == 751
    with localcontext() as ctx:
        ctx.prec = 1000
        reference = str(Decimal(2) ** -1074)
    assert _significant_digits(text) == _significant_digits(reference)


def test_one_third_is_rounded_and_says_so() -> None:
    text, is_exact = decimal(Fraction(1, 3))
    assert not is_exact
    assert _significant_digits(text) == "3" * ROUNDED_DIGITS
    assert abs(Fraction(text) - Fraction(1, 3)) < Fraction(1, 10**ROUNDED_DIGITS)


def test_long_terminating_decimals_are_rounded_and_say_so() -> None:
    """2^-5000 terminates, but after far more than MAX_EXACT_DIGITS digits: rounded, and flagged."""
    value = Fraction(1, 2**5000)
    text, is_exact = decimal(value)
    assert not is_exact
    assert len(_significant_digits(text)) <= ROUNDED_DIGITS
    assert abs(Fraction(text) - value) <= value / 10 ** (ROUNDED_DIGITS - 1)
    assert MAX_EXACT_DIGITS < 3000  # 2^-5000 has 3495 significant digits


@PROPERTY
@given(st.integers(1, 10**30), st.integers(-400, 400))
def test_decimal_rounds_to_nearest_even_and_says_so(numerator: int, power: int) -> None:
    """Thirds of decimals: exact where the 3 cancels, else the correctly rounded ROUNDED_DIGITS digits."""
    value = Fraction(numerator, 3) * Fraction(10) ** power
    text, is_exact = decimal(value)
    if value.denominator % 3:
        assert is_exact and Fraction(text) == value
        return
    with localcontext() as ctx:
        ctx.prec, ctx.rounding = ROUNDED_DIGITS, ROUND_HALF_EVEN
        reference = Decimal(value.numerator) / Decimal(value.denominator)
    assert not is_exact
    assert Fraction(text) == Fraction(reference)


def test_decimal_of_extreme_values() -> None:
    """What the parser lets through (10^±100000, 2^±400000) comes back without a long computation."""
    assert decimal(Fraction(10**100000)) == ("1e+100000", True)
    assert decimal(Fraction(1, 10**100000)) == ("1e-100000", True)
    assert decimal(Fraction(3, 10**100000)) == ("3e-100000", True)
    assert decimal(Fraction(1, 3 * 10**100000)) == ("3." + "3" * (ROUNDED_DIGITS - 1) + "e-100001", False)
    text, is_exact = decimal(Fraction(1, 2**400000))
    assert not is_exact and text.endswith("e-120412")
    text, is_exact = decimal(Fraction(2**400000))
    assert not is_exact and text.endswith("e+120411")


def test_real_signed_zero_inf_nan() -> None:
    assert Real.of(Fraction(-3, 2)) == Real(True, Fraction(3, 2))
    assert Real.of(0) == Real(False, Fraction(0)) != Real(True, Fraction(0))
    assert Real(True, Fraction(0)).is_zero and Real(True, Fraction(0)).exact_string() == "-0"
    assert Real.inf(True).exact_string() == "-inf" and Real.inf().exact_string() == "inf"
    assert Real.nan().exact_string() == "nan" and Real.nan(True).exact_string() == "nan"
    assert not Real.inf().is_finite and not Real.nan().is_zero
    with pytest.raises(ValueError):
        _ = Real.inf().fraction
    with pytest.raises(ValueError):
        _ = Real.nan().fraction


def test_real_exact_string_is_read_back_by_float() -> None:
    """The JSON contract: float(value) reads every exact string, specials included."""
    for real in (Real.inf(), Real.inf(True), Real(True, Fraction(0)), Real.of(Fraction(-1, 8))):
        text = real.exact_string()
        assert struct.pack("<d", float(text)) == struct.pack("<d", real.to_float())
    assert math.isnan(float(Real.nan().exact_string()))


def test_real_to_float() -> None:
    assert Real.of(Fraction(1, 3)).to_float() == 1 / 3
    assert Real.of(Fraction(10**400)).to_float() == math.inf
    assert Real.of(-Fraction(10**400)).to_float() == -math.inf
    assert math.copysign(1.0, Real(True, Fraction(0)).to_float()) == -1.0
    assert math.isnan(Real.nan().to_float())


@pytest.mark.parametrize("x", [0.1, -2.5, 0.0, -0.0, 5e-324, -1.7976931348623157e308, math.inf, -math.inf, math.nan])
def test_a_float_is_read_exactly_with_its_sign(x: float) -> None:
    real = Real.of_float(x)
    assert real.negative == (math.copysign(1.0, x) < 0) or math.isnan(x)
    if math.isnan(x):
        assert real.kind == "nan"
    elif math.isinf(x):
        assert real.kind == "inf"
    else:
        assert real.kind == "finite" and real.magnitude == abs(Fraction(x))
