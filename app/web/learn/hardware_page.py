"""/learn/hardware: published peak matrix throughput per format, beside what was measured (data/hardware/)."""

from __future__ import annotations

import functools
import math
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.hardware import (
    MeasuredFile,
    PublishedAccelerator,
    load_measured,
    load_published,
    load_training,
)
from app.web.platform.catalogs import gettext, local_digits
from app.web.platform.rendering import render

router = APIRouter()

# Rows of the published table: a format family, and the formats of the lab that belong to it
FAMILIES = (
    ("FP64", ("float64",)), ("FP32", ("float32",)), ("TF32", ("tfloat32",)), ("FP16", ("float16",)),
    ("BF16", ("bfloat16",)), ("FP8", ("float8_e4m3fn", "float8_e4m3fnuz")), ("INT8", ("int8",)),
    ("FP6", ("float6_e2m3fn", "float6_e3m2fn")), ("FP4", ("float4_e2m1fn",)),
)


def throughput(value: float) -> str:
    """A measurement to three significant digits, or to whole units from 100 up: 1,407 · 51 · 0.0541."""
    if value <= 0:
        return "0"
    decimals = max(0, 2 - math.floor(math.log10(value)))
    text = f"{value:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if decimals else text


def as_published(value: float) -> str:
    """A published figure as its maker prints it: 9.7 · 1,978.9 · 125."""
    return f"{value:,}"


def _published_rows(accelerators: tuple[PublishedAccelerator, ...]) -> list[dict[str, Any]]:
    """One row per format family that some accelerator has a peak for; "—" in the template where one has none."""
    rows = []
    for family, format_ids in FAMILIES:
        cells = [[{"peak": p, "dense": as_published(p.dense), "sparse": p.sparse and as_published(p.sparse)}
                  for p in a.peaks if p.format in format_ids] for a in accelerators]
        unit = next((p.unit for a in accelerators for p in a.peaks if p.format in format_ids), None)
        if unit:
            rows.append({"family": family, "format": format_ids[0], "unit": unit, "cells": cells})
    return rows


def _with_matrix_peak(accelerators: tuple[PublishedAccelerator, ...], format_id: str) -> tuple[str, ...]:
    """The accelerators with a matrix-unit peak for a format."""
    return tuple(a.name for a in accelerators if any(p.format == format_id and p.engine == "tensor" for p in a.peaks))


def in_a_sentence(names: tuple[str, ...]) -> str:
    """Names as a list in a sentence of the page's language: "A, B and C"."""
    if len(names) < 2:
        return "".join(names)
    return gettext("%(names)s and %(last)s") % {"names": ", ".join(names[:-1]), "last": names[-1]}


def _matching(file: MeasuredFile, accelerators: tuple[PublishedAccelerator, ...]) -> PublishedAccelerator | None:
    return next((a for a in accelerators if file.document["device"] in a.device_names), None)


def _measured_view(file: MeasuredFile, accelerators: tuple[PublishedAccelerator, ...]) -> dict[str, Any]:
    published = _matching(file, accelerators)
    rows = []
    for result in file.document["results"]:
        peak = published.peak_for(result["format"]) if published else None
        rows.append({**result, "shown": throughput(result["tflops"]), "peak": peak,
                     "peak_shown": peak and as_published(peak.dense),
                     "fraction": peak and f"{result['tflops'] / peak.dense:.0%}"})
    return {"file": file, "doc": file.document, "published": published, "rows": rows}


@functools.cache
def _data() -> dict[str, Any]:
    """The data files, read once: they change only with a deploy."""
    accelerators = load_published()
    return {
        "accelerators": accelerators,
        "published_rows": _published_rows(accelerators),
        "fp64_matrix": _with_matrix_peak(accelerators, "float64"),
        "fp32_matrix": _with_matrix_peak(accelerators, "float32"),
        "measured": [_measured_view(f, accelerators) for f in load_measured()],
        "training": load_training(),
    }


@router.get("/learn/hardware", include_in_schema=False)
def hardware_page(request: Request) -> HTMLResponse:
    data = _data()
    return render(request, "learn/hardware.html", data | {
        "fp64_matrix": in_a_sentence(data["fp64_matrix"]), "fp32_matrix": in_a_sentence(data["fp32_matrix"]),
        "local": local_digits,
    })
