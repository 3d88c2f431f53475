"""The tensor-core models against their sources' published examples, and against an exact reference of the model
they state written here with Fractions.

The vectors and the results expected of them are those of Fasi, Higham, Mikaitis and Pranesh's test suite
(github.com/north-numerical-computing/tensor-cores-numerical-behavior), the one their PeerJ Computer Science paper
(2021) reports: each test there computes d = c + sum(a_i b_i) in one tensor-core instruction and checks d against
a constant. tc_test_numerics-V100.cu holds the V100's; tc_test_numerics-T4-A100-binary16.cu, -A100-bf16.cu and
-A100-tf32.cu the A100's.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.formats import FORMATS, TENSOR_CORES
from app.formats.dot_arithmetic import FusedAdder, fused_add, grid, real, units_of
from app.formats.dot_product import NARROW, fused_running, product_exponents, product_unit
from app.formats.tensor_cores import FP8_HOPPER

F = Fraction
TWO = Fraction(2)


def mma(core: str, format_id: str, a: list[Fraction], b: list[Fraction], c: Fraction) -> Fraction:
    """One tensor-core step d = c + a·b, as the model computes it."""
    unit, smallest = product_unit(format_id), product_unit(format_id) // 2
    fp32 = grid("float32", unit)
    adder = TENSOR_CORES[core].models[format_id].adder
    units_a, units_b = [units_of(x, smallest) for x in a], [units_of(y, smallest) for y in b]
    products = [x * y for x, y in zip(units_a, units_b, strict=True)]
    exponents = product_exponents(format_id, units_a, units_b)
    return real(fused_add(units_of(c, unit), products, exponents, adder, fp32), unit).fraction


def padded(values: list[Fraction]) -> list[Fraction]:
    return values + [F(0)] * (4 - len(values))


# (name, a, b, c, expected d): the suite's section B, C and D tests, one call each
V100 = [
    ("products are exact", [1 - TWO**-11] * 4, [1 - TWO**-11] * 4, F(0), 4 * (1 - TWO**-10 + TWO**-22)),
    ("accumulated in binary32", [F(1)] * 4, [TWO**-24] * 4, F(1), F(1)),
    ("round-down for positive values", [F(1)] * 4, padded([F(2), TWO**-23 + TWO**-24]), F(0), F(2)),
    ("round-up for negative values", [F(1)] * 4, padded([F(-2), -(TWO**-23) - TWO**-24]), F(0), F(-2)),
    ("no extra bits in the alignment", padded([F(1)]), padded([F(1)]), -(1 - TWO**-24), TWO**-23),
    ("normalization in addition", [F(1)] * 4, [TWO**-24] * 4, 1 - TWO**-24, 1 + TWO**-23),
    ("normalization in subtraction", padded([F(1), F(1)]), padded([F(1), -(TWO**-24)]), -1 + TWO**-24, TWO**-23),
    ("third carry bit", [F(1)] * 4, [F(1), F(3, 2), F(7, 4), F(15, 8)], F(15, 8), F(8)),
    ("round-down in normalization", [F(1)] * 4, [F(1)] * 4, 1 + TWO**-22 + TWO**-23, F(5)),
    ("round-up in normalization of negatives", [F(1)] * 4, [F(-1)] * 4, -1 - TWO**-22 - TWO**-23, F(-5)),
] + [
    (f"carry out, small term at {i}", [F(1)] * 4, [TWO**-23 if j == i else F(1) for j in range(4)],
     1 + TWO**-22 + TWO**-23, 4 + TWO**-21) for i in range(4)
] + [
    (f"sum starts from the largest, 1 at {j}", [F(1)] * 4, [F(1) if i == j else TWO**-24 for i in range(4)],
     TWO**-24, F(1)) for j in range(4)
]


@pytest.mark.parametrize(("name", "a", "b", "c", "expected"), V100, ids=[case[0] for case in V100])
def test_the_v100_model_gives_what_the_suite_expects_of_the_v100(name, a, b, c, expected):
    assert mma("v100", "float16", a, b, c) == expected


def test_the_v100_model_is_not_monotonic_as_the_suite_shows():
    """A larger c gives a smaller d: 1 - 2^-24 keeps the products' bits, 1 drops them."""
    a, b = [F(1)] * 4, [TWO**-24] * 4
    assert mma("v100", "float16", a, b, 1 - TWO**-24) == 1 + TWO**-23
    assert mma("v100", "float16", a, b, F(1)) == 1


# The A100's files expect the same of every test above but these, which its extra alignment bit changes
A100_CHANGED = [
    ("one extra bit in the alignment", padded([F(1)]), padded([F(1)]), -(1 - TWO**-24), TWO**-24),
    ("normalization in subtraction", padded([F(1), F(1)]), padded([F(1), -(TWO**-24)]), -1 + TWO**-24, F(0)),
    ("accumulated in binary32", [F(1, 2)] * 4, [TWO**-24] * 4, F(1), F(1)),
] + [
    (f"sum starts from the largest, 1 at {j}", [F(1) if i == j else F(1, 2) for i in range(4)],
     [F(1) if i == j else TWO**-24 for i in range(4)], TWO**-24, F(1)) for j in range(4)
]
A100_SAME = [case for case in V100 if case[0] not in {"no extra bits in the alignment", "normalization in subtraction",
                                                       "accumulated in binary32"}
             and not case[0].startswith("sum starts")]


@pytest.mark.parametrize("format_id", ["float16", "bfloat16", "tfloat32"])
@pytest.mark.parametrize(("name", "a", "b", "c", "expected"), A100_CHANGED + A100_SAME,
                         ids=[case[0] for case in A100_CHANGED + A100_SAME])
def test_the_a100_model_gives_what_the_suite_expects_of_the_a100(format_id, name, a, b, c, expected):
    spec = FORMATS[format_id]
    if any(spec.min_subnormal > abs(x) > 0 for x in a + b):
        pytest.skip(f"{format_id} cannot hold this vector's values")
    assert mma("a100", format_id, a, b, c) == expected


@pytest.mark.parametrize("format_id", ["float16", "bfloat16", "tfloat32"])
def test_the_a100_model_shows_the_suites_non_monotonic_pair(format_id):
    a, b = [F(1, 2)] * 4, [TWO**-24] * 3 + [TWO**-23 + TWO**-24]
    partial = mma("a100", format_id, a, b, 1 - TWO**-24)
    assert mma("a100", format_id, a, b, F(1)) < partial


def test_each_generation_takes_the_formats_its_source_names():
    assert set(TENSOR_CORES["v100"].models) == {"float16"}
    assert set(TENSOR_CORES["a100"].models) == {"float16", "bfloat16", "tfloat32"}
    fp8 = {"float8_e4m3fn", "float8_e5m2"}
    assert set(TENSOR_CORES["h100"].models) == {"float16", "bfloat16", "tfloat32"} | fp8
    assert fp8 <= set(TENSOR_CORES["b200"].models)
    blocks = {core: TENSOR_CORES[core].models["float16"].adder.block for core in ("v100", "a100", "h100")}
    assert blocks == {"v100": 4, "a100": 8, "h100": 16}


def test_every_model_says_where_its_parameters_come_from():
    for core in TENSOR_CORES.values():
        for model in core.models.values():
            assert model.source.strip()
            assert model.assumed is None or "ssum" in model.assumed  # "assumption", "Assumed"


def _fp8_block(adder: FusedAdder, a: list[Fraction], b: list[Fraction], promote_every: int | None = None) -> Fraction:
    unit, smallest = product_unit("float8_e4m3fn"), product_unit("float8_e4m3fn") // 2
    fp32 = grid("float32", unit)
    units_a, units_b = [units_of(x, smallest) for x in a], [units_of(y, smallest) for y in b]
    products = [x * y for x, y in zip(units_a, units_b, strict=True)]
    exponents = product_exponents("float8_e4m3fn", units_a, units_b)
    (value,), _ = fused_running(products, exponents, adder, fp32, [len(products)], promote_every)
    return real(value, unit).fraction


def test_an_fp8_block_drops_what_falls_below_the_14_bit_window():
    """DeepSeek-V3 3.3.2: about 14 bits of accumulation; MMA-Sim: 13 fraction bits. Beside 128 × 128 = 2^14 the
    window's last bit is 2^1, so products of 1 vanish; promoted to FP32 after each element, nothing is lost."""
    assert (FP8_HOPPER.window, FP8_HOPPER.output_bits, FP8_HOPPER.block) == (14, 14, 32)
    a, b = [F(128)] + [F(1)] * 31, [F(128)] + [F(1)] * 31
    assert _fp8_block(TENSOR_CORES["h100"].models["float8_e4m3fn"].adder, a, b) == 2**14
    assert _fp8_block(NARROW, a, b, promote_every=1) == 2**14 + 31


def test_hoppers_fp8_result_has_14_significant_bits_and_blackwells_24():
    """2^13 + 2^13 + 1: the window (last bit 2^0) keeps the 1; the e8m13 result then truncates 2^14 + 1 to 2^14,
    where Blackwell's FP32 result keeps it."""
    a, b = [F(64), F(64), F(1)], [F(128), F(128), F(1)]
    assert _fp8_block(TENSOR_CORES["h100"].models["float8_e4m3fn"].adder, a, b) == 2**14
    assert _fp8_block(TENSOR_CORES["b200"].models["float8_e4m3fn"].adder, a, b) == 2**14 + 1


def _exponent(x: Fraction, emin: int) -> int:
    """floor(log2 |x|) of x != 0, at least emin (a subnormal's exponent)."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if TWO**e > abs(x):
        e -= 1
    return max(e, emin)


def reference(c: Fraction, a: list[Fraction], b: list[Fraction], window: int, output_bits: int = 24) -> Fraction:
    """MMA-Sim's fused_sum and nv_fused_dot_add written with Fractions for FP16 inputs: align on the largest
    exponent (c's own, a product's its factors' added), truncate each term to window - 1 fraction bits below it,
    add, and truncate the sum to `output_bits` significant bits (subnormals from 2^-126)."""
    terms = [(c, _exponent(c, -126))] if c else []
    terms += [(x * y, _exponent(x, -14) + _exponent(y, -14)) for x, y in zip(a, b, strict=True) if x and y]
    if not terms:
        return F(0)
    step = TWO ** (max(e for _, e in terms) - window + 1)
    total = sum(((abs(t) // step) * step * (1 if t > 0 else -1) for t, _ in terms), F(0))
    if total == 0:
        return F(0)
    ulp = TWO ** (_exponent(abs(total), -126) - output_bits + 1)
    return (abs(total) // ulp) * ulp * (1 if total > 0 else -1)


fp16_values = st.integers(-2048, 2048).flatmap(
    lambda m: st.integers(-24, 5).map(lambda e: F(m) * TWO**e))


@settings(max_examples=300, deadline=None)
@given(st.lists(fp16_values, min_size=8, max_size=8), st.lists(fp16_values, min_size=8, max_size=8),
       st.integers(-2**24, 2**24).flatmap(lambda m: st.integers(-40, 10).map(lambda e: F(m) * TWO**e)))
def test_the_fused_adder_agrees_with_an_exact_reference(a, b, c):
    unit, smallest = product_unit("float16"), product_unit("float16") // 2
    fp32 = grid("float32", unit)
    units_a, units_b = [units_of(x, smallest) for x in a], [units_of(y, smallest) for y in b]
    products = [x * y for x, y in zip(units_a, units_b, strict=True)]
    exponents = product_exponents("float16", units_a, units_b)
    for window, output_bits in ((24, 24), (25, 24), (26, 24), (14, 14)):
        adder = FusedAdder(8, window, output_bits)
        got = fused_add(units_of(c, unit), products, exponents, adder, fp32)
        assert real(got, unit).fraction == reference(c, a, b, window, output_bits)
