"""The format specifications that the browser's codec (static/js/codec.js) works from, taken from the registry's
FormatSpecs so that no layout or constant is typed twice, and JSON that can sit in a page."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from app.formats import SATURATED_BY, SCALAR_FORMATS, FormatSpec  # SATURATED_BY: the libraries an overflow note names


def _text(x: Fraction | None) -> str | None:
    """An exact constant as its numerator and denominator in hex ("0x1c0/0x1", "-0xf/0x2"): exact, quick to read,
    and without the limit on decimal digits that str() of binary128's max (4933 digits) runs into."""
    return None if x is None else f"{x.numerator:#x}/{x.denominator:#x}"


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
        "max": _text(spec.max),
        "lowest": _text(spec.lowest),
        "min_positive": _text(spec.min_positive),
        "min_normal": _text(spec.min_normal),
        "min_subnormal": _text(spec.min_subnormal),
        "codebook": [_text(Fraction(v)) for v in spec.codebook],
        "saturated_by": SATURATED_BY.get(spec.id, ""),
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
