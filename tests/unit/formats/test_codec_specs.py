"""The specifications the browser's codec works from: every scalar format, its constants exact, JSON-safe."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

from app.formats import SCALAR_FORMATS, FormatSpec
from app.web.visualise.codec_specs import codec_spec, codec_specs, embedded_json, exact_text

LARGEST_SAFE_INTEGER = 2**53 - 1  # past it a JSON number is not read back exactly by JavaScript
# layouts of a person's own, as the visualiser's custom format makes them: the codec takes any FormatSpec
CUSTOM = [
    FormatSpec(id="custom", name="E6M9", kind="float", bits=16, exponent_bits=6, mantissa_bits=9, bias=40),
    FormatSpec(id="custom", name="E3M4 FNUZ", kind="float", bits=8, exponent_bits=3, mantissa_bits=4, bias=2,
               nan_style="fnuz"),
]


def _read(text: str) -> Fraction:
    """m·2^k ("-0xfp-1") with m odd or zero, or num/den in hex ("0x1/0x3") where the constant is not dyadic."""
    if "/" in text:
        num, den = text.split("/")
        return Fraction(int(num, 16), int(den, 16))
    m, k = text.split("p")
    significand = int(m, 16)
    assert significand % 2 or significand == 0 and k == "0", text  # one way to write each constant
    return significand * Fraction(2) ** int(k)


def test_every_scalar_format_once_in_registry_order_and_no_block_format() -> None:
    assert [spec["id"] for spec in codec_specs()] == [spec.id for spec in SCALAR_FORMATS]
    assert all(spec["kind"] != "block" for spec in codec_specs())


@pytest.mark.parametrize("spec", [*SCALAR_FORMATS, *CUSTOM],
                         ids=lambda spec: f"{spec.id}-{spec.bits}")
def test_the_constants_read_back_exactly(spec: FormatSpec) -> None:
    sent = codec_spec(spec)
    for name in ("max", "lowest", "min_positive", "min_normal", "min_subnormal"):
        value = getattr(spec, name)
        assert (None if sent[name] is None else _read(sent[name])) == value, name
    assert int(sent["max_mantissa_field"], 16) == spec.max_mantissa_field
    assert [_read(code) for code in sent["codebook"]] == [Fraction(v) for v in spec.codebook]
    for name in ("bits", "exponent_bits", "mantissa_bits", "bias", "nan_style", "signed", "has_inf", "has_nan",
                 "has_zero", "has_subnormals", "has_negative_zero", "overflow_default", "emin", "emax",
                 "max_exponent_field"):
        assert sent[name] == getattr(spec, name), name


def _numbers(value: Any) -> list[int | float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [value]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    return []


@pytest.mark.parametrize(("x", "text"), [
    (Fraction(448), "0x7p6"), (Fraction(-15, 2), "-0xfp-1"), (Fraction(0), "0x0p0"), (Fraction(1), "0x1p0"),
    (Fraction(1, 2**24), "0x1p-24"), (Fraction(1, 3), "0x1/0x3"), (Fraction(-5, 6), "-0x5/0x6"),
])
def test_constants_are_written_as_a_significand_and_a_power_of_two(x: Fraction, text: str) -> None:
    assert exact_text(x) == text and _read(text) == x


def test_the_widest_constants_stay_short() -> None:
    """binary128's max has a 4,096-digit hex numerator; as m·2^k it is a few dozen characters."""
    assert all(len(text) < 48 for spec in codec_specs() for text in
               (spec["max"], spec["lowest"], spec["min_positive"], spec["min_normal"], spec["min_subnormal"])
               if text is not None)


def test_every_number_is_an_integer_that_javascript_reads_exactly() -> None:
    numbers = _numbers(json.loads(json.dumps(codec_specs())))
    assert all(isinstance(n, int) and abs(n) <= LARGEST_SAFE_INTEGER for n in numbers)


def test_embedded_json_cannot_close_its_script_block_and_reads_back() -> None:
    value = {"a": "</script><!-- & \u2028\u2029 'quoted' \"too\"", "specs": codec_specs()}
    text = embedded_json(value)
    for forbidden in ("<", ">", "&", "\u2028", "\u2029"):
        assert forbidden not in text
    assert json.loads(text) == value
