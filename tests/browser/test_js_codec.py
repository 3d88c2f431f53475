"""The browser's exact codec (static/js/codec.js) held to the Python codec, the reference: every pattern of every
scalar format up to 16 bits, random patterns of the wider ones, and random inputs of every kind (decimals over each
format's range, ties and near-ties to its rounding boundaries, hex floats, fractions, raw bits, specials, huge and
tiny exponents, refusals) in every rounding mode and overflow policy give the same bits, classes, exact values,
sentences and "≈" strings.

Each case is one string of fields on both sides, built in big batches inside one page.evaluate; the page answers a
SHA-256 per group of cases and only a differing group is fetched in full, so a difference names its case and field.
The random tests run under two seeds: FIXED_SEED, and one that the parametrisation derives from the format's id
(its CRC-32); both are in the test id. All of it takes about 10 minutes on two cores (sequential `make test`).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import struct
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from functools import partial
from typing import Any

import pytest
from playwright.sync_api import Page

from app.formats import (
    OVERFLOW_POLICIES,
    ROUNDINGS,
    SCALAR_FORMATS,
    Encoding,
    FormatSpec,
    InputError,
    RawBits,
    Real,
    decode,
    encode,
    next_down,
    next_up,
    overflow_policy,
    parse_bits,
    parse_number,
    parse_value,
    rounding_mode,
    ulp,
)
from app.formats.parse import MAX_INPUT_LENGTH
from app.web.visualise.codec_specs import codec_spec, codec_specs
from app.web.visualise.inputs import seed_value
from app.web.visualise.present import SHORT_LENGTH, relative, shown
from app.web.visualise.serialise import real_json

FIXED_SEED = 20250611  # the documented seed; the second seed of each test comes from its parametrisation
PATTERNS = 20_000  # random patterns of each format wider than 16 bits, per seed
INPUTS = 10_000  # random inputs per format and seed: 20,000 over the two seeds, each in every mode and policy
DECODE_CHUNK = 16_384  # patterns per page.evaluate
ENCODE_CHUNK = 2_000  # inputs per page.evaluate
SEP = "\x1f"  # between the fields of a case
RECORD = "\x1e"  # between the cases of one unit (an input in each of its modes)
UNIT = "\x1d"  # between units, in a group that one digest covers
GROUP = 64  # units per digest
FULL = 4000  # the visualiser shows exact values in full up to this many characters (pages.FULL)
COMBOS = [(mode, policy) for mode in ROUNDINGS for policy in OVERFLOW_POLICIES]  # every input meets each

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
CUSTOM_INPUTS = 2_000


def key(spec: FormatSpec) -> str:
    """A name for the page's table of specifications: the id, or the layout of a custom format."""
    if spec.id != "custom":
        return spec.id
    return f"custom-e{spec.exponent_bits}m{spec.mantissa_bits}-bias{spec.bias}-{spec.nan_style}"


SMALL = [spec for spec in (*SCALAR_FORMATS, *CUSTOM) if spec.bits <= 16]
WIDE = [spec for spec in SCALAR_FORMATS if spec.bits > 16]


def _seeds(specs: list[FormatSpec]) -> list[Any]:
    return [pytest.param(spec, seed, id=f"{key(spec)}-seed{seed}")
            for spec in specs for seed in (FIXED_SEED, zlib.crc32(key(spec).encode()))]


# -- the page ---------------------------------------------------------------------------------------------

HARNESS = """async ([specs, combos]) => {
  const codec = await import("/static/js/codec.js");
  const { MersenneTwister } = await import("/static/js/mt19937.js");
  const byId = Object.fromEntries(specs);
  const text = (x) => (x === null || x === undefined ? "None" : String(x));
  const exact = (x) => (x === null ? "None" : codec.exactString(x));
  const floatBits = (x) => {
    if (x === null) return "None";
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, x);
    return view.getBigUint64(0).toString(16).padStart(16, "0");
  };
  const decoded = (enc) => {
    const up = codec.nextUp(enc), down = codec.nextDown(enc), gap = codec.ulp(enc);
    return [enc.hex, enc.binary, enc.cls, enc.exactString, text(enc.sign), text(enc.exponentField),
      text(enc.mantissaField), text(enc.exponent), exact(enc.significand), up ? up.exactString : "None",
      down ? down.exactString : "None", exact(gap), codec.shown(enc.value, 60, 17).text, codec.shown(enc.value).text,
      gap === null ? "None" : codec.shown(gap).text].join("\\x1f");
  };
  const stored = (spec, input, mode, policy, seed) => {
    let answer;
    try {
      answer = codec.encode(spec, input, mode, policy, seed);
    } catch (error) {
      if (!(error instanceof codec.InputError)) throw error;
      return "refused\\x1f" + error.message;
    }
    const enc = answer.encoding, r = answer.rounded;
    if (!r) return ["raw", enc.hex, enc.cls, enc.exactString].join("\\x1f");
    const [given, givenExact] = codec.realText(r.input), [error, errorExact] = codec.realText(r.error);
    return [enc.hex, enc.cls, enc.exactString, given, givenExact, error, errorExact, floatBits(r.relError),
      r.relErrorText, r.overflowed, r.underflowed, text(r.note), codec.shown(r.input, 4000).text,
      codec.shown(r.error, 4000).text, codec.shown(enc.value, 60, 17).text, codec.shown(r.input).text,
      codec.shown(r.error).text, codec.shown(enc.value).text].join("\\x1f");
  };
  const digest = async (text) => {
    const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  };
  window.harness = {
    // one string per unit (a pattern, or an input in each of its modes), as the reference makes them
    decode: (id, patterns) => patterns.map((p) => decoded(codec.decode(byId[id], BigInt(p)))),
    encode: (id, inputs) => inputs.map(([input, seed]) => combos.map(([mode, policy]) =>
      stored(byId[id], input, mode, policy, seed)).join("\x1e")),
    // the SHA-256 of each group of units: the page hands over little however many cases it works out
    digests: async (call, args, group) => {
      const units = window.harness[call](...args), out = [];
      for (let i = 0; i < units.length; i += group) out.push(await digest(units.slice(i, i + group).join("\x1d")));
      return out.join(",");
    },
    units: (call, args) => window.harness[call](...args).join("\x1d"),
    refusal: (call, args) => {
      try {
        codec[call](...args);
        return "accepted";
      } catch (error) {
        return error.message;
      }
    },
    draws: (seeds, count) => seeds.map((seed) => {
      const mt = new MersenneTwister(BigInt(seed));
      return Array.from({ length: count }, () => mt.getrandbits64().toString());
    }),
  };
}"""


@pytest.fixture
def codec_page(page: Page) -> Page:
    """A page of the test server with codec.js loaded as a module and every scalar format's specification."""
    page.goto("/")
    page.evaluate(HARNESS, [[[key(spec), codec_spec(spec)] for spec in (*SCALAR_FORMATS, *CUSTOM)], COMBOS])
    return page


# -- the reference --------------------------------------------------------------------------------------------


def _text(x: object) -> str:
    return "None" if x is None else str(x)


def _exact(x: Fraction | None) -> str:
    return "None" if x is None else Real.of(x).exact_string()


def _shown(x: Real | Fraction | None, limit: int = SHORT_LENGTH, digits: int = 7) -> str:
    short = shown(x, limit, digits)
    return "None" if short is None else short.text


def decoded(enc: Encoding) -> str:
    up, down, gap = next_up(enc), next_down(enc), ulp(enc)
    return SEP.join([
        enc.hex, enc.binary, enc.cls, enc.value.exact_string(), _text(enc.sign), _text(enc.exponent_field),
        _text(enc.mantissa_field), _text(enc.exponent), _exact(enc.significand),
        up.value.exact_string() if up else "None", down.value.exact_string() if down else "None", _exact(gap),
        _shown(enc.value, 60, 17), _shown(enc.value), _shown(gap),
    ])


def _float_bits(x: float | None) -> str:
    return "None" if x is None else struct.pack(">d", x).hex()


def stored(spec: FormatSpec, text: str, seed: str) -> list[str]:
    """What the visualiser does with typed text (pages._stored) in each of COMBOS, each as one string of fields.

    The fields of a stored value and of its error are worked out once per pattern: most modes store the same one.
    """
    try:
        seed_number = seed_value(seed)
        parsed = parse_value(text)
        if isinstance(parsed, RawBits):
            enc = decode(spec, parse_bits(parsed.text, spec))
            return [SEP.join(["raw", enc.hex, enc.cls, enc.value.exact_string()])] * len(COMBOS)
    except InputError as refusal:
        return ["refused" + SEP + str(refusal)] * len(COMBOS)
    given, given_exact = real_json(parsed)
    given_fields = [given, str(given_exact).lower()]
    given_shown = [_shown(parsed, FULL), _shown(parsed)]
    by_pattern: dict[int, tuple[list[str], list[str], list[str]]] = {}
    records = []
    for mode, policy in COMBOS:
        result = encode(spec, parsed, rounding_mode(mode), overflow_policy(policy), seed_number)
        enc = result.encoding
        if enc.bits not in by_pattern:
            error, error_exact = real_json(result.error)
            by_pattern[enc.bits] = (
                [enc.hex, enc.cls, enc.value.exact_string()],
                [error, str(error_exact).lower(), _float_bits(result.rel_error), relative(result.rel_error)],
                [_shown(result.error, FULL), _shown(enc.value, 60, 17), given_shown[1], _shown(result.error),
                 _shown(enc.value)],
            )
        value_fields, error_fields, shown_fields = by_pattern[enc.bits]
        flags = [str(result.overflowed).lower(), str(result.underflowed).lower(), _text(result.note)]
        records.append(SEP.join(value_fields + given_fields + error_fields + flags + given_shown[:1] + shown_fields))
    return records


def decoded_all(spec: FormatSpec, patterns: list[str]) -> list[str]:
    return [decoded(decode(spec, int(bits))) for bits in patterns]


def stored_all(spec: FormatSpec, inputs: list[tuple[str, str]]) -> list[str]:
    return [RECORD.join(stored(spec, text, seed)) for text, seed in inputs]


FIELDS_DECODED = ["hex", "binary", "class", "value", "sign", "exponent_field", "mantissa_field", "exponent",
                  "significand", "next_up", "next_down", "ulp", "stored_short", "shown", "shown_ulp"]
FIELDS_STORED = ["hex", "class", "value", "input", "input_exact", "error", "error_exact", "rel_error",
                 "rel_error_text", "overflowed", "underflowed", "note", "typed_value", "error_value", "stored_short",
                 "shown_input", "shown_error", "shown_value"]


def assert_same(cases: list[str], ours: list[str], theirs: list[str], fields: list[str]) -> None:
    """Every case's fields equal; else the first differences, field by field."""
    assert len(ours) == len(theirs) == len(cases)
    differences = []
    for case, python, js in zip(cases, ours, theirs, strict=True):
        if python != js:
            a, b = python.split(SEP), js.split(SEP)
            named = [f"  {name}: python {x!r} js {y!r}"
                     for name, x, y in zip(fields if len(a) == len(fields) else map(str, range(len(a))), a, b,
                                           strict=False) if x != y] or [f"  python {a!r}\n  js {b!r}"]
            differences.append(f"{case}:\n" + "\n".join(named))
    assert not differences, f"{len(differences)} of {len(cases)} cases differ, the first:\n" + "\n".join(
        d[:2000] for d in differences[:8])


def compare_in_page(page: Page, call: str, spec: FormatSpec, units: list[Any],
                    reference: Callable[[FormatSpec, list[Any]], list[str]], cases: Callable[[Any], list[str]],
                    fields: list[str]) -> int:
    """The harness's strings of `call` on these units against the reference's; the number of cases compared.

    The page answers a digest of each group of units, and only a group that differs is asked for in full; the
    reference is worked out in a thread meanwhile, so that the page and Python take one core each.
    """
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(reference, spec, units)
        # arguments as one JSON text: Playwright hands over one string at once, a list element by element
        theirs = page.evaluate("([call, args, group]) => harness.digests(call, JSON.parse(args), group)",
                               [call, json.dumps([key(spec), units]), GROUP]).split(",")
        ours = pending.result()
    groups = range(0, len(units), GROUP)
    differing = [start for start, digest in zip(groups, theirs, strict=True)
                 if hashlib.sha256(UNIT.join(ours[start:start + GROUP]).encode()).hexdigest() != digest]
    for start in differing[:4]:
        chunk = units[start:start + GROUP]
        full = page.evaluate("([call, args]) => harness.units(call, JSON.parse(args))",
                             [call, json.dumps([key(spec), chunk])]).split(UNIT)
        assert_same([case for unit in chunk for case in cases(unit)],
                    [r for unit in ours[start:start + GROUP] for r in unit.split(RECORD)],
                    [r for unit in full for r in unit.split(RECORD)], fields)
    assert not differing, f"{len(differing)} groups of {GROUP} differ"
    return sum(unit.count(RECORD) + 1 for unit in ours)


def _chunks(count: int, size: int) -> Iterator[tuple[int, int]]:
    for start in range(0, count, size):
        yield start, min(size, count - start)


# -- decoding ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", SMALL, ids=key)
def test_every_pattern_decodes_as_in_python(codec_page: Page, spec: FormatSpec) -> None:
    """Bits, class, exact value, hex, fields, next up and down, ulp and their short forms of every pattern."""
    patterns = [str(bits) for bits in range(1 << spec.bits)]
    compared = sum(compare_in_page(codec_page, "decode", spec, patterns[start:start + count], decoded_all,
                                   lambda bits: [f"{key(spec)} {int(bits):#x}"], FIELDS_DECODED)
                   for start, count in _chunks(len(patterns), DECODE_CHUNK))
    assert compared == 1 << spec.bits


@pytest.mark.parametrize(("spec", "seed"), _seeds(WIDE))
def test_random_patterns_decode_as_in_python(codec_page: Page, spec: FormatSpec, seed: int) -> None:
    rng = random.Random(seed)
    # every pattern's bits at random, then a share from the edges: around zero, the subnormals, max and the top
    patterns = [rng.getrandbits(spec.bits) for _ in range(PATTERNS - PATTERNS // 10)]
    sign = 1 << (spec.bits - 1)
    edges = [0, 1, 2, sign - 1, sign - 2, (1 << spec.mantissa_bits) - 1, 1 << spec.mantissa_bits]
    patterns += [(rng.choice(edges) + rng.randrange(-3, 4)) % sign | rng.choice((0, sign))
                 for _ in range(PATTERNS // 10)]
    units = [str(bits) for bits in patterns]
    compared = sum(compare_in_page(codec_page, "decode", spec, units[start:start + count], decoded_all,
                                   lambda bits: [f"{key(spec)} {int(bits):#x}"], FIELDS_DECODED)
                   for start, count in _chunks(len(units), DECODE_CHUNK))
    assert compared == PATTERNS


# -- inputs ------------------------------------------------------------------------------------------------------

SPECIAL_INPUTS = [
    "inf", "-inf", "+Infinity", "INF", "nan", "-NaN", "NAN", "-0", "+0", "0", "-0.0e5", "-0/5", "0/-3", "0x0p0",
    "-0x0p+0", "0.0", "1", "-1", "1e100000", "-1e100000", "1e-100000", "-1e-100000", "9.999e99999", "1e-99999",
    "7e-100000", "0x1p-400000", "-0x1p400000", "0x1.fffffffffffffp1023", "0x1p-1074", "0x1p-1075", "0x1.8p-1075",
    "1e100000/3", "1/1e100000", "1e50000/1e-50000", "-2/1e-99999", "9" * 540 + "e-50000/" + "1" * 540,
    "0x_1_f", "0X1F", "0b1010", "0B_1_0", "0x" + "f" * 40, "12", "\u22122.5", " \t42\n", "\u30001\u3000",
    "\x1c7\x85", "6.02214076e23", "1.5e3/2", "1 / -3", ".5", "5.", "1E3",
    "", "   ", "abc", "1.2.3", "1e", "e5", ".", "+", "--1", "1_000", "0x1.8", "0xp3", "0x.p1", "\u0661\u0662",
    "\uff11\uff12", "\u00bd", "1e999999999", "1e100001", "1e-100001", "1e+0100001", "0x1p400001", "0x1p-400001",
    "1/0", "0/0", "1/0e5", "7" * 540 + "e-100000/" + "3" * 540 + "e100000", "1e100000/1e-100000",
    "1e-60000/1e60000", "1" * (MAX_INPUT_LENGTH + 1), "x" * 2000, "0x_", "0b_", "0x__", "\ufeff1", "1\u00a0",
    "it's", 'say "1"', "'\"", "back\\slash", "tab\tin", "new\nline", "\x00\x07\x7f", "caf\u00e9", "\U0001f600" * 50,
    "a" * 39 + "\U0001f600" + "b", "\u200b1", "\u2028", "1e5e5", "0x1p", "1//2", "1/", "/2", "0x-1", "-0x1",
    "inf/1", "1/nan", "∞", "1,5", "1.5f", "0o17", "٣", "1" * 1100, "0." + "0" * 1097 + "1",
]


def _decimal_text(rng: random.Random, x: Fraction) -> str:
    """x written as a decimal of 1 to 40 significant digits (rounded), in one of the notations people use."""
    digits = rng.randint(1, 40)
    sign = "-" if x < 0 else rng.choice(("", "", "+"))
    x = abs(x)
    if x == 0:
        return sign + "0"
    exponent = math.floor(_log2(x) * math.log10(2)) + 1 - digits
    n = round(x / Fraction(10) ** exponent) or 1
    style = rng.random()
    if style < 0.5:
        return f"{sign}{n}e{exponent}"
    text = str(n)
    if style < 0.8:  # d.ddde±x
        return f"{sign}{text[0]}.{text[1:]}E{exponent + len(text) - 1:+d}"
    if exponent >= 0:  # plain
        return sign + text + "0" * exponent
    whole, frac = text[:exponent] or "0", text[exponent:].rjust(-exponent, "0")
    return f"{sign}{whole}.{frac}"


def _hex_text(rng: random.Random, x: Fraction) -> str | None:
    """A dyadic x as a hex float, when it is one."""
    den, num = x.denominator, abs(x.numerator)
    if den & (den - 1) or not num:
        return None
    zeros = (num & -num).bit_length() - 1  # written as an odd mantissa times a power of two
    odd, exponent = num >> zeros, zeros - (den.bit_length() - 1)
    sign = "-" if x < 0 else ""
    return f"{sign}0x{odd:x}p{exponent}" if rng.random() < 0.7 else f"{sign}0X{odd:X}P{exponent:+d}"


def _exact_text(rng: random.Random, x: Fraction) -> str | None:
    """x exactly: its full decimal, a hex float or a fraction, whichever fits the input limit."""
    choices = []
    text, is_exact = real_json(Real.of(x))
    if is_exact:
        choices.append(text)
    if (hex_text := _hex_text(rng, x)) is not None:
        choices.append(hex_text)
    if x.numerator.bit_length() + x.denominator.bit_length() < 3 * MAX_INPUT_LENGTH:
        choices.append(f"{x.numerator}/{x.denominator}")
    fits = [c for c in choices if len(c) <= MAX_INPUT_LENGTH]
    return rng.choice(fits) if fits else None


def _finite_encoding(spec: FormatSpec, rng: random.Random) -> Encoding:
    while True:
        enc = decode(spec, rng.getrandbits(spec.bits))
        if enc.value.is_finite:
            return enc


def _boundary(spec: FormatSpec, rng: random.Random) -> Fraction:
    """A point where rounding decides: midway between two neighbours, at max's overflow edge, at the underflow
    edge, an integer's half, or a codebook midpoint."""
    enc = _finite_encoding(spec, rng)
    up = next_up(enc)
    if spec.kind == "int":
        return enc.value.fraction + Fraction(rng.choice((1, -1, 3, -3)), 2) * rng.choice((1, 1, 1, 2))
    if up is None or not up.value.is_finite:
        gap = ulp(enc) or Fraction(1)
        return enc.value.fraction + gap / 2 * rng.choice((1, 1, 2, 3))  # past max: the overflow edge
    low, high = enc.value.fraction, up.value.fraction
    mid = (low + high) / 2
    if spec.min_positive and rng.random() < 0.1:
        mid = spec.min_positive / rng.choice((2, 4, 3)) * rng.choice((1, -1))  # the underflow edge
    return mid


def _near(rng: random.Random, x: Fraction) -> Fraction:
    """x itself, or a hair off it."""
    kind = rng.random()
    if kind < 0.5 or x == 0:
        return x
    hair = abs(x) / 2 ** rng.randint(20, 120)
    return x + hair if kind < 0.75 else x - hair


def _log2(x: Fraction) -> float:
    return math.log2(x.numerator) - math.log2(x.denominator)


def _ranged(spec: FormatSpec, rng: random.Random) -> Fraction:
    """A value from a quarter of the smallest positive value to four times max, log-uniform, either sign."""
    low, high = _log2(spec.min_positive) - 2, _log2(spec.max) + 2
    x = Fraction(2) ** math.floor(rng.uniform(low, high)) * Fraction(rng.random() + 1)
    return -x if spec.lowest < 0 and rng.random() < 0.5 else x


def random_inputs(spec: FormatSpec, seed: int, count: int) -> list[str]:
    """Inputs of every kind the visualiser takes, a share of each aimed at this format's range and boundaries."""
    rng = random.Random(f"{seed}-{key(spec)}")
    inputs = list(SPECIAL_INPUTS)
    while len(inputs) < count:
        kind = rng.random()
        if kind < 0.25:
            inputs.append(_decimal_text(rng, _ranged(spec, rng)))
        elif kind < 0.35:
            x = Fraction(rng.randint(1, 10**rng.randint(1, 40))) * Fraction(10) ** rng.randint(-340, 320)
            inputs.append(_decimal_text(rng, x if rng.random() < 0.5 else -x))
        elif kind < 0.6:
            text = _exact_text(rng, _near(rng, _boundary(spec, rng)))
            if text is not None:
                inputs.append(text)
        elif kind < 0.7:
            x = _boundary(spec, rng)
            inputs.append(_decimal_text(rng, x))  # a near-tie in decimal: the tie's first few digits
        elif kind < 0.77:
            sign = rng.choice(("", "-", "+"))
            digits = "".join(rng.choice("0123456789abcdef") for _ in range(rng.randint(1, 30)))
            point = rng.randint(0, len(digits))
            inputs.append(f"{sign}0x{digits[:point]}.{digits[point:]}p{rng.randint(-1200, 1100)}")
        elif kind < 0.85:
            num = rng.randint(0, 10 ** rng.randint(1, 40))
            den = rng.randint(1, 10 ** rng.randint(1, 30))
            e1, e2 = rng.choice(("", f"e{rng.randint(-300, 300)}")), rng.choice(("", f"e{rng.randint(-30, 30)}"))
            inputs.append(f"{rng.choice(('', '-'))}{num}{e1}{rng.choice(('/', ' / '))}{rng.choice(('', '-'))}{den}{e2}")
        elif kind < 0.92:
            width = rng.choice((spec.bits, spec.bits, spec.bits + 1, 64))
            pattern = rng.getrandbits(width)
            if rng.random() < 0.5:
                text = f"{pattern:0{(width + 3) // 4}x}"
                inputs.append(rng.choice(("0x", "0X")) + ("_".join(text[i:i + 4] for i in range(0, len(text), 4))
                                                          if rng.random() < 0.3 else text))
            else:
                inputs.append(rng.choice(("0b", "0B")) + f"{pattern:0{width}b}")
        elif kind < 0.955:
            mantissa = rng.randint(1, 10**rng.randint(1, 20))
            exponent = rng.randint(300, 5000) if rng.random() < 0.7 else rng.randint(5000, 100_002)
            inputs.append(f"{rng.choice(('', '-'))}{mantissa}e{rng.choice((1, -1)) * exponent}")
        else:
            junk = "".join(rng.choice("0123456789.eE+-/x_ pn\u2212'\"\\\u00e9\U0001f600")
                           for _ in range(rng.randint(1, 60)))
            inputs.append(junk)
    return inputs[:count]


def _seed_text(rng: random.Random) -> str:
    return str(rng.choice((0, 1, 2, 2**32 - 1, 2**32, 2**63 - 1, rng.getrandbits(63), rng.getrandbits(20))))


def _cases(spec: FormatSpec, unit: tuple[str, str]) -> list[str]:
    text, seed = unit
    return [f"{key(spec)} {text[:80]!r} {mode} {policy} seed {seed}" for mode, policy in COMBOS]


@pytest.mark.parametrize(("spec", "seed"), _seeds([*SCALAR_FORMATS, *CUSTOM]))
def test_random_inputs_are_stored_as_in_python(codec_page: Page, spec: FormatSpec, seed: int) -> None:
    """Every input in every rounding mode and overflow policy: bits, class, exact values and errors, relative
    error, flags, notes, refusals and every shortened display."""
    rng = random.Random(seed)
    count = CUSTOM_INPUTS if spec.id == "custom" else INPUTS
    inputs = [(text, _seed_text(rng)) for text in random_inputs(spec, seed, count)]
    compared = sum(compare_in_page(codec_page, "encode", spec, inputs[start:start + size], stored_all,
                                   partial(_cases, spec), FIELDS_STORED)
                   for start, size in _chunks(len(inputs), ENCODE_CHUNK))
    assert compared == len(inputs) * len(COMBOS)


# -- choices and the generator -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["nearest", "", "Nearest_Even", "x" * 60, "it's", "\u00e9\U0001f600\x00"])
def test_unknown_modes_and_policies_are_refused_with_the_same_sentences(codec_page: Page, name: str) -> None:
    for call, check in (("roundingMode", rounding_mode), ("overflowPolicy", overflow_policy)):
        with pytest.raises(InputError) as refused:
            check(name)
        assert codec_page.evaluate("([call, name]) => harness.refusal(call, [name])", [call, name]) == str(
            refused.value)


@pytest.mark.parametrize("text", ["abc", "-1", "1.5", str(2**63), "9" * 20, "\uff11", " 1", "0x10"])
def test_bad_seeds_are_refused_with_the_same_sentence(codec_page: Page, text: str) -> None:
    with pytest.raises(InputError) as refused:
        seed_value(text)
    assert codec_page.evaluate("(text) => harness.refusal('seedValue', [text])", text) == str(refused.value)


def test_parse_bits_refuses_with_the_same_sentences(codec_page: Page) -> None:
    cases = [("float16", "0x10000"), ("float4_e2m1fn", "16"), ("float16", "-1"), ("float16", "1.0"),
             ("float16", "0xg"), ("float16", "\uff11"), ("float16", ""), ("float16", "_"), ("int4", "0b10000"),
             ("float64", "0x" + "f" * 17)]
    specs = {spec.id: spec for spec in SCALAR_FORMATS}
    for format_id, text in cases:
        with pytest.raises(InputError) as refused:
            parse_bits(text, specs[format_id])
        spec_json = next(s for s in codec_specs() if s["id"] == format_id)
        assert codec_page.evaluate("([text, spec]) => harness.refusal('parseBits', [text, spec])",
                                   [text, spec_json]) == str(refused.value)


def test_parse_number_refuses_raw_bits_with_the_same_sentence(codec_page: Page) -> None:
    for text in ("0x3c00", "0B1010", "0x" + "a" * 60, "  0b_1_0  "):
        with pytest.raises(InputError) as refused:
            parse_number(text)
        assert codec_page.evaluate("(text) => harness.refusal('parseNumber', [text])", text) == str(refused.value)


def test_the_generator_draws_what_cpython_draws(codec_page: Page) -> None:
    """getrandbits(64) of random.Random(seed), the first draws and past the state's first regeneration."""
    rng = random.Random(FIXED_SEED)
    seeds = [0, 1, 2, 3, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**63 - 1, 2**64, 2**64 + 5, 2**200 + 17]
    seeds += [rng.getrandbits(rng.randint(1, 63)) for _ in range(500)]
    theirs = codec_page.evaluate("([seeds, count]) => harness.draws(seeds, count)", [[str(s) for s in seeds], 4])
    ours = []
    for seed in seeds:
        generator = random.Random(seed)
        ours.append([str(generator.getrandbits(64)) for _ in range(4)])
    assert theirs == ours
    long_theirs = codec_page.evaluate("([seeds, count]) => harness.draws(seeds, count)", [["0", "12345"], 1000])
    long_ours = [[str(generator.getrandbits(64)) for _ in range(1000)]
                 for generator in (random.Random(0), random.Random(12345))]
    assert long_theirs == long_ours
