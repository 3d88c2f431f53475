"""The bits of one step of a dot product: the operands aligned on one column grid, where the method cuts, what
it drops, and the result, so that a page can show where a method lost what.

Two kinds of step: a rounded sum (input_format, fp32, kahan), where the exact sum of two operands is rounded once
and the cut is the result's last bit; and an aligned block (the tensor cores, the promoted narrow accumulator),
where every term is truncated at the cut before the terms are added. Pairwise summation has no single running
step, so it has none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from app.formats.dot_arithmetic import (
    FusedAdder,
    Grid,
    Value,
    add,
    alignment_cut,
    fused_output,
    grid,
    real,
    rounded,
    truncated,
    value_exponent,
)
from app.formats.dot_fast import fused_at, kahan_at, product_doubles, sequential_at, value_of
from app.formats.dot_fast import terms as fused_terms
from app.formats.dot_product import (
    NARROW,
    DotInputError,
    DotProduct,
    FusedTrace,
    checked_dot_method,
    output_grid,
)
from app.formats.exact import Real
from app.formats.tensor_cores import TENSOR_CORES
from app.messages import N_

__all__ = ["MAX_COLUMNS", "StepBits", "TermBits", "step_bits"]

MAX_COLUMNS = 64
SHOWN_BELOW_CUT = 8  # dropped columns shown under the cut at most


@dataclass(frozen=True)
class TermBits:
    """One operand: what it is, its exact value, the part the method kept, and its magnitude's bits."""

    role: str  # accumulator, product or corrected_product (Kahan's product less its compensation)
    element: int | None  # the product's element (1-based)
    value: Real
    kept: Real
    exponent: int | None  # the exponent of its leading bit; None for zero or inf/NaN
    negative: bool
    bits: str  # one character per column, "" for inf or NaN
    more_below: bool  # whether it has set bits below the last column


@dataclass(frozen=True)
class StepBits:
    """One step of one method, laid out on columns 2^top down to 2^(top - columns + 1)."""

    method: str
    step: int
    kind: Literal["rounded_sum", "aligned_block"]
    first: int  # the elements whose products this step adds, 1-based
    last: int
    top: int
    columns: int
    cut: int | None  # the exponent of the last bit kept; None where nothing is cut (zero, inf or NaN)
    terms: tuple[TermBits, ...]
    exact_sum: Real  # the exact sum of the operands as they entered
    exact_sum_bits: TermBits
    result: Real
    result_bits: TermBits
    lost: Real  # exact_sum − result: what the step lost (zero when nothing)
    promoted: tuple[Real, Real] | None  # the promoted FP32 total before and after, when this step ends an interval


def _exponent(x: Value, unit: int) -> int | None:
    return None if isinstance(x, float) or x == 0 else abs(x).bit_length() - 1 + unit


def _lowest_set(x: Value, unit: int) -> int | None:
    return None if isinstance(x, float) or x == 0 else (abs(x) & -abs(x)).bit_length() - 1 + unit


def _bits(x: Value, role: str, element: int | None, kept: Value, top: int, bottom: int, unit: int) -> TermBits:
    finite = not isinstance(x, float)
    magnitude = abs(int(x)) if finite else 0
    shifted = magnitude >> (bottom - unit) if bottom >= unit else magnitude << (unit - bottom)
    columns = top - bottom + 1
    more = finite and bottom > unit and magnitude & ((1 << (bottom - unit)) - 1) != 0
    return TermBits(role, element, real(x, unit), real(kept, unit), _exponent(x, unit),
                    finite and x < 0, format(shifted, "b").zfill(columns)[-columns:] if finite else "", bool(more))


def _layout(values: Sequence[Value], cut: int | None, unit: int) -> tuple[int, int]:
    """(top, bottom) columns: from the highest leading bit down to a few columns under the cut."""
    exponents = [e for v in values if (e := _exponent(v, unit)) is not None]
    top = max(exponents, default=0)
    lowest = min((e for v in values if (e := _lowest_set(v, unit)) is not None), default=top)
    bottom = lowest if cut is None else max(min(lowest, cut), cut - SHOWN_BELOW_CUT)
    return top, max(bottom, top - MAX_COLUMNS + 1)


def _rounded_step(figure: DotProduct, method: str, step: int) -> StepBits:
    unit, products = figure.unit, figure.products[:step]
    own = output_grid(method, figure.format_id) if method != "kahan" else grid("float32", unit)
    doubles, picked = product_doubles(products, unit), [step - 2, step - 1] if step > 1 else [0]
    if method == "kahan":  # dot_fast's, value for value as kahan_running
        states = [(value_of(t, unit), value_of(c, unit)) for t, c in kahan_at(doubles, picked)]
        total, compensation = states[0] if step > 1 else (0, 0)
        addend: Value = rounded(add(rounded(products[-1], own), -compensation), own)
        result, role = states[-1][0], "corrected_product"
    else:  # as sequential_running
        running = [value_of(v, unit) for v in sequential_at(doubles, own, picked)]
        total, addend = running[0] if step > 1 else 0, rounded(products[-1], own)
        result, role = running[-1], "product"
    exact = add(total, addend)
    cut = None if isinstance(exact, float) or exact == 0 else _cut_of(exact, own)
    top, bottom = _layout([total, addend, exact, result], cut, unit)
    terms = ((_bits(total, "accumulator", None, total, top, bottom, unit),) if step > 1 else ()) + (
        _bits(addend, role, step, addend, top, bottom, unit),)
    return StepBits(method, step, "rounded_sum", step, step, top, top - bottom + 1, cut, terms, real(exact, unit),
                    _bits(exact, "sum", None, exact, top, bottom, unit), real(result, unit),
                    _bits(result, "accumulator", None, result, top, bottom, unit),
                    real(add(exact, -result) if not isinstance(result, float) else result, unit), None)


def _cut_of(x: int, to: Grid) -> int:
    """The exponent of the last bit a format keeps for a value of x's size."""
    return max(abs(x).bit_length() - 1 + to.unit, to.emin) - to.precision + 1


def _block_step(figure: DotProduct, method: str, step: int) -> StepBits:
    unit, products = figure.unit, figure.products
    fp32 = grid("float32", unit)
    promote = figure.promote_every if method == "promoted" else None
    adder: FusedAdder = NARROW if method == "promoted" else TENSOR_CORES[method].models[figure.format_id].adder
    interval = promote or figure.n
    (_, ), ((block_start, accumulator, promoted_total), ) = fused_at(
        fused_terms(product_doubles(products, unit), figure.exponents), adder, [step], promote)
    trace = FusedTrace(block_start, value_of(accumulator, unit),
                       None if promoted_total is None else value_of(promoted_total, unit))  # as fused_running's
    start = trace.block_start
    end = min(start + adder.block, (start // interval + 1) * interval, figure.n)
    block = list(products[start:end])
    terms_in: list[Value] = [trace.accumulator, *block]
    if isinstance(trace.accumulator, float):  # inf or NaN: nothing is aligned or cut
        cut, kept, exact, result = None, terms_in, trace.accumulator, trace.accumulator
    else:
        cut = alignment_cut([value_exponent(trace.accumulator, unit, fp32.emin), *figure.exponents[start:end]],
                            adder.window)
        kept = [t if cut is None else truncated(int(t), cut, unit) for t in terms_in]
        exact = sum(block) + trace.accumulator
        result = fused_output(sum(int(k) for k in kept), adder, fp32)
    top, bottom = _layout([*terms_in, exact, result], cut, unit)
    roles = ["accumulator"] + ["product"] * len(block)
    elements = [None, *range(start + 1, end + 1)]
    terms = tuple(_bits(t, r, e, k, top, bottom, unit) for t, r, e, k in zip(terms_in, roles, elements, kept,
                                                                             strict=True))
    promoted = None
    if promote and trace.promoted_total is not None and (end % interval == 0 or end == figure.n):
        after = rounded(add(trace.promoted_total, result), fp32)
        promoted = (real(trace.promoted_total, unit), real(after, unit))
    lost = add(exact, -result) if not isinstance(result, float) else result
    return StepBits(method, step, "aligned_block", start + 1, end, top, top - bottom + 1, cut, terms,
                    real(exact, unit), _bits(exact, "sum", None, exact, top, bottom, unit), real(result, unit),
                    _bits(result, "accumulator", None, result, top, bottom, unit), real(lost, unit), promoted)


def step_bits(figure: DotProduct, method: str, step: int) -> StepBits | None:
    """The bits of step `step` (1-based: the step that adds element `step`) of one method of the figure; None for
    pairwise summation."""
    checked_dot_method(method, figure.format_id)
    if not 1 <= step <= figure.n:
        raise DotInputError(template=N_("step runs from 1 to %(n)s, the length of the vectors; %(input)s is not."),
                            params={"n": str(figure.n), "input": str(step)})
    if method == "pairwise":
        return None
    if method in ("input_format", "fp32", "kahan"):
        return _rounded_step(figure, method, step)
    return _block_step(figure, method, step)
