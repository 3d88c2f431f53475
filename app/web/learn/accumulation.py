"""The accumulation figure: /learn/accumulation (and /embed/learn/accumulation), its htmx fragment, and
GET /api/accumulation.

The query string is the whole state: format, distribution, n, seed and the methods (`method=` repeated; all four
when none is named). The figure is a pure function of it, so whole pages are cached (page_cache).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from app.deps import rate_limited
from app.formats import FORMATS, SUMMABLE_FORMATS, SUMMATION_METHODS, NotSummableError, Real, summable
from app.learn import (
    ACCUMULATION_DISTRIBUTIONS,
    MAX_SEED,
    MAX_VALUES,
    Accumulation,
    AccumulationInputError,
    MethodResult,
    accumulate,
    parse_count,
    parse_methods,
    parse_seed,
)
from app.web.learn.accumulation_chart import chart
from app.web.learn.accumulation_schemas import AccumulationAnswer
from app.web.platform.catalogs import N_, gettext, prose_decimal
from app.web.platform.page_cache import cached_page
from app.web.platform.refusal_sentences import refusal_sentence
from app.web.platform.rendering import EMBED_PREFIX, link_prefix, render
from app.web.platform.schemas import one_of, refused, stated, whole
from app.web.visualise.present import relative, shown, visualise_url

router = APIRouter()

PATH = "/learn/accumulation"
DEFAULTS = {"format": "bfloat16", "distribution": "uniform", "n": "10000", "seed": "0"}
WIDER_THAN_FP32 = N_("FP32 accumulation is left out for FP64: FP32 is narrower, so it would round FP64's values "
                   "rather than keep their sum.")
# The core's names of the methods and the distributions (app/formats, app/learn stay English: the API speaks them),
# marked here and translated where the page shows them; the distributions also as they read inside a sentence.
METHOD_NAMES = (N_("Same-format accumulation"), N_("FP32 accumulation"), N_("Pairwise summation"),
                N_("Kahan (compensated) summation"))
DISTRIBUTION_NAMES = (N_("Uniform on [0, 1)"), N_("All ones"), N_("Normal (mean 0, standard deviation 1)"),
                      N_("Long tail (lognormal, σ = 2)"))
IN_A_SENTENCE = {"uniform": N_("uniform on [0, 1)"), "ones": N_("all ones"),
                 "normal": N_("normal (mean 0, standard deviation 1)"), "lognormal": N_("long tail (lognormal, σ = 2)")}


def _figure(format_id: str, distribution: str, n: str, seed: str,
            methods: list[str]) -> tuple[Accumulation, str | None]:
    """The figure for these settings, and a note when a method asked for does not apply to the format."""
    spec = summable(format_id)
    chosen = parse_methods(methods)
    note = None
    if spec.id == "float64" and "fp32" in chosen:
        chosen, note = tuple(m for m in chosen if m != "fp32") or ("naive",), WIDER_THAN_FP32
    return accumulate(spec.id, distribution, parse_count(n), parse_seed(seed), chosen), note


def _note(r: MethodResult, format_name: str) -> str:
    if r.overflow_step is not None:
        kind = "NaN" if r.result.kind == "nan" else "inf"
        return gettext("overflowed to %(kind)s by step %(step)s") % {
            "kind": kind, "step": prose_decimal(r.overflow_step)}
    if r.result.kind != "finite":
        return gettext("the FP32 sum is beyond %(format)s's range: rounding it gave %(value)s") % {
            "format": format_name, "value": r.result.exact_string()}
    if r.stall is not None and r.stall_value is not None:
        return gettext("stopped growing at step %(step)s, at %(value)s") % {
            "step": prose_decimal(r.stall), "value": r.stall_value.exact_string()}
    return ""


def _rows(figure: Accumulation) -> list[dict[str, Any]]:
    name = FORMATS[figure.format_id].name
    return [{"method": r.method, "name": gettext(r.name), "result": shown(r.result, 24, 8),
             "error": shown(r.error, 24, 4), "rel_error": relative(r.rel_error), "note": _note(r, name)}
            for r in figure.results]


def _stall_sentence(figure: Accumulation) -> str | None:
    naive = next((r for r in figure.results if r.method == "naive"), None)
    if naive is None or naive.stall is None or naive.stall_value is None:
        return None
    return gettext("Same-format accumulation stops at %(value)s after step %(step)s: from there on no value is more "
                   "than half the spacing between %(format)s numbers near %(value)s, so adding it rounds back to "
                   "%(value)s. The exact sum of all %(n)s values is %(exact)s.") % {
        "value": naive.stall_value.exact_string(), "step": prose_decimal(naive.stall),
        "format": FORMATS[figure.format_id].name, "n": prose_decimal(figure.n), "exact": _short(figure.exact_sum)}


def _short(x: Real | Fraction) -> str:
    text = shown(x, 16, 6)
    return text.text if text else "—"


def _stall_href(figure: Accumulation, prefix: str) -> str | None:
    """The visualiser at the stalled sum, where its bits and its spacing show why nothing more is added."""
    naive = next((r for r in figure.results if r.method == "naive" and r.stall_value is not None), None)
    if naive is None or naive.stall_value is None:
        return None
    return visualise_url(figure.format_id, value=naive.stall_value.exact_string(), prefix=prefix)


def _describe(figure: Accumulation) -> str:
    parts = [f"{gettext(r.name)}: {_short(r.result)}" for r in figure.results]
    return gettext("Running sums of %(n)s values (%(distribution)s) in %(format)s, against the step on a log scale. "
                   "Exact sum %(exact)s; %(sums)s.") % {
        "n": prose_decimal(figure.n), "distribution": gettext(IN_A_SENTENCE[figure.distribution]),
        "format": FORMATS[figure.format_id].name, "exact": _short(figure.exact_sum), "sums": "; ".join(parts)}


@router.get(PATH, include_in_schema=False, dependencies=[rate_limited("sums")])
@router.get(EMBED_PREFIX + PATH, include_in_schema=False, dependencies=[rate_limited("sums")])
@cached_page()
def accumulation_page(
    request: Request,
    format_id: Annotated[str, Query(alias="format")] = DEFAULTS["format"],
    distribution: str = DEFAULTS["distribution"],
    n: str = DEFAULTS["n"],
    seed: str = DEFAULTS["seed"],
    method: Annotated[list[str] | None, Query()] = None,
) -> Response:
    """The figure's page; under /embed/ the same page, framed, its links kept in the frame."""
    prefix = link_prefix(request.url.path)
    methods = method or []
    context: dict[str, Any] = {
        "values": {"format": format_id, "distribution": distribution, "n": n, "seed": seed,
                   "methods": methods or list(SUMMATION_METHODS)},
        "formats": [FORMATS[f] for f in SUMMABLE_FORMATS], "distributions": ACCUMULATION_DISTRIBUTIONS,
        "methods": SUMMATION_METHODS, "in_a_sentence": IN_A_SENTENCE, "max_values": MAX_VALUES, "max_seed": MAX_SEED,
        "prefix": prefix,
        "error": None, "figure": None, "path": PATH,
    }
    try:
        figure, note = _figure(format_id, distribution, n, seed, methods)
    except (AccumulationInputError, NotSummableError) as error:
        context["error"] = refusal_sentence(error)  # in the page's language where the catalogs have it
        context["error_english"] = context["error"] == str(error)
        return render(request, "learn/accumulation.html", context, fragment="figure", status_code=422)
    spec = FORMATS[figure.format_id]
    context |= {
        "figure": figure, "spec": spec, "note": note and gettext(note), "chart": chart(figure, _describe(figure)),
        "rows": _rows(figure), "stall": _stall_sentence(figure), "exact": shown(figure.exact_sum, 40, 12),
        "stall_href": _stall_href(figure, prefix),
    }
    return render(request, "learn/accumulation.html", context, fragment="figure")


def _float_or_none(x: float) -> float | None:
    return x if math.isfinite(x) else None


@router.get("/api/accumulation", tags=["learn"], dependencies=[rate_limited("sums")],
            summary="Sum N seeded values in a format four ways",
            response_model=AccumulationAnswer,
            responses={422: refused("A format that is not summed here, an unknown distribution or method, n outside "
                                    "1 to 1,000,000, or a seed outside 0 to 2^32 - 1; the detail says which"),
                       429: refused("Too many sums asked for from this address; retry after the Retry-After "
                                    "seconds")})
def accumulation_api(
    format_id: Annotated[str, Query(alias="format", min_length=1,
                                    description=f"the format: {', '.join(SUMMABLE_FORMATS)}"),
                         stated(one_of(SUMMABLE_FORMATS))] = DEFAULTS["format"],
    distribution: Annotated[str, Query(min_length=1, description=", ".join(ACCUMULATION_DISTRIBUTIONS)),
                            stated(one_of(ACCUMULATION_DISTRIBUTIONS))] = "uniform",
    n: Annotated[str, Query(min_length=1, description=f"how many values, 1 to {MAX_VALUES:,}"),
                 stated(whole(1, MAX_VALUES))] = DEFAULTS["n"],
    seed: Annotated[str, Query(min_length=1, description=f"0 to {MAX_SEED}"),
                    stated(whole(0, MAX_SEED))] = DEFAULTS["seed"],
    method: Annotated[list[Annotated[str, stated(one_of(SUMMATION_METHODS))]] | None,
                      Query(description=f"repeat for several: {', '.join(SUMMATION_METHODS)}; all when none is named "
                                        "(FP32 accumulation not for float64)")] = None,
) -> dict[str, Any]:
    """The values are drawn as float64 with numpy's default generator, then stored in the format (clamped to its
    largest value); the exact sum is of the stored values."""
    figure, _note_text = _figure(format_id, distribution, n, seed, method or [])
    return {
        "format": figure.format_id, "distribution": figure.distribution, "n": figure.n, "seed": figure.seed,
        "clamped": figure.clamped, "zeroed": figure.zeroed, "exact_sum": Real.of(figure.exact_sum).exact_string(),
        "steps": list(figure.counts), "exact_running": [float(v) for v in figure.exact_at_counts],
        "methods": [{"method": r.method, "name": r.name, "result": r.result.exact_string(),
                     "error": r.error.exact_string(), "rel_error": r.rel_error, "stall_step": r.stall,
                     "overflow_step": r.overflow_step, "running": [_float_or_none(v) for v in r.at_counts]}
                    for r in figure.results],
    }
