"""The bit-layout visualiser: one value or bit pattern in one format, every bit a link that flips it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.formats import (
    OVERFLOW_POLICIES,
    ROUNDINGS,
    SCALAR_FORMATS,
    Encoding,
    FormatSpec,
    InputError,
    OverflowPolicy,
    RawBits,
    Rounded,
    Rounding,
    decode,
    encode,
    get_format,
    next_down,
    next_up,
    overflow_policy,
    parse_bits,
    parse_value,
    rounding_mode,
    ulp,
)
from app.web.platform.page_cache import cached_page
from app.web.platform.rendering import EMBED_PREFIX, link_prefix, render
from app.web.visualise import inputs
from app.web.visualise.present import (
    Shown,
    bit_groups,
    int_parts,
    layout_roles,
    number_line,
    relative,
    shown,
    visualise_url,
)

router = APIRouter()

DEFAULT_VALUE = "0.1"
FULL = 4000  # show exact values in full on this page, however long


def _stored(
    spec: FormatSpec, value: str | None, bits: str | None, rounding: Rounding, overflow: OverflowPolicy,
    seed: int | None,
) -> tuple[Encoding, Rounded | None]:
    """The encoding to show, and the rounding result when a value (not a bit pattern) was typed."""
    if bits is not None:
        return decode(spec, parse_bits(bits, spec)), None
    parsed = parse_value(DEFAULT_VALUE if value is None else value)
    if isinstance(parsed, RawBits):
        return decode(spec, parse_bits(parsed.text, spec)), None
    result = encode(spec, parsed, rounding, overflow, seed)
    return result.encoding, result


def _neighbour(
    label: str, step: Encoding | None, links: dict[str, Any]
) -> tuple[str, Shown | None, str | None]:
    """(label, value, link) of the next pattern up or down; no value or link at the end of the range."""
    if step is None:
        return label, None, None
    return label, shown(step.value, FULL), visualise_url(step.format.id, bits=step.hex, **links)


def _results(enc: Encoding, result: Rounded | None, links: dict[str, Any]) -> dict[str, Any]:
    """Everything the page shows about one stored pattern."""
    spec = enc.format
    return {
        "enc": enc,
        "result": result,
        "fields": layout_roles(spec),
        "groups": bit_groups(enc, links),
        "stored_short": shown(enc.value, 60, 17),
        "significand": shown(enc.significand, FULL),
        "int_parts": int_parts(enc) if spec.kind == "int" else None,
        "codebook": [decode(spec, code) for code in range(len(spec.codebook))],
        "typed_value": shown(result.input, FULL) if result else None,
        "error_value": shown(result.error, FULL) if result else None,
        "rel_error": relative(result.rel_error) if result else None,
        "ulp": shown(ulp(enc), FULL),
        "neighbours": [
            _neighbour("next down", next_down(enc), links),
            _neighbour("next up", next_up(enc), links),
        ],
        "line": number_line(enc),
    }


@router.get("/visualise/{format_id}", include_in_schema=False)
@router.get(EMBED_PREFIX + "/visualise/{format_id}", include_in_schema=False)
@cached_page()
def visualise(
    request: Request,
    format_id: str,
    value: str | None = None,
    bits: str | None = None,
    rounding: str = "nearest_even",
    overflow: str = "format_default",
    seed: str | None = None,
) -> HTMLResponse:
    """The visualiser page; under /embed/ the same page, framed (templates/embed/), its links kept in the frame."""
    spec = get_format(format_id)
    prefix = link_prefix(request.url.path)
    if spec.kind == "block":
        return _block_refused(request, spec, prefix)
    typed = bits if bits is not None else DEFAULT_VALUE if value is None else value
    context: dict[str, Any] = {
        "spec": spec, "roundings": ROUNDINGS, "overflows": OVERFLOW_POLICIES, "typed": typed,
        "rounding": rounding, "overflow": overflow, "seed": seed or "", "error": None, "enc": None, "prefix": prefix,
    }
    try:
        links: dict[str, Any] = {
            "rounding": rounding_mode(rounding),
            "overflow": overflow_policy(overflow),
            "seed": inputs.seed_value(seed),
            "prefix": prefix,
        }
        enc, result = _stored(spec, value, bits, links["rounding"], links["overflow"], links["seed"])
    except InputError as error:
        context |= {"error": str(error), "switch": _switch_links(typed, {"prefix": prefix})}
        return render(request, "visualise.html", context, fragment="visualiser", status_code=422)
    carried = typed if result else enc.value.exact_string()
    context |= _results(enc, result, links) | {"links": links, "switch": _switch_links(carried, links)}
    return render(request, "visualise.html", context, fragment="visualiser")


def _switch_links(value: str, links: dict[str, Any]) -> list[tuple[FormatSpec, str]]:
    """The same value in every other scalar format."""
    return [(other, visualise_url(other.id, value=value, **links)) for other in SCALAR_FORMATS]


def _block_refused(request: Request, spec: FormatSpec, prefix: str) -> HTMLResponse:
    """A block format has no single-value view: say so, and link its element format."""
    element = spec.element.id if spec.element else ""
    message = (
        f"{spec.id} is a block format: its values share a scale, so one value cannot be shown alone. "
        f"Its elements are {element} values."
    )
    context = {
        "status": 422, "message": message,
        "link": visualise_url(element, prefix=prefix), "link_text": f"Visualise {get_format(element).name} ({element})",
    }
    return render(request, "error.html", context, status_code=422)
