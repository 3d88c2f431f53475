"""The dot product's methods on doubles (app/formats/dot_fast.py, as dot_product uses them) against the integer
reference (sequential_running, kahan_running, fused_running and the pairwise sums of exact products): every method's
value at every chart count, for drawn and typed vectors of every format, overflow, subnormals and cancellation
included."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import pytest

from app.formats import FORMATS
from app.formats.dot_arithmetic import Value, grid, real, rounded
from app.formats.dot_fast import fused_at, kahan_at, product_doubles, sequential_at, terms, value_of
from app.formats.dot_inputs import drawn_vectors, smallest_exponent
from app.formats.dot_product import (
    DOT_FORMATS,
    NARROW,
    chart_counts,
    dot_methods_for,
    dot_product,
    fused_running,
    kahan_running,
    output_grid,
    product_exponents,
    product_unit,
    sequential_running,
)
from app.formats.summation import pairwise_sums
from app.formats.tensor_cores import TENSOR_CORES


def _reference(method: str, format_id: str, products: Sequence[int], exponents: Sequence[int | None],
               counts: Sequence[int], promote_every: int) -> list[Value]:
    unit = product_unit(format_id)
    fp32, picked = grid("float32", unit), [k - 1 for k in counts]
    if method in ("input_format", "fp32"):
        own = output_grid(method, format_id)
        running = sequential_running(products, own, own)
        return [running[i] for i in picked]
    if method == "kahan":
        states = kahan_running(products, fp32)
        return [states[i][0] for i in picked]
    if method == "pairwise":
        stored = np.array([math.ldexp(float(rounded(p, fp32)), unit) for p in products])
        sums = pairwise_sums(stored, FORMATS["float32"], np.asarray(counts)).tolist()
        return [int(Fraction(s) / Fraction(2) ** unit) if math.isfinite(s) else s for s in sums]
    if method == "promoted":
        return fused_running(products, exponents, NARROW, fp32, counts, promote_every)[0]
    return fused_running(products, exponents, TENSOR_CORES[method].models[format_id].adder, fp32, counts)[0]


def _same(x: Value, y: Value) -> bool:
    return (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y)) or (
        type(x) is type(y) and x == y)


def _check(format_id: str, a: Sequence[int], b: Sequence[int], promote_every: int = 128) -> None:
    methods = dot_methods_for(format_id)
    figure = dot_product(format_id, a, b, methods, promote_every)
    counts = chart_counts(len(a))
    products = [x * y for x, y in zip(a, b, strict=True)]
    exponents = product_exponents(format_id, a, b)
    assert figure.products == tuple(products)
    for result in figure.results:
        expected = _reference(result.method, format_id, products, exponents, counts, promote_every)
        assert real(expected[-1], figure.unit) == result.value, (format_id, result.method)
        steps = [None if isinstance(v, float) else math.ldexp(float(abs(v - e)), figure.unit)
                 for v, e in zip(expected, [sum(products[:k]) for k in counts], strict=True)]
        assert list(result.running_error) == steps, (format_id, result.method)


def _typed(format_id: str, rng: random.Random, n: int, kind: str) -> list[int]:
    spec = FORMATS[format_id]
    largest = int(spec.max * Fraction(2) ** -smallest_exponent(format_id))
    normal = 1 << spec.mantissa_bits
    if kind == "large":  # near the top: products and sums overflow
        return [rng.choice((-1, 1)) * rng.randint(largest // 4, largest) for _ in range(n)]
    if kind == "tiny":  # subnormals and the smallest normals
        return [rng.choice((-1, 0, 1)) * rng.randint(1, 4 * normal) for _ in range(n)]
    return [rng.choice((-1, 1)) * rng.randint(0, largest) >> rng.randint(0, 40) for _ in range(n)]


@pytest.mark.parametrize("format_id", DOT_FORMATS)
@pytest.mark.parametrize("distribution", ["normal", "outliers", "lognormal", "uniform"])
def test_drawn_vectors_give_the_reference_values(format_id: str, distribution: str) -> None:
    a, b = drawn_vectors(format_id, distribution, 1500, 7)
    _check(format_id, a.units, b.units)


@pytest.mark.parametrize("format_id", DOT_FORMATS)
@pytest.mark.parametrize("kind", ["large", "tiny", "mixed"])
def test_typed_vectors_at_the_edges_give_the_reference_values(format_id: str, kind: str) -> None:
    rng = random.Random(f"{format_id} {kind}")
    for n in (1, 2, 7, 33, 300):
        a, b = _typed(format_id, rng, n, kind), _typed(format_id, rng, n, kind)
        _check(format_id, a, b, promote_every=rng.choice((1, 3, 16, 128)))


@pytest.mark.parametrize("format_id", DOT_FORMATS)
def test_cancellation_gives_the_reference_values(format_id: str) -> None:
    rng = random.Random(f"cancel {format_id}")
    a = _typed(format_id, rng, 200, "mixed")
    b = [abs(x) for x in _typed(format_id, rng, 200, "mixed")]
    a += [-x for x in a]
    _check(format_id, a, b + b, promote_every=50)


@pytest.mark.parametrize("format_id", DOT_FORMATS)
def test_states_at_every_step_are_the_reference_states(format_id: str) -> None:
    """What the step bits read: every running sum, Kahan's (sum, compensation) and each fused trace."""
    rng = random.Random(f"states {format_id}")
    a, b = _typed(format_id, rng, 150, "mixed"), _typed(format_id, rng, 150, "large")
    unit, products = product_unit(format_id), [x * y for x, y in zip(a, b, strict=True)]
    doubles, every = product_doubles(products, unit), list(range(len(a)))
    fp32 = grid("float32", unit)
    for method in ("input_format", "fp32"):
        own = output_grid(method, format_id)
        fast = [value_of(v, unit) for v in sequential_at(doubles, own, every)]
        assert all(map(_same, fast, sequential_running(products, own, own)))
    states = kahan_running(products, fp32)
    fast_states = [(value_of(t, unit), value_of(c, unit)) for t, c in kahan_at(doubles, every)]
    assert all(_same(x, y) and _same(c, d) for (x, c), (y, d) in zip(fast_states, states, strict=True))
    exponents = product_exponents(format_id, a, b)
    counts = range(1, len(a) + 1)
    for adder, promote in [(NARROW, 16), *((m.models[format_id].adder, None) for m in TENSOR_CORES.values()
                                           if format_id in m.models)]:
        values, traces = fused_running(products, exponents, adder, fp32, counts, promote)
        fast_values, fast_traces = fused_at(terms(doubles, exponents), adder, counts, promote)
        assert all(_same(value_of(v, unit), w) for v, w in zip(fast_values, values, strict=True))
        for (start, accumulator, promoted), trace in zip(fast_traces, traces, strict=True):
            assert start == trace.block_start and _same(value_of(accumulator, unit), trace.accumulator)
            assert (promoted is None) == (trace.promoted_total is None)
            if promoted is not None and trace.promoted_total is not None:
                assert _same(value_of(promoted, unit), trace.promoted_total)
