"""The dot product's methods against independent references: numpy's and ml_dtypes' own arithmetic for the
input-format and FP32 accumulations and for Kahan in FP32, a recursive float32 pairwise sum, and Fractions for the
exact dot product; the bits of one step against the arithmetic they describe."""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.formats import (
    DOT_FORMATS,
    FORMATS,
    DotInputError,
    dot_methods_for,
    dot_product,
    drawn_vectors,
    kahan_sums,
    step_bits,
)
from app.formats.dot_arithmetic import fused_add, grid, real, truncated
from app.formats.tensor_cores import TENSOR_CORES

NUMPY_FORMATS = [f for f in DOT_FORMATS if f != "tfloat32"]  # numpy and ml_dtypes have no TF32 type
SMALLEST = {f: FORMATS[f].emin - FORMATS[f].mantissa_bits for f in DOT_FORMATS}


def values(units: tuple[int, ...], format_id: str) -> np.ndarray:
    return np.ldexp(np.array(units, dtype=np.float64), SMALLEST[format_id])


def figure(format_id: str, distribution: str = "normal", n: int = 300, seed: int = 7, methods=None, **kw):
    a, b = drawn_vectors(format_id, distribution, n, seed)
    return dot_product(format_id, a.units, b.units, methods or dot_methods_for(format_id), **kw), a, b


def result(fig, method: str):
    return next(r for r in fig.results if r.method == method)


def numpy_loop(a: np.ndarray, b: np.ndarray, dtype) -> list[float]:
    """Every running sum with each product and each partial sum rounded by numpy/ml_dtypes to `dtype`."""
    total, out = None, []
    with np.errstate(over="ignore", invalid="ignore"):
        products = (a * b).astype(dtype)  # a * b is exact in float64: at most 48 significant bits
        for p in products:
            total = p if total is None else dtype.type(total + p)
            out.append(float(total))
    return out


@pytest.mark.parametrize("format_id", NUMPY_FORMATS)
@pytest.mark.parametrize("distribution", ["normal", "outliers", "lognormal"])
def test_input_format_and_fp32_accumulation_match_numpys_own_arithmetic(format_id, distribution):
    fig, a, b = figure(format_id, distribution, methods=["input_format", "fp32"])
    x, y = values(a.units, format_id), values(b.units, format_id)
    own = numpy_loop(x, y, np.dtype(getattr(ml_dtypes, format_id, format_id)))
    fp32 = np.add.accumulate((x * y).astype(np.float32)).astype(np.float64)
    for method, expected in (("input_format", own), ("fp32", fp32.tolist())):
        got = result(fig, method).value.to_float()
        assert got == expected[-1] or (math.isnan(got) and math.isnan(expected[-1])), method
        exact = np.cumsum([Fraction(p) for p in x * y])
        for k, error in zip(fig.counts, result(fig, method).running_error, strict=True):
            if math.isfinite(expected[k - 1]):
                assert error == pytest.approx(float(abs(Fraction(expected[k - 1]) - exact[k - 1])), rel=1e-12)


@pytest.mark.parametrize("format_id", DOT_FORMATS)
def test_the_exact_dot_product_is_the_fraction_sum_of_the_stored_products(format_id):
    fig, a, b = figure(format_id, "outliers", n=257)
    scale = Fraction(2) ** SMALLEST[format_id]
    exact = sum(Fraction(p) * scale * q * scale for p, q in zip(a.units, b.units, strict=True))
    assert fig.exact.fraction == exact
    for r in fig.results:
        if r.value.is_finite:
            assert r.error.fraction == r.value.fraction - exact
            assert r.rel_error == (pytest.approx(abs(float(r.error.fraction / exact))) if exact else None)


def recursive_pairwise(x: np.ndarray) -> np.float32:
    if len(x) == 1:
        return x[0]
    half = 1 << (len(x) - 1).bit_length() - 1
    return np.float32(recursive_pairwise(x[:half]) + recursive_pairwise(x[half:]))


@pytest.mark.parametrize("format_id", ["bfloat16", "tfloat32", "float32"])
def test_kahan_and_pairwise_sum_the_fp32_products_as_float32_arithmetic_does(format_id):
    fig, a, b = figure(format_id, "lognormal", n=1000)
    products = (values(a.units, format_id) * values(b.units, format_id)).astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        kahan = kahan_sums(products.astype(np.float64), FORMATS["float32"], np.array([len(products)]))[-1]
        assert result(fig, "kahan").value.to_float() == kahan
        assert result(fig, "pairwise").value.to_float() == float(recursive_pairwise(products))


def test_a_tie_in_fp16_rounds_to_even_and_is_half_an_ulp():
    """1 + 2^-11 lies halfway between FP16's 1 and 1 + 2^-10: same-format accumulation keeps 1."""
    one, tiny = 1 << 24, 1 << 13  # in units of FP16's smallest subnormal, 2^-24
    fig = dot_product("float16", [one, one], [one, tiny], ["input_format", "fp32"])
    assert result(fig, "input_format").value.fraction == 1
    assert result(fig, "input_format").ulp_error == -0.5
    assert result(fig, "fp32").error.fraction == 0 and result(fig, "fp32").ulp_error == 0


def test_promoting_every_element_is_fp32_accumulation_of_truncated_partials():
    fig, _, _ = figure("float8_e4m3fn", n=512, methods=["promoted", "fp32"], promote_every=1)
    assert result(fig, "promoted").value == result(fig, "fp32").value  # one product fits 14 bits: nothing cut


def test_a_method_that_does_not_take_the_format_is_refused_with_the_formats_it_takes():
    with pytest.raises(DotInputError, match="'v100' does not take bfloat16.*a100, h100, b200"):
        dot_product("bfloat16", [1], [1], ["v100"])


@pytest.mark.parametrize(("a", "b", "promote_every", "sentence"), [
    ([1, 2], [1], 128, "Vector a has 2 numbers and vector b 1; a dot product needs as many in each."),
    ([], [], 128, "The vectors have 0 numbers each; from 1 to 4096 are taken."),
    ([1] * 4097, [1] * 4097, 1, "The vectors have 4097 numbers each; from 1 to 4096 are taken."),
    ([1], [1], 0, "promote_every must be a whole number from 1 to 4096; 0 is not."),
    ([1], [1], 4097, "promote_every must be a whole number from 1 to 4096; 4097 is not."),
])
def test_lengths_and_promote_every_out_of_range_are_refused(a, b, promote_every, sentence):
    with pytest.raises(DotInputError) as refused:
        dot_product("float16", a, b, ["fp32"], promote_every)
    assert str(refused.value) == sentence


def test_an_unknown_method_and_a_step_out_of_range_are_refused():
    with pytest.raises(DotInputError, match="'fma' is not a dot-product method; choose from input_format, fp32"):
        dot_product("float16", [1], [1], ["fma"])
    fig = dot_product("float16", [1, 2], [1, 2], ["fp32"])
    for step in (0, 3):
        with pytest.raises(DotInputError, match=f"step runs from 1 to 2, the length of the vectors; {step} is not"):
            step_bits(fig, "fp32", step)


def test_an_unknown_format_is_refused():
    with pytest.raises(DotInputError, match="'float64' is not a format for the dot product"):
        dot_product("float64", [1], [1], ["fp32"])


@pytest.mark.parametrize("method", ["input_format", "fp32", "kahan"])
def test_a_rounded_step_adds_its_operands_exactly_and_loses_what_the_result_rounds_off(method):
    fig, _, _ = figure("bfloat16", n=64)
    step = step_bits(fig, method, 40)
    assert step is not None and step.kind == "rounded_sum" and (step.first, step.last) == (40, 40)
    assert sum(t.value.fraction for t in step.terms) == step.exact_sum.fraction
    assert step.exact_sum.fraction - step.result.fraction == step.lost.fraction
    assert all(len(t.bits) == step.columns for t in (*step.terms, step.result_bits))
    # the result ends at the cut; a sum that cancels exactly has nothing to cut
    assert step.result.fraction % Fraction(2) ** step.cut == 0 if step.cut is not None else step.result.fraction == 0


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 300), st.sampled_from(["v100", "a100", "h100", "promoted"]), st.integers(0, 2**32 - 1))
def test_a_block_step_truncates_each_term_at_its_cut_and_rounds_their_sum(step, method, seed):
    fig, _, _ = figure("float16", "lognormal", seed=seed, methods=[method], promote_every=100)
    bits = step_bits(fig, method, step)
    assert bits is not None and bits.kind == "aligned_block" and bits.first <= step <= bits.last
    unit = fig.unit
    scale = Fraction(2) ** -unit
    kept = [truncated(int(t.value.fraction * scale), bits.cut, unit) for t in bits.terms]
    assert [Fraction(k) / scale for k in kept] == [t.kept.fraction for t in bits.terms]
    adder = TENSOR_CORES[method].models["float16"].adder if method in TENSOR_CORES else None
    if adder is not None:
        assert bits.last - bits.first + 1 <= adder.block and (bits.first - 1) % adder.block == 0
        products = [int(t.value.fraction * scale) for t in bits.terms[1:]]
        exponents = fig.exponents[bits.first - 1:bits.last]
        again = fused_add(int(bits.terms[0].value.fraction * scale), products, exponents, adder, grid("float32", unit))
        assert real(again, unit) == bits.result
    assert bits.exact_sum.fraction - bits.result.fraction == bits.lost.fraction


def test_pairwise_has_no_single_step():
    fig, _, _ = figure("float16", n=16, methods=["pairwise"])
    assert step_bits(fig, "pairwise", 3) is None


@pytest.mark.parametrize(("format_id", "special"), [("float8_e4m3fn", "nan"), ("float8_e5m2", "inf")])
def test_a_product_past_the_formats_largest_overflows_by_its_own_rule(format_id, special):
    """448 × 448 in E4M3 (no infinity: NaN, as ml_dtypes) and 57344 × 57344 in E5M2 (inf); FP32 keeps both."""
    one = 2 ** -SMALLEST[format_id]  # 1, in units of the format's smallest subnormal
    largest = int(FORMATS[format_id].max * one)
    fig = dot_product(format_id, [largest, largest], [largest, one], ["input_format", "fp32"])
    own, fp32 = result(fig, "input_format"), result(fig, "fp32")
    assert own.value.exact_string() == special and own.rel_error is None and own.ulp_error is None
    assert own.running_error == (None, None)
    assert fp32.error.fraction == 0  # max² + max needs under 24 bits in both formats: FP32 holds it exactly


fp16_bits = st.integers(0, 0x7BFF).map(lambda b: b if b % 2 else b | 0x8000)  # finite FP16, both signs


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(fp16_bits, fp16_bits), min_size=1, max_size=40))
def test_fp16_input_format_accumulation_is_numpys_float16_loop(pairs):
    x = np.array([p[0] for p in pairs], dtype=np.uint16).view(np.float16).astype(np.float64)
    y = np.array([p[1] for p in pairs], dtype=np.uint16).view(np.float16).astype(np.float64)
    scale = 2.0**24  # FP16's smallest subnormal is 2^-24
    fig = dot_product("float16", [int(v * scale) for v in x], [int(v * scale) for v in y], ["input_format", "fp32"])
    expected = numpy_loop(x, y, np.dtype(np.float16))[-1]
    got = result(fig, "input_format").value.to_float()
    assert got == expected or (math.isnan(got) and math.isnan(expected))
    fp32 = float(np.add.accumulate((x * y).astype(np.float32))[-1])
    assert result(fig, "fp32").value.to_float() == fp32 or math.isnan(fp32)
