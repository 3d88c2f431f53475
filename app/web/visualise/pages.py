"""The bit-layout visualiser: one value or bit pattern in one format, every bit a link that flips it."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, fields, replace
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.formats import (
    CUSTOM_ID,
    CUSTOM_NAN_STYLES,
    OVERFLOW_POLICIES,
    ROUNDINGS,
    Encoding,
    FormatSpec,
    InputError,
    LayoutError,
    OverflowPolicy,
    RawBits,
    Rounded,
    Rounding,
    decode,
    encode,
    get_format,
    overflow_policy,
    parse_bits,
    parse_value,
    rounding_mode,
)
from app.web.blocks.pages import block_page, wants_block
from app.web.platform.catalogs import N_
from app.web.platform.decimal_comma import typed_number
from app.web.platform.page_cache import cached_page
from app.web.platform.refusal_sentences import refusal_sentence
from app.web.platform.rendering import EMBED_PREFIX, link_prefix, render
from app.web.visualise import inputs
from app.web.visualise.present import visualise_url
from app.web.visualise.scalar_view import PatternView, results
from app.web.visualise.switcher import PillGroup, format_groups
from app.web.visualise.view_specs import visualiser_data

router = APIRouter()

DEFAULT_VALUE = "0.1"
# The inf/NaN rules a custom layout may take, in the words of its form
# (translated where shown: the template's _(words))
NAN_STYLES = tuple(zip(CUSTOM_NAN_STYLES, (
    N_("±inf and NaNs at the top exponent (IEEE)"), N_("no inf, NaN only at all ones (as E4M3FN)"),
    N_("no inf, no −0, NaN at 0x80… (as E5M2FNUZ)"), N_("no inf or NaN (as FP6, FP4)")), strict=True))


def _stored(
    spec: FormatSpec, value: str | None, bits: str | None, rounding: Rounding, overflow: OverflowPolicy,
    seed: int | None,
) -> tuple[Encoding, Rounded | None]:
    """The encoding to show, and the rounding result when a value (not a bit pattern) was typed."""
    if bits is not None:
        return decode(spec, parse_bits(bits, spec)), None
    parsed = parse_value(DEFAULT_VALUE if value is None else typed_number(value))  # 0,1 on a Turkish page
    if isinstance(parsed, RawBits):
        return decode(spec, parse_bits(parsed.text, spec)), None
    result = encode(spec, parsed, rounding, overflow, seed)
    return result.encoding, result


# Before /visualise/{format_id}, which would take `custom` for a format id
@router.get("/visualise/custom", include_in_schema=False)
@router.get(EMBED_PREFIX + "/visualise/custom", include_in_schema=False)
@cached_page()
def visualise_custom(
    request: Request,
    exponent_bits: str | None = None,
    mantissa_bits: str | None = None,
    bias: str | None = None,
    nan_style: str | None = None,
    value: str | None = None,
    bits: str | None = None,
    rounding: str = "nearest_even",
    overflow: str = "format_default",
    seed: str | None = None,
) -> HTMLResponse:
    """A float format of the visitor's own layout in the visualiser; every link it makes keeps the layout."""
    prefix = link_prefix(request.url.path)
    try:
        spec = inputs.custom_layout(exponent_bits, mantissa_bits, bias, nan_style)
    except LayoutError as error:
        typed_layout = {"exponent_bits": exponent_bits or "", "mantissa_bits": mantissa_bits or "",
                        "bias": bias or "", "nan_style": nan_style or "ieee"}
        typed = bits if bits is not None else DEFAULT_VALUE if value is None else value
        choices = {"typed": typed, "rounding": rounding, "overflow": overflow, "seed": seed or ""}
        return _layout_refused(request, error, typed_layout | choices, prefix)
    return _scalar_page(request, spec, prefix, value, bits, rounding, overflow, seed)


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
    if wants_block(spec, request):
        return block_page(request, spec, prefix)
    return _scalar_page(request, spec, prefix, value, bits, rounding, overflow, seed)


@dataclass(frozen=True, slots=True)
class VisualiserPage:
    """What templates/visualise.html shows: the form as typed, the pills, and the view of the stored pattern (none
    where the input was refused)."""

    spec: FormatSpec
    typed: str
    rounding: str
    overflow: str
    seed: str
    prefix: str
    layout_form: dict[str, str] | None
    format_groups: list[PillGroup]
    view_data: str | None = None  # the JSON the page's script works from
    error: str | None = None
    error_english: bool = False  # the refusal is still the core's English
    drawn_seed: int | None = None  # stochastic rounding with no seed given: the one drawn for this page
    custom_href: str | None = None
    links: dict[str, Any] | None = None
    view_href: str = ""  # this view's own address, with the drawn seed
    view: PatternView | None = None
    roundings: tuple[str, ...] = ROUNDINGS
    overflows: tuple[str, ...] = OVERFLOW_POLICIES
    nan_styles: tuple[tuple[str, str], ...] = NAN_STYLES

    def names(self) -> dict[str, Any]:
        """The template's names: this page's fields and, beside them, its pattern view's (enc, groups, line, ...)."""
        page = {field.name: getattr(self, field.name) for field in fields(self) if field.name != "view"}
        view = {field.name: getattr(self.view, field.name) for field in fields(self.view)} if self.view else {}
        return page | {"enc": None} | view


def _scalar_page(
    request: Request, spec: FormatSpec, prefix: str, value: str | None, bits: str | None, rounding: str,
    overflow: str, seed: str | None,
) -> HTMLResponse:
    """The visualiser of one scalar format, a registry one or a custom layout."""
    typed = bits if bits is not None else DEFAULT_VALUE if value is None else value
    layout = inputs.layout_of(spec)
    page = VisualiserPage(
        spec=spec, typed=typed, rounding=rounding, overflow=overflow, seed=seed or "", prefix=prefix,
        layout_form=_layout_form(spec), format_groups=[],
        view_data=visualiser_data(spec, typed, bits is not None, prefix),
    )
    try:
        links: dict[str, Any] = {
            "rounding": rounding_mode(rounding),
            "overflow": overflow_policy(overflow),
            "seed": inputs.seed_value(seed),
            "prefix": prefix,
            "layout": layout,
        }
        if links["rounding"] == "stochastic" and links["seed"] is None:
            # a fresh seed, shown and carried by every link and the form, so that this view can be shared
            links["seed"] = secrets.randbelow(inputs.MAX_SEED + 1)
            page = replace(page, seed=str(links["seed"]), drawn_seed=links["seed"])
        enc, result = _stored(spec, value, bits, links["rounding"], links["overflow"], links["seed"])
    except InputError as error:
        sentence, english = _refused(error)
        page = replace(page, error=sentence, error_english=english,
                       format_groups=format_groups(typed, {"prefix": prefix, "layout": layout}, spec, prefix))
        return _unrepeated(render(request, "visualise.html", page.names(), fragment="visualiser", status_code=422),
                           page.drawn_seed)
    carried = typed if result else enc.value.exact_string()
    page = replace(page, view=results(enc, result, links), links=links,
                   format_groups=format_groups(carried, links, spec, prefix),
                   custom_href=_custom_href(spec, carried, links))
    if page.drawn_seed is not None:
        page = replace(page, view_href=visualise_url(spec.id, value=value, bits=bits, **links))
        response = _unrepeated(render(request, "visualise.html", page.names(), fragment="visualiser"), page.drawn_seed)
        response.headers["HX-Push-Url"] = page.view_href  # htmx puts the seeded address in the address bar
        return response
    return render(request, "visualise.html", page.names(), fragment="visualiser")


def _unrepeated(response: HTMLResponse, drawn_seed: int | None) -> HTMLResponse:
    """A page rendered with a freshly drawn seed: another visit draws another, so neither the page cache nor an
    ETag may repeat this one."""
    if drawn_seed is not None:
        response.headers["Cache-Control"] = "no-store"
    return response


def _custom_href(spec: FormatSpec, value: str, links: dict[str, Any]) -> str | None:
    """The same value in a custom format of this registry format's layout, to change it from there."""
    query = None if spec.id == CUSTOM_ID else inputs.custom_layout_query(spec)
    return None if query is None else visualise_url(CUSTOM_ID, value=value, **{**links, "layout": query})


def _layout_form(spec: FormatSpec) -> dict[str, str] | None:
    """The layout fields of a custom format's form, as typed (the bias empty where it is the default)."""
    if spec.id != CUSTOM_ID:
        return None
    query = dict(inputs.layout_of(spec))
    return {"exponent_bits": query["exponent_bits"], "mantissa_bits": query["mantissa_bits"],
            "bias": query.get("bias", ""), "nan_style": query.get("nan_style", "ieee")}


# What the page shows in place of a format while the layout typed is refused
_NO_LAYOUT = FormatSpec(
    id=CUSTOM_ID, name="Custom layout", kind="float", bits=0,
    summary=N_("A float format of your own: choose its exponent and mantissa bits, its bias and its inf/NaN rule."),
)


def _refused(error: InputError) -> tuple[str, bool]:
    """The refusal's sentence in the page's language, and whether it is still the core's English."""
    sentence = refusal_sentence(error)
    return sentence, sentence == str(error)


def _layout_refused(request: Request, error: LayoutError, typed: dict[str, str], prefix: str) -> HTMLResponse:
    """The custom visualiser with its form as typed, and the sentence that says what the layout lacks."""
    layout_form = {name: typed[name] for name in ("exponent_bits", "mantissa_bits", "bias", "nan_style")}
    sentence, english = _refused(error)
    page = VisualiserPage(
        spec=_NO_LAYOUT, typed=typed["typed"], rounding=typed["rounding"], overflow=typed["overflow"],
        seed=typed["seed"], prefix=prefix, layout_form=layout_form, error=sentence, error_english=english,
        format_groups=format_groups(typed["typed"], {"prefix": prefix}, None, prefix),
    )
    return render(request, "visualise.html", page.names(), fragment="visualiser", status_code=422)
