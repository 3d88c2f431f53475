"""Facts a format specification derives, that every page and the API take from it: bits per value (a block's
shared scale included, exactly) and decimal digits of precision. A new format in the registry is tested here
with no new test code."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from app.formats import FORMATS
from app.formats.blocks import BLOCK_FORMAT_IDS, quantize_blocks

# Known figures: 4-bit elements and an 8-bit scale per 32 (MX), an 8-bit scale per 16 (NVFP4; its one FP32
# scale per tensor is not counted), one FP32 absmax per 64 codes (NF4, as bitsandbytes stores it).
KNOWN_BITS_PER_VALUE = {
    "float64": Fraction(64), "float32": Fraction(32), "tfloat32": Fraction(32), "bfloat16": Fraction(16),
    "float8_e4m3fn": Fraction(8), "float6_e2m3fn": Fraction(6), "float4_e2m1fn": Fraction(4), "int4": Fraction(4),
    "mxfp8_e4m3": Fraction(33, 4), "mxfp6_e3m2": Fraction(25, 4), "mxint8": Fraction(33, 4),
    "mxfp4": Fraction(17, 4), "nvfp4": Fraction(9, 2), "nf4": Fraction(9, 2),
}
# about (m + 1) × log10(2) significant decimal digits for m mantissa bits
KNOWN_DIGITS = {"float64": 15.95, "float32": 7.22, "tfloat32": 3.31, "float16": 3.31, "bfloat16": 2.41,
                "float8_e4m3fn": 1.20, "float8_e5m2": 0.90, "mxfp4": 0.60}


@pytest.mark.parametrize(("format_id", "bits"), KNOWN_BITS_PER_VALUE.items())
def test_bits_per_value_of_known_formats(format_id, bits):
    spec = FORMATS[format_id]
    assert spec.bits_per_value == bits and isinstance(spec.bits_per_value, Fraction)
    assert spec.bytes_per_value == bits / 8 == spec.gigabytes_per_billion


@pytest.mark.parametrize("spec", FORMATS.values(), ids=str)
def test_bits_per_value_are_the_stored_bits_and_the_share_of_a_block_scale(spec):
    stored = spec.storage_bits or spec.bits
    if spec.id in BLOCK_FORMAT_IDS:
        assert spec.scale is not None and spec.block_size > 0 and spec.scale_bits == spec.scale.bits
        assert spec.bits_per_value == stored + Fraction(spec.scale.bits, spec.block_size)
    else:
        assert spec.block_size == 0 and spec.bits_per_value == stored


@pytest.mark.parametrize("format_id", BLOCK_FORMAT_IDS)
def test_the_quantiser_stores_what_bits_per_value_counts(format_id):
    """One scale per block and one code per value: the memory the quantiser's output takes, per value."""
    spec = FORMATS[format_id]
    assert spec.scale is not None
    n = 3 * spec.block_size
    result = quantize_blocks([0.25 * (i % 7 - 3) for i in range(n)], format_id)
    assert result.block_size == spec.block_size
    codes = sum(len(block.codes) for block in result.blocks)
    element_bits = spec.element.bits if spec.element is not None else spec.bits
    stored = Fraction(len(result.blocks) * spec.scale.bits + codes * element_bits, n)
    assert stored == spec.bits_per_value


@pytest.mark.parametrize("spec", FORMATS.values(), ids=str)
def test_decimal_digits_follow_from_the_significand(spec):
    element = spec.element if spec.kind == "block" else spec
    if element is None or element.kind != "float":
        assert spec.significand_bits is None and spec.decimal_digits is None
        return
    # epsilon, exact, is the weight of the significand's last bit
    assert Fraction(1, 2 ** (spec.significand_bits - 1)) == element.epsilon
    assert spec.decimal_digits == pytest.approx(spec.significand_bits * math.log10(2))


@pytest.mark.parametrize(("format_id", "digits"), KNOWN_DIGITS.items())
def test_decimal_digits_of_known_formats(format_id, digits):
    assert FORMATS[format_id].decimal_digits == pytest.approx(digits, abs=0.005)
