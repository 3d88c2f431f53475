"""Exact values as the JSON and the pages write them (DESIGN.md section 3): decimal strings, signed, and whether
they are exact. The answers that carry them are schemas.py's models."""

from __future__ import annotations

from fractions import Fraction

from app.formats import Real, decimal


def exact(x: Fraction | None) -> str | None:
    """An exact value as its decimal string (signed), or None."""
    if x is None:
        return None
    return Real.of(x).exact_string()


def real_json(x: Real) -> tuple[str, bool]:
    """(decimal string, whether it is exact) of an extended real."""
    if not x.is_finite:
        return x.exact_string(), True
    text, is_exact = decimal(x.magnitude)
    return ("-" + text if x.negative else text), is_exact
