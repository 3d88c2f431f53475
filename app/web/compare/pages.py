"""One value in every format, side by side: the figure of FP8 against FP16 and BF16, with the block formats below.

The server's page is the first paint and the path without JavaScript; static/js/compare.js then updates every
row, and the chart, in the browser as the visitor types, in the page's language, from the specifications embedded
here (compare_data), and keeps the URL in step. Stochastic rounding takes `seed` as the visualiser does; with none, a
fresh seed is drawn and shown, so the page can still be shared and the browser's rows agree with the server's.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, fields
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
    Real,
    Rounded,
    Rounding,
    encode,
    overflow_policy,
    parse_number,
    rounding_mode,
)
from app.web.compare.compare_blocks import BlockRow, block_notes, block_rows
from app.web.compare.compare_chart import Chart, bar_of, chart
from app.web.compare.compare_data import compare_data
from app.web.platform.decimal_comma import typed_number
from app.web.platform.refusal_sentences import refusal_sentence
from app.web.platform.rendering import EMBED_PREFIX, link_prefix, render
from app.web.visualise.inputs import MAX_SEED, seed_value
from app.web.visualise.present import BitGroup, Shown, bit_groups, relative, shown, visualise_url

router = APIRouter()

DEFAULT_VALUE = "0.3952"
ROLES = (("sign", 0), ("exponent", 0), ("mantissa", 0), ("integer", 0), ("code", 0))


@dataclass(frozen=True, slots=True)
class ScalarRow:
    """One scalar format's line of the table."""

    spec: FormatSpec
    href: str  # the visualiser of this format, with the value and the choices
    enc: Encoding
    groups: list[BitGroup]
    stored: Shown | None
    error: Shown | None
    rel_error: str
    result: Rounded
    flags: list[str]


@dataclass(frozen=True, slots=True)
class ComparePage:
    """What templates/compare.html shows: the form as typed, every format's row, the chart, the page's JSON."""

    typed: str
    rounding: str
    overflow: str
    seed: str
    prefix: str
    codec_data: str
    block_notes: dict[str, str]
    rows: list[ScalarRow]
    blocks: list[BlockRow]
    chart: Chart
    input: Shown | None
    error: str | None = None
    error_english: bool = False  # a sentence the catalogs do not have yet
    roundings: tuple[str, ...] = ROUNDINGS
    overflows: tuple[str, ...] = OVERFLOW_POLICIES
    roles: tuple[tuple[str, int], ...] = ROLES

    def names(self) -> dict[str, Any]:
        """The template's names: this page's fields."""
        return {field.name: getattr(self, field.name) for field in fields(self)}


def _row(result: Rounded, typed: str, rounding: str, overflow: str, seed: int | None, prefix: str) -> ScalarRow:
    """One format's line of the table."""
    enc = result.encoding
    return ScalarRow(
        spec=enc.format,
        href=visualise_url(enc.format.id, value=typed, rounding=rounding, overflow=overflow, seed=seed, prefix=prefix),
        enc=enc,
        groups=bit_groups(enc),
        stored=shown(enc.value, limit=80, digits=20),
        error=shown(result.error, limit=40),
        rel_error=relative(result.rel_error),
        result=result,
        flags=_flags(result),
    )


def _flags(result: Rounded) -> list[str]:
    """The flags of a format's line: overflow, underflow, and a NaN or infinity stored."""
    cls = result.encoding.cls
    return ([*(["overflow"] if result.overflowed else []), *(["underflow"] if result.underflowed else []),
             *([cls] if cls in ("nan", "inf") else [])])


def _seed(text: str | None, rounding: str) -> int | None:
    """The seed of stochastic rounding: the one typed, else a fresh one; None for the other modes without one."""
    seed = seed_value(text)
    if seed is None and rounding == "stochastic":
        return secrets.randbelow(MAX_SEED + 1)
    return seed


def _rows(x: Real, typed: str, mode: Rounding, policy: OverflowPolicy, seed: int | None,
          prefix: str) -> tuple[list[ScalarRow], list[BlockRow]]:
    link_seed = seed if mode == "stochastic" else None
    rows = [_row(encode(spec, x, mode, policy, seed), typed, mode, policy, link_seed, prefix)
            for spec in SCALAR_FORMATS]
    return rows, block_rows(x, typed, prefix)


@router.get("/compare", include_in_schema=False)
@router.get(EMBED_PREFIX + "/compare", include_in_schema=False)
def compare(
    request: Request,
    value: str = DEFAULT_VALUE,
    rounding: str = "nearest_even",
    overflow: str = "format_default",
    seed: str | None = None,
) -> HTMLResponse:
    """The comparison page; under /embed/ the same page, framed (templates/embed/), its links kept in the frame."""
    prefix = link_prefix(request.url.path)
    error, english = None, False
    try:
        mode, policy = rounding_mode(rounding), overflow_policy(overflow)
        used_seed = _seed(seed, mode)
        x = parse_number(typed_number(value))  # 0,1 on a Turkish page
        rows, blocks = _rows(x, value, mode, policy, used_seed, prefix)
    except InputError as refused:
        # The sentence, and the rows of the default value hidden beneath it: the browser's script fills them in
        # as soon as the visitor types a value it can read.
        error = refusal_sentence(refused)
        english = error == str(refused)
        used_seed, x = None, parse_number(DEFAULT_VALUE)
        rows, blocks = _rows(x, DEFAULT_VALUE, "nearest_even", "format_default", None, prefix)
    bars = [bar_of(row.spec.id, "scalar", row.result) for row in rows]
    bars += [bar_of(b.spec.id, "block", b.result) for b in blocks]
    page = ComparePage(
        typed=value, rounding=rounding, overflow=overflow, seed=(seed or "") if used_seed is None else str(used_seed),
        prefix=prefix, codec_data=compare_data(prefix), block_notes=block_notes(), rows=rows, blocks=blocks,
        chart=chart(bars), input=shown(x, limit=80, digits=20), error=error, error_english=english,
    )
    return render(request, "compare.html", page.names(), fragment="table", status_code=422 if error else 200)
