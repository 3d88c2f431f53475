"""The format gallery and table: every format's layout, exact constants, special values and memory cost."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.formats import BLOCK_FORMAT_IDS, FORMATS, FormatSpec
from app.web.blocks.pages import block_url
from app.web.platform.rendering import render
from app.web.visualise.present import (
    Shown,
    layout_roles,
    overflow_words,
    power_of_two,
    shown,
    special_values,
    visualise_url,
)

router = APIRouter()

CONSTANT_LENGTH = 14  # longer constants show as "≈" seven digits, the exact decimal in a title
POWER_AFTER = 8  # a power of two with a longer decimal shows as 2^n


def _constant(x: Fraction | None) -> tuple[Shown | None, int | None]:
    """A constant, and its power of two where that reads shorter than its decimal."""
    value = shown(x, CONSTANT_LENGTH)
    power = power_of_two(x)
    return value, power if value and power is not None and len(value.full) > POWER_AFTER else None


def _scalar_row(spec: FormatSpec) -> dict[str, Any]:
    return {
        "spec": spec,
        "href": visualise_url(spec.id),
        "block_href": block_url(spec.id) if spec.id in BLOCK_FORMAT_IDS else None,
        "fields": layout_roles(spec),
        "constants": [_constant(x) for x in (spec.min_subnormal, spec.min_normal, spec.max, spec.epsilon)],
        "lowest": shown(spec.lowest, CONSTANT_LENGTH) if spec.kind != "float" else None,
        "specials": special_values(spec),
        "overflow": overflow_words(spec),
        "bytes": shown(spec.bytes_per_value),
        "gigabytes": shown(spec.gigabytes_per_billion),
    }


def _block_row(spec: FormatSpec) -> dict[str, Any]:
    element, scale = spec.element, spec.scale
    assert element is not None and scale is not None, "a block format has both"
    return {
        "spec": spec,
        "element": element,
        "scale": scale,
        "href": block_url(spec.id),
        "element_href": visualise_url(element.id),
        "fields": layout_roles(element),
        "max": _constant(spec.max),
        "bits": shown(spec.bits_per_value),
        "bytes": shown(spec.bytes_per_value),
        "gigabytes": shown(spec.gigabytes_per_billion),
    }


@router.get("/formats", include_in_schema=False)
def formats(request: Request) -> HTMLResponse:
    specs = list(FORMATS.values())
    context = {
        "scalars": [_scalar_row(spec) for spec in specs if spec.kind != "block"],
        "blocks": [_block_row(spec) for spec in specs if spec.kind == "block"],
    }
    return render(request, "formats.html", context, fragment="content")
