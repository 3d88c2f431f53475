"""Block quantisation's edges: FP32 rounding of the input, blocks holding NaN or ±inf (OCP MX v1.0, and NVFP4's
and NF4's own arithmetic), and the exact account of a block (scale choice, errors, fates); their JSON is
tests/web/visualise/test_answers.py's."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from app.formats import (
    BLOCK_FORMAT_IDS,
    FORMATS,
    InputError,
    block_absmax,
    exact_error,
    fates,
    mx_exponent,
    nvfp4_quotients,
    quantize_blocks,
    summarise,
)

MX_IDS = [f for f in BLOCK_FORMAT_IDS if FORMATS[f].scale is FORMATS["float8_e8m0fnu"]]
# the scale pattern of a block holding NaN: E8M0's NaN, E4M3's positive NaN, FP32's quiet NaN
NAN_SCALE = {**dict.fromkeys(MX_IDS, 0xFF), "nvfp4": 0x7F, "nf4": 0x7FC00000}


# -- the input is an FP32 tensor ----------------------------------------------------------------------------


@pytest.mark.parametrize("format_id", BLOCK_FORMAT_IDS)
def test_values_are_rounded_to_fp32_first_and_errors_are_against_that(format_id: str) -> None:
    values = [0.1, -1 / 3, 2.0000001, 1e-40]
    result = quantize_blocks(values, format_id)
    assert result.inputs.tolist() == np.array(values, dtype=np.float32).astype(np.float64).tolist()
    assert result.inputs[0] == 0.100000001490116119384765625  # 0x3dcccccd, FP32's 0.1
    error = result.dequantized - result.inputs
    assert result.max_abs_error == np.abs(error).max() and result.mse == pytest.approx(np.mean(error**2))


def test_fp32_rounding_is_to_nearest_even() -> None:
    # 1 + 2^-24 is the midpoint of 1 and 1 + 2^-23: it rounds to 1, the even one; 1 + 3 × 2^-24 rounds up
    assert quantize_blocks([1 + 2**-24, 1 + 3 * 2**-24], "mxfp8_e4m3").inputs.tolist() == [1.0, 1 + 2**-22]


def test_a_finite_value_beyond_fp32_is_still_refused() -> None:
    with pytest.raises(InputError, match=r"values\[1\] is 1e\+39, beyond FP32's range"):
        quantize_blocks([1.0, 1e39], "mxfp4")


# -- NaN and infinity ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("special", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("format_id", BLOCK_FORMAT_IDS)
def test_a_block_holding_nan_or_inf_has_a_nan_scale_and_nan_elements(format_id: str, special: float) -> None:
    size = 4
    values = [0.5, special, -2.0, 1.0] + [0.75, -0.25, 0.125, 1.5]
    result = quantize_blocks(values, format_id, size)
    poisoned, clean = result.blocks
    assert all(math.isnan(v) for v in poisoned.values)
    if format_id == "nf4" and not math.isnan(special):
        assert (poisoned.scale_bits, poisoned.scale) == (0x7F800000, math.inf)  # the absmax in FP32: inf
    else:
        assert poisoned.scale_bits == NAN_SCALE[format_id] and math.isnan(poisoned.scale)
    zero_code = 7 if format_id == "nf4" else 0
    assert poisoned.codes == [zero_code] * size  # the bits do not matter under a NaN scale
    # the other block is quantised as it would be alone: NVFP4's tensor scale comes from it
    alone = quantize_blocks(values[size:], format_id, size)
    assert (clean.scale_bits, clean.codes, clean.values) == (
        alone.blocks[0].scale_bits, alone.blocks[0].codes, alone.blocks[0].values
    )
    assert result.tensor_scale == alone.tensor_scale
    assert math.isnan(result.mse) and math.isnan(result.max_abs_error)


# -- the account of a block --------------------------------------------------------------------------------


def test_the_mx_shared_exponent_is_floor_log2_absmax_minus_emax_clamped_to_e8m0() -> None:
    mxfp4 = FORMATS["mxfp4"]
    # 40: floor(log2 40) = 5, E2M1's emax 2, so 3
    assert mx_exponent(40.0, mxfp4).__dict__ == {"floor_log2": 5, "element_emax": 2, "unclamped": 3, "shared": 3}
    tiny = mx_exponent(2.0**-130, mxfp4)
    assert tiny is not None and (tiny.unclamped, tiny.shared, tiny.clamped) == (-132, -127, True)
    mxint8 = mx_exponent(1.5, FORMATS["mxint8"])  # integers × 2^-6 up to 127/64: emax 0
    assert mxint8 is not None and (mxint8.element_emax, mxint8.shared) == (0, 0)
    assert mx_exponent(0.0, mxfp4) is None and mx_exponent(math.nan, mxfp4) is None


def test_nvfp4_quotients_are_exact() -> None:
    tensor_quotient, block_quotient = nvfp4_quotients(3.0, 168.0, 0.0625, FORMATS["nvfp4"])
    assert tensor_quotient == Fraction(168, 6 * 448) == Fraction(1, 16)
    assert block_quotient == Fraction(3) / 6 / Fraction(1, 16) == 8


def test_fates_and_the_summary_of_an_outlier_block() -> None:
    # mxfp4, absmax 40: scale 2^(5 − 2) = 8, so |v| ≤ 2 (half E2M1's 0.5, times 8) is flushed to zero, -2 to -0;
    # 40 / 8 = 5 is a tie of 4 and 6, so 40 is stored as 32; 3/8 and π/8 round to 0.5, stored as 4.
    values = [40.0, 1.5, -2.0, 3.0, 0.0, math.pi]
    result = quantize_blocks(values, "mxfp4")
    assert result.dequantized.tolist() == [32.0, 0.0, -0.0, 4.0, 0.0, 4.0]
    assert fates(result) == ["kept", "zeroed", "zeroed", "kept", "kept", "kept"]
    summary = summarise(result)
    assert (summary.zeroed, summary.largest, summary.largest_fate) == (2, 0, "kept")
    exact_pi = Fraction(float(np.float32(math.pi)))
    errors = [Fraction(-8), Fraction(-3, 2), Fraction(2), Fraction(1), Fraction(0), 4 - exact_pi]
    assert summary.mse == sum(e * e for e in errors) / 6 and summary.max_error == 8
    assert block_absmax(result, 0) == 40.0


def test_a_value_beyond_the_element_max_saturates() -> None:
    # mxfp4, absmax 7.5: scale 2^(2 − 2) = 1, and 7.5 is beyond E2M1's 6
    result = quantize_blocks([7.5, 1.0], "mxfp4")
    assert result.dequantized.tolist() == [6.0, 1.0] and fates(result) == ["saturated", "kept"]


def test_nan_fates_and_no_exact_error_for_nan() -> None:
    result = quantize_blocks([math.nan, 1.0], "mxfp8_e4m3")
    assert fates(result) == ["nan", "nan"] and summarise(result).mse is None
    assert exact_error(math.nan, 1.0) is None and exact_error(0.5, 0.25) == Fraction(1, 4)
