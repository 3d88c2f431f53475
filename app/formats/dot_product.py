"""A dot product of two stored vectors accumulated several ways, against its exact value.

The vectors are whole multiples of their format's smallest subnormal (app/formats/dot_inputs.py stores them);
their products are exact integers of 2^unit (app/formats/dot_arithmetic.py). The methods:

- input_format: each product and each partial sum rounded to the input format (nearest-even, its overflow rule);
- fp32: each exact product rounded to FP32, the running sum in FP32 (nearest-even);
- promoted: a narrow accumulator (Hopper's FP8 adder as MMA-Sim models it: 13 fraction bits after alignment, results
  truncated to e8m13; DeepSeek-V3's "around 14 bits", section 3.3.2) whose partial result is added into an FP32
  accumulator (nearest-even, as on CUDA cores) every `promote_every` elements;
- pairwise, kahan: in FP32, over the exact products rounded to FP32 (pairwise by app/formats/summation.py);
- v100, a100, h100, b200: the tensor-core models of app/formats/tensor_cores.py, for the formats each takes.

Sequential sums are Python integer loops (about a microsecond a step); the pairwise sums are numpy's float32 adds,
exact as each rounds once.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from app.formats.dot_arithmetic import (
    FusedAdder,
    Grid,
    Value,
    add,
    fused_add,
    grid,
    real,
    rounded,
)
from app.formats.dot_fast import Terms, fused_at, kahan_at, product_doubles, sequential_at, terms, value_of
from app.formats.exact import Real
from app.formats.registry import FORMATS
from app.formats.summation import pairwise_sums
from app.formats.tensor_cores import FP8_HOPPER, TENSOR_CORES
from app.messages import N_
from app.refusal import Refusal, quoted

__all__ = ["DEFAULT_PROMOTE_EVERY", "DOT_FORMATS", "DOT_METHODS", "MAX_DOT_LENGTH", "DotInputError", "DotMethodResult",
           "DotProduct", "chart_counts", "checked_dot_format", "checked_dot_method", "dot_methods_for", "dot_product",
           "fused_running", "kahan_running", "output_grid", "product_exponents", "product_unit",
           "sequential_running"]

DOT_FORMATS = ("float8_e4m3fn", "float8_e5m2", "float16", "bfloat16", "tfloat32", "float32")
DOT_METHODS = {
    "input_format": N_("Input-format accumulation"),
    "fp32": N_("FP32 accumulation"),
    "promoted": N_("Narrow accumulator promoted to FP32"),
    "pairwise": N_("Pairwise summation in FP32"),
    "kahan": N_("Kahan summation in FP32"),
    **{core.id: core.name for core in TENSOR_CORES.values()},
}
MAX_DOT_LENGTH = 4096
DEFAULT_PROMOTE_EVERY = 128  # DeepSeek-V3, section 3.3.2: N_C = 128
CHART_POINTS = 200
NARROW = FP8_HOPPER  # the promoted method's narrow accumulator: Hopper's FP8 adder


class DotInputError(Refusal):
    """A dot product the lab cannot compute as asked: an unknown format or method, or settings out of range."""


def checked_dot_format(format_id: str) -> str:
    """The format, when the dot product takes it."""
    if format_id not in DOT_FORMATS:
        raise DotInputError(template=N_("%(input)s is not a format for the dot product; choose one of %(formats)s."),
                            params={"input": quoted(format_id[:40]), "formats": ", ".join(DOT_FORMATS)})
    return format_id


def checked_dot_method(method: str, format_id: str) -> str:
    """The method, when it is one and takes the format."""
    if method not in DOT_METHODS:
        raise DotInputError(template=N_("%(input)s is not a dot-product method; choose from %(methods)s."),
                            params={"input": quoted(method[:40]), "methods": ", ".join(DOT_METHODS)})
    offered = dot_methods_for(format_id)
    if method not in offered:
        raise DotInputError(template=N_("%(input)s does not take %(format)s; for %(format)s choose from "
                                        "%(methods)s."),
                            params={"input": quoted(method), "format": format_id, "methods": ", ".join(offered)})
    return method


def product_unit(format_id: str) -> int:
    """The exponent of the grid every product of two of the format's values lies on: twice its smallest
    subnormal's."""
    spec = FORMATS[format_id]
    return 2 * (spec.emin - spec.mantissa_bits)


def product_exponents(format_id: str, a: Sequence[int], b: Sequence[int]) -> tuple[int | None, ...]:
    """Each product's exponent as a tensor core aligns it: the exponents of its two factors added, a subnormal's
    being the format's smallest normal exponent (MMA-Sim's extract_significand_exponent); None where it is zero."""
    spec = FORMATS[format_id]
    smallest = spec.emin - spec.mantissa_bits
    factors = [np.ldexp(np.array([float(u) for u in v], dtype=np.float64), smallest) for v in (a, b)]
    if len(factors[0]) != len(factors[1]):
        raise ValueError("the vectors differ in length")
    zero = (factors[0] == 0) | (factors[1] == 0)
    summed = sum(np.maximum(np.frexp(np.abs(f))[1] - 1, spec.emin) for f in factors).tolist()
    return tuple(None if z else e for z, e in zip(zero.tolist(), summed, strict=True))


def dot_methods_for(format_id: str) -> tuple[str, ...]:
    """The methods that take this input format, in the figure's order."""
    return tuple(m for m in DOT_METHODS if m not in TENSOR_CORES or format_id in TENSOR_CORES[m].models)


def output_grid(method: str, format_id: str) -> Grid:
    """The format a method's result is stored in: the input format for input_format, else FP32."""
    return grid(format_id if method == "input_format" else "float32", product_unit(format_id))


def chart_counts(n: int, points: int = CHART_POINTS) -> list[int]:
    """At most `points` element counts from 1 to n, evenly spread, n included."""
    return sorted({int(k) for k in np.round(np.linspace(1, n, min(points, n)))})


def sequential_running(products: Sequence[int], products_to: Grid, sums_to: Grid) -> list[Value]:
    """Every running sum: each product rounded to `products_to`, each partial sum to `sums_to` (nearest-even)."""
    running: list[Value] = []
    total: Value | None = None
    for p in products:
        q = rounded(p, products_to)
        total = q if total is None else rounded(add(total, q), sums_to)
        running.append(total)
    return running


def kahan_running(products: Sequence[int], fp32: Grid) -> list[tuple[Value, Value]]:
    """Kahan's (sum, compensation) after each product rounded to FP32, every operation in FP32."""
    states: list[tuple[Value, Value]] = []
    total: Value = 0
    compensation: Value = 0
    for p in products:
        y = rounded(add(rounded(p, fp32), -compensation), fp32)
        t = rounded(add(total, y), fp32)
        compensation = rounded(add(rounded(add(t, -total), fp32), -y), fp32)
        total = t
        states.append((total, compensation))
    return states


@dataclass(frozen=True)
class FusedTrace:
    """Where a fused run stood at one count: the block's first element, the accumulator before the block, and the
    FP32 total before the block's promotion interval (promoted runs)."""

    block_start: int
    accumulator: Value
    promoted_total: Value | None


def fused_running(products: Sequence[int], exponents: Sequence[int | None], adder: FusedAdder, fp32: Grid,
                  counts: Sequence[int], promote_every: int | None = None) -> tuple[list[Value], list[FusedTrace]]:
    """A fused adder's result after each count of elements (the last block as far as the count), and its traces.

    With promote_every, the adder restarts from zero every promote_every elements and its partial result is added
    into an FP32 accumulator (nearest-even), as on CUDA cores."""
    n, interval = len(products), promote_every or len(products)
    before_block: dict[int, Value] = {}
    before_interval: dict[int, Value] = {}
    total: Value = 0
    for start in range(0, n, interval):
        before_interval[start] = total
        accumulator: Value = 0
        stop = min(start + interval, n)
        for block in range(start, stop, adder.block):
            before_block[block] = accumulator
            end = min(block + adder.block, stop)
            accumulator = fused_add(accumulator, products[block:end], exponents[block:end], adder, fp32)
        total = rounded(add(total, accumulator), fp32) if promote_every else accumulator
    values, traces = [], []
    for k in counts:
        start = (k - 1) // interval * interval
        block = start + (k - 1 - start) // adder.block * adder.block
        partial = fused_add(before_block[block], products[block:k], exponents[block:k], adder, fp32)
        promoted = before_interval[start] if promote_every else None
        values.append(partial if promoted is None else rounded(add(promoted, partial), fp32))
        traces.append(FusedTrace(block, before_block[block], promoted))
    return values, traces


def _running(method: str, format_id: str, products: Terms, counts: Sequence[int], promote_every: int) -> list[Value]:
    """A method's values at the counts, on doubles (app/formats/dot_fast.py: the integer functions above, value for
    value)."""
    unit, picked = product_unit(format_id), [k - 1 for k in counts]
    if method in ("input_format", "fp32"):
        values = sequential_at(products.doubles, output_grid(method, format_id), picked)
    elif method == "kahan":
        values = [total for total, _ in kahan_at(products.doubles, picked)]
    elif method == "pairwise":
        with np.errstate(over="ignore"):
            stored = products.doubles.astype(np.float32).astype(np.float64)  # each product rounded to FP32 once
        values = pairwise_sums(stored, FORMATS["float32"], np.asarray(counts)).tolist()
    elif method == "promoted":
        values = fused_at(products, NARROW, counts, promote_every)[0]
    else:
        values = fused_at(products, TENSOR_CORES[method].models[format_id].adder, counts)[0]
    return [value_of(v, unit) for v in values]


@dataclass(frozen=True)
class DotMethodResult:
    """One method's result in its output format and how far that is from the exact dot product."""

    method: str
    name: str
    output_format: str
    value: Real
    error: Real  # value − exact; inf or NaN where the value is not finite
    rel_error: float | None  # |error| / |exact|; None where the exact value is 0 or the value not finite
    ulp_error: float | None  # error in ulps of the output format at the exact value; None where not finite
    running_error: tuple[float | None, ...]  # |value − exact| after each chart count (≈); None where not finite


@dataclass(frozen=True)
class DotProduct:
    """The whole figure: the settings, the exact dot product and its running values, and every method's result."""

    format_id: str
    n: int
    promote_every: int
    unit: int
    products: tuple[int, ...]
    exponents: tuple[int | None, ...]  # each product's exponent: its factors' exponents added (None where zero)
    counts: tuple[int, ...]
    exact: Real
    exact_running: tuple[float, ...]  # ≈, float64
    results: tuple[DotMethodResult, ...]


def _result(method: str, format_id: str, at_counts: list[Value], exact_at: list[int], unit: int) -> DotMethodResult:
    value, exact = at_counts[-1], exact_at[-1]
    running = tuple(None if isinstance(v, float) else math.ldexp(float(abs(v - e)), unit)
                    for v, e in zip(at_counts, exact_at, strict=True))
    name, output = DOT_METHODS[method], output_grid(method, format_id)
    if isinstance(value, float):
        special = real(value, unit)
        return DotMethodResult(method, name, output.format_id, special, special, None, None, running)
    error = value - exact
    ulps = float(Fraction(error) * Fraction(2) ** unit / output.ulp(exact))
    return DotMethodResult(method, name, output.format_id, real(value, unit), real(error, unit),
                        abs(error) / abs(exact) if exact else None, ulps, running)


def dot_product(format_id: str, a: Sequence[int], b: Sequence[int], methods: Sequence[str],
                promote_every: int = DEFAULT_PROMOTE_EVERY) -> DotProduct:
    """The figure for two stored vectors, each element a whole number of the format's smallest subnormal."""
    checked_dot_format(format_id)
    if len(a) != len(b):
        raise DotInputError(template=N_("Vector a has %(a)s numbers and vector b %(b)s; a dot product needs as many "
                                        "in each."), params={"a": str(len(a)), "b": str(len(b))})
    if not 1 <= len(a) <= MAX_DOT_LENGTH:
        raise DotInputError(template=N_("The vectors have %(n)s numbers each; from 1 to %(most)s are taken."),
                            params={"n": str(len(a)), "most": str(MAX_DOT_LENGTH)})
    if not 1 <= promote_every <= MAX_DOT_LENGTH:
        raise DotInputError(template=N_("promote_every must be a whole number from 1 to %(most)s; %(input)s is not."),
                            params={"most": str(MAX_DOT_LENGTH), "input": str(promote_every)})
    for method in methods:
        checked_dot_method(method, format_id)
    unit = product_unit(format_id)
    products = tuple(x * y for x, y in zip(a, b, strict=True))
    exponents = product_exponents(format_id, a, b)
    counts = chart_counts(len(products))
    prefix = list(itertools.accumulate(products))
    exact_at = [prefix[k - 1] for k in counts]
    prepared = terms(product_doubles(products, unit), exponents)
    results = tuple(_result(m, format_id, _running(m, format_id, prepared, counts, promote_every),
                            exact_at, unit) for m in methods)
    return DotProduct(format_id, len(products), promote_every, unit, products, exponents, tuple(counts),
                      real(prefix[-1], unit),
                      tuple(math.ldexp(float(e), unit) for e in exact_at), results)
