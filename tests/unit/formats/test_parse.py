"""Reading what a person types: values, raw bit patterns, and the sentences that refuse the rest."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.formats import FORMATS, InputError, RawBits, Real, parse_bits, parse_number, parse_value
from app.formats.parse import MAX_INPUT_LENGTH

PROPERTY = settings(max_examples=300, derandomize=True, database=None, deadline=None)

VALUES = [
    # text, exact value (sign, magnitude)
    ("0.1", Real(False, Fraction(1, 10))),
    ("-2.5e-3", Real(True, Fraction(-25, -10000))),
    ("+3", Real.of(3)),
    ("1E3", Real.of(1000)),
    (".5", Real.of(Fraction(1, 2))),
    ("5.", Real.of(5)),
    ("  42  ", Real.of(42)),
    ("\u22122.5", Real.of(Fraction(-5, 2))),  # the typographic minus sign
    ("6.02214076e23", Real.of(602214076 * 10**15)),
    ("0x1.8p-3", Real.of(Fraction(3, 16))),
    ("-0x1p+4", Real.of(-16)),
    ("0X.8P0", Real.of(Fraction(1, 2))),
    ("0x1.fffffep127", Real.of(Fraction(0xFFFFFF, 2**23) * 2**127)),
    ("1/3", Real.of(Fraction(1, 3))),
    ("-1/3", Real.of(Fraction(-1, 3))),
    ("1 / -3", Real.of(Fraction(-1, 3))),
    ("1.5e3/2", Real.of(750)),
    ("inf", Real.inf()),
    ("+Infinity", Real.inf()),
    ("-inf", Real.inf(True)),
    ("nan", Real.nan()),
    ("-NaN", Real.nan(True)),
    ("0", Real(False, Fraction(0))),
    ("-0", Real(True, Fraction(0))),
    ("-0.0e5", Real(True, Fraction(0))),
    ("-0/5", Real(True, Fraction(0))),
]


@pytest.mark.parametrize(("text", "value"), VALUES)
def test_parse_values(text: str, value: Real) -> None:
    assert parse_value(text) == value
    assert parse_number(text) == value


def test_parse_huge_and_tiny_exponents_exactly() -> None:
    """1e100000 and 1e-100000 are far beyond every format, and still read exactly (no float in between)."""
    assert parse_number("1e100000") == Real.of(10**100000)
    assert parse_number("-1e-100000") == Real(True, Fraction(1, 10**100000))
    assert parse_number("0x1p-400000") == Real.of(Fraction(1, 2**400000))
    assert parse_number("2.5e-99999") == Real.of(Fraction(25, 10**100000))


@PROPERTY
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_parse_reads_floats_exactly(x: float) -> None:
    """float.hex() reads back as exactly the float's value; repr() as exactly its (shortest) decimal."""
    negative = math.copysign(1.0, x) < 0
    assert parse_number(x.hex()) == Real(negative, abs(Fraction(x)))
    assert parse_number(repr(x)) == Real(negative, abs(Fraction(repr(x))))


@PROPERTY
@given(st.integers(-(10**40), 10**40), st.integers(-400, 400))
def test_parse_decimal_strings_exactly(digits: int, exponent: int) -> None:
    text = f"{digits}e{exponent}"
    assert parse_number(text).fraction == Fraction(digits) * Fraction(10) ** exponent


def test_raw_bits_are_recognised_as_patterns() -> None:
    assert parse_value("0x3c00") == RawBits(0x3C00, "0x3c00")
    assert parse_value("0b0011_1100") == RawBits(0b00111100, "0b0011_1100")
    assert parse_value("0XFF") == RawBits(0xFF, "0XFF")


def test_parse_number_refuses_raw_bits_with_a_way_forward() -> None:
    with pytest.raises(InputError, match="hex float such as 0x1.8p-3"):
        parse_number("0x3c00")


REJECTED = [
    ("", "empty"),
    ("   ", "empty"),
    ("abc", "Could not read"),
    ("1.2.3", "Could not read"),
    ("1e", "Could not read"),
    ("e5", "at least one digit"),
    (".", "at least one digit"),
    ("+", "at least one digit"),
    ("--1", "Could not read"),
    ("1_000", "Could not read"),
    ("0x1.8", "Could not read"),  # a hex float needs its p exponent
    ("0xp3", "at least one hex digit"),
    ("\u0661\u0662\u0663", "Could not read"),  # Arabic-Indic digits
    ("\uff11\uff12\uff13", "Could not read"),  # fullwidth digits
    ("\u00bd", "Could not read"),  # vulgar fraction one half
    ("1e999999999", "out of range"),
    ("1e100001", "out of range"),
    ("1e-100001", "out of range"),
    ("0x1p400001", "out of range"),
    ("1/0", "divides by zero"),
    ("7" * 540 + "e-100000/" + "3" * 540 + "e100000", "about 10^-200000"),  # decimals at opposite ends
    ("1e100000/1e-100000", "about 10^200000"),
    ("1e-60000/1e60000", "a value from 10^-100000 to 10^100000 is accepted"),
    ("0/0", "divides by zero"),
    ("1" * (MAX_INPUT_LENGTH + 1), "characters long"),
    ("0x_", "Could not read"),  # underscores group digits; alone they are not a number
    ("0b_", "Could not read"),
    ("0x__", "Could not read"),
]


@pytest.mark.parametrize(("text", "reason"), REJECTED)
def test_parse_value_rejects_with_a_sentence(text: str, reason: str) -> None:
    """Every refusal is an InputError whose message is a sentence naming the problem."""
    with pytest.raises(InputError) as caught:
        parse_value(text)
    message = str(caught.value)
    assert (message[0].isupper() or message[0] == "'") and message.endswith("."), message
    assert reason in message
    assert len(message) < 400


@pytest.mark.parametrize("text", ["1e100000/1", "1/1e100000", "1e50000/1e-50000", "9" * 540 + "e-50000/" + "1" * 540])
def test_a_fraction_as_large_or_small_as_a_decimal_may_be_is_accepted(text: str) -> None:
    assert parse_value(text)


def test_overlong_input_is_refused_before_reading_it() -> None:
    """A long input is refused by its length (no regex or big-number work), and its text is not echoed whole."""
    with pytest.raises(InputError) as caught:
        parse_value("9" * 10**6)
    assert "9" * 50 not in str(caught.value)


def test_longest_accepted_input() -> None:
    """The exact decimal of the smallest float64 subnormal (1074 decimals after the point) fits."""
    text = f"{Fraction(1, 2**1074).numerator * 5**1074:d}"
    text = "0." + text.rjust(1074, "0")
    assert len(text) <= MAX_INPUT_LENGTH
    assert parse_number(text) == Real.of(Fraction(1, 2**1074))


BITS_OK = [
    ("float16", "0x3c00", 0x3C00),
    ("float16", "0X3C00", 0x3C00),
    ("float16", "0b0011110000000000", 0x3C00),
    ("float16", "0b0011_1100_0000_0000", 0x3C00),
    ("float16", "15360", 0x3C00),
    ("float16", " 0xffff ", 0xFFFF),
    ("float4_e2m1fn", "0xf", 0xF),
    ("float4_e2m1fn", "0x0f", 0xF),  # leading zeros are not width
    ("tfloat32", "0x7ffff", 0x7FFFF),
    ("float64", "0x" + "f" * 16, 2**64 - 1),
]


@pytest.mark.parametrize(("format_id", "text", "bits"), BITS_OK)
def test_parse_bits(format_id: str, text: str, bits: int) -> None:
    assert parse_bits(text, FORMATS[format_id]) == bits


BITS_REJECTED = [
    ("float16", "0x10000", "wider than float16's 16 bits"),
    ("float4_e2m1fn", "16", "wider than float4_e2m1fn's 4 bits"),
    ("float4_e2m1fn", "0b10000", "wider"),
    ("float16", "-1", "Could not read"),
    ("float16", "1.0", "Could not read"),
    ("float16", "0x1p3", "Could not read"),
    ("float16", "0xg", "Could not read"),
    ("float16", "0b102", "Could not read"),
    ("float16", "\uff11", "Could not read"),
    ("float16", "", "empty"),
    ("float16", "0x_", "Could not read"),
    ("float16", "_", "Could not read"),
    ("float16", "0b__", "Could not read"),
]


@pytest.mark.parametrize(("format_id", "text", "reason"), BITS_REJECTED)
def test_parse_bits_rejects_with_a_sentence(format_id: str, text: str, reason: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_bits(text, FORMATS[format_id])
    message = str(caught.value)
    assert (message[0].isupper() or message[0] == "'") and message.endswith("."), message
    assert reason in message


@PROPERTY
@given(st.sampled_from([s for s in FORMATS.values() if s.kind != "block"]), st.data())
def test_parse_bits_reads_every_notation(spec: object, data: st.DataObject) -> None:
    bits = data.draw(st.integers(0, (1 << spec.bits) - 1))  # type: ignore[attr-defined]
    for text in (hex(bits), bin(bits), str(bits), hex(bits).upper().replace("X", "x")):
        assert parse_bits(text, spec) == bits  # type: ignore[arg-type]
