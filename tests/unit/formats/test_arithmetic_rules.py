"""The sentence on the rule that decided: each kind of outcome names its own rule and the values that made it."""

from __future__ import annotations

import pytest

from app.formats import get_format, parse_number
from app.formats.arithmetic import operate
from app.formats.arithmetic_rules import rule


def _said(op: str, *values: str, fmt: str = "float16", result: str | None = None, rounding="nearest_even") -> str:
    done = operate(op, tuple(map(parse_number, values)), get_format(fmt), result and get_format(result), rounding)
    return str(rule(done, rounding))


@pytest.mark.parametrize(("asked", "sentence"), [
    (("mul", "10000", "10000"), "100000000 is beyond FP16 (half)'s largest finite value 65504: overflow to inf."),
    (("add", "1", "0x1p-11"), "1.00048828125 lies between the FP16 (half) values 1 and 1.0009765625: rounding to "
                              "nearest, ties to even, it becomes 1."),
    (("add", "inf", "-inf"), "inf − inf has no value: the result is NaN (invalid operation)."),
    (("mul", "0", "-inf"), "0 × inf has no value: the result is NaN (invalid operation)."),
    (("div", "-3", "0"), "A nonzero number divided by zero is an infinity with the quotient's sign (division by "
                         "zero)."),
    (("sqrt", "-2"), "A negative number has no real square root: the result is NaN (invalid operation)."),
    (("add", "nan", "2"), "A NaN operand makes the result NaN: NaN in, NaN out."),
    (("mul", "0x1p-13", "0x1p-13"), "1.490116119384765625e-8 is too small for FP16 (half): rounding to nearest, "
                                    "ties to even, it becomes 0 (underflow)."),
    (("mul", "0.5", "3"), "1.5 is a value of FP16 (half): the result is exact."),
])
def test_each_outcome_names_its_rule(asked: tuple[str, ...], sentence: str):
    assert _said(*asked) == sentence


def test_a_subnormal_result_is_said_to_lose_bits():
    said = _said("mul", "0x1.04p-7", "0x1.04p-10")  # 132.03125 × 2^-24: between subnormals 2^-24 apart
    assert said.endswith("with fewer significant bits (underflow).") and "FP16 (half) values" in said


def test_the_rounding_mode_is_named_and_decides():
    assert _said("add", "1", "0x1p-11", rounding="toward_positive").endswith(
        "rounding up (toward +inf) it becomes 1.0009765625.")


def test_a_long_exact_value_is_shortened_and_said_to_be():
    said = _said("mul", "0.1", "0.1", fmt="float64")
    assert said.startswith("≈0.010000000000000001 lies between the FP64 (double) values")


def test_a_number_with_no_value_in_the_format_says_so():
    assert _said("sub", "2", "4", fmt="float8_e8m0fnu") == ("-2 has no value in E8M0 (MX scale): it is stored as NaN "
                                                            "(invalid operation).")
