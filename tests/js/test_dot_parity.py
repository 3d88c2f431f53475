"""The browser's dot-product core (static/js/dot_arithmetic.js, dot_core.js, dot_product.js, dot_steps.js,
dot_inputs.js), run in Node, held to the Python core (app/formats/dot_*.py, tensor_cores.py), the reference, worked
out in the same test.

What is compared: for random stored vectors of every input format (random bit patterns over the whole range, and
numpy draws of every distribution), lengths 1 to 4096, every method that takes the format (every tensor-core model
on the formats it takes), several promote_every values, each figure's chart counts, exact dot product, exact running
values, and each method's output format, value, error, relative error, error in ulps and running errors (doubles
compared bit for bit), and the bits of random steps of random methods (every field of StepBits); the special values
(±0, subnormals, ±max, products past FP32's range, inf − inf); every pair of FP8 values as length-1 and length-2 dot
products for every method that takes FP8 (each method's final value); the refusals, template and English; typed
vectors read and stored (and refused); numpy's draws stored in each format (the page's JSON carries the doubles, as
app/web/dot/data.py sends them); chart_counts for every n from 1 to 4096; and the chart's geometry
(static/js/dot_chart.js against app/web/dot/chart.py: every path and tick, ties of one decimal included).

One Node process (tests/js/dot_harness.mjs) answers the module; a batch is worked out in Node while Python works
out its reference.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Iterator
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from app.formats import FORMATS, Real, decode
from app.formats.dot_arithmetic import grid
from app.formats.dot_inputs import (
    DOT_DISTRIBUTIONS,
    drawn_doubles,
    drawn_vectors,
    parse_dot_setting,
    parse_vector,
    stored_vector,
)
from app.formats.dot_product import (
    DOT_FORMATS,
    DOT_METHODS,
    MAX_DOT_LENGTH,
    NARROW,
    DotInputError,
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
from app.formats.dot_reading import read_vector, store_read
from app.formats.dot_steps import StepBits, TermBits, step_bits
from app.formats.tensor_cores import TENSOR_CORES
from app.refusal import Refusal
from app.web.dot.chart import Tick, chart
from app.web.dot.data import dot_models
from app.web.visualise.codec_specs import codec_spec
from app.web.visualise.serialise import real_json
from tests.helpers.node import Harness, harness
from tests.helpers.parity import SEP, assert_same

FIXED_SEED = 20261208
FP8 = ("float8_e4m3fn", "float8_e5m2")
PROMOTE_EVERY = (1, 2, 7, 32, 33, 128, 4096)


@pytest.fixture(scope="module")
def node() -> Iterator[Harness]:
    with harness(Path(__file__).with_name("dot_harness.mjs")) as running:
        running.call("setup", [codec_spec(FORMATS[f]) for f in (*DOT_FORMATS, "float32")], dot_models())
        yield running


# -- the reference, written as the harness writes the JavaScript's ---------------------------------------------------


def _bits(x: float | None) -> str:
    return "None" if x is None else struct.pack(">d", x).hex()


def _text(x: Real) -> str:
    text, exact = real_json(x)
    return f"{text}|{str(exact).lower()}"


def _refusal(error: Refusal) -> str:
    return SEP.join(["refused", error.template or "", str(error)])


def _term(t: TermBits) -> str:
    return ",".join([t.role, str(t.element), _text(t.value), _text(t.kept), str(t.exponent), str(t.negative).lower(),
                     t.bits, str(t.more_below).lower()])


def _step(s: StepBits | None) -> str:
    if s is None:
        return "None"
    return SEP.join([s.method, str(s.step), s.kind, str(s.first), str(s.last), str(s.top), str(s.columns), str(s.cut),
                     ";".join(map(_term, s.terms)), _text(s.exact_sum), _term(s.exact_sum_bits), _text(s.result),
                     _term(s.result_bits), _text(s.lost),
                     "None" if s.promoted is None else ";".join(map(_text, s.promoted))])


def figure_reference(case: dict[str, Any]) -> str:
    try:
        d = dot_product(case["format"], [int(x) for x in case["a"]], [int(x) for x in case["b"]], case["methods"],
                        case["promote"])
    except DotInputError as error:
        return _refusal(error)
    fields = [",".join(map(str, d.counts)), _text(d.exact), ",".join(map(_bits, d.exact_running))]
    for r in d.results:
        fields += [r.method, r.output_format, _text(r.value), _text(r.error), _bits(r.rel_error), _bits(r.ulp_error),
                   ",".join(map(_bits, r.running_error))]
    for method, step in case["steps"]:
        try:
            fields.append(_step(step_bits(d, method, step)))
        except DotInputError as error:
            fields.append(_refusal(error))
    return SEP.join(fields)


def compared(node: Harness, call: str, cases: list[Any], reference: Any, names: list[str], *args: Any) -> int:
    """Node's answers for the cases against the reference's, worked out side by side; the number compared."""
    node.send(call, *args, cases)
    try:
        ours = [reference(c) for c in cases]
    finally:
        theirs = node.receive()  # even where the reference failed, so that the next call reads its own answer
    assert_same(names, ours, theirs, [])
    return len(cases)


# -- the vectors ---------------------------------------------------------------------------------------------------


def _units(format_id: str, value: Fraction) -> int:
    spec = FORMATS[format_id]
    scaled = value * Fraction(2) ** -(spec.emin - spec.mantissa_bits)
    assert scaled.denominator == 1
    return scaled.numerator


@cache
def finite_units(format_id: str) -> list[int]:
    """Every finite value of the format as units of its smallest subnormal (FP8 and FP16: every pattern)."""
    spec = FORMATS[format_id]
    values = (decode(spec, bits).value for bits in range(1 << spec.bits))
    return sorted({_units(format_id, v.fraction) for v in values if v.is_finite})


def random_units(rng: random.Random, format_id: str, n: int) -> list[int]:
    """n values of the format: random patterns over its whole range, or near one scale (so that sums cancel)."""
    spec = FORMATS[format_id]
    if spec.bits <= 16:
        pool = finite_units(format_id)
        return [rng.choice(pool) for _ in range(n)]
    out: list[int] = []
    while len(out) < n:
        value = decode(spec, rng.getrandbits(spec.bits) >> (32 - spec.bits) << (32 - spec.bits)
                       if format_id == "tfloat32" else rng.getrandbits(spec.bits)).value
        if value.is_finite:
            out.append(_units(format_id, value.fraction))
    return out


def drawn_units(format_id: str, distribution: str, n: int, seed: int) -> tuple[list[str], list[str]]:
    a, b = drawn_vectors(format_id, distribution, n, seed)
    return [str(u) for u in a.units], [str(u) for u in b.units]


def special_units(format_id: str) -> list[int]:
    """±0, the smallest subnormal, the smallest normal, ±1 and ±max, and their neighbours."""
    spec = FORMATS[format_id]
    top = _units(format_id, spec.max)
    assert spec.min_normal is not None
    tiny, normal, one = 1, _units(format_id, spec.min_normal), _units(format_id, Fraction(1))
    return [0, tiny, -tiny, normal, -normal, one, -one, top, -top, top // 2, -(top // 2), normal - 1]


def _case(format_id: str, a: list[int], b: list[int], rng: random.Random, promote: int | None = None,
          steps: int = 3) -> dict[str, Any]:
    methods = list(dot_methods_for(format_id))
    n = len(a)
    asked = [[rng.choice(methods), rng.randint(1, n)] for _ in range(steps)] + [[methods[-1], n]]
    return {"format": format_id, "a": [str(x) for x in a], "b": [str(x) for x in b], "methods": methods,
            "promote": promote or rng.choice(PROMOTE_EVERY), "steps": asked}


def _named(cases: list[dict[str, Any]]) -> list[str]:
    return [f"{c['format']} n={len(c['a'])} promote={c['promote']} steps={c['steps']}" for c in cases]


# -- figures -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("format_id", DOT_FORMATS)
def test_random_figures_are_as_in_python(node: Harness, format_id: str) -> None:
    rng = random.Random(f"{FIXED_SEED} {format_id}")
    cases = [_case(format_id, random_units(rng, format_id, n), random_units(rng, format_id, n), rng)
             for n in (1, 1, 2, 2, 3, 4, 5, 8, 9, 16, 17, 31, 33, 64, 100, 129, 200, 257)]
    for distribution in DOT_DISTRIBUTIONS:
        n = rng.choice((40, 150, 300))
        a, b = drawn_units(format_id, distribution, n, rng.randrange(2**32))
        cases.append(_case(format_id, [int(x) for x in a], [int(x) for x in b], rng))
    assert compared(node, "figures", cases, figure_reference, _named(cases)) == len(cases)


def test_long_figures_are_as_in_python(node: Harness) -> None:
    rng = random.Random(f"{FIXED_SEED} long")
    cases = []
    for format_id in DOT_FORMATS:
        a, b = drawn_units(format_id, rng.choice(list(DOT_DISTRIBUTIONS)), MAX_DOT_LENGTH, rng.randrange(2**32))
        cases.append(_case(format_id, [int(x) for x in a], [int(x) for x in b], rng, steps=6))
        n = rng.choice((1000, 1500, 2049))
        cases.append(_case(format_id, random_units(rng, format_id, n), random_units(rng, format_id, n), rng, steps=4))
    assert compared(node, "figures", cases, figure_reference, _named(cases)) == len(cases)


@pytest.mark.parametrize("format_id", DOT_FORMATS)
def test_special_values_are_as_in_python(node: Harness, format_id: str) -> None:
    """±0, subnormals, ±max (products past FP32's range, sums past the format's: inf, NaN, inf − inf), mixed."""
    rng = random.Random(f"{FIXED_SEED} special {format_id}")
    pool = special_units(format_id)
    top = _units(format_id, FORMATS[format_id].max)
    cases = [_case(format_id, [top, top, top], [top, -top, top], rng), _case(format_id, [top] * 8, [top] * 8, rng),
             _case(format_id, [top, -top], [top, top], rng), _case(format_id, [0, 0], [0, 0], rng)]
    for _ in range(40):
        n = rng.randint(1, 12)
        cases.append(_case(format_id, [rng.choice(pool) for _ in range(n)], [rng.choice(pool) for _ in range(n)], rng))
    assert compared(node, "figures", cases, figure_reference, _named(cases)) == len(cases)


@pytest.mark.parametrize("promote", PROMOTE_EVERY)
def test_promote_every_is_as_in_python(node: Harness, promote: int) -> None:
    rng = random.Random(f"{FIXED_SEED} promote {promote}")
    cases = []
    for format_id in FP8 + ("bfloat16",):
        n = rng.choice((1, promote, promote + 1, 3 * promote - 1, 300))
        n = max(1, min(n, 600))
        cases.append(_case(format_id, random_units(rng, format_id, n), random_units(rng, format_id, n), rng,
                           promote=promote, steps=4) | {"steps": [["promoted", rng.randint(1, n)] for _ in range(4)]})
    assert compared(node, "figures", cases, figure_reference, _named(cases)) == len(cases)


def test_refusals_are_as_in_python(node: Harness) -> None:
    base = {"format": "float16", "a": ["1", "2"], "b": ["3", "4"], "methods": ["fp32"], "promote": 128, "steps": []}
    cases = [base | {"b": ["3"]}, base | {"a": [], "b": []}, base | {"a": ["1"] * 4097, "b": ["1"] * 4097},
             base | {"promote": 0}, base | {"promote": 4097}, base | {"methods": ["nope"]},
             base | {"methods": ["fp32", "x" * 60]}, base | {"format": "bfloat16", "methods": ["v100"]},
             base | {"format": "float8_e4m3fn", "a": ["1"], "b": ["1"], "methods": ["a100"]},
             base | {"steps": [["fp32", 0], ["fp32", 3], ["pairwise", 1], ["v100", 1], ["kahan", 2], ["nope", 1]]}]
    assert compared(node, "figures", cases, figure_reference, [str(c) for c in cases]) == len(cases)


# -- every pair of FP8 values --------------------------------------------------------------------------------------


def finals_reference(format_id: str, methods: list[str], promote: int) -> Any:
    """Each method's final value by the core's integer reference (sequential_running, kahan_running,
    fused_running: dot_product computes on doubles, held value for value to these by tests/unit/formats/
    test_dot_fast.py; a whole figure per pair would take minutes). Pairwise summation of one or two products is
    their FP32 sum in order, so it is sequential_running there."""
    unit = product_unit(format_id)
    fp32, own = grid("float32", unit), output_grid("input_format", format_id)

    def final(method: str, products: list[int], exponents: tuple[int | None, ...]) -> object:
        n = len(products)
        if method == "input_format":
            return sequential_running(products, own, own)[-1]
        if method in ("fp32", "pairwise"):
            assert n <= 2 or method == "fp32"
            return sequential_running(products, fp32, fp32)[-1]
        if method == "kahan":
            return kahan_running(products, fp32)[-1][0]
        if method == "promoted":
            return fused_running(products, exponents, NARROW, fp32, [n], promote)[0][0]
        return fused_running(products, exponents, TENSOR_CORES[method].models[format_id].adder, fp32, [n])[0][0]

    def reference(case: list[list[str]]) -> str:
        a, b = [int(x) for x in case[0]], [int(x) for x in case[1]]
        products = [x * y for x, y in zip(a, b, strict=True)]
        exponents = product_exponents(format_id, a, b)
        return SEP.join(str(final(m, products, exponents)) for m in methods)  # units, or inf, -inf, nan
    return reference


@pytest.mark.slow  # 12 s each: 61,504 to 64,516 pairs in 7 methods, as lengths 1 and 2, on both sides
@pytest.mark.parametrize("format_id", FP8)
def test_every_fp8_pair_is_as_in_python(node: Harness, format_id: str) -> None:
    rng = random.Random(f"{FIXED_SEED} pairs {format_id}")
    pool = finite_units(format_id)
    methods = list(dot_methods_for(format_id))
    pairs = [([str(x)], [str(y)]) for x in pool for y in pool]
    pairs += [([a[0], str(rng.choice(pool))], [b[0], str(rng.choice(pool))]) for a, b in pairs]
    count = 0
    for start in range(0, len(pairs), 8192):
        part = [list(p) for p in pairs[start:start + 8192]]
        count += compared(node, "finals", part, finals_reference(format_id, methods, 1),
                          [f"{format_id} a={a} b={b}" for a, b in part], format_id, methods, 1)
    assert count == 2 * len(pool) ** 2


# -- inputs --------------------------------------------------------------------------------------------------------

ITEMS = ["0.5", "-1.25e-3", "0x1.8p-3", "1/3", "1e40", "\u22122", "-0", "65504", "448", "1e-50", "3.4028235e38",
         "57344", "6e-8", "2.5", "7", "1e99999", "-1e-99999", "0e99999", "123456789e-99990", "0x1.8p-300000",
         "65520", "0x1.ffep15", "1e40", "9.99e39", "-1e-46", "1.5e-47", "0.000e-99999", "-00012e38",
         "abc", "inf", "nan", "1e", "0x3c00", "1/0", "9" * 1101, "0.1", "-7/16"]
GAPS = [",", ";", " ", "\n", ", ", "\t", "\u3000", "\x1c", "\xa0", ",,", " ; "]


def typed_reference(case: list[str]) -> str:
    format_id, text, name = case
    try:
        stored = stored_vector(parse_vector(text, name), format_id)
    except DotInputError as error:
        return _refusal(error)
    return SEP.join([",".join(map(str, stored.units)), str(stored.clamped), str(stored.zeroed)])


def read_reference(case: list[str]) -> str:
    format_id, text, name = case
    try:
        stored = store_read(read_vector(text, name), format_id)
    except DotInputError as error:
        return _refusal(error)
    return SEP.join([",".join(map(str, stored.units)), str(stored.clamped), str(stored.zeroed)])


def test_typed_vectors_are_read_and_stored_as_in_python(node: Harness) -> None:
    rng = random.Random(f"{FIXED_SEED} typed")
    cases = []
    for _ in range(300):
        count = rng.randint(1, 12)
        items = [rng.choice(ITEMS[:28]) if rng.random() < 0.93 else rng.choice(ITEMS) for _ in range(count)]
        text = rng.choice(["", " ", "\n"]) + "".join(item + rng.choice(GAPS) for item in items).rstrip(",; ")
        cases.append([rng.choice(DOT_FORMATS), text, rng.choice("ab")])
    cases += [["float16", "", "a"], ["float16", " ,; ", "b"], ["float16", "1 " * 4097, "a"],
              ["float16", "1," * 131073, "b"], ["bfloat16", ", ".join(["0.1"] * 4096), "a"]]
    assert compared(node, "typed", cases, typed_reference, [repr(c)[:200] for c in cases]) == len(cases)
    # the server's own reading (app/formats/dot_reading.py: bounded work, bit for bit as the exact path) alike
    assert compared(node, "typed", cases, read_reference, [repr(c)[:200] for c in cases]) == len(cases)


def test_settings_are_read_as_in_python(node: Harness) -> None:
    cases = [[t, name, lo, hi] for t in ["1", " 12 ", "0", "4096", "4097", "", "x", "１２", "1.5", "-1", "99999999999",
                                          "0000000003", " 7\u3000", "\u0663"]
             for name, lo, hi in (("n", 1, MAX_DOT_LENGTH), ("seed", 0, 2**32 - 1))]

    def reference(case: list[Any]) -> str:
        try:
            return str(parse_dot_setting(*case))
        except DotInputError as error:
            return _refusal(error)
    assert compared(node, "settings", cases, reference, [repr(c) for c in cases]) == len(cases)


@pytest.mark.parametrize("distribution", list(DOT_DISTRIBUTIONS))
def test_drawn_vectors_are_stored_as_in_python(node: Harness, distribution: str) -> None:
    rng = random.Random(f"{FIXED_SEED} drawn {distribution}")
    cases, expected = [], []
    for format_id in DOT_FORMATS:
        for n in (1, rng.randint(2, 300), 1500):
            seed = rng.randrange(2**32)
            doubles = [x.tolist() for x in drawn_doubles(distribution, n, seed)]
            cases += [[format_id, doubles[0]], [format_id, doubles[1]]]
            expected += list(drawn_vectors(format_id, distribution, n, seed))
    answers = iter(SEP.join([",".join(map(str, v.units)), str(v.clamped), str(v.zeroed)]) for v in expected)
    assert compared(node, "drawn", cases, lambda _: next(answers), [f"{c[0]} n={len(c[1])}" for c in cases]) == len(
        cases)


def test_chart_counts_are_as_in_python(node: Harness) -> None:
    ns = list(range(1, MAX_DOT_LENGTH + 1))
    assert compared(node, "counts", ns, lambda n: ",".join(map(str, chart_counts(n))), [f"n={n}" for n in ns]) == len(
        ns)


def test_the_models_are_python_s(node: Harness) -> None:
    """The page's JSON carries tensor_cores.py's models; every method is one the core knows."""
    models = dot_models()
    assert list(DOT_METHODS)[5:] == list(models["cores"])


# -- the chart -------------------------------------------------------------------------------------------------------


def chart_reference(case: dict[str, Any]) -> str:
    d = dot_product(case["format"], [int(x) for x in case["a"]], [int(x) for x in case["b"]], case["methods"],
                    case["promote"])
    drawn = chart(d, "")

    def ticks(found: tuple[Tick, ...]) -> str:
        return ";".join(f"{t.at:.1f} {t.label}" for t in found)
    return SEP.join([ticks(drawn.y_ticks), ticks(drawn.x_ticks), *(f"{s.id} {s.d}" for s in drawn.series)])


def test_the_chart_is_drawn_as_on_the_server(node: Harness) -> None:
    """Every path and tick of app/web/dot/chart.py's chart (English notation; the pages hold the others), for
    lengths whose x places fall on ties of one decimal (33, 65, 129: 632 / 32 = 19.75) and random ones."""
    rng = random.Random(f"{FIXED_SEED} chart")
    cases = []
    for n in (1, 2, 3, 5, 9, 17, 33, 65, 129, 200, 201, 257, 1000, 4096):
        format_id = rng.choice(DOT_FORMATS)
        cases.append(_case(format_id, random_units(rng, format_id, n), random_units(rng, format_id, n), rng, steps=0))
    for format_id in DOT_FORMATS:
        a, b = drawn_units(format_id, "normal", rng.randint(2, 3000), rng.randrange(2**32))
        cases.append(_case(format_id, [int(x) for x in a], [int(x) for x in b], rng, steps=0))
    pool = special_units("float8_e4m3fn")
    cases += [_case("float8_e4m3fn", [rng.choice(pool) for _ in range(9)], [rng.choice(pool) for _ in range(9)], rng)
              for _ in range(10)]
    assert compared(node, "charts", cases, chart_reference, _named(cases)) == len(cases)
