"""The browser's exact codec (static/js/codec.js), run in Node, held to the Python codec, the reference: every pattern
of every scalar format up to 16 bits, random patterns of the wider ones, and random inputs of every kind (decimals over
each format's range, ties and near-ties to its rounding boundaries, hex floats, fractions, raw bits, specials, huge
and tiny exponents, refusals) in every rounding mode and overflow policy give the same bits, classes, exact values,
sentences and "≈" strings; stochastic rounding draws what CPython's random.Random draws.

One Node process (tests/js/codec_harness.mjs) answers the whole module; each batch is worked out in Node while Python
works out its reference, one core each. The random tests run under two seeds: FIXED_SEED, and one that the
parametrisation derives from the format's id (its CRC-32); both are in the test id. A difference names its case and
field.
"""

from __future__ import annotations

import hashlib
import random
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.formats import SCALAR_FORMATS, FormatSpec, InputError, overflow_policy, parse_bits, parse_number, rounding_mode
from app.web.visualise.codec_specs import codec_spec
from app.web.visualise.inputs import seed_value
from tests.helpers.codec_inputs import SPECIAL_INPUTS, key, random_inputs, seed_text
from tests.helpers.codec_reference import COMBOS, FIELDS_DECODED, FIELDS_STORED, decoded_all, stored_all
from tests.helpers.node import Harness, harness
from tests.helpers.parity import assert_same

FIXED_SEED = 20250611  # the documented seed; the second seed of each test comes from its parametrisation
PATTERNS = 20_000  # random patterns of each format wider than 16 bits, per seed
INPUTS = 10_000  # random inputs per format and seed: 20,000 over the two seeds, each in every mode and policy
CUSTOM_INPUTS = 2_000
DECODE_CHUNK = 16_384  # patterns per call to Node
ENCODE_CHUNK = 2_000  # inputs per call

# Layouts of a person's own, as the visualiser's `custom` format makes them: the codec takes any float FormatSpec.
CUSTOM = [
    FormatSpec(id="custom", name="E6M9 (custom)", kind="float", bits=16, exponent_bits=6, mantissa_bits=9, bias=40),
    FormatSpec(id="custom", name="E3M4 FNUZ (custom)", kind="float", bits=8, exponent_bits=3, mantissa_bits=4,
               bias=2, nan_style="fnuz"),
    FormatSpec(id="custom", name="E2M2 FN (custom)", kind="float", bits=5, exponent_bits=2, mantissa_bits=2, bias=1,
               nan_style="fn"),
    FormatSpec(id="custom", name="E1M3 (custom)", kind="float", bits=5, exponent_bits=1, mantissa_bits=3, bias=0,
               nan_style="none"),
]
SMALL = [spec for spec in (*SCALAR_FORMATS, *CUSTOM) if spec.bits <= 16]
WIDE = [spec for spec in SCALAR_FORMATS if spec.bits > 16]
SPECS = {spec.id: spec for spec in SCALAR_FORMATS}


def _seeds(specs: list[FormatSpec]) -> list[Any]:
    return [pytest.param(spec, seed, id=f"{key(spec)}-seed{seed}")
            for spec in specs for seed in (FIXED_SEED, zlib.crc32(key(spec).encode()))]


@pytest.fixture(scope="module")
def node() -> Iterator[Harness]:
    """The codec in one Node process, with every scalar format's specification and the custom layouts."""
    with harness(Path(__file__).with_name("codec_harness.mjs")) as running:
        running.call("setup", [[key(spec), codec_spec(spec)] for spec in (*SCALAR_FORMATS, *CUSTOM)], COMBOS)
        yield running


RECORD = "\x1e"  # between the cases of one unit (an input in each of its modes)


def _cases(answer: str | list[str]) -> list[str]:
    """One string per case: a unit answers one string, or a list of them (an input in each of its modes)."""
    return answer if isinstance(answer, list) else [answer]


def compared(node: Harness, call: str, spec: FormatSpec, units: list[Any], chunk: int,
             reference: Callable[[FormatSpec, list[Any]], list[Any]], cases: Callable[[Any], list[str]],
             fields: list[str]) -> int:
    """Node's strings of `call` on these units against the reference's, a chunk at a time, each chunk's reference
    worked out while Node works out its own; the number of cases compared. Node answers a SHA-256 of each unit's
    strings, and only the units whose digest differs in full."""
    count = 0
    for start in range(0, len(units), chunk):
        part = units[start:start + chunk]
        node.send("digests", call, key(spec), part)
        ours = [_cases(answer) for answer in reference(spec, part)]
        theirs = node.receive()
        differing = [i for i, (unit, digest) in enumerate(zip(ours, theirs, strict=True))
                     if hashlib.sha256(RECORD.join(unit).encode()).hexdigest() != digest]
        if differing:
            shown = differing[:64]
            full = node.call(call, key(spec), [part[i] for i in shown])
            assert_same([case for i in shown for case in cases(part[i])], [case for i in shown for case in ours[i]],
                        [case for answer in full for case in _cases(answer)], fields)
            raise AssertionError(f"{len(differing)} of {len(part)} units differ in their digest alone")
        count += sum(map(len, ours))
    return count


# -- decoding -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", [
    # 65,536 patterns, each worked out on both sides with its neighbours, ulp and short forms: 5 to 8 s
    pytest.param(spec, marks=pytest.mark.slow) if spec.bits > 12 else spec for spec in SMALL], ids=key)
def test_every_pattern_decodes_as_in_python(node: Harness, spec: FormatSpec) -> None:
    """Bits, class, exact value, hex, fields, next up and down, ulp and their short forms of every pattern."""
    patterns = [str(bits) for bits in range(1 << spec.bits)]
    assert compared(node, "decode", spec, patterns, DECODE_CHUNK, decoded_all,
                    lambda bits: [f"{key(spec)} {int(bits):#x}"], FIELDS_DECODED) == 1 << spec.bits


@pytest.mark.slow  # 3 to 10 s each: 20,000 patterns, float64's and float128's exact values of thousands of digits
@pytest.mark.parametrize(("spec", "seed"), _seeds(WIDE))
def test_random_patterns_decode_as_in_python(node: Harness, spec: FormatSpec, seed: int) -> None:
    rng = random.Random(seed)
    # every pattern's bits at random, then a share from the edges: around zero, the subnormals, max and the top
    patterns = [rng.getrandbits(spec.bits) for _ in range(PATTERNS - PATTERNS // 10)]
    sign = 1 << (spec.bits - 1)
    edges = [0, 1, 2, sign - 1, sign - 2, (1 << spec.mantissa_bits) - 1, 1 << spec.mantissa_bits]
    patterns += [(rng.choice(edges) + rng.randrange(-3, 4)) % sign | rng.choice((0, sign))
                 for _ in range(PATTERNS // 10)]
    assert compared(node, "decode", spec, [str(bits) for bits in patterns], DECODE_CHUNK, decoded_all,
                    lambda bits: [f"{key(spec)} {int(bits):#x}"], FIELDS_DECODED) == PATTERNS


# -- inputs ---------------------------------------------------------------------------------------------------------


def _stored_cases(spec: FormatSpec) -> Callable[[tuple[str, str]], list[str]]:
    def cases(unit: tuple[str, str]) -> list[str]:
        text, seed = unit
        return [f"{key(spec)} {text[:80]!r} {mode} {policy} seed {seed}" for mode, policy in COMBOS]

    return cases


@pytest.mark.parametrize("spec", [*SCALAR_FORMATS, *CUSTOM], ids=key)
def test_the_chosen_inputs_are_stored_as_in_python(node: Harness, spec: FormatSpec) -> None:
    """The hand-picked inputs (specials, signed zeros, huge and tiny exponents, fractions, raw bits, every refusal)
    in every rounding mode and overflow policy, each with a seed from the edges of its range or within it."""
    rng = random.Random(FIXED_SEED)
    inputs = [(text, seed_text(rng)) for text in SPECIAL_INPUTS]
    assert compared(node, "encode", spec, inputs, ENCODE_CHUNK, stored_all, _stored_cases(spec),
                    FIELDS_STORED) == len(inputs) * len(COMBOS)


@pytest.mark.slow  # 3 to 10 s each on two cores: the Python reference alone stores 10,000 inputs 12 ways
@pytest.mark.parametrize(("spec", "seed"), _seeds([*SCALAR_FORMATS, *CUSTOM]))
def test_random_inputs_are_stored_as_in_python(node: Harness, spec: FormatSpec, seed: int) -> None:
    """Every input in every rounding mode and overflow policy: bits, class, exact values and errors, relative
    error, flags, notes, refusals and every shortened display."""
    rng = random.Random(seed)
    count = CUSTOM_INPUTS if spec.id == "custom" else INPUTS
    inputs = [(text, seed_text(rng)) for text in random_inputs(spec, seed, count)]
    assert compared(node, "encode", spec, inputs, ENCODE_CHUNK, stored_all, _stored_cases(spec),
                    FIELDS_STORED) == len(inputs) * len(COMBOS)


# -- choices, refusals and the generator --------------------------------------------------------------------------


def _refusal(check: Callable[..., object], *args: object) -> str:
    with pytest.raises(InputError) as refused:
        check(*args)
    return str(refused.value)


@pytest.mark.parametrize("name", ["nearest", "", "Nearest_Even", "x" * 60, "it's", "\u00e9\U0001f600\x00"])
def test_unknown_modes_and_policies_are_refused_with_the_same_sentences(node: Harness, name: str) -> None:
    for call, check in (("roundingMode", rounding_mode), ("overflowPolicy", overflow_policy)):
        assert node.call("refusal", call, [name]) == _refusal(check, name)


@pytest.mark.parametrize("text", ["abc", "-1", "1.5", str(2**63), "9" * 20, "\uff11", " 1", "0x10"])
def test_bad_seeds_are_refused_with_the_same_sentence(node: Harness, text: str) -> None:
    assert node.call("refusal", "seedValue", [text]) == _refusal(seed_value, text)


def test_parse_bits_refuses_with_the_same_sentences(node: Harness) -> None:
    cases = [("float16", "0x10000"), ("float4_e2m1fn", "16"), ("float16", "-1"), ("float16", "1.0"),
             ("float16", "0xg"), ("float16", "\uff11"), ("float16", ""), ("float16", "_"), ("int4", "0b10000"),
             ("float64", "0x" + "f" * 17)]
    for format_id, text in cases:
        spec = SPECS[format_id]
        assert node.call("refusal", "parseBits", [text, codec_spec(spec)]) == _refusal(parse_bits, text, spec)


def test_parse_number_refuses_raw_bits_with_the_same_sentence(node: Harness) -> None:
    for text in ("0x3c00", "0B1010", "0x" + "a" * 60, "  0b_1_0  "):
        assert node.call("refusal", "parseNumber", [text]) == _refusal(parse_number, text)


def test_the_generator_draws_what_cpython_draws(node: Harness) -> None:
    """getrandbits(64) of random.Random(seed), the first draws and past the state's first regeneration."""
    rng = random.Random(FIXED_SEED)
    seeds = [0, 1, 2, 3, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**63 - 1, 2**64, 2**64 + 5, 2**200 + 17]
    seeds += [rng.getrandbits(rng.randint(1, 63)) for _ in range(500)]
    ours = []
    for seed in seeds:
        generator = random.Random(seed)
        ours.append([str(generator.getrandbits(64)) for _ in range(4)])
    assert node.call("draws", [str(s) for s in seeds], 4) == ours
    long_ours = [[str(generator.getrandbits(64)) for _ in range(1000)]
                 for generator in (random.Random(0), random.Random(12345))]
    assert node.call("draws", ["0", "12345"], 1000) == long_ours
