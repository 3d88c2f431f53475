"""Exact real values (with signed zero, inf and NaN) and their exact decimal strings."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Literal

# Past this many significant digits a decimal is shown rounded, and said to be.
MAX_EXACT_DIGITS = 1200
ROUNDED_DIGITS = 40

_LOG10_2 = math.log10(2)
_LOW_BITS = 2**64 - 1
# The decimals of the last values shown, so that one request, which shows one input in every format and its
# error in each, works out each of them once: an input can have hundreds of thousands of digits to divide.
_CACHED = 64


@dataclass(frozen=True)
class Real:
    """An extended real: a finite exact value with its sign (so -0 exists), inf or NaN."""

    negative: bool
    magnitude: Fraction = Fraction(0)
    kind: Literal["finite", "inf", "nan"] = "finite"

    @classmethod
    def of(cls, value: Fraction | int) -> Real:
        value = Fraction(value)
        return cls(value < 0, abs(value))

    @classmethod
    def of_float(cls, x: float) -> Real:
        """A float as an exact Real, its sign of zero kept."""
        if math.isnan(x):
            return cls.nan()
        if math.isinf(x):
            return cls.inf(x < 0)
        return cls(math.copysign(1.0, x) < 0, abs(Fraction(x)))

    @classmethod
    def inf(cls, negative: bool = False) -> Real:
        return cls(negative, Fraction(0), "inf")

    @classmethod
    def nan(cls, negative: bool = False) -> Real:
        return cls(negative, Fraction(0), "nan")

    @property
    def is_finite(self) -> bool:
        return self.kind == "finite"

    @property
    def is_zero(self) -> bool:
        return self.kind == "finite" and self.magnitude == 0

    @property
    def fraction(self) -> Fraction:
        """The signed exact value; only for finite values."""
        if self.kind != "finite":
            raise ValueError(f"{self.kind} has no exact value")
        return -self.magnitude if self.negative else self.magnitude

    def to_float(self) -> float:
        """The nearest float64 (inf past its range); for charts and relative sizes only."""
        if self.kind == "nan":
            return math.nan
        if self.kind == "inf":
            return -math.inf if self.negative else math.inf
        return -_magnitude_float(self.magnitude) if self.negative else _magnitude_float(self.magnitude)

    def exact_string(self) -> str:
        """Exact decimal when it has at most MAX_EXACT_DIGITS digits, else rounded (see is_exact_decimal)."""
        if self.kind == "nan":
            return "nan"
        if self.kind == "inf":
            return "-inf" if self.negative else "inf"
        text = decimal_string(self.magnitude)
        return "-" + text if self.negative else text


def _magnitude_float(x: Fraction) -> float:
    try:
        return float(x)
    except OverflowError:
        return math.inf


def _twos_and_fives(den: int) -> tuple[int, int] | None:
    """(a, b) with den == 2^a 5^b, or None when den has another prime factor (no finite decimal)."""
    twos = (den & -den).bit_length() - 1
    fives = _power_of_five(den >> twos)
    return None if fives is None else (twos, fives)


@lru_cache(maxsize=_CACHED)
def _power_of_five(n: int) -> int | None:
    """b with n == 5^b, or None. Only a true candidate is raised to its power in full: the low 64 bits of 5^b,
    which cost nothing, turn every other one away. Kept, since a value and its errors share their fives."""
    guess = round((n.bit_length() - 1) / math.log2(5))
    low = n & _LOW_BITS
    for fives in (guess - 1, guess, guess + 1):
        if fives >= 0 and pow(5, fives, _LOW_BITS + 1) == low and 5**fives == n:
            return fives
    return None


def _significant_digits_bound(x: Fraction, twos: int, fives: int) -> int:
    """An upper bound of the digits of x * 10^max(twos, fives), the integer of a terminating x > 0."""
    return int((x.numerator.bit_length() - x.denominator.bit_length()) * _LOG10_2) + max(twos, fives) + 2


def decimal(x: Fraction) -> tuple[str, bool]:
    """x >= 0 as a decimal, and whether that decimal is exact.

    Exact when it terminates within MAX_EXACT_DIGITS digits, else rounded to ROUNDED_DIGITS.
    Plain notation from 1e-6 up to 1e21, scientific beyond (as JavaScript prints numbers);
    either way float() reads it back.
    """
    return _decimal(_Kept(x))


class _Kept:
    """A value as a cache key: by its two integers, which hash three times faster than a Fraction does."""

    __slots__ = ("value", "_key", "_hash")

    def __init__(self, value: Fraction) -> None:
        self.value, self._key = value, (value.numerator, value.denominator)
        self._hash = hash(self._key)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Kept) and self._key == other._key


@lru_cache(maxsize=_CACHED)
def _decimal(kept: _Kept) -> tuple[str, bool]:
    x = kept.value
    if x == 0:
        return "0", True
    factors = _twos_and_fives(x.denominator)
    if factors and _significant_digits_bound(x, *factors) <= MAX_EXACT_DIGITS:
        return layout_decimal(*_exact_digits(x, *factors)), True
    digits, point, exact = _rounded_digits(x, ROUNDED_DIGITS)
    return layout_decimal(digits, point), exact


def decimal_string(x: Fraction) -> str:
    """decimal(x) without the flag: for values known to be short dyadic rationals."""
    return decimal(x)[0]


def rounded_decimal(x: Fraction, count: int) -> str:
    """x >= 0 to `count` significant digits, rounded half-even (with no "≈": the caller says it is rounded)."""
    return "0" if x == 0 else layout_decimal(*_rounded_digits(x, count)[:2])


def _exact_digits(x: Fraction, twos: int, fives: int) -> tuple[str, int]:
    """(significant digits, decimal exponent of the last digit) of x > 0 whose denominator is 2^twos 5^fives."""
    k = max(twos, fives)
    n = x.numerator * (2 ** (k - twos)) * (5 ** (k - fives))  # x = n / 10^k
    digits = str(n)
    stripped = digits.rstrip("0")
    return stripped, (len(digits) - len(stripped)) - k


def _rounded_digits(x: Fraction, count: int) -> tuple[str, int, bool]:
    """The first `count` significant digits of x > 0 rounded half-even, the exponent of the last, and
    whether nothing was lost. Integer arithmetic only: x may have hundreds of thousands of digits."""
    num, den = x.numerator, x.denominator
    exp10 = int(math.floor((num.bit_length() - den.bit_length()) * _LOG10_2))
    while True:
        shift = count - 1 - exp10  # x * 10^shift has `count` digits before the point
        top, bottom = (num * ten_to(shift), den) if shift >= 0 else (num, den * ten_to(-shift))
        n, remainder = divmod(top, bottom)
        if n >= 10**count:
            exp10 += 1
        elif n < 10 ** (count - 1):
            exp10 -= 1
        else:
            break
    if 2 * remainder > bottom or (2 * remainder == bottom and n % 2):
        n += 1
    digits = str(n).rstrip("0") or "0"
    return digits, -shift + (len(str(n)) - len(digits)), remainder == 0


@lru_cache(maxsize=_CACHED)
def ten_to(n: int) -> int:
    """10^n for n >= 0, kept: the decimals of one value, its neighbours and its errors in every format need the
    same few. As 5^n shifted left by n bits, which costs two thirds of raising 10."""
    return 5**n << n


def layout_decimal(digits: str, point: int) -> str:
    """int(digits) × 10^point written as exact strings are (plain from 1e-6 up to 1e21, scientific beyond)."""
    exp10 = point + len(digits) - 1  # exponent of the leading digit
    if -7 < exp10 < 21:
        if point >= 0:
            return digits + "0" * point
        if exp10 >= 0:
            return digits[: exp10 + 1] + "." + digits[exp10 + 1 :]
        return "0." + "0" * (-exp10 - 1) + digits
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{mantissa}e{'+' if exp10 >= 0 else '-'}{abs(exp10)}"
