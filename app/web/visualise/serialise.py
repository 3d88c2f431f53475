"""Core objects as the JSON of DESIGN.md section 3: exact values travel as strings."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from app.formats import Encoding, FormatSpec, Real, Rounded, decimal, next_down, next_up, ulp


def exact(x: Fraction | None) -> str | None:
    """An exact value as its decimal string (signed), or None."""
    if x is None:
        return None
    return Real.of(x).exact_string()


def format_json(spec: FormatSpec) -> dict[str, Any]:
    is_float = spec.kind in ("float", "block")
    return {
        "id": spec.id,
        "name": spec.name,
        "kind": spec.kind,
        "bits": spec.bits,
        "exponent_bits": spec.exponent_bits if is_float else None,
        "mantissa_bits": spec.mantissa_bits if is_float else None,
        "bias": spec.bias if is_float else None,
        "has_inf": spec.has_inf,
        "has_nan": spec.has_nan,
        "has_negative_zero": spec.has_negative_zero,
        "max": exact(spec.max),
        "lowest": exact(spec.lowest),
        "min_normal": exact(spec.min_normal),
        "min_subnormal": exact(spec.min_subnormal),
        "epsilon": exact(spec.epsilon),
        "signed": spec.signed,
        "overflow_default": spec.overflow_default,
        "bits_per_value": float(spec.bits_per_value),
        "bytes_per_value": float(spec.bytes_per_value),
        "gigabytes_per_billion": float(spec.gigabytes_per_billion),
        "in_ml_dtypes": spec.ml_dtype is not None,
        "element_format": spec.element.id if spec.element else None,
        "scale_format": spec.scale.id if spec.scale else None,
        "block_size": spec.block_size or None,
        "summary": spec.summary,
    }


def encoding_json(enc: Encoding) -> dict[str, Any]:
    up, down = next_up(enc), next_down(enc)
    return {
        "format": enc.format.id,
        "bits": enc.hex,
        "binary": enc.binary,
        "sign": enc.sign,
        "exponent_field": enc.exponent_field,
        "mantissa_field": enc.mantissa_field,
        "exponent": enc.exponent,
        "significand": exact(enc.significand),
        "class": enc.cls,
        "value": enc.value.exact_string(),
        "value_exact": real_json(enc.value)[1],
        "next_up": up.value.exact_string() if up else None,
        "next_down": down.value.exact_string() if down else None,
        "ulp": exact(ulp(enc)),
    }


def real_json(x: Real) -> tuple[str, bool]:
    """(decimal string, whether it is exact) of an extended real."""
    if not x.is_finite:
        return x.exact_string(), True
    text, is_exact = decimal(x.magnitude)
    return ("-" + text if x.negative else text), is_exact


def rounded_json(result: Rounded, rounding: str, overflow: str) -> dict[str, Any]:
    given, given_exact = real_json(result.input)
    error, error_exact = real_json(result.error)
    return encoding_json(result.encoding) | {
        "input": given,
        "input_exact": given_exact,
        "error": error,
        "error_exact": error_exact,
        "rel_error": result.rel_error,
        "overflowed": result.overflowed,
        "underflowed": result.underflowed,
        "note": result.note,
        "rounding": rounding,
        "overflow": overflow,
    }
