"""Summation in a format, held to references built from exact arithmetic and the exact codec.

Every reference adds two values as Fractions and rounds the exact sum with app.formats.encode (nearest-even, the
format's own overflow), one operation at a time in the plain order of each method's definition; none uses numpy's
or ml_dtypes' arithmetic.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from app.formats import (
    FORMATS,
    SUMMABLE_FORMATS,
    NotSummableError,
    encode,
    exact_prefix_sums,
    fp32_running_sums,
    kahan_sums,
    naive_running_sums,
    pairwise_sums,
    stall_step,
    sum_values,
    summable,
)
from app.formats.exact import Real
from app.formats.vector import round_to_format


def _real(v: float) -> Real:
    if math.isnan(v):
        return Real.nan()
    if math.isinf(v):
        return Real.inf(v < 0)
    return Real(math.copysign(1.0, v) < 0, abs(Fraction(v)))


@cache
def _rounded(format_id: str, exact: Fraction | float) -> float:
    """The exact value stored in the format, as a float (every summable format's values are float64 values)."""
    if isinstance(exact, float):  # inf or NaN: the codec stores it as the format does
        return encode(FORMATS[format_id], _real(exact)).encoding.value.to_float()
    return encode(FORMATS[format_id], Real.of(exact)).encoding.value.to_float()


def _op(format_id: str, a: float, b: float, subtract: bool = False) -> float:
    """a + b (or a − b) exactly, then rounded to the format: one operation of the format's arithmetic."""
    if math.isfinite(a) and math.isfinite(b):
        exact = Fraction(a) - Fraction(b) if subtract else Fraction(a) + Fraction(b)
        return _rounded(format_id, exact)
    return _rounded(format_id, a - b if subtract else a + b)


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def _values(format_id: str, n: int, seed: int, scale: float = 1.0, kind: str = "normal") -> np.ndarray:
    rng = np.random.default_rng(seed)
    drawn = {"normal": rng.standard_normal, "uniform": rng.random, "lognormal": lambda k: rng.lognormal(0, 2, k)}
    values = round_to_format(drawn[kind](n) * scale, FORMATS[format_id], saturate=True)
    return values.astype(np.float64)


def _naive_reference(format_id: str, values: np.ndarray) -> list[float]:
    total, out = 0.0, []
    for i, x in enumerate(values.tolist()):
        total = x if i == 0 else _op(format_id, total, x)
        out.append(total)
    return out


def _pairwise_reference(format_id: str, values: list[float]) -> float:
    if len(values) == 1:
        return values[0]
    half = 1 << ((len(values) - 1).bit_length() - 1)  # the largest power of two below len(values)
    return _op(format_id, _pairwise_reference(format_id, values[:half]), _pairwise_reference(format_id, values[half:]))


def _kahan_reference(format_id: str, values: np.ndarray) -> list[float]:
    total = compensation = 0.0
    out = []
    for x in values.tolist():
        y = _op(format_id, x, compensation, subtract=True)
        t = _op(format_id, total, y)
        compensation = _op(format_id, _op(format_id, t, total, subtract=True), y, subtract=True)
        total = t
        out.append(total)
    return out


# (format, scale, kind): ordinary values, and values whose sums overflow (inf, or NaN for the fn format)
CASES = [(f, 1.0, "normal") for f in SUMMABLE_FORMATS] + [(f, 1.0, "uniform") for f in SUMMABLE_FORMATS] + [
    ("float16", 3000.0, "uniform"), ("float8_e4m3fn", 40.0, "uniform"), ("float8_e5m2", 2000.0, "uniform"),
    ("bfloat16", 1.0, "lognormal"), ("float8_e4m3fn", 1.0, "lognormal"),
]
N = 300


@pytest.mark.parametrize(("format_id", "scale", "kind"), CASES)
def test_same_format_accumulation_rounds_every_partial_sum(format_id: str, scale: float, kind: str) -> None:
    values = _values(format_id, N, 1, scale, kind)
    got = naive_running_sums(values, FORMATS[format_id]).tolist()
    assert all(_same(a, b) for a, b in zip(got, _naive_reference(format_id, values), strict=True))


@pytest.mark.parametrize(("format_id", "scale", "kind"), [case for case in CASES if case[0] != "float64"])
def test_fp32_accumulation_rounds_only_to_fp32(format_id: str, scale: float, kind: str) -> None:
    values = _values(format_id, N, 2, scale, kind)
    got = fp32_running_sums(values).tolist()
    assert all(_same(a, b) for a, b in zip(got, _naive_reference("float32", values), strict=True))


@pytest.mark.parametrize(("format_id", "scale", "kind"), CASES)
def test_pairwise_matches_the_recursive_definition_at_every_length(format_id: str, scale: float, kind: str) -> None:
    values = _values(format_id, 130, 3, scale, kind)
    counts = np.arange(1, len(values) + 1)
    got = pairwise_sums(values, FORMATS[format_id], counts).tolist()
    want = [_pairwise_reference(format_id, values[:k].tolist()) for k in counts]
    assert all(_same(a, b) for a, b in zip(got, want, strict=True))


@pytest.mark.parametrize(("format_id", "scale", "kind"), CASES)
def test_kahan_matches_the_textbook_loop(format_id: str, scale: float, kind: str) -> None:
    values = _values(format_id, N, 4, scale, kind)
    counts = np.array([1, 2, 7, 100, 299, 300])
    got = kahan_sums(values, FORMATS[format_id], counts).tolist()
    want = _kahan_reference(format_id, values)
    assert all(_same(a, want[k - 1]) for a, k in zip(got, counts.tolist(), strict=True))


@pytest.mark.parametrize(("format_id", "kind"), [("float8_e4m3fn", "uniform"), ("float8_e5m2", "uniform"),
                                                 ("float8_e4m3fn", "lognormal")])
def test_kahan_steps_over_a_state_that_stopped_changing_exactly(format_id: str, kind: str) -> None:
    # long enough that the loop finds its state unchanged for a whole chunk and steps over the rest
    values = _values(format_id, 9000, 5, 1.0, kind)
    counts = np.array([1, 2048, 4096, 4097, 6000, 9000])
    got = kahan_sums(values, FORMATS[format_id], counts).tolist()
    want = _kahan_reference(format_id, values)
    assert all(_same(a, want[k - 1]) for a, k in zip(got, counts.tolist(), strict=True))


def test_exact_prefix_sums_are_exact() -> None:
    rng = np.random.default_rng(6)
    values = np.concatenate([rng.standard_normal(500), rng.standard_normal(200) * 1e-300, [5e-324, -5e-324],
                             rng.standard_normal(100) * 1e300, [0.0, -0.0, 1.0, 2.0**-1074]])
    rng.shuffle(values)
    counts = np.array([1, 2, 3, 50, 400, 799, len(values)])
    want = [sum((Fraction(v) for v in values[:k].tolist()), Fraction(0)) for k in counts]
    assert exact_prefix_sums(values, counts) == want


def test_exact_prefix_sums_refuse_non_finite_values() -> None:
    with pytest.raises(ValueError, match="finite"):
        exact_prefix_sums(np.array([1.0, math.inf]), np.array([2]))


@pytest.mark.parametrize("format_id", SUMMABLE_FORMATS[2:])
def test_ones_stall_where_the_spacing_reaches_two(format_id: str) -> None:
    # with p significant bits the spacing at 2^p is 2, so 2^p + 1 is a tie that rounds back to 2^p (even)
    spec = FORMATS[format_id]
    stall_at = 2 ** (spec.mantissa_bits + 1)
    running = naive_running_sums(np.ones(3 * stall_at), spec)
    assert stall_step(running) == stall_at
    assert running[-1] == stall_at


def test_bf16_stalls_near_256_summing_uniform_values() -> None:
    values = _values("bfloat16", 10_000, 0, kind="uniform")
    running = naive_running_sums(values, FORMATS["bfloat16"])
    step = stall_step(running)
    assert step is not None and step < 1000
    assert running[step - 1] == running[-1] == 256.0
    assert running[step - 2] != 256.0


def test_stall_step_is_none_while_the_sum_still_moves_or_overflowed() -> None:
    assert stall_step(np.array([1.0, 2.0, 3.0])) is None
    assert stall_step(np.array([1.0, math.inf, math.inf])) is None
    assert stall_step(np.array([1.0, 2.0, 2.0])) == 2


def test_kahan_beats_same_format_accumulation() -> None:
    spec = FORMATS["bfloat16"]
    values = _values("bfloat16", 10_000, 0, kind="uniform")
    exact = float(exact_prefix_sums(values, np.array([len(values)]))[0])
    naive, _fp32, pairwise, kahan = (s.result for s in sum_values(values, spec, np.array([len(values)]),
                                                                  ("naive", "fp32", "pairwise", "kahan")))
    assert abs(kahan - exact) < abs(naive - exact) / 100
    assert abs(pairwise - exact) < abs(naive - exact) / 100


def test_fp32_accumulation_rounds_its_final_sum_to_the_format() -> None:
    spec = FORMATS["bfloat16"]
    values = np.ones(1001)
    (summed,) = sum_values(values, spec, np.array([1001]), ("fp32",))
    assert summed.at_counts[-1] == 1001  # the FP32 accumulator holds it
    assert summed.result == _rounded("bfloat16", Fraction(1001)) == 1000  # BF16 cannot: 1001 is a tie, to even


def test_formats_and_methods_outside_the_figure_are_refused() -> None:
    with pytest.raises(NotSummableError, match="float16"):
        summable("nf4")
    with pytest.raises(NotSummableError, match="narrower"):
        sum_values(np.ones(2), FORMATS["float64"], np.array([2]), ("fp32",))
    with pytest.raises(NotSummableError, match="not a summation method"):
        sum_values(np.ones(2), FORMATS["float16"], np.array([2]), ("sorted",))
