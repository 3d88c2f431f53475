"""The facts the guides and the quiz teach about the edges of formats, computed with the codec and checked
against the libraries that do the casts: ml_dtypes always, PyTorch where it is installed (the [torch] extra)."""

from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from app.formats import Real, encode, get_format, parse_number, ulp
from app.formats.blocks import quantize_blocks

FP32_MAX = (2 - Fraction(1, 2**23)) * 2**127


def stored(format_id: str, x: Fraction | str, overflow: str = "format_default") -> Real:
    value = parse_number(x) if isinstance(x, str) else Real.of(x)
    return encode(get_format(format_id), value, overflow=overflow).encoding.value


def gap(format_id: str, x: Fraction) -> Fraction | None:
    return ulp(encode(get_format(format_id), Real.of(x)).encoding)


def float32_between(low: float, high: float) -> np.ndarray:
    """Every FP32 value in [low, high]: there are about a million between 448 and 470."""
    first, last = np.array([low, high], dtype=np.float32).view(np.uint32)
    return np.arange(first, last + 1, dtype=np.uint32).view(np.float32)


# -- E4M3: (448, 464] rounds to 448; past 464 ml_dtypes gives NaN, PyTorch saturates -----------------


def test_e4m3_rounds_everything_up_to_464_to_448_and_only_past_it_overflows() -> None:
    assert get_format("float8_e4m3fn").max == 448
    assert stored("float8_e4m3fn", "464") == Real.of(448)  # the midpoint of 448 and 480 ties to the even 448
    assert stored("float8_e4m3fn", "464.0001").kind == "nan"
    assert stored("float8_e4m3fn", "464.0001", overflow="saturate") == Real.of(448)
    note = encode(get_format("float8_e4m3fn"), parse_number("500")).note or ""
    assert "ml_dtypes' cast gives NaN" in note and "(since PyTorch 2.12)" in note and "Transformer Engine" in note
    values = float32_between(448.0, 470.0)
    cast = values.astype(ml_dtypes.float8_e4m3fn).astype(np.float32)
    assert np.all(cast[values <= 464] == 448)
    assert np.all(np.isnan(cast[values > 464]))
    for x in values[:: 4096]:
        ours = stored("float8_e4m3fn", Fraction(float(x)))
        assert (ours.kind == "nan") == bool(np.isnan(np.float32(x).astype(ml_dtypes.float8_e4m3fn)))


def test_pytorch_saturates_e4m3_where_ml_dtypes_gives_nan() -> None:
    torch = pytest.importorskip("torch")
    # the site says PyTorch saturates "since PyTorch 2.12": this runs the pinned version, which must be one of those
    assert tuple(int(part) for part in torch.__version__.split("+")[0].split(".")[:2]) >= (2, 12)
    values = [465.0, 500.0, 1e4, float("inf"), -465.0, -1e4, -float("inf")]
    cast = torch.tensor(values).to(torch.float8_e4m3fn).float().tolist()
    saturated = [stored("float8_e4m3fn", Fraction(v) if abs(v) != float("inf") else FP32_MAX * (1 if v > 0 else -1),
                        overflow="saturate").to_float() for v in values]
    assert cast == saturated == [448.0, 448.0, 448.0, 448.0, -448.0, -448.0, -448.0]
    assert all(np.isnan(np.array(values, dtype=np.float32).astype(ml_dtypes.float8_e4m3fn).astype(np.float32)))
    # E4M3 FNUZ is not saturated by PyTorch's cast, and E5M2 overflows to inf in both libraries
    assert torch.tensor([1e4]).to(torch.float8_e4m3fnuz).float().isnan().all()
    assert torch.tensor([1e5]).to(torch.float8_e5m2).float().isinf().all()
    assert stored("float8_e5m2", "1e5").kind == "inf"


# -- FP16 underflow: only values up to 2^-25 become zero ---------------------------------------------------


def test_fp16_rounds_to_zero_only_up_to_half_its_smallest_subnormal() -> None:
    tiny = get_format("float16").min_subnormal
    assert tiny == Fraction(1, 2**24)
    assert stored("float16", Fraction(1, 2**25)).is_zero  # the tie goes to the even neighbour, 0
    assert stored("float16", Fraction(1, 2**25) * (1 + Fraction(1, 2**40))) == Real.of(tiny)
    assert stored("float16", Fraction(3, 2**26)) == Real.of(tiny)  # between 2^-25 and 2^-24: rounds up
    values = np.array([2.0**-26, 2.0**-25, 2.0**-25 * 1.0001, 2.0**-24.5, 2.0**-24])
    assert values.astype(np.float16).astype(np.float64).tolist() == [0.0, 0.0, 2.0**-24, 2.0**-24, 2.0**-24]


# -- TF32 and BF16 take FP32 values in, but not all of them ---------------------------------------------------


@pytest.mark.parametrize("format_id", ["tfloat32", "bfloat16"])
def test_fp32_max_overflows_to_inf_in_tf32_and_bf16(format_id: str) -> None:
    spec = get_format(format_id)
    assert spec.max < FP32_MAX
    assert stored(format_id, FP32_MAX).kind == "inf"
    halfway = spec.max + ulp(encode(spec, Real.of(spec.max)).encoding) / 2  # ties go to inf, the even side
    assert stored(format_id, halfway).kind == "inf"
    assert stored(format_id, halfway - Fraction(1, 2**200)) == Real.of(spec.max)
    assert halfway == (2 - Fraction(1, 2 ** (spec.mantissa_bits + 1))) * 2**127


def test_bf16_cast_of_fp32_max_is_inf_in_ml_dtypes_too() -> None:
    assert np.isinf(np.float32(np.finfo(np.float32).max).astype(ml_dtypes.bfloat16))


def test_tf32_flushes_fp32_subnormals_at_or_below_2_to_the_minus_137() -> None:
    spec = get_format("tfloat32")
    assert spec.min_subnormal == Fraction(1, 2**136)
    assert get_format("float32").min_subnormal == Fraction(1, 2**149)
    assert stored("tfloat32", Fraction(1, 2**137)).is_zero
    assert stored("tfloat32", Fraction(1, 2**137) + Fraction(1, 2**149)) == Real.of(spec.min_subnormal)


# -- The spacing doubles at each power of two only where the format reaches it -------------------------------


@pytest.mark.parametrize(("format_id", "reaches_1024"), [
    ("float32", True), ("float16", True), ("bfloat16", True), ("float8_e5m2", True),
    ("float8_e4m3fn", False), ("float8_e3m4", False), ("float6_e2m3fn", False), ("float6_e3m2fn", False),
    ("float4_e2m1fn", False),
])
def test_the_gap_at_1024_is_1024_times_the_gap_at_1_only_where_1024_is_in_range(format_id, reaches_1024):
    spec = get_format(format_id)
    assert (spec.max >= 1024) == reaches_1024
    if reaches_1024:
        assert gap(format_id, Fraction(1024)) == 1024 * gap(format_id, Fraction(1))


@pytest.mark.parametrize("format_id", ["float16", "float8_e4m3fn", "float8_e5m2"])
def test_the_gap_is_the_smallest_subnormal_through_the_first_normal_binade(format_id: str) -> None:
    spec = get_format(format_id)
    assert spec.min_subnormal is not None and spec.min_normal is not None
    for value in (spec.min_subnormal, spec.min_normal / 2, spec.min_normal, 2 * spec.min_normal - spec.min_subnormal):
        assert gap(format_id, value) == spec.min_subnormal
    assert gap(format_id, 2 * spec.min_normal) == 2 * spec.min_subnormal


# -- NF4: only exact zeros are stored without error ----------------------------------------------------------


def test_nf4_stores_exact_zeros_without_error_but_not_the_weights_near_zero() -> None:
    values = [1.0, 0.0, 0.0, 0.01, -0.02, 0.5] + [0.3] * 58
    result = quantize_blocks(values, "nf4")
    assert result.dequantized[1] == result.dequantized[2] == 0.0
    near_zero = result.dequantized[3:5]
    assert np.all(near_zero == 0.0) and np.all(np.abs(near_zero - np.array([0.01, -0.02])) > 0)
