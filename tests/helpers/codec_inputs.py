"""What a person may type into the visualiser, for the tests that hold the browser's codec to the Python one: inputs
of every kind (decimals over a format's range, ties and near-ties to its rounding boundaries, hex floats, fractions,
raw bits, specials, huge and tiny exponents, refusals), drawn from a seed, and seeds of stochastic rounding."""

from __future__ import annotations

import math
import random
from fractions import Fraction

from app.formats import Encoding, FormatSpec, Real, decode, next_up, ulp
from app.formats.parse import MAX_INPUT_LENGTH
from app.web.visualise.serialise import real_json

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


def key(spec: FormatSpec) -> str:
    """A name for a format: its id, or the layout of a custom format."""
    if spec.id != "custom":
        return spec.id
    return f"custom-e{spec.exponent_bits}m{spec.mantissa_bits}-bias{spec.bias}-{spec.nan_style}"


def _log2(x: Fraction) -> float:
    return math.log2(x.numerator) - math.log2(x.denominator)


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


def _ranged(spec: FormatSpec, rng: random.Random) -> Fraction:
    """A value from a quarter of the smallest positive value to four times max, log-uniform, either sign."""
    low, high = _log2(spec.min_positive) - 2, _log2(spec.max) + 2
    x = Fraction(2) ** math.floor(rng.uniform(low, high)) * Fraction(rng.random() + 1)
    return -x if spec.lowest < 0 and rng.random() < 0.5 else x


def _raw_bits(spec: FormatSpec, rng: random.Random) -> str:
    """A bit pattern as hex or binary, of the format's width, one more, or 64 bits."""
    width = rng.choice((spec.bits, spec.bits, spec.bits + 1, 64))
    pattern = rng.getrandbits(width)
    if rng.random() >= 0.5:
        return rng.choice(("0b", "0B")) + f"{pattern:0{width}b}"
    text = f"{pattern:0{(width + 3) // 4}x}"
    prefix = rng.choice(("0x", "0X"))
    return prefix + ("_".join(text[i:i + 4] for i in range(0, len(text), 4)) if rng.random() < 0.3 else text)


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
            inputs.append(_decimal_text(rng, _boundary(spec, rng)))  # a near-tie in decimal: the tie's first digits
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
            inputs.append(_raw_bits(spec, rng))
        elif kind < 0.955:
            mantissa = rng.randint(1, 10**rng.randint(1, 20))
            exponent = rng.randint(300, 5000) if rng.random() < 0.7 else rng.randint(5000, 100_002)
            inputs.append(f"{rng.choice(('', '-'))}{mantissa}e{rng.choice((1, -1)) * exponent}")
        else:
            junk = "".join(rng.choice("0123456789.eE+-/x_ pn\u2212'\"\\\u00e9\U0001f600")
                           for _ in range(rng.randint(1, 60)))
            inputs.append(junk)
    return inputs[:count]


def seed_text(rng: random.Random) -> str:
    """A seed of stochastic rounding as a person types it: the edges of its range, and any within it."""
    return str(rng.choice((0, 1, 2, 2**32 - 1, 2**32, 2**63 - 1, rng.getrandbits(63), rng.getrandbits(20))))
