"""One value in every format, side by side: the figure of FP8 against FP16 and BF16, with the block formats below.

The server's page is the first paint and the path without JavaScript; static/js/compare.js then updates every
row, and the chart, in the browser as the visitor types, in the page's language, from the specifications embedded
here (compare_data), and keeps the URL in step. Stochastic rounding takes `seed` as the visualiser does; with none, a
fresh seed is drawn and shown, so the page can still be shared and the browser's rows agree with the server's.
"""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.formats import (
    OVERFLOW_POLICIES,
    ROUNDINGS,
    SCALAR_FORMATS,
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
from app.web.compare.compare_chart import bar_of, chart
from app.web.compare.compare_data import compare_data
from app.web.platform.decimal_comma import typed_number
from app.web.platform.refusal_sentences import refusal_sentence
from app.web.platform.rendering import EMBED_PREFIX, link_prefix, render
from app.web.visualise.inputs import MAX_SEED, seed_value
from app.web.visualise.present import bit_groups, relative, shown, visualise_url

router = APIRouter()

DEFAULT_VALUE = "0.3952"
ROLES = [("sign", 0), ("exponent", 0), ("mantissa", 0), ("integer", 0), ("code", 0)]


def _row(result: Rounded, typed: str, rounding: str, overflow: str, seed: int | None, prefix: str) -> dict[str, Any]:
    """One format's line of the table."""
    enc = result.encoding
    return {
        "spec": enc.format,
        "href": visualise_url(enc.format.id, value=typed, rounding=rounding, overflow=overflow, seed=seed,
                              prefix=prefix),
        "enc": enc,
        "groups": bit_groups(enc),
        "stored": shown(enc.value, limit=80, digits=20),
        "error": shown(result.error, limit=40),
        "rel_error": relative(result.rel_error),
        "result": result,
        "flags": _flags(result),
    }


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
          prefix: str) -> tuple[list[dict[str, Any]], list[BlockRow]]:
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
    context: dict[str, Any] = {
        "typed": value, "rounding": rounding, "overflow": overflow, "seed": seed or "", "roundings": ROUNDINGS,
        "overflows": OVERFLOW_POLICIES, "roles": ROLES, "error": None, "prefix": prefix,
        "codec_data": compare_data(prefix), "block_notes": block_notes(),
    }
    status = 200
    try:
        mode, policy = rounding_mode(rounding), overflow_policy(overflow)
        used_seed = _seed(seed, mode)
        x = parse_number(typed_number(value))  # 0,1 on a Turkish page
        rows, blocks = _rows(x, value, mode, policy, used_seed, prefix)
    except InputError as error:
        # The sentence, and the rows of the default value hidden beneath it: the browser's script fills them in
        # as soon as the visitor types a value it can read.
        context["error"], status = refusal_sentence(error), 422
        context["error_english"] = context["error"] == str(error)  # a sentence the catalogs do not have yet
        used_seed, x = None, parse_number(DEFAULT_VALUE)
        rows, blocks = _rows(x, DEFAULT_VALUE, "nearest_even", "format_default", None, prefix)
    bars = [bar_of(row["spec"].id, "scalar", row["result"]) for row in rows]
    bars += [bar_of(b.spec.id, "block", b.result) for b in blocks]
    context |= {
        "rows": rows, "blocks": blocks, "chart": chart(bars), "input": shown(x, limit=80, digits=20),
        "seed": context["seed"] if used_seed is None else str(used_seed),
    }
    return render(request, "compare.html", context, fragment="table", status_code=status)
