"""The parameters of generated questions: drawing them, writing them into an id, and reading them back only as
they are drawn (a parameter the generator never draws is a ValueError, so no id can make up a question)."""

from __future__ import annotations

import random
from fractions import Fraction

from app.formats import Encoding, FormatSpec, Real, decode, get_format, parse_number

PREFIX = "gen"

# Values are drawn as d × 10^e with 1 <= d < 10^digits and lowest <= e <= highest: (digits, lowest, highest).
Decades = tuple[int, int, int]


def generated_id(name: str, *params: str) -> str:
    """The id of a generated question: gen:<generator>:<parameters…>."""
    return ":".join((PREFIX, name, *params))


def allowed_spec(format_id: str, allowed: tuple[str, ...] | dict[str, Decades]) -> FormatSpec:
    if format_id not in allowed:
        raise ValueError(f"{format_id!r} is not one of this generator's formats")
    return get_format(format_id)


def sample_value(rng: random.Random, ranges: dict[str, Decades], signed: bool,
                 all_digits: bool = False) -> tuple[str, str]:
    """A value d × 10^e as the ranges say; with all_digits, d has exactly `digits` digits."""
    format_id = rng.choice(sorted(ranges))
    digits, lowest, highest = ranges[format_id]
    d = rng.randint(10 ** (digits - 1) if all_digits else 1, 10**digits - 1)
    x = d * Fraction(10) ** rng.randint(lowest, highest)
    return format_id, Real(signed and rng.random() < 0.5, x).exact_string()


def read_value(ranges: dict[str, Decades], format_id: str, text: str, signed: bool) -> tuple[FormatSpec, Real]:
    """A value parameter, only as sample_value writes it: canonical, and within the drawn range."""
    spec = allowed_spec(format_id, ranges)
    digits, lowest, highest = ranges[format_id]
    x = parse_number(text)
    if not x.is_finite or x.exact_string() != text or (x.negative and not signed):
        raise ValueError(f"{text!r} is not a value this generator draws")
    if not Fraction(10) ** lowest <= x.magnitude < Fraction(10) ** (highest + digits):
        raise ValueError(f"{text!r} is outside the range this generator draws from")
    return spec, x


def sample_pattern(rng: random.Random, formats: tuple[str, ...], spread: int, signed: bool) -> tuple[str, str]:
    """A normal value below max whose exponent is within `spread` of 0, as the hex of its pattern."""
    spec = get_format(rng.choice(formats))
    fields = range(max(1, spec.bias - spread), min(spec.max_exponent_field, spec.bias + spread) + 1)
    while True:
        sign = rng.randint(0, 1) if signed else 0
        exponent_and_mantissa = rng.choice(fields) << spec.mantissa_bits | rng.randrange(1 << spec.mantissa_bits)
        encoding = decode(spec, sign << (spec.bits - 1) | exponent_and_mantissa)
        if encoding.cls == "normal" and encoding.value.magnitude < spec.max:
            return spec.id, encoding.hex


def read_pattern(formats: tuple[str, ...], format_id: str, text: str, signed: bool) -> Encoding:
    encoding = decode(allowed_spec(format_id, formats), int(text, 16))
    value = encoding.value
    if encoding.hex != text or encoding.cls != "normal" or value.magnitude == encoding.format.max:
        raise ValueError(f"{text!r} is not the hex of a normal value below max")
    if value.negative and not signed:
        raise ValueError(f"{text!r} is negative")
    return encoding
