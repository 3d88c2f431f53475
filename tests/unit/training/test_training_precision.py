"""The precision-emulating matrix product, underflow counting, and the gradient-exponent histogram."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.formats import get_format
from app.formats.vector import round_to_format
from app.training import RECIPES
from app.training.gradient_stats import exponent_histogram, format_range, nonfinite_count, update_ratio
from app.training.precision import ACTIVATION, GRADIENT, WEIGHT, Arithmetic


def _operands(seed: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((16, k)).astype(np.float32),
            rng.standard_normal((k, 8)).astype(np.float32))


@pytest.mark.parametrize("recipe", [r for r in RECIPES.values() if not r.delayed_scaling], ids=lambda r: r.id)
def test_matmul_rounds_inputs_accumulates_in_fp32_and_rounds_the_output(recipe):
    """Every recipe but FP8's, whose products scale each tensor first (tested below)."""
    arith = Arithmetic(recipe)
    a, b = _operands(0, 64)
    if not recipe.master_weights:  # the weights as the recipe stores them, in its weight format
        b = round_to_format(b, get_format(recipe.weights))
    w = arith.working_weights(b.ravel(), b.size).reshape(b.shape)
    result = arith.matmul(arith.operand(arith.input(a), ACTIVATION, 0), arith.operand(w, WEIGHT, 0))

    compute, output = get_format(recipe.compute), get_format(recipe.output)
    a_in = round_to_format(a, compute).astype(np.float64)
    b_in = round_to_format(b, compute).astype(np.float64)
    exact = a_in @ b_in  # float64 holds each product exactly and the sums nearly so
    magnitude = np.abs(a_in) @ np.abs(b_in)
    # output rounding (half an ulp) plus FP32 accumulation (k units of 2^-24 of the magnitudes)
    bound = np.abs(exact) * 2.0 ** -(output.mantissa_bits + 1) + magnitude * 64 * 2.0**-24
    assert np.all(np.abs(result - exact) <= bound)
    np.testing.assert_array_equal(round_to_format(result, output), result)


def test_inputs_are_rounded_before_the_product():
    arith = Arithmetic(RECIPES["fp16_no_scaling"])
    one_plus = np.array([[1 + 2.0**-12]], dtype=np.float32)  # not an FP16 number: rounds to 1
    result = arith.matmul(arith.operand(arith.input(one_plus), ACTIVATION, 0),
                          arith.operand(np.ones((1, 1), np.float32), WEIGHT, 0))
    assert result[0, 0] == 1.0
    tf32 = Arithmetic(RECIPES["tf32"])
    ones = tf32.working_weights(np.ones(1, np.float32), 1).reshape(1, 1)
    result = tf32.matmul(tf32.operand(one_plus, ACTIVATION, 0), tf32.operand(ones, WEIGHT, 0))
    assert result[0, 0] == 1.0  # TF32 keeps 10 mantissa bits; its output is FP32


def test_fp8_matmul_scales_per_tensor_and_stays_within_e4m3_rounding():
    arith = Arithmetic(RECIPES["fp8_hybrid_delayed"])
    a, b = _operands(1, 32)
    a, b = a * 1e-3, b * 1e-3  # far below E4M3's normal range without a scale
    for _ in range(2):  # the second step casts with scales from the first step's amax
        w = arith.working_weights(b.ravel(), b.size).reshape(b.shape)
        result = arith.matmul(arith.operand(arith.input(a), ACTIVATION, 0), arith.operand(w, WEIGHT, 0))
        arith.update_scales()
    exact = a.astype(np.float64) @ b.astype(np.float64)
    magnitude = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    # each E4M3 input within 2^-4 relative (after BF16's 2^-8), the BF16 output within 2^-8
    assert np.all(np.abs(result - exact) <= magnitude * (2 * 2.0**-4 + 2.0**-7) + np.abs(exact) * 2.0**-8)


def test_underflow_is_counted_where_a_gradient_rounds_to_zero():
    fp16, bf16 = Arithmetic(RECIPES["fp16_no_scaling"]), Arithmetic(RECIPES["bf16"])
    grads = np.array([2.0**-26, -2.0**-26, 2.0**-20, 1.0, 0.0], dtype=np.float32)  # FP16 min is 2^-24
    fp16.reset_counts()
    assert np.count_nonzero(fp16.round_gradient(grads)) == 2
    assert (fp16.gradients_nonzero, fp16.gradients_flushed) == (4, 2)
    assert fp16.underflow_fraction == 0.5
    bf16.reset_counts()
    bf16.round_gradient(grads)
    assert bf16.underflow_fraction == 0.0


def test_fp8_gradient_operands_count_their_underflow():
    arith = Arithmetic(RECIPES["fp8_hybrid_delayed"])
    arith.reset_counts()
    arith.operand(np.array([1.0, 2.0**-20], dtype=np.float32), GRADIENT, 0)  # scale 1: E5M2 min is 2^-16
    assert arith.underflow_fraction == 0.5


def test_exponent_histogram_bins_floor_log2_of_nonzero_finite_values():
    values = np.array([0.0, 1.0, 1.5, -1.9, 2.0**-20, -(2.0**-20), 2.0**-149, np.inf, np.nan],
                      dtype=np.float32)
    histogram = exponent_histogram(values)
    exponents, counts = histogram["exponents"], histogram["counts"]
    assert exponents[0] == -149 and exponents[-1] == 0 and len(exponents) == len(counts) == 150
    assert dict(zip(exponents, counts, strict=True))[0] == 3
    assert dict(zip(exponents, counts, strict=True))[-20] == 2
    assert dict(zip(exponents, counts, strict=True))[-149] == 1
    assert sum(counts) == 6 and histogram["zeros"] == 1 and histogram["nonfinite"] == 2
    assert exponent_histogram(np.zeros(3, np.float32)) == {"exponents": [], "counts": [], "zeros": 3,
                                                             "nonfinite": 0}


def test_format_ranges_on_the_log2_axis():
    fp16 = format_range(get_format("float16"))
    assert (fp16["min_subnormal_log2"], fp16["min_normal_log2"]) == (-24, -14)
    assert fp16["max_log2"] == math.log2(65504)
    bf16 = format_range(get_format("bfloat16"))
    assert (bf16["min_subnormal_log2"], bf16["min_normal_log2"]) == (-133, -126)
    e5m2 = format_range(get_format("float8_e5m2"))
    assert (e5m2["min_subnormal_log2"], e5m2["min_normal_log2"], e5m2["max_log2"]) == (-16, -14,
                                                                                       math.log2(57344))


def test_nonfinite_count_and_update_ratio():
    assert nonfinite_count(np.array([1, np.inf, -np.inf, np.nan], dtype=np.float32)) == 3
    old = np.array([3.0, 4.0], dtype=np.float32)
    assert update_ratio(old, old + np.array([0.3, 0.4], dtype=np.float32)) == pytest.approx(0.1)
    assert update_ratio(np.zeros(2, np.float32), np.ones(2, np.float32)) == 0.0
