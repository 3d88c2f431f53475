"""The arithmetic lab's page as the template shows it: each operand's and each result's line, the flags, the
chain's steps, and the lessons' links."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from app.formats import FLAGS, Chain, Exact, Operated, Rounded, rule
from app.web.arithmetic.schemas import known_json, ulp_error
from app.web.platform.refusal_sentences import core_text
from app.web.visualise.present import BitGroup, Shown, bit_groups, relative, shown, visualise_url


@dataclass(frozen=True, slots=True)
class StoredLine:
    """A value as stored: what was asked, what is kept, its bits and its error; a link to its bits."""

    asked: Shown | None
    stored: Shown | None
    hex: str
    groups: list[BitGroup]
    cls: str
    error: Shown | None
    rel_error: str
    href: str


@dataclass(frozen=True, slots=True)
class ResultView:
    """One operation as the figure shows it."""

    operands: list[StoredLine]  # a, b and c: those the operation takes, and the lines of a kept for the others
    arity: int
    exact: Shown | None
    exact_is_exact: bool
    result: StoredLine
    ulp_error: str
    flags: list[tuple[str, bool]]  # every flag, and whether it was raised
    rule: str
    note: str | None  # the result format's own rule, where the sentence above does not say it (NaN stored as 0, …)
    roles: set[str]  # the bit roles the lines show, for the legend


@dataclass(frozen=True, slots=True)
class ChainRow:
    """One step of the tape."""

    number: int
    op: str
    operand: Shown | None
    result: StoredLine
    flags: list[str]
    rule: str
    exact_chain: Shown | None
    drift: Shown | None


def stored_line(value: Rounded, rounding: str, overflow: str, prefix: str, asked: Shown | None = None) -> StoredLine:
    enc = value.encoding
    return StoredLine(
        asked=asked, stored=shown(enc.value, limit=40, digits=17), hex=enc.hex, groups=bit_groups(enc),
        cls=enc.cls, error=shown(value.error, limit=32, digits=6), rel_error=relative(value.rel_error),
        href=visualise_url(enc.format.id, bits=enc.hex, rounding=rounding, overflow=overflow, prefix=prefix),
    )


def exact_shown(exact: Exact) -> tuple[Shown | None, bool]:
    """The exact result as shown: exact where it is short, "≈" and the full 40 digits where it is not known or
    too long (an irrational root, a quotient that never ends)."""
    text, is_exact = known_json(exact.value, exact.rational)
    full = shown(exact.value, limit=40, digits=17)
    if is_exact or full is None:
        return full, is_exact
    return Shown(full.text if full.text.startswith("≈") else "≈" + full.text, text), False


def result_view(done: Operated, rounding: str, overflow: str, prefix: str) -> ResultView:
    operands = [stored_line(o, rounding, overflow, prefix, shown(o.input, limit=40, digits=17))
                for o in done.operands]
    arity = len(operands)
    operands += [operands[0]] * (3 - arity)  # the lines an operation does not take, hidden: a script may need them
    exact, is_exact = exact_shown(done.exact)
    ulps = ulp_error(done.result)
    result = stored_line(done.result, rounding, overflow, prefix)
    return ResultView(
        operands=operands, arity=arity, exact=exact, exact_is_exact=is_exact,
        result=result,
        ulp_error="—" if ulps is None else ("0" if ulps == 0 else f"{ulps:+.3g}"),
        flags=[(flag, flag in done.flags) for flag in FLAGS], rule=core_text(rule(done, rounding)),
        note=core_text(done.result.note) if done.result.note and not (
            done.result.overflowed or done.result.underflowed) else None,
        roles={g.role for line in (*operands[:arity], result) for g in line.groups},
    )


def chain_rows(chain: Chain, rounding: str, overflow: str, prefix: str) -> list[ChainRow]:
    rows = []
    for number, (done, exact) in enumerate(zip(chain.steps, chain.exact, strict=True), 1):
        operand = done.operands[1] if len(done.operands) > 1 else None
        drift = Rounded(encoding=done.result.encoding, input=exact.value)
        rows.append(ChainRow(
            number=number, op=done.op, operand=shown(operand.encoding.value, limit=24, digits=8) if operand else None,
            result=stored_line(done.result, rounding, overflow, prefix), flags=list(done.flags),
            rule=core_text(rule(done, rounding)), exact_chain=exact_shown(exact)[0],
            drift=shown(drift.error, limit=24, digits=4)))
    return rows


def arithmetic_url(prefix: str = "", **query: str | list[str] | None) -> str:
    """The lab's URL with this state; empty and default choices left out (static/js/urls.js arithmeticUrl)."""
    defaults = {"rounding": "nearest_even", "overflow": "format_default"}
    pairs = [(name, v) for name, value in query.items() if value not in (None, "", defaults.get(name))
             for v in (value if isinstance(value, list) else [value])]
    params = "&".join(f"{name}={quote(str(v), safe='')}" for name, v in pairs)
    return f"{prefix}/arithmetic" + (f"?{params}" if params else "")
