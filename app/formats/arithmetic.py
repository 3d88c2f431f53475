"""One operation on stored values, as IEEE 754 defines it: the operands are stored in their format first (rounded
on entry, as encode stores a typed value), the operation is carried out exactly on the stored values, and the exact
result is rounded once to the result format with the chosen mode and that format's overflow rule (encode again).

Exact means rational: add, sub, mul, div and fma are Fractions. A square root is rational only for squares; for the
others it is known to `_SQRT_GUARD_BITS` bits past the result format's finest step, and rounded from a stand-in strictly
inside the interval that holds the true root, which no rounding boundary splits (so the rounding is correct in every
mode, and a stochastic draw errs by less than 2^-64). The flags are IEEE 754-2019's (section 7), with tininess
detected after rounding, as x86's SSE and RISC-V do.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import isqrt
from typing import Literal, cast, get_args

from app.formats.codec import encode_drawn
from app.formats.encoding import Rounded
from app.formats.exact import Real
from app.formats.parse import InputError
from app.formats.rounding import OverflowPolicy, Rounding, StochasticDraw, magnitude_rounds_up, seeded_draw
from app.formats.spec import FormatSpec
from app.messages import N_
from app.refusal import quoted

Op = Literal["add", "sub", "mul", "div", "sqrt", "fma"]
OPERATIONS: tuple[str, ...] = get_args(Op)
ARITY = {"add": 2, "sub": 2, "mul": 2, "div": 2, "sqrt": 1, "fma": 3}
SYMBOLS = {"add": "+", "sub": "−", "mul": "×", "div": "/"}
Flag = Literal["inexact", "underflow", "overflow", "invalid", "divide_by_zero"]
FLAGS: tuple[str, ...] = get_args(Flag)
# Why an exact result is NaN or infinite though no operand is (the rule sentences name each)
Special = Literal["nan_operand", "inf_minus_inf", "zero_times_inf", "zero_over_zero", "inf_over_inf",
                  "sqrt_negative", "divide_by_zero"]
_SQRT_GUARD_BITS = 70


def operation(name: str) -> Op:
    """The operation of this name; InputError, with the operations there are, for any other name."""
    if name not in OPERATIONS:
        raise InputError(template=N_("Unknown operation %(input)s; choose one of: %(ops)s."),
                         params={"input": quoted(name[:40]), "ops": ", ".join(OPERATIONS)})
    return cast(Op, name)


@dataclass(frozen=True)
class Exact:
    """The exact result of an operation on stored values: a Real (a stand-in for an irrational root, `rational`
    False), and the rule that made it NaN or infinite where no operand was."""

    value: Real
    rational: bool = True
    special: Special | None = None


@dataclass(frozen=True, kw_only=True)
class Operated:
    """One operation: the operands as stored, the exact result on them, the result as stored, the flags raised."""

    op: Op
    operands: tuple[Rounded, ...]
    exact: Exact
    result: Rounded
    flags: tuple[Flag, ...]


def operate(
    op: str, values: tuple[Real, ...], spec: FormatSpec, result_spec: FormatSpec | None = None,
    rounding: Rounding = "nearest_even", overflow: OverflowPolicy = "format_default", seed: int | None = None,
) -> Operated:
    """Store each value in `spec`, apply `op` exactly, and store the result in `result_spec` (`spec` by default).
    Under stochastic rounding one generator of `seed` draws for the operands in order, then for the result."""
    op = operation(op)
    if len(values) != ARITY[op]:
        raise ValueError(f"{op} takes {ARITY[op]} operands, not {len(values)}")
    draw = seeded_draw(seed) if rounding == "stochastic" else None
    operands = tuple(encode_drawn(spec, v, rounding, overflow, draw) for v in values)
    return apply(op, operands, result_spec or spec, rounding, overflow, draw)


def apply(
    op: Op, operands: tuple[Rounded, ...], result_spec: FormatSpec, rounding: Rounding, overflow: OverflowPolicy,
    draw: StochasticDraw | None,
) -> Operated:
    """`op` on values stored already, its result stored in `result_spec` (a chain's step)."""
    stored = tuple(o.encoding.value for o in operands)
    exact = exact_result(op, stored, rounding, result_spec)
    result = encode_drawn(result_spec, exact.value, rounding, overflow, draw)
    return Operated(op=op, operands=operands, exact=exact, result=result, flags=raised(exact, result, rounding))


# -- the exact operation ---------------------------------------------------------------------------------------------


def exact_result(op: Op, x: tuple[Real, ...], rounding: Rounding, result_spec: FormatSpec) -> Exact:
    """IEEE 754's result of `op` before rounding: its special cases (section 6 and 7.2), else the exact value."""
    if any(v.kind == "nan" for v in x):
        return Exact(Real.nan(), special="nan_operand")
    if op == "sqrt":
        return _sqrt(x[0], result_spec)
    if op == "div":
        return _div(x[0], x[1])
    if op == "sub":
        return _sum(x[0], _negated(x[1]), rounding)
    if op == "add":
        return _sum(x[0], x[1], rounding)
    product = _product(x[0], x[1])
    if op == "mul" or product.special:
        return product
    return _sum(product.value, x[2], rounding)


def _negated(v: Real) -> Real:
    return Real(not v.negative, v.magnitude, v.kind)


def _sum(a: Real, b: Real, rounding: Rounding) -> Exact:
    if a.kind == "inf" or b.kind == "inf":
        if a.kind == b.kind and a.negative != b.negative:
            return Exact(Real.nan(), special="inf_minus_inf")
        return Exact(a if a.kind == "inf" else b)
    total = a.fraction + b.fraction
    if total == 0:  # an exact zero sum is +0, or -0 when rounding down, unless both addends are -0 (section 6.3)
        return Exact(Real(a.negative if a.negative == b.negative else rounding == "toward_negative"))
    return Exact(Real.of(total))


def _product(a: Real, b: Real) -> Exact:
    negative = a.negative != b.negative
    if a.kind == "inf" or b.kind == "inf":
        if a.is_zero or b.is_zero:
            return Exact(Real.nan(), special="zero_times_inf")
        return Exact(Real.inf(negative))
    return Exact(Real(negative, a.magnitude * b.magnitude))


def _div(a: Real, b: Real) -> Exact:
    negative = a.negative != b.negative
    if a.kind == "inf":
        return Exact(Real.nan(), special="inf_over_inf") if b.kind == "inf" else Exact(Real.inf(negative))
    if b.kind == "inf":
        return Exact(Real(negative))
    if b.is_zero:
        if a.is_zero:
            return Exact(Real.nan(), special="zero_over_zero")
        return Exact(Real.inf(negative), special="divide_by_zero")
    return Exact(Real(negative, a.magnitude / b.magnitude))


def _sqrt(a: Real, result_spec: FormatSpec) -> Exact:
    if a.is_zero:
        return Exact(a)  # sqrt(-0) is -0
    if a.negative:
        return Exact(Real.nan(), special="sqrt_negative")
    if a.kind == "inf":
        return Exact(a)
    num, den = a.magnitude.numerator, a.magnitude.denominator
    root_num, root_den = isqrt(num), isqrt(den)
    if root_num * root_num == num and root_den * root_den == den:
        return Exact(Real(False, Fraction(root_num, root_den)))
    # x = a · 4^k is no perfect square (else the root were rational), so with n = isqrt(floor(x)) the root scaled by
    # 2^k lies strictly in (n, n + 1): the stand-in is its midpoint, on a grid of 2^-(k+1) whatever a's denominator,
    # so a chain of roots keeps its numbers this size
    k = _finest_step_bits(result_spec) + _SQRT_GUARD_BITS
    n = isqrt((num << (2 * k)) // den if k >= 0 else num // (den << (-2 * k)))
    return Exact(Real(False, Fraction(2 * n + 1, 1 << (k + 1)) if k >= -1 else Fraction((2 * n + 1) << (-k - 1))),
                 rational=False)


def _finest_step_bits(spec: FormatSpec) -> int:
    """k such that 2^-k is at most the format's smallest step and its ties: every rounding boundary of the format
    lies on the grid of 2^-k, so no boundary falls strictly inside an interval of that grid."""
    if spec.kind == "float":
        return spec.mantissa_bits - spec.emin + 1
    if spec.kind == "codebook":  # its values and midpoints are dyadic: their finest denominator
        return max(Fraction(v).denominator.bit_length() for v in spec.codebook) + 1
    return 1  # integers round at halves


# -- the flags --------------------------------------------------------------------------------------------------------


def raised(exact: Exact, result: Rounded, rounding: Rounding) -> tuple[Flag, ...]:
    """The IEEE 754 flags of an operation with this exact result, stored as `result`, in FLAGS' order."""
    value, stored = exact.value, result.encoding.value
    flags: set[Flag] = set()
    if exact.special in ("inf_minus_inf", "zero_times_inf", "zero_over_zero", "inf_over_inf", "sqrt_negative"):
        flags.add("invalid")
    if exact.special == "divide_by_zero":
        flags.add("divide_by_zero")
    if has_no_value(exact, result):
        flags.add("invalid")
    elif value.is_finite:
        inexact = not stored.is_finite or stored.fraction != value.fraction or not exact.rational
        if result.overflowed:
            flags |= {"overflow", "inexact"}
        elif inexact:
            flags.add("inexact")
            if _tiny(value, result.encoding.format, rounding):
                flags.add("underflow")
    return tuple(f for f in cast(tuple[Flag, ...], FLAGS) if f in flags)


def has_no_value(exact: Exact, result: Rounded) -> bool:
    """Whether a result that is a number (or an infinity) is stored as NaN for want of a value, not by overflow:
    E8M0's zero and negatives, an infinity in a format without one. IEEE 754 calls a NaN from numbers invalid."""
    return result.encoding.value.kind == "nan" and exact.value.kind != "nan" and not result.overflowed


def _tiny(value: Real, spec: FormatSpec, rounding: Rounding) -> bool:
    """IEEE 754's tininess after rounding: a nonzero value that, rounded with the format's precision but no bound on
    its exponent, is below the smallest normal. Under stochastic rounding, which IEEE 754 does not define, tininess
    is judged before rounding. Integers and codebooks have no normal range: never tiny."""
    magnitude = value.magnitude
    if spec.kind != "float" or spec.min_normal is None or magnitude == 0 or magnitude >= spec.min_normal:
        return False
    if rounding == "stochastic":
        return True
    # just below the smallest normal, the unbounded format's step is 2^(emin - 1 - m): round to that grid
    steps = magnitude * (2 << spec.mantissa_bits) / spec.min_normal
    n, r = divmod(steps.numerator, steps.denominator)
    if r and magnitude_rounds_up(rounding, value.negative, r, steps.denominator, n % 2 == 0, None):
        n += 1
    return n < 2 << spec.mantissa_bits
