"""The format specifications that the browser's codec (static/js/codec.js) works from, taken from the registry's
FormatSpecs so that no layout or constant is typed twice, and JSON that can sit in a page."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from app.formats import SATURATING, SCALAR_FORMATS, FormatSpec  # SATURATING: the libraries an overflow note names


def exact_text(x: Fraction | None) -> str | None:
    """An exact constant as a hex significand and a power of two, m·2^k with m odd ("0x7p6" is 448, "-0xfp-1"
    is -7.5, "0x0p0" is 0), or, for a constant that is not dyadic, its numerator and denominator in hex
    ("0x1/0x3"). Exact, quick to read, and short: binary128's max is "0x1ffffffffffffffffffffffffffffp16271",
    where its numerator alone has 4,096 hex digits."""
    if x is None:
        return None
    num, den = x.numerator, x.denominator
    if den & (den - 1):
        return f"{num:#x}/{den:#x}"
    power = 1 - den.bit_length()  # x = num · 2^power
    if num:
        shift = (num & -num).bit_length() - 1  # the trailing zero bits of num
        num, power = num >> shift, power + shift
    else:
        power = 0
    return f"{'-' if num < 0 else ''}{abs(num):#x}p{power}"


def codec_spec(spec: FormatSpec) -> dict[str, Any]:
    """Everything codec.js needs of one scalar format: its fields and the rules spec.py derives from them."""
    return {
        "id": spec.id,
        "name": spec.name,
        "kind": spec.kind,
        "bits": spec.bits,
        "exponent_bits": spec.exponent_bits,
        "mantissa_bits": spec.mantissa_bits,
        "bias": spec.bias,
        "nan_style": spec.nan_style,
        "signed": spec.signed,
        "has_inf": spec.has_inf,
        "has_nan": spec.has_nan,
        "has_zero": spec.has_zero,
        "has_subnormals": spec.has_subnormals,
        "has_negative_zero": spec.has_negative_zero,
        "overflow_default": spec.overflow_default,
        "emin": spec.emin,
        "emax": spec.emax,
        "max_exponent_field": spec.max_exponent_field,
        "max_mantissa_field": hex(spec.max_mantissa_field),  # binary128's has 112 bits: more than a JSON number
        "max": exact_text(spec.max),
        "lowest": exact_text(spec.lowest),
        "min_positive": exact_text(spec.min_positive),
        "min_normal": exact_text(spec.min_normal),
        "min_subnormal": exact_text(spec.min_subnormal),
        "codebook": [exact_text(Fraction(v)) for v in spec.codebook],
        "saturating": str(SATURATING[spec.id]) if spec.id in SATURATING else None,
    }


def codec_specs() -> list[dict[str, Any]]:
    """The specification of every scalar format in the registry, in its order."""
    return [codec_spec(spec) for spec in SCALAR_FORMATS]


def embedded_json(value: Any) -> str:
    """JSON to sit in a page's <script type="application/json"> block: no character of it can close the block,
    open a tag or comment, or end a line where a script reads it."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for char, escape in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"),
                         ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escape)
    return text
