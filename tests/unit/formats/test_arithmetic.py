"""The arithmetic core against an independent reference: numpy's float64 operation, then ml_dtypes' cast.

For +, −, × of two FP8 values float64 is exact; for ÷ and √ its one rounding before the cast is innocuous, since
53 ≥ 2p + 2 for every p ≤ 11 (Figueroa, "When is double rounding innocuous?", SIGNUM Newsletter 30(3), 1995): so
float64-then-cast is the correctly rounded result, and every pair of FP8 operands is checked for every operation.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from app.formats import Real, decode, encode, get_format, parse_number
from app.formats.arithmetic import OPERATIONS, apply, operate, operation
from app.formats.arithmetic_chain import MAX_STEPS, parse_chain_step, run_chain
from app.formats.parse import InputError

# patterns that are NaN, cast to float64 for the reference, warn; they are meant
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning",
                                        "ignore:overflow encountered in cast:RuntimeWarning")

NUMPY_OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}


def _stored(format_id: str) -> tuple[np.ndarray, list]:
    spec = get_format(format_id)
    patterns = np.arange(1 << spec.bits, dtype=np.uint16 if spec.bits > 8 else np.uint8)
    values = patterns.view(getattr(ml_dtypes, format_id)).astype(np.float64)
    return values, [encode(spec, decode(spec, int(b)).value) for b in patterns]


def _same(ours: Real, theirs: float) -> bool:
    if math.isnan(theirs):
        return ours.kind == "nan"
    return ours.to_float() == theirs and ours.negative == (math.copysign(1.0, theirs) < 0)


@pytest.mark.parametrize("format_id", ["float8_e4m3fn", "float8_e5m2"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_every_pair_of_fp8_operands_rounds_as_float64_then_ml_dtypes(format_id: str, op: str):
    spec, dtype = get_format(format_id), getattr(ml_dtypes, format_id)
    values, stored = _stored(format_id)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = NUMPY_OPS[op](values[:, None], values[None, :]).astype(dtype).astype(np.float64)
    wrong = [(i, j) for i in range(len(stored)) for j in range(len(stored))
             if not _same(apply(operation(op), (stored[i], stored[j]), spec, "nearest_even", "format_default",
                                None).result.encoding.value, float(expected[i, j]))]
    assert wrong == []


@pytest.mark.parametrize("format_id", ["float8_e4m3fn", "float8_e5m2", "float16", "bfloat16"])
def test_every_square_root_rounds_as_float64_then_ml_dtypes(format_id: str):
    spec, dtype = get_format(format_id), getattr(ml_dtypes, format_id, None) or np.float16
    values, stored = _stored(format_id) if spec.bits == 8 else _stored_wide(format_id)
    with np.errstate(all="ignore"):
        expected = np.sqrt(values).astype(dtype).astype(np.float64)
    wrong = [i for i, s in enumerate(stored)
             if not _same(apply("sqrt", (s,), spec, "nearest_even", "format_default", None).result.encoding.value,
                          float(expected[i]))]
    assert wrong == []


def _stored_wide(format_id: str) -> tuple[np.ndarray, list]:
    spec = get_format(format_id)
    patterns = np.arange(1 << 16, dtype=np.uint16)
    dtype = np.float16 if format_id == "float16" else getattr(ml_dtypes, format_id)
    values = patterns.view(dtype).astype(np.float64)
    return values, [encode(spec, decode(spec, int(b)).value) for b in patterns]


@pytest.mark.parametrize("format_id", ["float16", "bfloat16"])
def test_random_fma_of_16_bit_values_where_float64_holds_it_exactly(format_id: str):
    """fma's one rounding, where float64 computes a × b + c exactly (checked with Fractions) so its cast is the one.

    ml_dtypes 0.6 casts float64 to bfloat16 by way of float32: -1372159.9999991842 becomes -1376256 (float32 rounds
    it to the tie -1372160 first), where the correctly rounded bfloat16 is -1368064. So bfloat16 is checked only
    where float32 holds the float64 sum exactly."""
    spec = get_format(format_id)
    dtype = np.float16 if format_id == "float16" else ml_dtypes.bfloat16
    rng = np.random.default_rng(24)
    triples = rng.integers(0, 1 << 16, size=(16000, 3), dtype=np.uint16)
    checked = 0
    for a, b, c in triples.view(dtype).astype(np.float64):
        if not all(map(math.isfinite, (a, b, c))):
            continue
        wide = a * b + c
        if not math.isfinite(wide) or Fraction(wide) != Fraction(a) * Fraction(b) + Fraction(c):
            continue
        if format_id == "bfloat16" and float(np.float32(wide)) != wide:
            continue  # ml_dtypes casts float64 to bfloat16 through float32, a second rounding (see below)
        ours = operate("fma", (Real.of_float(a), Real.of_float(b), Real.of_float(c)), spec).result.encoding.value
        assert _same(ours, float(np.float64(wide).astype(dtype))), (a, b, c)
        checked += 1
    assert checked > 1000


def test_fp16_times_fp16_to_fp32_is_always_exact():
    """A product of two 11-bit significands has at most 22 bits, and FP16's range squared is inside FP32's."""
    f16, f32 = get_format("float16"), get_format("float32")
    rng = np.random.default_rng(7)
    for a, b in rng.integers(0, 0x7C00, size=(3000, 2)):  # finite positive patterns
        x, y = decode(f16, int(a)).value, decode(f16, int(b)).value
        done = operate("mul", (x, y), f16, f32)
        assert done.flags == () and done.result.encoding.value == Real.of(x.fraction * y.fraction)


def _flags(op: str, *values: str, fmt: str = "float16", result: str | None = None, rounding="nearest_even"):
    return operate(op, tuple(parse_number(v) for v in values), get_format(fmt),
                   result and get_format(result), rounding).flags


@pytest.mark.parametrize(("op", "values", "fmt", "flags"), [
    ("mul", ("10000", "10000"), "float16", ("inexact", "overflow")),  # 10^8 > 65504
    ("add", ("65504", "8"), "float16", ("inexact",)),  # below the overflow threshold 65520: rounds back to max
    ("add", ("65504", "16"), "float16", ("inexact", "overflow")),  # 65520, a tie, goes to even 2^16: beyond max
    ("add", ("1", "0x1p-11"), "float16", ("inexact",)),  # a tie, to even: 1
    ("add", ("1", "0x1p-10"), "float16", ()),  # 1 + ulp: exact
    ("add", ("inf", "-inf"), "float16", ("invalid",)),
    ("mul", ("0", "inf"), "float16", ("invalid",)),
    ("div", ("0", "0"), "float16", ("invalid",)),
    ("div", ("inf", "-inf"), "float16", ("invalid",)),
    ("sqrt", ("-1",), "float16", ("invalid",)),
    ("div", ("1", "0"), "float16", ("divide_by_zero",)),
    ("div", ("1", "inf"), "float16", ()),
    ("add", ("nan", "1"), "float16", ()),  # a quiet NaN passes through without a flag
    ("mul", ("0x1p-13", "0x1p-13"), "float16", ("inexact", "underflow")),  # 2^-26: below half of 2^-24, to 0
    ("mul", ("0x1p-7", "0x1p-8"), "float16", ()),  # 2^-15 is an exact subnormal: tiny but exact, no flag
    ("sqrt", ("4",), "float16", ()),
    ("sqrt", ("2",), "float16", ("inexact",)),
    ("mul", ("448", "2"), "float8_e4m3fn", ("inexact", "overflow")),  # to NaN: E4M3FN has no inf
    ("mul", ("6", "2"), "float4_e2m1fn", ("inexact", "overflow")),  # saturates to 6
    ("add", ("100", "100"), "int8", ("inexact", "overflow")),  # wraps around, as a cast does
])
def test_flags_follow_ieee_754(op, values, fmt, flags):
    assert _flags(op, *values, fmt=fmt) == flags


def test_mul_0x1p_12_squared_is_the_smallest_subnormal_exactly():
    """2^-12 × 2^-12 = 2^-24, FP16's smallest subnormal: exact, so no flag (the table's entry checks a rounding)."""
    assert _flags("mul", "0x1p-12", "0x1p-12") == ()


def test_tininess_is_detected_after_rounding():
    """2^-14 − 2^-26 (an FP32 value) is below FP16's smallest normal 2^-14, but rounded to 11 bits with no bound on
    the exponent it is a tie that goes up to 2^-14: not tiny, so inexact alone. 2^-14 − 2^-25 has 11 bits: tiny,
    and stored inexactly (a tie on the subnormal grid, up to 2^-14): underflow."""
    assert _flags("mul", "0x1.ffep-15", "1", fmt="float32", result="float16") == ("inexact",)
    assert _flags("mul", "0x1.ffcp-15", "1", fmt="float32", result="float16") == ("inexact", "underflow")
    assert _flags("mul", "0x1.ffcp-15", "1", fmt="float32", result="float16", rounding="toward_zero") == (
        "inexact", "underflow")


def test_signed_zeros_follow_section_6_3():
    f16 = get_format("float16")
    assert operate("add", (parse_number("1"), parse_number("-1")), f16).result.encoding.value == Real(False)
    assert operate("add", (parse_number("1"), parse_number("-1")), f16, rounding="toward_negative"
                   ).result.encoding.value == Real(True)
    assert operate("add", (parse_number("-0"), parse_number("-0")), f16).result.encoding.value == Real(True)
    assert operate("sqrt", (parse_number("-0"),), f16).result.encoding.value == Real(True)
    assert operate("mul", (parse_number("-0"), parse_number("5")), f16).result.encoding.value == Real(True)


def test_fma_rounds_once_where_mul_then_add_rounds_twice():
    """(1 + 2^-10)(1 − 2^-10) − 1 = −2^-20 exactly; in FP16 the product rounds to 1 first, leaving 0."""
    f16 = get_format("float16")
    a, b, minus_one = parse_number("0x1.004p0"), parse_number("0x1.ff8p-1"), parse_number("-1")
    fused = operate("fma", (a, b, minus_one), f16)
    assert fused.result.encoding.value == Real.of(Fraction(-1, 2**20)) and fused.flags == ()
    product = operate("mul", (a, b), f16).result.encoding.value
    assert operate("add", (product, minus_one), f16).result.encoding.value == Real(False)


def test_square_roots_are_correctly_rounded_in_every_mode():
    """Against the integer square root: floor and ceiling of sqrt(2)·2^k bracket the true root."""
    f32 = get_format("float32")
    for text in ("2", "3", "0x1.fffffep127", "0x1p-149", "0.1"):
        x = parse_number(text)
        stored = encode(f32, x).encoding.value.fraction
        for mode, pick in (("toward_zero", "low"), ("toward_negative", "low"), ("toward_positive", "high")):
            got = operate("sqrt", (Real.of(stored),), f32, rounding=mode).result.encoding.value.fraction
            low = _floor_root(stored)
            assert got == (low if pick == "low" or low * low == stored else _next_up32(low)), (text, mode)


def _floor_root(x: Fraction) -> Fraction:
    """The largest FP32 value whose square is at most x (x within FP32's normal range)."""
    lo, hi = np.float32(0), np.float32(np.finfo(np.float32).max)
    while np.nextafter(lo, hi) < hi:
        mid = np.float32((float(lo) + float(hi)) / 2)
        if mid in (lo, hi):
            mid = np.nextafter(lo, hi)
        if Fraction(float(mid)) ** 2 <= x:
            lo = mid
        else:
            hi = mid
    return Fraction(float(lo)) if Fraction(float(hi)) ** 2 > x else Fraction(float(hi))


def _next_up32(x: Fraction) -> Fraction:
    return Fraction(float(np.nextafter(np.float32(float(x)), np.float32(np.inf))))


def test_an_unknown_operation_is_refused_with_the_ones_there_are():
    with pytest.raises(InputError, match="Unknown operation 'pow'; choose one of: " + ", ".join(OPERATIONS)):
        operation("pow")


def test_a_chain_rounds_each_step_and_the_exact_chain_does_not():
    """Swamping: 1 + 2^-11 in FP16 is a tie that goes back to 1, eight times over; exactly, it is 1 + 2^-8."""
    f16 = get_format("float16")
    chain = run_chain(parse_number("1"), tuple(parse_chain_step("add:0x1p-11") for _ in range(8)), f16)
    assert [s.result.encoding.value for s in chain.steps] == [Real.of(1)] * 8
    assert all(s.flags == ("inexact",) for s in chain.steps)
    assert chain.exact[-1].value == Real.of(1 + Fraction(1, 2**8)) and chain.exact[-1].rational


def test_a_chain_in_two_orders_shows_that_addition_is_not_associative():
    """In FP32, (2^24 + 1) − 2^24 is 0 (2^24 + 1 is a tie that goes to 2^24) but (2^24 − 2^24) + 1 is 1."""
    f32 = get_format("float32")
    big = "16777216"
    first = run_chain(parse_number(big), (parse_chain_step("add:1"), parse_chain_step(f"sub:{big}")), f32)
    second = run_chain(parse_number(big), (parse_chain_step(f"sub:{big}"), parse_chain_step("add:1")), f32)
    assert first.result.encoding.value == Real(False) and second.result.encoding.value == Real.of(1)
    assert first.exact[-1].value == second.exact[-1].value == Real.of(1)


def test_one_nan_spoils_every_step_after_it():
    f16 = get_format("float16")
    chain = run_chain(parse_number("inf"), tuple(map(parse_chain_step, ("sub:inf", "add:1", "mul:0"))), f16)
    assert [s.flags for s in chain.steps] == [("invalid",), (), ()]
    assert all(s.result.encoding.value.kind == "nan" for s in chain.steps)


@pytest.mark.parametrize(("text", "sentence"), [
    ("pow:2", "Unknown operation 'pow'"),
    ("fma:2", "A chain's step takes the running value and one operand"),
    ("add", "Each step of a chain but sqrt needs one operand"),
    ("sqrt:2", "Each step of a chain but sqrt needs one operand"),
    ("add:zz", "zz"),
])
def test_a_step_that_cannot_be_read_is_refused_with_a_sentence(text: str, sentence: str):
    with pytest.raises(InputError, match=sentence):
        parse_chain_step(text)


def test_a_chain_longer_than_its_limit_is_refused():
    steps = tuple(parse_chain_step("add:1") for _ in range(MAX_STEPS + 1))
    with pytest.raises(InputError, match=f"at most {MAX_STEPS} steps"):
        run_chain(parse_number("0"), steps, get_format("float16"))


@pytest.mark.parametrize(("op", "values", "fmt"), [
    ("sub", ("2", "4"), "float8_e8m0fnu"),  # −2: E8M0 has no negatives
    ("sub", ("4", "4"), "float8_e8m0fnu"),  # 0: nor a zero
])
def test_a_number_stored_as_nan_for_want_of_a_value_is_invalid(op, values, fmt):
    done = operate(op, tuple(map(parse_number, values)), get_format(fmt))
    assert done.result.encoding.value.kind == "nan" and done.flags == ("invalid",)


def test_an_infinity_in_a_format_without_one_is_invalid():
    done = operate("div", (parse_number("1"), parse_number("0")), get_format("float16"), get_format("float8_e4m3fn"))
    assert done.result.encoding.value.kind == "nan" and done.flags == ("invalid", "divide_by_zero")
