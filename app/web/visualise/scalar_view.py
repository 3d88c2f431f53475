"""What the visualiser's view of one stored pattern shows (templates/_visualise_view.html): the values of its slots
and which of its variants apply, the same that static/js/visualiser_fill.js writes into that markup in the browser."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.formats import Encoding, Rounded, decode, next_down, next_up, stochastic_odds, ulp
from app.web.arithmetic.present import arithmetic_url
from app.web.blocks.pages import block_url
from app.web.visualise.codebook_line import LevelLine, level_line
from app.web.visualise.odds import Odds, odds_shown
from app.web.visualise.present import (
    BitGroup,
    NumberLine,
    Shown,
    bit_groups,
    int_parts,
    layout_roles,
    number_line,
    relative,
    shown,
)
from app.web.visualise.present import visualise_url as _visualise_url
from app.web.visualise.serialise import real_json

FULL = 4000  # show exact values in full on this page, however long
Neighbour = tuple[str, Shown | None, str | None]  # (label, value, link) of the next pattern up or down


def _neighbour(label: str, step: Encoding | None, links: dict[str, Any]) -> Neighbour:
    """(label, value, link) of the next pattern up or down; no value or link at the end of the range."""
    if step is None:
        return label, None, None
    return label, shown(step.value, FULL), _visualise_url(step.format.id, bits=step.hex, **links)


def shows(enc: Encoding, result: Rounded | None, stochastic: bool, odds: Odds | None,
          neighbours: list[Neighbour]) -> dict[str, bool]:
    """Which variants of the view apply (data-if / data-unless in the template): the value's class, the notes and
    flags, stochastic rounding's odds, the typed value's rows, the neighbours that exist."""
    note = result is not None and (result.note is not None or result.overflowed or result.underflowed)
    return {
        enc.cls: True,
        "finite": enc.cls in ("normal", "subnormal"),
        "notes": note,
        "overflow": result is not None and result.overflowed,
        "underflow": result is not None and result.underflowed,
        "stochastic": stochastic,
        "odds": odds is not None,
        "certain": stochastic and odds is None,
        "typed": result is not None,
        "has-down": neighbours[0][1] is not None,
        "has-up": neighbours[1][1] is not None,
    }


@dataclass(frozen=True, slots=True)
class PatternView:
    """Everything the page shows about one stored pattern (a codebook's: its levels on a line, not a log scale)."""

    enc: Encoding
    result: Rounded | None
    fields: list[tuple[str, int]]
    groups: list[BitGroup]
    stored_short: Shown | None
    stored_exact: bool
    significand: Shown | None
    int_parts: tuple[int, int] | None
    codebook: list[Encoding]
    typed_value: Shown | None
    error_value: Shown | None
    rel_error: str | None
    ulp: Shown | None
    neighbours: list[Neighbour]
    line: NumberLine | None
    levels: LevelLine | None
    block_href: str | None
    operate_href: str  # the arithmetic lab with this pattern as a (static/js/visualiser_fill.js keeps it in step)
    stochastic: bool
    odds: Odds | None
    shows: dict[str, bool]


def operate_url(enc: Encoding, links: dict[str, Any]) -> str:
    """The arithmetic lab, this pattern as a, adding 1, with the page's rounding and overflow (and layout)."""
    seed = links["seed"] if links["rounding"] == "stochastic" and links["seed"] is not None else None
    return arithmetic_url(links["prefix"], format=enc.format.id, **dict(links.get("layout") or ()), op="add",
                          a=enc.hex, b="1", rounding=links["rounding"], overflow=links["overflow"],
                          seed=None if seed is None else str(seed))


def results(enc: Encoding, result: Rounded | None, links: dict[str, Any]) -> PatternView:
    """The view of one stored pattern, and of the typed value's rounding where one was typed."""
    spec = enc.format
    codebook = spec.kind == "codebook"
    stochastic = result is not None and links["rounding"] == "stochastic"
    odds = odds_shown(stochastic_odds(spec, result.input, links["overflow"]), enc) if stochastic and result else None
    neighbours = [_neighbour("next down", next_down(enc), links), _neighbour("next up", next_up(enc), links)]
    return PatternView(
        enc=enc,
        result=result,
        fields=layout_roles(spec),
        groups=bit_groups(enc, links),
        stored_short=shown(enc.value, 60, 17),
        stored_exact=real_json(enc.value)[1],
        significand=shown(enc.significand, FULL),
        int_parts=int_parts(enc) if spec.kind == "int" else None,
        codebook=[decode(spec, code) for code in range(len(spec.codebook))],
        typed_value=shown(result.input, FULL) if result else None,
        error_value=shown(result.error, FULL) if result else None,
        rel_error=relative(result.rel_error) if result else None,
        ulp=shown(ulp(enc), FULL),
        neighbours=neighbours,
        line=None if codebook else number_line(enc),
        levels=level_line(enc, result.input if result else None) if codebook else None,
        block_href=block_url(spec.id, prefix=links["prefix"]) if spec.block_size else None,
        operate_href=operate_url(enc, links),
        stochastic=stochastic,
        odds=odds,
        shows=shows(enc, result, stochastic, odds, neighbours),
    )
