"""One value in every scalar format, side by side: the figure of FP8 against FP16 and BF16."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.formats import (
    OVERFLOW_POLICIES,
    ROUNDINGS,
    SCALAR_FORMATS,
    InputError,
    Rounded,
    encode,
    overflow_policy,
    parse_number,
    rounding_mode,
)
from app.web.platform.rendering import EMBED_PREFIX, link_prefix, render
from app.web.visualise.present import bit_groups, relative, shown, visualise_url

router = APIRouter()

DEFAULT_VALUE = "0.3952"
ROLES = [("sign", 0), ("exponent", 0), ("mantissa", 0), ("integer", 0), ("code", 0)]


def _row(result: Rounded, typed: str, rounding: str, overflow: str, prefix: str) -> dict[str, Any]:
    """One format's line of the table."""
    enc = result.encoding
    return {
        "spec": enc.format,
        "href": visualise_url(enc.format.id, value=typed, rounding=rounding, overflow=overflow, prefix=prefix),
        "enc": enc,
        "groups": bit_groups(enc),
        "stored": shown(enc.value, limit=80, digits=20),
        "error": shown(result.error, limit=40),
        "rel_error": relative(result.rel_error),
        "result": result,
    }


@router.get("/compare", include_in_schema=False)
@router.get(EMBED_PREFIX + "/compare", include_in_schema=False)
def compare(
    request: Request,
    value: str = DEFAULT_VALUE,
    rounding: str = "nearest_even",
    overflow: str = "format_default",
) -> HTMLResponse:
    """The comparison page; under /embed/ the same page, framed (templates/embed/), its links kept in the frame."""
    prefix = link_prefix(request.url.path)
    context: dict[str, Any] = {
        "typed": value, "rounding": rounding, "overflow": overflow, "roundings": ROUNDINGS,
        "overflows": OVERFLOW_POLICIES, "roles": ROLES, "rows": [], "error": None, "input": None, "prefix": prefix,
    }
    try:
        mode, policy = rounding_mode(rounding), overflow_policy(overflow)
        x = parse_number(value)
    except InputError as error:
        context["error"] = str(error)
        return render(request, "compare.html", context, fragment="table", status_code=422)
    rows = [_row(encode(spec, x, mode, policy, 0), value, mode, policy, prefix) for spec in SCALAR_FORMATS]
    context |= {"rows": rows, "input": shown(x, limit=80, digits=20)}
    return render(request, "compare.html", context, fragment="table")
