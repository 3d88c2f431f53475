"""What the dot-product page shows of a figure: the table's rows, the chart's words, and one step's bits split at
the cut into what was kept and what was dropped."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.formats import FORMATS, TENSOR_CORES, StepBits, TermBits
from app.web.dot.figure import DotFigure
from app.web.platform.catalogs import N_, gettext, local_digits, prose_decimal
from app.web.visualise.present import relative, shown

ROLES = {"accumulator": N_("accumulator"), "product": N_("product of element %(element)s"),
         "corrected_product": N_("product of element %(element)s less the compensation"), "sum": N_("exact sum")}


def _ulps(x: float | None) -> str:
    return "—" if x is None else local_digits("0" if x == 0 else f"{x:.3g}")


def rows(figure: DotFigure) -> list[dict[str, Any]]:
    return [{"method": r.method, "name": gettext(r.name), "format": FORMATS[r.output_format].name,
             "value": shown(r.value, 24, 8), "error": shown(r.error, 24, 4), "rel_error": relative(r.rel_error),
             "ulps": _ulps(r.ulp_error)} for r in figure.product.results]


def describe(figure: DotFigure) -> str:
    product = figure.product
    parts = "; ".join(f"{gettext(r.name)}: {relative(r.rel_error)}" for r in product.results)
    return gettext("Running absolute error of each method against the number of elements, on a log scale, for a dot "
                   "product of %(n)s elements in %(format)s. Relative errors at the end: %(errors)s.") % {
        "n": prose_decimal(product.n), "format": FORMATS[product.format_id].name, "errors": parts}


@dataclass(frozen=True)
class TermRow:
    label: str
    value: str
    kept_value: str
    negative: bool
    kept: str  # the bits down to the cut
    dropped: str  # the bits under it
    more_below: bool
    is_cut: bool  # whether this row's own bits are cut (each term of a block; the sum of a rounded step)


def _row(term: TermBits, cut_column: int | None, is_cut: bool) -> TermRow:
    label = gettext(ROLES[term.role]) % {"element": prose_decimal(term.element or 0)}
    split = len(term.bits) if cut_column is None else cut_column + 1
    text = shown(term.value, 28, 8)
    kept_text = shown(term.kept, 28, 8)
    return TermRow(label, text.text if text else "", kept_text.text if kept_text else "", term.negative,
                   term.bits[:split], term.bits[split:], term.more_below, is_cut)


def step_view(figure: DotFigure) -> dict[str, Any] | None:
    """The chosen step laid out for the page, or None (pairwise, or a step not asked for)."""
    step: StepBits | None = figure.step
    if step is None:
        return None
    cut_column = None if step.cut is None else step.top - step.cut
    block = step.kind == "aligned_block"
    terms = [_row(t, cut_column, block) for t in step.terms]
    lost, result = shown(step.lost, 28, 6), shown(step.result, 28, 8)
    core = TENSOR_CORES.get(step.method)
    return {"step": step, "terms": terms, "sum": _row(step.exact_sum_bits, cut_column, not block),
            "result": _row(step.result_bits, cut_column, False), "lost": lost.text if lost else "",
            "result_text": result.text if result else "", "block": block,
            "core": core.name if core else None,
            "promoted": None if step.promoted is None else [shown(x, 28, 8) for x in step.promoted]}


def sources(format_id: str) -> list[dict[str, Any]]:
    """Each tensor-core model that takes the format, with its source and what it assumes, in the page's language."""
    out = []
    for core in TENSOR_CORES.values():
        model = core.models.get(format_id)
        if model is not None:
            out.append({"id": core.id, "name": core.name, "block": model.adder.block, "window": model.adder.window,
                        "source": gettext(model.source), "assumed": gettext(model.assumed) if model.assumed else None})
    return out
