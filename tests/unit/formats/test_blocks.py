"""Block quantisers: hand-worked blocks, an exact reference built on the codec, errors and input checks."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.formats.blocks import BLOCK_FORMAT_IDS, MAX_VALUES, quantize_blocks
from app.formats.codec import decode, encode
from app.formats.exact import Real
from app.formats.parse import InputError
from app.formats.registry import FORMATS, NF4_CODEBOOK
from app.formats.spec import pow2

MX_IDS = [f for f in BLOCK_FORMAT_IDS if FORMATS[f].scale is FORMATS["float8_e8m0fnu"]]
_MODERATE_OR_TINY = st.floats(-1e6, 1e6, width=32) | st.floats(-(2.0**-100), 2.0**-100, width=32)


def _only_block(values: list[float], format_id: str) -> tuple[int, float, list[int], list[float]]:
    result = quantize_blocks(values, format_id)
    assert len(result.blocks) == 1
    block = result.blocks[0]
    return block.scale_bits, block.scale, block.codes, block.values


# -- hand-worked blocks ---------------------------------------------------------------------------


def test_mxfp4_block() -> None:
    # absmax 7.9: shared exponent floor(log2 7.9) − emax(E2M1) = 2 − 2 = 0, scale 2^0 = 1, E8M0 pattern 127.
    # E2M1 holds 0, 0.5, 1, 1.5, 2, 3, 4, 6; ties go to the even mantissa:
    #   5.0 → 4 (tie 4|6)       0x6      0.7 → 0.5            0x1     -0.75 → -1 (tie 0.5|1)  0xa
    #   1.25 → 1 (tie 1|1.5)    0x2      3.1 → 3              0x5      0.2 → 0                0x0
    #  -7.9 → -6 (saturated)    0xf      0.25 → 0 (tie 0|0.5) 0x0
    values = [5.0, 0.7, -0.75, 1.25, 3.1, 0.2, -7.9, 0.25]
    assert _only_block(values, "mxfp4") == (
        127, 1.0, [0x6, 0x1, 0xA, 0x2, 0x5, 0x0, 0xF, 0x0], [4.0, 0.5, -1.0, 1.0, 3.0, 0.0, -6.0, 0.0]
    )
    result = quantize_blocks(values, "mxfp4")
    # errors 1, 0.2, 0.25, 0.25, 0.1, 0.2, 1.9, 0.25: the saturated -7.9 is the largest
    assert result.max_abs_error == pytest.approx(1.9)
    assert result.mse == pytest.approx((1 + 0.04 + 0.0625 * 3 + 0.01 + 0.04 + 3.61) / 8)


def test_mxfp4_block_with_a_scale() -> None:
    # absmax 20: floor(log2 20) − 2 = 4 − 2 = 2, scale 4, pattern 129; 20/4 = 5 → 4 (tie), -3/4 → -1 (tie),
    # 1.9/4 = 0.475 → 0.5; dequantised 16, -4, 2
    assert _only_block([20.0, -3.0, 1.9], "mxfp4") == (129, 4.0, [0x6, 0xA, 0x1], [16.0, -4.0, 2.0])


def test_mxint8_block() -> None:
    # absmax 1.999: floor(log2 1.999) − 0 = 0, scale 1; elements v × 2^6, rounded half to even, clamped
    # to ±127:
    #   1.0 → 64   -0.3 → -19.2 → -19 (0xed)   0.015625 → 1   0.5078125 → 32.5 → 32 (tie)
    #   1.99 → 127.36 → 127   -1.999 → -127.936 → -127 (0x81, never -128)
    # dequantised: element × 2^-6 × 1
    assert _only_block([1.0, -0.3, 0.015625, 0.5078125, 1.99, -1.999], "mxint8") == (
        127, 1.0, [0x40, 0xED, 0x01, 0x20, 0x7F, 0x81], [1.0, -0.296875, 0.015625, 0.5, 1.984375, -1.984375]
    )


def test_mxfp8_e4m3_block_saturates() -> None:
    # absmax 480: floor(log2 480) − emax(E4M3) = 8 − 8 = 0, scale 1. 480 is above E4M3's max 448 but below
    # 2^9, so the element saturates to 448 (0x7e). 1.0 is 0x38; -3.3 lies in [2, 4) where the spacing is 0.25,
    # so it rounds to -3.25 = -1.625 × 2^1: sign, exponent field 8, mantissa 5 → 0xc5.
    assert _only_block([480.0, 1.0, -3.3], "mxfp8_e4m3") == (
        127, 1.0, [0x7E, 0x38, 0xC5], [448.0, 1.0, -3.25]
    )


def test_nvfp4_two_blocks_and_the_tensor_scale() -> None:
    # tensor absmax 168: tensor scale 168 / (6 × 448) = 1/16.
    # block 1, absmax 168: block scale 168 / 6 / (1/16) = 448 (E4M3 0x7e), step 448/16 = 28:
    #   168/28 = 6 → 0x7   62.5/28 ≈ 2.23 → 2 (0x4) = 56   -18.75/28 ≈ -0.67 → -0.5 (0x9) = -14
    #   0.4375/28 ≈ 0.016 → 0
    # block 2, absmax 0.3: 0.3 / 6 × 16 = 0.8 → E4M3 0.8125 (spacing 1/16 in [0.5, 1); 0x35), step 0.8125/16:
    #   0.3/step ≈ 5.91 → 6 (0x7)    -0.1/step ≈ -1.97 → -2 (0xc)    0.02/step ≈ 0.39 → 0.5 (0x1)    0 → 0
    result = quantize_blocks([168, 62.5, -18.75, 0.4375, 0.3, -0.1, 0.02, 0.0], "nvfp4", block_size=4)
    assert result.tensor_scale == 0.0625
    first, second = result.blocks
    assert (first.scale_bits, first.scale, first.codes, first.values) == (
        0x7E, 448.0, [0x7, 0x4, 0x9, 0x0], [168.0, 56.0, -14.0, 0.0]
    )
    step = 0.8125 / 16
    assert (second.scale_bits, second.scale, second.codes, second.values) == (
        0x35, 0.8125, [0x7, 0xC, 0x1, 0x0], [6 * step, -2 * step, 0.5 * step, 0.0]
    )


def test_nf4_block_of_64() -> None:
    # 64 values: the codebook times 2, four times over, so absmax 2.0 (FP32 0x40000000) and every value is
    # stored exactly; except one 1.0: 1.0/2 = 0.5 lies between codes 12 (0.4407) and 13 (0.5626) and is nearer
    # 12 (0.0593 against 0.0626), so it is stored as 2 × 0.44070982933044434.
    values = [2 * c for c in NF4_CODEBOOK] * 4
    values[5] = 1.0
    scale_bits, scale, codes, stored = _only_block(values, "nf4")
    assert (scale_bits, scale) == (0x40000000, 2.0)
    assert codes == [12 if i == 5 else i % 16 for i in range(64)]
    assert stored == [2 * NF4_CODEBOOK[c] for c in codes]


@pytest.mark.parametrize("format_id", BLOCK_FORMAT_IDS)
def test_all_zero_block(format_id: str) -> None:
    result = quantize_blocks([0.0] * 40, format_id, block_size=8)
    zero_code = NF4_CODEBOOK.index(0.0) if format_id == "nf4" else 0
    for block in result.blocks:
        assert block.codes == [zero_code] * 8 and block.values == [0.0] * 8
        if format_id in MX_IDS:  # the smallest E8M0 scale
            assert (block.scale_bits, block.scale) == (0, 2.0**-127)
    assert result.mse == 0 and result.max_abs_error == 0


def test_last_block_may_be_shorter() -> None:
    values = np.linspace(-3, 3, 70).tolist()
    result = quantize_blocks(values, "mxfp6_e2m3")
    assert result.block_size == 32
    assert [len(b.codes) for b in result.blocks] == [32, 32, 6]
    assert len(result.dequantized) == 70
    assert result.dequantized.tolist() == [v for b in result.blocks for v in b.values]


# -- an exact reference, value by value, built on the codec ---------------------------------------


def _floor_log2(x: Fraction) -> int:
    e = x.numerator.bit_length() - x.denominator.bit_length()
    return e if x >= pow2(e) else e - 1


def _reference(values: list[float], format_id: str, size: int) -> list[tuple[int, list[int], list[Fraction]]]:
    """(scale pattern, codes, exact dequantised values) per block, by Fractions and the exact codec."""
    spec = FORMATS[format_id]
    element = spec.element or spec
    scale_format = spec.scale or FORMATS["float32"]
    exact = [Fraction(v) for v in values]
    tensor_scale = Fraction(1)
    if format_id == "nvfp4" and any(exact):
        top = max(abs(v) for v in exact) / (element.max * scale_format.max)
        tensor_scale = encode(FORMATS["float32"], Real.of(top)).encoding.value.fraction or Fraction(1)
    blocks = []
    for start in range(0, len(values), size):
        chunk = exact[start : start + size]
        absmax = max(abs(v) for v in chunk)
        if spec.scale is FORMATS["float8_e8m0fnu"]:
            shared = _floor_log2(absmax) - _floor_log2(spec.max) if absmax else -127
            scale = pow2(min(max(shared, -127), 127))
            step = scale * pow2(spec.element_scale_exp)
        elif format_id == "nvfp4":
            scale = encode(scale_format, Real.of(absmax / element.max / tensor_scale), overflow="saturate")
            scale = scale.encoding.value.fraction
            step = scale * tensor_scale
        else:
            scale = encode(scale_format, Real.of(absmax)).encoding.value.fraction
            step = scale
        quotients = [min(max(v / step, -element.max), element.max) if step else Fraction(0) for v in chunk]
        signs = [math.copysign(1.0, v) < 0 for v in values[start : start + size]]  # -0.0 stays -0
        codes = [encode(element, Real(neg, abs(q)), overflow="saturate").encoding.bits
                 for neg, q in zip(signs, quotients, strict=True)]
        stored = [decode(element, c).value.fraction * step for c in codes]
        blocks.append((encode(scale_format, Real.of(scale)).encoding.bits, codes, stored))
    return blocks


@settings(max_examples=60, deadline=None)
@given(
    format_id=st.sampled_from(BLOCK_FORMAT_IDS),
    values=st.lists(_MODERATE_OR_TINY, min_size=1, max_size=70),
    size=st.integers(1, 40),
)
def test_agrees_with_the_exact_reference(format_id: str, values: list[float], size: int) -> None:
    result = quantize_blocks(values, format_id, size)
    reference = _reference(values, format_id, size)
    for block, (scale_bits, codes, stored) in zip(result.blocks, reference, strict=True):
        assert (block.scale_bits, block.codes) == (scale_bits, codes)
        assert [Fraction(v) for v in block.values] == stored  # the products are exact


@settings(max_examples=60, deadline=None)
@given(
    format_id=st.sampled_from(BLOCK_FORMAT_IDS),
    values=st.lists(st.floats(-3e38, 3e38, allow_subnormal=True), min_size=1, max_size=100),
    size=st.integers(1, 40),
)
def test_error_within_half_an_element_spacing(format_id: str, values: list[float], size: int) -> None:
    """Where value / scale is within the element's range, the error (against the input rounded to FP32) is at
    most half its top spacing."""
    spec = FORMATS[format_id]
    result = quantize_blocks(values, format_id, size)
    inputs = np.array(values, dtype=np.float32).astype(np.float64)
    assert result.inputs.tolist() == inputs.tolist()
    error = np.abs(result.dequantized - inputs)
    assert result.max_abs_error == error.max()
    assert result.mse == pytest.approx(np.mean(error**2))
    for i, block in enumerate(result.blocks):
        chunk = inputs[i * size : (i + 1) * size]
        if format_id == "nf4":
            reach, half_spacing = block.scale, block.scale * max(np.diff(NF4_CODEBOOK)) / 2
        else:
            scale = block.scale * (result.tensor_scale or 1.0)
            top = math.floor(math.log2(spec.max))  # the element's emax, its implicit scale included
            reach, half_spacing = scale * float(spec.max), scale * float(spec.epsilon) * 2.0**top / 2
        in_range = np.abs(chunk) <= reach
        # NF4's bound is a rounded float, so allow it a rounding; MX and NVFP4 bounds are exact
        assert (error[i * size : (i + 1) * size][in_range] <= half_spacing * (1 + 2**-50)).all()


# -- input checks ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([], r"values is empty"),
        ([1.0, 1e39], r"values\[1\] is 1e\+39, beyond FP32's range"),
        ([1, 10**400], r"values\[1\] is beyond FP32's range"),
        ([1.0, "2"], r"values\[1\] is '2', not a number"),
        ([1.0, None], r"values\[1\] is None, not a number"),
        ([True, False], r"values\[0\] is True, not a number"),
        ([[1.0, 2.0], [3.0, 4.0]], r"values\[0\] is \[1\.0, 2\.0\], not a number"),
        ([1.0, [2.0]], r"values\[1\] is \[2\.0\], not a number"),
        ("1, 2", r"values must be a list of numbers"),
        (3.0, r"values must be a list of numbers"),
        ([0.0] * (MAX_VALUES + 1), r"values has 1,000,001 numbers; at most 1,000,000 are accepted\."),
    ],
)
def test_bad_values_are_refused(values: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        quantize_blocks(values, "mxfp4")  # type: ignore[arg-type]


@pytest.mark.parametrize("block_size", [0, -1, 4097, 2.5, True, "32"])
def test_bad_block_sizes_are_refused(block_size: object) -> None:
    with pytest.raises(InputError, match=r"block_size must be a whole number from 1 to 4096"):
        quantize_blocks([1.0], "mxfp4", block_size)  # type: ignore[arg-type]


@pytest.mark.parametrize("format_id", ["float16", "int8", "nope", "", None])
def test_formats_that_are_not_block_formats_are_refused(format_id: object) -> None:
    with pytest.raises(InputError, match=r"is not a block format; block quantisation takes one of: mxfp8"):
        quantize_blocks([1.0], format_id)  # type: ignore[arg-type]


def test_largest_input_is_accepted() -> None:
    values = np.random.default_rng(0).standard_normal(MAX_VALUES).astype(np.float32)
    result = quantize_blocks(values, "nvfp4", block_size=4096)
    assert len(result.dequantized) == MAX_VALUES and len(result.blocks) == 245
