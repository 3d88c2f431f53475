"""The browser's arithmetic core (static/js/arithmetic_core.js), run in Node, held to the Python core
(app/formats/arithmetic.py), the reference, worked out in the same test: every pair of FP8 operands (E4M3FN and E5M2)
for add, sub, mul and div, and every FP8 square root, in every rounding mode but stochastic and both overflow
policies; random fma triples of FP8; random operands of the other formats (float16 to float64, tfloat32, FP6, FP4,
integers, NF4, custom layouts), mixed widths (operands in one format, the result in another), stochastic rounding
with seeds, and the special values (±0, ±inf, NaN, subnormals, ±max) in every operation. Each case compares the
operands as stored, the result's bits, the exact result's decimal (exact or not) and whether it is rational, the
special case that made a NaN or infinity, the overflowed and underflowed marks and the flags; all but the exhaustive
pairs also the rule's sentence (app/formats/arithmetic_rules.py, static/js/arithmetic_rules.js). Random chains
(arithmetic_chain.py, arithmetic_chain.js) compare each step and the exact chain beside it.

One Node process (tests/js/arithmetic_harness.mjs) answers the whole module, each batch worked out in Node while
Python works out its reference, one core each; Node answers a digest per unit (a row of pairs, or one operation in
every mode), and only the units that differ in full. A difference names its case and field.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import zlib
from collections.abc import Callable, Iterator
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any, cast

import pytest

from app.formats import (
    OVERFLOW_POLICIES,
    ROUNDINGS,
    SCALAR_FORMATS,
    FormatSpec,
    InputError,
    Real,
    decode,
    encode,
    parse_value,
)
from app.formats.arithmetic import ARITY, OPERATIONS, Op, Operated, apply, operate, operation
from app.formats.arithmetic_chain import CHAIN_OPERATIONS, MAX_STEPS, chain_step, parse_chain_step, run_chain
from app.formats.arithmetic_rules import rule
from app.formats.encoding import Rounded
from app.web.visualise.codec_specs import codec_spec
from app.web.visualise.serialise import real_json
from tests.helpers.codec_inputs import key, seed_text
from tests.helpers.node import Harness, harness
from tests.helpers.parity import SEP, assert_same

FIXED_SEED = 20250611
SPECS = {spec.id: spec for spec in SCALAR_FORMATS}
CUSTOM = [
    FormatSpec(id="custom", name="E6M9 (custom)", kind="float", bits=16, exponent_bits=6, mantissa_bits=9, bias=40),
    FormatSpec(id="custom", name="E3M4 FNUZ (custom)", kind="float", bits=8, exponent_bits=3, mantissa_bits=4,
               bias=2, nan_style="fnuz"),
]
DETERMINISTIC = [(mode, policy) for mode in ROUNDINGS if mode != "stochastic" for policy in OVERFLOW_POLICIES]
COMBOS = [(mode, policy) for mode in ROUNDINGS for policy in OVERFLOW_POLICIES]
FIELDS = ["operands", "result", "exact", "exact_is_exact_decimal", "rational", "special", "overflowed",
          "underflowed", "flags"]
RULED = [*FIELDS, "rule_template", "rule"]
ROWS_CHUNK = 32  # rows of 256 pairs (in each of DETERMINISTIC) per call to Node
UNITS_CHUNK = 1_000  # random operations per call, each in every mode and policy
FMA_TRIPLES = 20_000  # random FP8 fma triples per format, each in every mode but stochastic and both policies
RANDOM_UNITS = 2_000  # random operations per format (or mixed pair) and seed, each in every mode and policy
CHAINS = 300  # random chains per pair of formats, each in every mode and policy
CHAINS_CHUNK = 50
RECORD = "\x1e"


@pytest.fixture(scope="module")
def node() -> Iterator[Harness]:
    with harness(Path(__file__).with_name("arithmetic_harness.mjs")) as running:
        running.call("setup", [[key(spec), codec_spec(spec)] for spec in (*SCALAR_FORMATS, *CUSTOM)])
        yield running


# -- the reference --------------------------------------------------------------------------------------------------


@cache
def _real_json(x: Real) -> tuple[str, bool]:
    return real_json(x)


def described(done: Operated) -> str:
    """An operation's fields, as the harness writes the JavaScript's."""
    text, exact = _real_json(done.exact.value)
    r = done.result
    return SEP.join([" ".join(o.encoding.hex for o in done.operands), r.encoding.hex, text, str(exact).lower(),
                     str(done.exact.rational).lower(), done.exact.special or "None", str(r.overflowed).lower(),
                     str(r.underflowed).lower(), ",".join(done.flags)])


def ruled(done: Operated, rounding: str) -> str:
    """described, and the rule's sentence: its template and its English ("error" and why, where it fails)."""
    try:
        phrase = rule(done, rounding)
        said = [phrase.template, str(phrase)]
    except ValueError as error:
        said = ["error", str(error)]
    return SEP.join([described(done), *said])


@cache
def _patterns(spec: FormatSpec) -> list[Rounded]:
    return [encode(spec, decode(spec, bits).value) for bits in range(1 << spec.bits)]


def rows_reference(spec: FormatSpec, op: str, combos: list[tuple[str, str]], firsts: list[int]) -> list[list[str]]:
    stored, name = _patterns(spec), cast(Op, op)
    units = []
    for a in firsts:
        pairs = [(stored[a],)] if op == "sqrt" else [(stored[a], b) for b in stored]
        units.append([described(apply(name, operands, spec, cast(Any, mode), cast(Any, policy), None))
                      for operands in pairs for mode, policy in combos])
    return units


def patterned_reference(spec: FormatSpec, combos: list[tuple[str, str]],
                        units: list[tuple[str, list[int]]]) -> list[list[str]]:
    stored = _patterns(spec)
    return [[ruled(apply(cast(Op, op), tuple(stored[b] for b in bits), spec, cast(Any, mode), cast(Any, policy), None),
                   mode) for mode, policy in combos] for op, bits in units]


def operated_reference(spec: FormatSpec, result_spec: FormatSpec, combos: list[tuple[str, str]],
                       units: list[tuple[str, list[str], str | None]]) -> list[list[str]]:
    out = []
    for op, texts, seed in units:
        values = tuple(cast(Real, parse_value(t)) for t in texts)
        out.append([ruled(operate(op, values, spec, result_spec, cast(Any, mode), cast(Any, policy),
                                  None if seed is None else int(seed)), mode) for mode, policy in combos])
    return out


def chains_reference(spec: FormatSpec, result_spec: FormatSpec, combos: list[tuple[str, str]],
                     units: list[tuple[str, list[tuple[str, str | None]], str]]) -> list[list[str]]:
    out = []
    for start, steps, seed in units:
        asked = tuple(chain_step(op, None if t is None else cast(Real, parse_value(t))) for op, t in steps)
        strings = []
        for mode, policy in combos:
            run = run_chain(cast(Real, parse_value(start)), asked, spec, result_spec, cast(Any, mode),
                            cast(Any, policy), int(seed))
            strings.append(SEP.join([run.start.encoding.hex, run.result.encoding.hex]))
            for done, exact in zip(run.steps, run.exact, strict=True):
                text, is_exact = _real_json(exact.value)
                strings.append(SEP.join([ruled(done, mode), text, str(is_exact).lower(), str(exact.rational).lower(),
                                         exact.special or "None"]))
        out.append(strings)
    return out


def compared(node: Harness, call: str, args: list[Any], units: list[Any], chunk: int,
             reference: Callable[[list[Any]], list[list[str]]], cases: Callable[[Any], list[str]],
             fields: list[str] = FIELDS) -> int:
    """Node's strings of `call(*args, units)` against the reference's, a chunk at a time, each chunk's reference
    worked out while Node works out its own; the number of cases compared (as test_codec_parity.compared)."""
    count = 0
    for start in range(0, len(units), chunk):
        part = units[start:start + chunk]
        node.send("digests", call, *args, part)
        ours = reference(part)
        theirs = node.receive()
        differing = [i for i, (unit, digest) in enumerate(zip(ours, theirs, strict=True))
                     if hashlib.sha256(RECORD.join(unit).encode()).hexdigest() != digest]
        if differing:
            shown = differing[:16]
            full = node.call(call, *args, [part[i] for i in shown])
            assert_same([case for i in shown for case in cases(part[i])], [case for i in shown for case in ours[i]],
                        [case for answer in full for case in answer], fields)
            raise AssertionError(f"{len(differing)} of {len(part)} units differ in their digest alone")
        count += sum(map(len, ours))
    return count


# -- every pair of FP8 operands --------------------------------------------------------------------------------------


@pytest.mark.slow  # 12 to 22 s each (sqrt 0.2 s): 65,536 pairs in 10 modes and policies, on both sides
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "sqrt"])
@pytest.mark.parametrize("format_id", ["float8_e4m3fn", "float8_e5m2"])
def test_every_fp8_operation_is_as_in_python(node: Harness, format_id: str, op: str) -> None:
    spec = SPECS[format_id]
    size = 1 << spec.bits

    def cases(a: int) -> list[str]:
        seconds = [f"{op}({a:#04x})"] if op == "sqrt" else [f"{a:#04x} {op} {b:#04x}" for b in range(size)]
        return [f"{format_id} {case} {mode} {policy}" for case in seconds for mode, policy in DETERMINISTIC]

    count = compared(node, "rows", [key(spec), op, DETERMINISTIC], list(range(size)), ROWS_CHUNK,
                     lambda firsts: rows_reference(spec, op, DETERMINISTIC, firsts), cases)
    assert count == (size if op == "sqrt" else size * size) * len(DETERMINISTIC)


@pytest.mark.slow  # 9 to 15 s each: 20,000 triples in 10 modes and policies, with their rules
@pytest.mark.parametrize("format_id", ["float8_e4m3fn", "float8_e5m2"])
def test_random_fp8_fma_triples_are_as_in_python(node: Harness, format_id: str) -> None:
    """fma on random triples of FP8 patterns (every pattern as likely: NaNs, infinities, zeros and subnormals among
    them) and on triples whose addend nearly cancels the product, in every mode but stochastic and both policies."""
    spec, rng = SPECS[format_id], random.Random(FIXED_SEED)
    stored = _patterns(spec)
    by_value = {s.encoding.value: s.encoding.bits for s in stored if s.encoding.value.is_finite}
    units = []
    for _ in range(FMA_TRIPLES):
        a, b, c = (rng.getrandbits(spec.bits) for _ in range(3))
        product = stored[a].encoding.value, stored[b].encoding.value
        if rng.random() < 0.3 and all(v.is_finite for v in product):  # the stored value nearest to -(a × b)
            target = -(product[0].fraction * product[1].fraction)
            c = min(by_value.items(), key=lambda item: abs(item[0].fraction - target))[1]
        units.append(("fma", [a, b, c]))

    def cases(unit: tuple[str, list[int]]) -> list[str]:
        return [f"{format_id} fma({', '.join(f'{b:#04x}' for b in unit[1])}) {mode} {policy}"
                for mode, policy in DETERMINISTIC]

    count = compared(node, "patterned", [key(spec), DETERMINISTIC], units, UNITS_CHUNK,
                     lambda part: patterned_reference(spec, DETERMINISTIC, part), cases, RULED)
    assert count == FMA_TRIPLES * len(DETERMINISTIC)


# -- random operands of every kind ----------------------------------------------------------------------------------


def text_of(x: Fraction | Real) -> str:
    """A value as typed: nan, ±inf, a hex float for a dyadic value, else a fraction; -0 keeps its sign."""
    if isinstance(x, Real):
        if not x.is_finite:
            return x.exact_string()
        if x.is_zero:
            return "-0" if x.negative else "0"
        x = x.fraction
    if x == 0:
        return "0"
    num, den = abs(x.numerator), x.denominator
    sign = "-" if x < 0 else ""
    if den & (den - 1):
        return f"{sign}{num}/{den}"
    zeros = (num & -num).bit_length() - 1
    return f"{sign}0x{num >> zeros:x}p{zeros - den.bit_length() + 1}"


def specials(spec: FormatSpec) -> list[str]:
    """±0, ±inf, NaN, ±max, the smallest subnormal and normal, the largest subnormal, one, and the overflow edge."""
    values = ["0", "-0", "inf", "-inf", "nan", "1", "-1", text_of(spec.max), text_of(spec.lowest),
              text_of(spec.min_positive), text_of(-spec.min_positive), text_of(spec.max * 2)]
    if spec.min_normal is not None and spec.min_subnormal is not None:
        values += [text_of(spec.min_normal), text_of(spec.min_normal - spec.min_subnormal)]
    return values


def _random_value(spec: FormatSpec, rng: random.Random) -> Fraction | Real:
    """A value of the format (any pattern), one a hair or half a step off one, or one anywhere in its range."""
    kind = rng.random()
    value = decode(spec, rng.getrandbits(spec.bits)).value
    if kind < 0.5 or not value.is_finite:
        return value
    if kind < 0.8:
        offset = value.fraction / 2 ** rng.randint(1, 60) if value.fraction else spec.min_positive / 3
        return value.fraction + offset * rng.choice((1, -1))
    low, high = spec.min_positive.numerator.bit_length() - spec.min_positive.denominator.bit_length(), \
        spec.max.numerator.bit_length() - spec.max.denominator.bit_length()
    x = Fraction(2) ** rng.randint(low - 2, high + 1) * Fraction(rng.getrandbits(30) + (1 << 30), 1 << 30)
    return x if rng.random() < 0.5 else -x


def random_units(spec: FormatSpec, rng: random.Random, count: int) -> list[tuple[str, list[str], str]]:
    """Random operations: any operation on random values and specials, sums that nearly cancel, fma whose addend
    nearly cancels the product; each with a seed for stochastic rounding."""
    edge = specials(spec)
    units = []
    for _ in range(count):
        op = rng.choice(OPERATIONS)
        texts = [rng.choice(edge) if rng.random() < 0.15 else text_of(_random_value(spec, rng))
                 for _ in range(ARITY[op])]
        values = [cast(Real, parse_value(t)) for t in texts]
        if op in ("add", "sub", "fma") and rng.random() < 0.3 and all(v.is_finite for v in values):
            target = values[0].fraction * (values[1].fraction if op == "fma" else 1) * (1 if op == "sub" else -1)
            texts[-1] = text_of(target + target / 2 ** rng.randint(1, 40) * rng.choice((0, 1, -1)))
        units.append((op, texts, seed_text(rng)))
    return units


RANDOM_PAIRS = [(f, f) for f in ("float16", "bfloat16", "float32", "float64", "tfloat32", "float4_e2m1fn",
                                 "float6_e2m3fn", "float6_e3m2fn", "float8_e4m3fnuz", "float8_e8m0fnu", "int8",
                                 "uint8", "int4", "nf4")] + [
    ("float16", "float32"), ("bfloat16", "float32"), ("float8_e4m3fn", "float16"), ("float32", "bfloat16"),
    ("float32", "float16"), ("float8_e5m2", "float8_e4m3fn"), ("int8", "float16"), ("float16", "int8"),
    ("float4_e2m1fn", "nf4"), ("float64", "float32"), ("bfloat16", "float8_e5m2")]
_CUSTOM = {key(spec): spec for spec in CUSTOM}


def _spec(name: str) -> FormatSpec:
    return SPECS.get(name) or _CUSTOM[name]


def _pair_params() -> list[Any]:
    pairs = RANDOM_PAIRS + [(key(spec), key(spec)) for spec in CUSTOM]
    return [pytest.param(a, b, seed, id=f"{a}-to-{b}-seed{seed}")
            for a, b in pairs for seed in (FIXED_SEED, zlib.crc32(f"{a} {b}".encode()))]


def _operated(node: Harness, spec: FormatSpec, result_spec: FormatSpec, units: list[Any]) -> int:
    def cases(unit: tuple[str, list[str], str]) -> list[str]:
        op, texts, seed = unit
        return [f"{key(spec)}->{key(result_spec)} {op}({', '.join(t[:40] for t in texts)}) {mode} {policy} seed {seed}"
                for mode, policy in COMBOS]

    return compared(node, "operated", [key(spec), key(result_spec), COMBOS], units, UNITS_CHUNK,
                    lambda part: operated_reference(spec, result_spec, COMBOS, part), cases, RULED)


@pytest.mark.slow  # 1 to 5 s each: 2,000 operations in 12 modes and policies, with their rules
@pytest.mark.parametrize(("format_id", "result_id", "seed"), _pair_params())
def test_random_operations_are_as_in_python(node: Harness, format_id: str, result_id: str, seed: int) -> None:
    """Random operations in every mode (stochastic with a seed) and both policies, operands stored in one format
    and the result in the same or another."""
    spec, result_spec = _spec(format_id), _spec(result_id)
    units = random_units(spec, random.Random(seed), RANDOM_UNITS)
    assert _operated(node, spec, result_spec, units) == RANDOM_UNITS * len(COMBOS)


@pytest.mark.parametrize("format_id", [  # 2 to 5 s each: 3,542 operations (2,744 fma triples) in 12 ways
    "float16",
    *[pytest.param(f, marks=pytest.mark.slow) for f in ("float8_e4m3fn", "float8_e5m2fnuz", "float8_e8m0fnu", "int8",
                                                        "nf4", "float4_e2m1fn", "float64", key(CUSTOM[0]))]])
def test_every_operation_on_special_values_is_as_in_python(node: Harness, format_id: str) -> None:
    """Every operation on every tuple of the special values (±0, ±inf, NaN, ±1, ±max, the smallest subnormal and
    normal, the largest subnormal, twice max), in every mode and policy."""
    spec, edge = _spec(format_id), specials(_spec(format_id))
    rng = random.Random(FIXED_SEED)
    units = [(op, list(texts), seed_text(rng)) for op in OPERATIONS
             for texts in itertools.product(edge, repeat=ARITY[op])]
    assert _operated(node, spec, spec, units) == len(units) * len(COMBOS)


def _refused(check: Callable[..., object], *args: object) -> str:
    with pytest.raises(InputError) as refused:
        check(*args)
    return str(refused.value)


@pytest.mark.parametrize("name", ["addition", "", "ADD", "x" * 60, "it's", "\u00e9\U0001f600\x00"])
def test_unknown_operations_are_refused_with_the_same_sentence(node: Harness, name: str) -> None:
    assert node.call("refusal", "operation", name) == _refused(operation, name)


# -- chains ---------------------------------------------------------------------------------------------------------


def random_chains(spec: FormatSpec, rng: random.Random, count: int) -> list[tuple[str, list[Any], str]]:
    """Chains of 1 to MAX_STEPS steps (mostly short) from random values and specials, each with a seed."""
    edge = specials(spec)

    def value() -> str:
        return rng.choice(edge) if rng.random() < 0.1 else text_of(_random_value(spec, rng))

    units = []
    for _ in range(count):
        length = rng.choice((1, 2, 3, 5, 8, rng.randint(1, MAX_STEPS)))
        steps = [(op, None if op == "sqrt" else value()) for op in rng.choices(CHAIN_OPERATIONS, k=length)]
        units.append((value(), steps, seed_text(rng)))
    return units


CHAIN_PAIRS = [("float16", "float16"), ("bfloat16", "bfloat16"), ("float32", "float32"), ("float64", "float64"),
               ("float8_e4m3fn", "float8_e4m3fn"), ("float8_e5m2", "float8_e5m2"), ("float16", "float32"),
               ("float8_e4m3fn", "float16"), ("float32", "bfloat16"), ("int8", "int8"), ("nf4", "nf4"),
               ("float4_e2m1fn", "float4_e2m1fn")]


@pytest.mark.parametrize(("format_id", "result_id"), [
    pytest.param(a, b, marks=[] if a in ("float16", "float8_e4m3fn") and a == b else [pytest.mark.slow],
                 id=f"{a}-to-{b}") for a, b in CHAIN_PAIRS])
def test_random_chains_run_as_in_python(node: Harness, format_id: str, result_id: str) -> None:
    """Each step's operands, result, exact value, flags and rule, and the exact chain after it, in every mode (the
    stochastic one seeded: one generator for the start, then each step's operand and result) and policy."""
    spec, result_spec = _spec(format_id), _spec(result_id)
    units = random_chains(spec, random.Random(zlib.crc32(f"{format_id} {result_id}".encode())), CHAINS)

    def cases(unit: tuple[str, list[Any], str]) -> list[str]:
        start, steps, seed = unit
        names = [f"{start[:30]} then {op} {operand and operand[:30]}" for op, operand in steps]
        return [f"{format_id}->{result_id} chain {name} {mode} {policy} seed {seed}"
                for mode, policy in COMBOS for name in ["start", *names]]

    count = compared(node, "chains", [key(spec), key(result_spec), COMBOS], units, CHAINS_CHUNK,
                     lambda part: chains_reference(spec, result_spec, COMBOS, part), cases, [])
    assert count == sum(1 + len(steps) for _, steps, _ in units) * len(COMBOS)


@pytest.mark.parametrize("text", ["add:0.1", " mul : 3 ", "sqrt", "sqrt:2", "add", "fma:1", "dot:1", "add:0x3c00",
                                  "add:abc", "div:1/3", "sub:-inf", "add:1:2", "\u3000sqrt\u3000", "\x1cadd:1",
                                  "Add:1", ":1", ""])
def test_chain_steps_are_read_and_refused_as_in_python(node: Harness, text: str) -> None:
    try:
        step = parse_chain_step(text)
        ours = f"{step.op} {'None' if step.operand is None else ' '.join(map(str, _real_json(step.operand)))}"
        ours = ours.replace("True", "true").replace("False", "false")
    except InputError as refusal:
        ours = str(refusal)
    assert node.call("refusal", "chainStep", text) == ours


def test_a_chain_too_long_is_refused_with_the_same_sentence(node: Harness) -> None:
    spec = SPECS["float16"]
    for length in (MAX_STEPS, MAX_STEPS + 1):
        steps = [("add", "1")] * length
        try:
            ours = run_chain(Real.of(1), tuple(chain_step(op, parse_value(t)) for op, t in steps), spec)
            expected = ours.result.encoding.hex
        except InputError as refusal:
            expected = str(refusal)
        assert node.call("refusal", "chain", "1", steps, key(spec)) == expected
