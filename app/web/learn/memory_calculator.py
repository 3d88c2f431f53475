"""The memory calculator: /learn/memory (page, and its results as an htmx fragment) and GET /api/memory."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from app.formats import FormatSpec, InputError, decimal_string
from app.training import (
    BYTES_PER_GB,
    BYTES_PER_GIB,
    MAX_DEVICES,
    MAX_PARAMS,
    OPTIMIZERS,
    RECIPES,
    WEIGHT_FORMATS,
    ZERO_STAGES,
    MemoryReport,
    memory_report,
    optimizer_named,
    parse_devices,
    parse_param_count,
    parse_zero_stage,
    recipe_named,
    weight_format_named,
)
from app.web.learn.schemas import MemoryAnswer
from app.web.platform.catalogs import N_, gettext, local_digits
from app.web.platform.refusal_sentences import refusal_sentence
from app.web.platform.rendering import render
from app.web.platform.schemas import one_of, refused, stated, whole

router = APIRouter()

DEFAULTS = {"params": "7B", "format": "bfloat16", "recipe": "bf16", "optimizer": "adam", "devices": "8", "stage": "3"}
# (part, column heading, words in a sentence), translated where the page shows them
PARTS = (("weights", N_("Weights"), N_("weights")),
         ("weight_copies", N_("Low-precision weight copies"), N_("low-precision weight copies")),
         ("master_weights", N_("FP32 master weights"), N_("FP32 master weights")),
         ("gradients", N_("Gradients"), N_("gradients")),
         ("optimizer_states", N_("Optimizer states"), N_("optimizer states")))
STAGE_SHARDS = (N_("nothing"), N_("optimizer states and master weights"), N_("… and gradients"),
                N_("… and weights: everything"))
# The core's recipe and optimizer names that the page shows, marked here: the core stays English (the API speaks it)
CORE_NAMES = (N_("FP16, no loss scaling"), N_("FP16, static loss scaling"), N_("FP16, dynamic loss scaling"),
              N_("FP16 weights, no master copy"), N_("BF16 weights, no master copy"),
              N_("FP8 hybrid, delayed scaling"), N_("SGD with momentum"))
PARAMS_DOC = "number of parameters: 7B, 70B, 1.5T, 350M, 7e9 or 7000000000"
NOT_INCLUDED = N_("The calculator counts only what grows with the number of parameters. Activations, the KV cache, "
                "temporary buffers and the framework's own memory are left out: activations and the KV cache grow "
                "with the batch size and the sequence length instead.")
UNITS = "GB is 10^9 bytes; GiB is 2^30 bytes."


def _report(params: str, format_id: str, recipe: str, optimizer: str, devices: str, stage: str) -> MemoryReport:
    return memory_report(parse_param_count(params), weight_format_named(format_id), recipe_named(recipe),
                         optimizer_named(optimizer), parse_devices(devices), parse_zero_stage(stage))


def amount(n_bytes: Fraction, unit: int = BYTES_PER_GB) -> str:
    """Bytes in GB (or GiB): exact where two decimals hold it, else "≈" and rounded."""
    value = n_bytes / unit
    if value and value < Fraction(1, 100):
        return local_digits(f"≈ {float(value):.2g}")
    text = f"{float(value):,.2f}".rstrip("0").rstrip(".")
    return local_digits(text if Fraction(text.replace(",", "")) == value else f"≈ {text}")


def number(x: Fraction | int) -> str:
    """A count of bytes or bits that may have a fraction: 4.25, 16, 1.03125."""
    text = f"{float(x):,.5f}".rstrip("0").rstrip(".")
    return local_digits(text if Fraction(text.replace(",", "")) == x else f"≈ {text}")


def _view(report: MemoryReport) -> dict[str, Any]:
    n = report.n_params
    return {
        "report": report,
        "inference": [{"spec": spec, "bits": number(spec.bits_per_value),
                       "bytes": number(spec.bytes_per_value), "gb": amount(b),
                       "gib": amount(b, BYTES_PER_GIB)} for spec, b in report.inference],
        "training": [{"recipe": recipe, "per_param": per_param, "gb": amount(Fraction(per_param["total"] * n))}
                     for recipe, per_param in report.training],
        "zero": [{"stage": stage, "shards": gettext(STAGE_SHARDS[stage]),
                  "parts": {k: amount(v) for k, v in parts.items()}, "gib": amount(parts["total"], BYTES_PER_GIB)}
                 for stage, parts in report.zero],
        "weights": {"gb": amount(report.weights), "gib": amount(report.weights, BYTES_PER_GIB),
                    "bits": number(report.weight_format.bits_per_value)},
        "training_gb": amount(Fraction(report.per_param["total"] * n)),
        "per_device": amount(report.per_device["total"]),
    }


@router.get("/learn/memory", include_in_schema=False)
def memory_page(
    request: Request,
    params: Annotated[str, Query()] = DEFAULTS["params"],
    format_id: Annotated[str, Query(alias="format")] = DEFAULTS["format"],
    recipe: Annotated[str, Query()] = DEFAULTS["recipe"],
    optimizer: Annotated[str, Query()] = DEFAULTS["optimizer"],
    devices: Annotated[str, Query()] = DEFAULTS["devices"],
    stage: Annotated[str, Query()] = DEFAULTS["stage"],
) -> HTMLResponse:
    context: dict[str, Any] = {
        "values": {"params": params, "format": format_id, "recipe": recipe, "optimizer": optimizer,
                   "devices": devices, "stage": stage},
        "formats": WEIGHT_FORMATS, "recipes": RECIPES.values(),
        "optimizers": {optimizer_id: gettext(o.name) for optimizer_id, o in OPTIMIZERS.items()}, "stages": ZERO_STAGES,
        "parts": [(part, gettext(label), gettext(words)) for part, label, words in PARTS],
        "not_included": gettext(NOT_INCLUDED), "error": None, "view": None,
    }
    try:
        context["view"] = _view(_report(params, format_id, recipe, optimizer, devices, stage))
    except InputError as error:
        context["error"] = refusal_sentence(error)  # in the page's language where the catalogs have it
        context["error_english"] = context["error"] == str(error)
        return render(request, "learn/memory.html", context, fragment="results", status_code=422)
    return render(request, "learn/memory.html", context, fragment="results")


def _gb(n_bytes: Fraction) -> float:
    return float(n_bytes / BYTES_PER_GB)


def _weights_json(spec: FormatSpec, n_bytes: Fraction) -> dict[str, Any]:
    return {"format": spec.id, "bits_per_value": decimal_string(spec.bits_per_value),
            "bytes": math.ceil(n_bytes), "gb": _gb(n_bytes)}


def _setting(description: str, alias: str | None = None) -> Any:
    """One setting of GET /api/memory: a query parameter that is never empty."""
    return Query(alias=alias, description=description, min_length=1)


# The limits /openapi.json states (app/web/platform/schemas.py: `stated`); parse_param_count and the others check
# them and refuse what is outside with their own sentences. A count of parameters from 1 to MAX_PARAMS, as a whole
# number or with a suffix: at most three digits before a K, M, B or T keep it below 10^15.
PARAMS = stated({"anyOf": [whole(1, MAX_PARAMS),
                           {"type": "string", "pattern": "^[1-9][0-9]{0,2}(\\.[0-9]{1,3})?[kKmMbBtT]$"}]})
WEIGHT_FORMAT = stated(one_of(spec.id for spec in WEIGHT_FORMATS))


@router.get("/api/memory", tags=["memory"], summary="Memory for a model's weights and training state",
            response_model=MemoryAnswer,
            responses={422: refused("A setting that cannot be read or is unknown; the detail says what is expected")})
def memory_api(
    params: Annotated[str, _setting(PARAMS_DOC), PARAMS],
    format_id: Annotated[str, _setting("weight format id for inference: any id of GET /api/formats but "
                                       "float8_e8m0fnu", alias="format"), WEIGHT_FORMAT] = DEFAULTS["format"],
    recipe: Annotated[str, _setting(f"training recipe: {', '.join(RECIPES)}"),
                      stated(one_of(RECIPES))] = DEFAULTS["recipe"],
    optimizer: Annotated[str, _setting(f"optimizer: {', '.join(OPTIMIZERS)}"),
                         stated(one_of(OPTIMIZERS))] = DEFAULTS["optimizer"],
    devices: Annotated[str, _setting(f"data-parallel accelerators the training state is sharded over, 1 to "
                                     f"{MAX_DEVICES:,}"), stated(whole(1, MAX_DEVICES))] = "1",
    stage: Annotated[str, _setting("ZeRO stage: 0 (none), 1, 2 or 3"),
                     stated({"type": "integer", "enum": list(ZERO_STAGES)})] = "0",
) -> dict[str, Any]:
    """Bytes are whole bytes, rounded up; GB is 10^9 bytes. Activations and the KV cache are not included."""
    report = _report(params, format_id, recipe, optimizer, devices, stage)
    per_device = report.per_device
    return {
        "params": report.n_params,
        "weights": _weights_json(report.weight_format, report.weights),
        "inference": [_weights_json(spec, n_bytes) for spec, n_bytes in report.inference],
        "training": [{"recipe": r.id, "optimizer": report.optimizer, "bytes_per_param": per_param,
                      "gb": per_param["total"] * report.n_params / BYTES_PER_GB} for r, per_param in report.training],
        "sharded": {"recipe": report.recipe.id, "devices": report.devices, "stage": report.stage,
                    "bytes_per_device": {part: math.ceil(b) for part, b in per_device.items()},
                    "gb_per_device": _gb(per_device["total"])},
        "accelerators": [{"name": fit.accelerator.name, "memory_gb": fit.accelerator.memory_gb,
                          "devices_for_weights": fit.weights_devices, "training_fits": fit.training_fits,
                          "training_min_devices": fit.training_min_devices} for fit in report.accelerators],
        "not_included": NOT_INCLUDED,
        "units": UNITS,
    }
