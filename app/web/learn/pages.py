"""The guides: /learn, one route per guide, and /learn/glossary.

Each guide has a route of its own rather than /learn/{slug}, so the other pages under /learn (the memory
calculator, the hardware page) are never shadowed, and an unknown /learn/... is the site's 404 page.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.formats import FORMATS, FormatSpec
from app.hardware import published_peak
from app.learn import DISTRIBUTIONS, SAMPLE_SIZE, SCALES, Measured, measure_formats
from app.web.learn.guides import GUIDES, Guide, related
from app.web.platform.catalogs import gettext
from app.web.platform.rendering import render
from app.web.train.present import approx
from app.web.visualise.present import layout_roles, power_of_two, shown, visualise_url

router = APIRouter()

RANGE_FORMATS = ("float64", "float32", "tfloat32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2",
                 "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn")
TINY_GRADIENTS_RUN = ("/train?scenario=tiny_gradients&recipe=fp32&recipe=fp16_no_scaling"
                      "&recipe=fp16_dynamic_scaling&recipe=bf16&run=1")
SHOWN_DIGITS = 3
# The FP16 accumulation section quotes the RTX 4090's rates from data/hardware/published_peaks.json
RTX_4090_FP16 = {"fp16_accumulate": Decimal(str(published_peak("rtx-4090", "FP16 Tensor Core, FP16 accumulate").dense)),
                 "fp32_accumulate": Decimal(str(published_peak("rtx-4090", "FP16 Tensor Core, FP32 accumulate").dense))}


@dataclass(frozen=True)
class Power:
    """A constant that is a power of two: 2^exponent, and its decimal, exact when short, else "≈"."""

    exponent: int
    decimal: str


def _power(x: Fraction | None) -> Power | None:
    exponent, decimal = power_of_two(x), shown(x, 10, SHOWN_DIGITS)
    return Power(exponent, decimal.text) if exponent is not None and decimal else None


def _range_row(spec: FormatSpec) -> dict[str, Any]:
    return {
        "spec": spec,
        "href": visualise_url(spec.id, value="1"),
        "fields": layout_roles(spec),
        "max": shown(spec.max, 14, 4),
        "powers": [_power(x) for x in (spec.min_normal, spec.min_subnormal, spec.epsilon)],
        "digits": f"{spec.decimal_digits:.1f}",
    }


def _scaling_words(measured: Measured) -> str:
    """How the values were brought into the format's range, in a few words."""
    if measured.scaling == "direct":
        return gettext("none: cast as it is")
    if measured.scaling == "tensor":
        return gettext("one FP32 absmax scale for the tensor")
    spec = FORMATS[measured.format_id]
    scale = spec.scale
    assert scale is not None, "a format scaled per block has a scale format"
    if spec.kind == "codebook":
        words = gettext("one %(scale)s absmax scale per %(size)s values")
    elif spec.id == "nvfp4":
        words = gettext("one %(scale)s scale per %(size)s values, one FP32 scale for the tensor")
    else:
        words = gettext("one %(scale)s scale per %(size)s values")
    return words % {"scale": scale.name.split(" (")[0], "size": spec.block_size}


def _number(x: float | None) -> str:
    return "—" if x is None else approx(x, SHOWN_DIGITS)


def _sample_row(measured: Measured) -> dict[str, Any]:
    name = FORMATS[measured.format_id].name
    return {
        "format_id": measured.format_id,
        "name": name + (" (absmax)" if measured.scaling == "tensor" else ""),
        "scaling": measured.scaling,
        "scaling_words": _scaling_words(measured),
        "bits": approx(float(measured.bits_per_value)),
        "mse": _number(measured.mse),
        "max_abs_error": _number(measured.max_abs_error),
        "rel_rms_error": _number(measured.rel_rms_error),
        "exact": {field: repr(getattr(measured, field)) for field in ("mse", "max_abs_error", "rel_rms_error")},
        "zeroed": measured.zeroed,
        "non_finite": measured.non_finite,
    }


def _guide(request: Request, guide: Guide, context: dict[str, Any], *, fragment: str = "article",
           status_code: int = 200) -> HTMLResponse:
    context = {"guide": guide, "related": related(guide), **context}
    return render(request, guide.template, context, fragment=fragment, status_code=status_code)


@router.get("/learn", include_in_schema=False)
def index(request: Request) -> HTMLResponse:
    return render(request, "learn/index.html", {"guides": GUIDES.values()}, fragment="content")


@router.get("/learn/glossary", include_in_schema=False)
def glossary(request: Request) -> HTMLResponse:
    return render(request, "learn/glossary.html", {}, fragment="content")


@router.get("/learn/number-formats", include_in_schema=False)
def number_formats(request: Request) -> HTMLResponse:
    rows = [_range_row(FORMATS[format_id]) for format_id in RANGE_FORMATS]
    return _guide(request, GUIDES["number-formats"], {"range_rows": rows})


@router.get("/learn/mixed-precision-training", include_in_schema=False)
def mixed_precision_training(request: Request) -> HTMLResponse:
    context = {"tiny_gradients_run": TINY_GRADIENTS_RUN, "rtx4090": RTX_4090_FP16}
    return _guide(request, GUIDES["mixed-precision-training"], context)


@router.get("/learn/quantisation", include_in_schema=False)
def quantisation(request: Request, distribution: str = "normal", scale: str = "1") -> HTMLResponse:
    context: dict[str, Any] = {
        "distributions": DISTRIBUTIONS, "scales": SCALES, "sample_size": SAMPLE_SIZE,
        "distribution": distribution, "scale": scale, "rows": [], "error": None,
    }
    if distribution not in DISTRIBUTIONS or scale not in SCALES:
        context |= {
            "distribution": "normal", "scale": "1",
            "error": gettext("Choose a distribution (%(distributions)s) and a standard deviation (%(scales)s).")
                     % {"distributions": ", ".join(DISTRIBUTIONS), "scales": ", ".join(SCALES)},
        }
        return _guide(request, GUIDES["quantisation"], context, fragment="sample_error", status_code=422)
    context["rows"] = [_sample_row(m) for m in measure_formats(distribution, scale)]
    return _guide(request, GUIDES["quantisation"], context, fragment="sample_error")
