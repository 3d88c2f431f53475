"""The dot-product lab's page: /dot (and /embed/dot), and its htmx fragment.

The query string is the whole state: format, a and b (typed, comma or space separated) or distribution, n and seed,
the methods (`method=` repeated; all that take the format when none is named), promote_every, step and bits (the
method whose step is shown). It works with JavaScript off: the form is a plain GET form.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from app.deps import rate_limited
from app.formats import (
    DEFAULT_PROMOTE_EVERY,
    DOT_DISTRIBUTIONS,
    DOT_FORMATS,
    DOT_METHODS,
    FORMATS,
    MAX_DOT_LENGTH,
    MAX_DOT_SEED,
    TENSOR_CORES,
    DotInputError,
    InputError,
    dot_methods_for,
    parse_dot_setting,
    read_vector,
)
from app.web.dot.chart import chart
from app.web.dot.data import page_figure_slots, page_slots
from app.web.dot.figure import DotFigure, compute
from app.web.dot.present import describe, rows, sources, step_view
from app.web.platform.catalogs import gettext
from app.web.platform.decimal_comma import typed_list
from app.web.platform.page_cache import cached_page
from app.web.platform.refusal_sentences import refusal_sentence
from app.web.platform.rendering import EMBED_PREFIX, link_prefix, render
from app.web.visualise.present import shown

router = APIRouter()

PATH = "/dot"
DEFAULTS = {"format": "bfloat16", "distribution": "normal", "n": "64", "seed": "0",
            "promote_every": str(DEFAULT_PROMOTE_EVERY)}


def _figure(format_id: str, a: str, b: str, distribution: str, n: str, seed: str, methods: list[str],
            promote_every: str, step: str, bits: str) -> DotFigure:
    typed_a = read_vector(typed_list(a), "a") if a.strip() else None
    typed_b = read_vector(typed_list(b), "b") if b.strip() else None
    length = parse_dot_setting(n, "n", 1, MAX_DOT_LENGTH)
    every = parse_dot_setting(promote_every, "promote_every", 1, MAX_DOT_LENGTH)
    chosen_step = parse_dot_setting(step, "step", 1, MAX_DOT_LENGTH) if step.strip() else None
    if chosen_step is None:  # the last step, the one that finishes the dot product
        chosen_step = len(typed_a) if typed_a is not None and typed_b is not None else length
    return compute(format_id, typed_a, typed_b, distribution, length, parse_dot_setting(seed, "seed", 0, MAX_DOT_SEED),
                   methods, every, chosen_step, bits or None)


@router.get(PATH, include_in_schema=False, dependencies=[rate_limited("sums")])
@router.get(EMBED_PREFIX + PATH, include_in_schema=False, dependencies=[rate_limited("sums")])
@cached_page()
def dot_page(
    request: Request,
    format_id: Annotated[str, Query(alias="format")] = DEFAULTS["format"],
    a: str = "",
    b: str = "",
    distribution: str = DEFAULTS["distribution"],
    n: str = DEFAULTS["n"],
    seed: str = DEFAULTS["seed"],
    method: Annotated[list[str] | None, Query()] = None,
    promote_every: str = DEFAULTS["promote_every"],
    step: str = "",
    bits: str = "",
) -> Response:
    """The lab's page; under /embed/ the same page, framed, its links kept in the frame."""
    methods = method or []
    offered = dot_methods_for(format_id) if format_id in DOT_FORMATS else tuple(DOT_METHODS)
    context: dict[str, Any] = {
        "values": {"format": format_id, "a": a, "b": b, "distribution": distribution, "n": n, "seed": seed,
                   "methods": methods or list(offered), "promote_every": promote_every, "step": step, "bits": bits},
        "formats": [FORMATS[f] for f in DOT_FORMATS], "distributions": DOT_DISTRIBUTIONS, "methods": DOT_METHODS,
        "offered": offered, "cores": TENSOR_CORES.values(), "max_length": MAX_DOT_LENGTH,
        "prefix": link_prefix(request.url.path), "path": PATH, "error": None, "figure": None,
    }
    context |= page_slots(context["prefix"], context["values"])
    try:
        figure = _figure(format_id, a, b, distribution, n, seed, methods, promote_every, step, bits)
    except (DotInputError, InputError) as error:
        context["error"] = refusal_sentence(error)
        context["error_english"] = context["error"] == str(error)
        return render(request, "dot.html", context, fragment="figure", status_code=422)
    product, shown_rows = figure.product, rows(figure)
    context |= {
        "figure": figure, "spec": FORMATS[product.format_id], "rows": shown_rows,
        "exact": shown(product.exact, 40, 12), "step": step_view(figure),
        "note_drawn": gettext(DOT_DISTRIBUTIONS[distribution]) if figure.drawn else None,
        "sources": sources(product.format_id),
    } | page_figure_slots(chart(product, describe(figure)), shown_rows, product.format_id)
    return render(request, "dot.html", context, fragment="figure")
