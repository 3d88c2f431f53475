"""Presentation of core objects for the pages: bit cells, short values, number-line positions, links."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any
from urllib.parse import quote

from app.formats import Encoding, FormatSpec, Real
from app.web.platform.catalogs import N_, gettext
from app.web.visualise.serialise import real_json

SHORT_LENGTH = 24
DEFAULT_ROUNDING = "nearest_even"
DEFAULT_OVERFLOW = "format_default"


@dataclass(frozen=True)
class Shown:
    """A value as a page shows it: `text` (with "≈" when rounded) and the full decimal for a title."""

    text: str
    full: str

    @property
    def shortened(self) -> bool:
        return self.text != self.full


def shown(x: Real | Fraction | int | None, limit: int = SHORT_LENGTH, digits: int = 7) -> Shown | None:
    """Exact when at most `limit` characters long, else `digits` digits marked "≈" (the full text kept)."""
    if x is None:
        return None
    text, is_exact = real_json(x if isinstance(x, Real) else Real.of(x))
    if is_exact and len(text) <= limit:
        return Shown(text, text)
    mantissa, _, exponent = format(Decimal(text), f".{digits}g").partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return Shown("≈" + mantissa + (f"e{exponent}" if exponent else ""), text)


def relative(rel_error: float | None) -> str:
    """A relative error as a short number; "0" when exact."""
    if rel_error is None:
        return "—"
    return "0" if rel_error == 0 else f"≈{rel_error:.3g}"


# -- bit cells ----------------------------------------------------------------------------------


def bit_role(spec: FormatSpec, index: int) -> str:
    """What bit `index` (0 = least significant) is: sign, exponent, mantissa, integer or code."""
    if spec.kind == "codebook":
        return "code"
    top = index == spec.bits - 1
    if spec.kind == "int":
        return "sign" if top and spec.signed else "integer"
    if index < spec.mantissa_bits:
        return "mantissa"
    return "exponent" if index < spec.mantissa_bits + spec.exponent_bits else "sign"


@dataclass(frozen=True)
class BitCell:
    index: int
    role: str
    value: int
    flipped: str  # the whole pattern, in hex, with this bit flipped
    href: str | None = None  # the visualiser showing the flipped pattern, where cells are links


@dataclass(frozen=True)
class BitGroup:
    """A run of bits with the same role, most significant first."""

    role: str
    cells: tuple[BitCell, ...]


def bit_groups(enc: Encoding, links: dict[str, Any] | None = None) -> list[BitGroup]:
    """The cells of a pattern grouped by role; with `links` (visualise_url's choices) each cell links its flip."""
    spec = enc.format
    # only the pattern differs from cell to cell, so the rest of the URL is built once
    template = visualise_url(spec.id, bits="{}", **links).replace("%7B%7D", "{}") if links is not None else None
    groups: list[BitGroup] = []
    for index in reversed(range(spec.bits)):
        role = bit_role(spec, index)
        flipped = f"0x{enc.bits ^ (1 << index):0{(spec.bits + 3) // 4}x}"  # as Encoding.hex writes it
        cell = BitCell(index, role, (enc.bits >> index) & 1, flipped, template.format(flipped) if template else None)
        if groups and groups[-1].role == role:
            groups[-1] = BitGroup(role, groups[-1].cells + (cell,))
        else:
            groups.append(BitGroup(role, (cell,)))
    return groups


def layout_roles(spec: FormatSpec) -> list[tuple[str, int]]:
    """(role, number of bits) of each field, most significant first."""
    roles = [bit_role(spec, index) for index in reversed(range(spec.bits))]
    fields: list[tuple[str, int]] = []
    for role in roles:
        if fields and fields[-1][0] == role:
            fields[-1] = (role, fields[-1][1] + 1)
        else:
            fields.append((role, 1))
    return fields


def int_parts(enc: Encoding) -> tuple[int, int]:
    """(weight of the sign bit, value of the other bits) of a two's complement or unsigned integer."""
    spec = enc.format
    if not spec.signed:
        return 0, enc.bits
    top = 1 << (spec.bits - 1)
    return -top, enc.bits & (top - 1)


# -- links ----------------------------------------------------------------------------------------


Layout = Sequence[tuple[str, str]]


def visualise_url(
    format_id: str, *, value: str | None = None, bits: str | None = None, rounding: str = DEFAULT_ROUNDING,
    overflow: str = DEFAULT_OVERFLOW, seed: int | None = None, prefix: str = "", layout: Layout = (),
) -> str:
    """The visualiser's URL (under `prefix`, see link_prefix); choices left at their defaults stay out of it.

    `layout` is a custom format's (custom_layout_query): every link to a custom format's page carries it.
    """
    query = [
        *layout, ("value", value), ("bits", bits),
        ("rounding", None if rounding == DEFAULT_ROUNDING else rounding),
        ("overflow", None if overflow == DEFAULT_OVERFLOW else overflow),
        ("seed", seed),
    ]
    params = "&".join(f"{name}={quote(str(v), safe='')}" for name, v in query if v is not None)
    return f"{prefix}/visualise/{format_id}" + (f"?{params}" if params else "")


# -- number line ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mark:
    label: str
    value: Shown
    x: float  # percent of the line's width
    row: int  # 0 above the line, 1 and 2 below it

    @property
    def anchor(self) -> str:
        return "start" if self.x < 12 else "end" if self.x > 88 else "middle"


@dataclass(frozen=True)
class NumberLine:
    marks: tuple[Mark, ...]
    value: Mark | None
    description: str
    share: int | None = None  # how far along the line |value| sits, in percent, for a finite value not zero


def _log2(x: Fraction) -> float:
    return math.log2(x.numerator) - math.log2(x.denominator)


def number_line(enc: Encoding) -> NumberLine:
    """Where |value| sits on a log scale from the format's smallest positive value to its max."""
    spec, v = enc.format, enc.value
    low, high = _log2(spec.min_positive), _log2(spec.max)

    def mark(label: str, x: Fraction, row: int) -> Mark:
        share = 0.0 if x == 0 or high == low else (_log2(x) - low) / (high - low)
        return Mark(label, shown(x) or Shown("0", "0"), round(2 + 96 * min(max(share, 0.0), 1.0), 2), row)

    # the labels stay English in the marks (the page's script has them too); the template translates them
    points = [(N_("min subnormal"), spec.min_subnormal, 2), (N_("min normal"), spec.min_normal, 1),
              ("1", Fraction(1), 2), (N_("max"), spec.max, 1)]
    if spec.kind != "float":
        points = [(N_("min positive"), spec.min_positive, 1), (N_("max"), spec.max, 1)]
    marks = tuple(mark(label, x, row) for label, x, row in points
                  if x is not None and spec.min_positive <= x <= spec.max)
    if v.kind == "nan":
        return NumberLine(marks, None, gettext("NaN is not a number, so it has no place on the line."))
    if v.kind == "inf":
        return NumberLine(marks, Mark("inf", Shown("inf", "inf"), 100.0, 0), gettext("Infinity lies past max."))
    if v.is_zero:
        return NumberLine(marks, mark("0", Fraction(0), 0), gettext("Zero sits left of the smallest positive value."))
    where = mark("|value|", v.magnitude, 0)
    share = round((where.x - 2) / 96 * 100)
    return NumberLine(marks, where, gettext(
        "|value| sits %(share)s%% of the way along the log scale from the smallest positive value %(low)s to max "
        "%(high)s."
    ) % {"share": share, "low": marks[0].value.text, "high": marks[-1].value.text}, share)


# -- the format table -------------------------------------------------------------------------------

OVERFLOW_WORDS = {"inf": "to ±inf", "nan": "to NaN", "saturate": "saturates to ±max", "wrap": "wraps around"}


def special_values(spec: FormatSpec) -> str:
    """Its inf, NaN and signed-zero rules, in a few words."""
    if spec.kind == "int":
        return "no inf or NaN; " + ("two's complement" if spec.signed else "unsigned")
    if spec.kind == "codebook":
        return f"{len(spec.codebook)} fixed values; no inf or NaN"
    rules = {
        "ieee": "±inf; NaN: exponent all ones",
        "fn": "no inf; NaN: all ones",
        "fnuz": f"no inf; NaN = {1 << (spec.bits - 1):#x}",
        "none": "no inf, no NaN",
        "e8m0": f"no sign, no zero; NaN = {(1 << spec.bits) - 1:#x}",
    }
    return rules[spec.nan_style] + ("; −0" if spec.has_negative_zero else "")


def power_of_two(x: Fraction | None) -> int | None:
    """n where x = 2^n exactly, else None: constants like epsilon read best that way."""
    if x is None or x <= 0 or x.numerator & (x.numerator - 1) or x.denominator & (x.denominator - 1):
        return None
    return x.numerator.bit_length() - x.denominator.bit_length()


def overflow_words(spec: FormatSpec) -> str:
    return OVERFLOW_WORDS[spec.overflow_default]
