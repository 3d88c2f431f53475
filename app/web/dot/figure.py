"""From the settings of a request (the page's query string or the API's body) to the figure, and the figure as
JSON: the core computes, this only gathers its pieces. Refusals are the core's, with their sentences."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from app.formats import (
    FORMATS,
    DotProduct,
    ReadVector,
    StepBits,
    StoredVector,
    TermBits,
    checked_dot_format,
    checked_dot_method,
    dot_methods_for,
    dot_product,
    layout_decimal,
    step_bits,
    stored_vectors,
)


@dataclass(frozen=True)
class DotFigure:
    """The computed figure, the stored vectors and the step asked for."""

    product: DotProduct
    a: StoredVector
    b: StoredVector
    drawn: bool
    step: StepBits | None
    step_method: str | None


def compute(format_id: str, a: ReadVector | None, b: ReadVector | None, distribution: str, n: int, seed: int,
            methods: list[str] | None, promote_every: int, step: int | None, step_method: str | None) -> DotFigure:
    """The figure for these settings (all the format's methods when none is named)."""
    checked_dot_format(format_id)
    chosen = tuple(m for m in dot_methods_for(format_id) if m in methods) if methods else dot_methods_for(format_id)
    for method in methods or ():
        checked_dot_method(method, format_id)
    return _compute(format_id, a, b, distribution, n, seed, chosen, promote_every, step,
                    step_method)


@lru_cache(maxsize=16)  # the page, its htmx swap and the API ask for the same figure
def _compute(format_id: str, a: ReadVector | None, b: ReadVector | None, distribution: str, n: int,
             seed: int, methods: tuple[str, ...], promote_every: int, step: int | None,
             step_method: str | None) -> DotFigure:
    stored_a, stored_b = stored_vectors(format_id, a, b, distribution, n, seed)
    product = dot_product(format_id, stored_a.units, stored_b.units, methods, promote_every)
    shown = step_method or methods[0]
    bits = step_bits(product, shown, step) if step is not None else None
    if step is None and step_method is not None:
        checked_dot_method(step_method, format_id)
    return DotFigure(product, stored_a, stored_b, a is None, bits, shown if step is not None else None)


_FIVES = [5**k for k in range(300)]  # 5^k for every negative exponent a stored element has (to 2^-149)


def stored_strings(stored: StoredVector, format_id: str) -> list[str]:
    """Each stored element's exact decimal, as Real.exact_string writes it: an element is k × 2^e with k odd, whose
    decimal is k × 5^-e × 10^e (e < 0) or the whole number k × 2^e; no Fraction is made."""
    spec = FORMATS[format_id]
    smallest = spec.emin - spec.mantissa_bits
    out, seen = [], {0: "0"}
    for u in stored.units:
        if u in seen:
            out.append(seen[u])
            continue
        twos = (u & -u).bit_length() - 1
        magnitude, e = abs(u) >> twos, smallest + twos
        if e < 0:
            digits = str(magnitude * _FIVES[-e])  # ends in 5: no trailing zero to strip
            lead = len(digits) + e  # digits before the point
            if 0 < lead < 22:
                text = digits[:lead] + "." + digits[lead:]
            elif -6 < lead <= 0:
                text = "0." + "0" * -lead + digits
            else:
                text = layout_decimal(digits, e)
        else:
            digits = str(magnitude << e)
            stripped = digits.rstrip("0")
            text = layout_decimal(stripped, len(digits) - len(stripped))
        seen[u] = text = "-" + text if u < 0 else text
        out.append(text)
    return out


def _term(term: TermBits) -> dict[str, Any]:
    return {"role": term.role, "element": term.element, "value": term.value.exact_string(),
            "kept": term.kept.exact_string(), "exponent": term.exponent, "negative": term.negative,
            "bits": term.bits, "more_below": term.more_below}


def step_json(step: StepBits | None) -> dict[str, Any] | None:
    if step is None:
        return None
    return {"method": step.method, "step": step.step, "kind": step.kind, "first": step.first, "last": step.last,
            "top": step.top, "columns": step.columns, "cut": step.cut, "terms": [_term(t) for t in step.terms],
            "exact_sum": step.exact_sum.exact_string(), "exact_sum_bits": _term(step.exact_sum_bits),
            "result": _term(step.result_bits),
            "lost": step.lost.exact_string(),
            "promoted": None if step.promoted is None else [x.exact_string() for x in step.promoted]}


def answer(figure: DotFigure) -> dict[str, Any]:
    """The figure as POST /api/dot answers it (DotAnswer)."""
    product = figure.product
    return {
        "format": product.format_id, "n": product.n, "drawn": figure.drawn,
        "a": stored_strings(figure.a, product.format_id),
        "b": stored_strings(figure.b, product.format_id),
        "clamped": figure.a.clamped + figure.b.clamped, "zeroed": figure.a.zeroed + figure.b.zeroed,
        "promote_every": product.promote_every, "exact": product.exact.exact_string(),
        "steps": list(product.counts), "exact_running": list(product.exact_running),
        "methods": [{"method": r.method, "name": r.name, "output_format": r.output_format,
                     "value": r.value.exact_string(), "error": r.error.exact_string(), "rel_error": r.rel_error,
                     "ulp_error": r.ulp_error, "running_error": list(r.running_error)} for r in product.results],
        "step": step_json(figure.step),
    }
