"""View models of the block visualiser: one quantised block, its scale, its elements, their errors as a chart,
and the same values in every other block format."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from app.formats import (
    BLOCK_FORMAT_IDS,
    FORMATS,
    BlockQuantization,
    Fate,
    FormatSpec,
    MxExponent,
    Real,
    block_absmax,
    block_step,
    decode,
    element_emax,
    encode,
    exact_error,
    fates,
    mx_exponent,
    nvfp4_quotients,
    quantize_blocks,
    scale_rule,
    summarise,
)
from app.web.platform.catalogs import N_, gettext
from app.web.visualise.present import BitGroup, Shown, bit_groups, layout_roles, shown, visualise_url

CELL = 32  # in the element table: "≈" seven digits past this many characters, the exact value in a title
SHORT = 18  # in the side-by-side table, as CELL
# an exact value past this many characters has no title: a tiny value's exact decimal has ~150 digits, and 64 of
# them (three a row) would weigh more than the rest of the page; the "≈" seven digits are what the page shows
TITLE = 60
FULL = 4000  # the block's absmax and scales: in full, however long
CHART_HEIGHT = 96  # px of the tallest bar
# English ids in the page's data for block_view.js; the templates and the script translate them where shown
FATE_WORDS: dict[Fate, str] = {"kept": N_("rounded"), "saturated": N_("saturated at the element's max"),
                               "zeroed": N_("flushed to zero"), "nan": N_("NaN")}
FATE_SHORT: dict[Fate, str] = {"kept": N_("rounded"), "saturated": N_("saturated"), "zeroed": N_("flushed to 0"),
                               "nan": N_("NaN")}
INFINITY = N_("infinity")  # what a block holds that is not finite, besides NaN (block_view's nonfinite)


def exact(x: float | Fraction | None, limit: int = CELL) -> Shown:
    """A float the core computed (exact in binary) or an exact fraction, as the page shows it (its exact value for
    a title, where that is at most TITLE characters); None is an exact quantity that a NaN left without a value (as
    the MSE of a NaN block)."""
    if x is None:
        return Shown("nan", "nan")
    if isinstance(x, float) and not math.isfinite(x):
        text = Real.nan().exact_string() if math.isnan(x) else Real.inf(x < 0).exact_string()
        return Shown(text, text)
    value = Real(math.copysign(1.0, x) < 0, abs(Fraction(x))) if isinstance(x, float) else Real.of(x)
    short = shown(value, limit) or Shown("0", "0")
    if short.shortened and len(short.full) > max(limit, TITLE):
        return Shown(short.text, short.text)
    return short


@dataclass(frozen=True)
class ScaleView:
    """One scale of the block: what it is, its bits (coloured as the scalar view colours them) and its value."""

    label: str
    spec: FormatSpec
    hex: str
    groups: list[BitGroup]
    value: Shown
    short: Shown  # the value in a sentence: "≈" seven digits past SHORT characters
    href: str


def scale_view(label: str, spec: FormatSpec, bits: int, prefix: str) -> ScaleView:
    enc = decode(spec, bits)
    value = enc.value.to_float()
    return ScaleView(label, spec, enc.hex, bit_groups(enc), exact(value, FULL), exact(value, SHORT),
                     visualise_url(spec.id, bits=enc.hex, prefix=prefix))


@dataclass(frozen=True)
class ElementRow:
    index: int
    input: Shown
    hex: str
    groups: list[BitGroup]
    stored: Shown
    error: Shown
    fate: Fate
    href: str


@dataclass(frozen=True)
class Bar:
    x: float  # percent of the chart's width
    width: float
    height: float  # px
    fate: Fate
    label: str


def _bars(rows: list[ElementRow], errors: list[Fraction | None]) -> list[Bar]:
    """|error| of each element as bars, linear up to the largest finite |error|; NaN's bar is full height. Each
    bar's tooltip says its |error| as the caption writes numbers (SHORT); the element table has it exactly."""
    top = max((abs(e) for e in errors if e is not None), default=Fraction(0))
    slot = 100 / len(rows)
    bars = []
    for row, error in zip(rows, errors, strict=True):
        share = 1.0 if error is None else float(abs(error) / top) if top else 0.0
        label = gettext("element %(index)s: |error| = %(error)s") % {
            "index": row.index, "error": "nan" if error is None else exact(abs(error), SHORT).text}
        bars.append(Bar(round(row.index * slot + slot * 0.15, 3), round(slot * 0.7, 3),
                        round(max(share * CHART_HEIGHT, 1.0), 2), row.fate, label))
    return bars


@dataclass(frozen=True, slots=True)
class BlockView:
    """What the page shows of one block: its elements, their chart, its scales and how they were chosen."""

    rows: list[ElementRow]
    fate_words: dict[Fate, str]
    bars: list[Bar]
    chart_height: int
    max_error_exact: Fraction | None
    absmax: Shown
    absmax_short: Shown
    mse: Shown
    max_error: Shown
    zeroed: int
    nonzero: int
    saturated: int
    nan_block: bool
    nonfinite: str
    bits_per_value: Shown
    element: FormatSpec
    element_fields: list[tuple[str, int]]
    scales: list[ScaleView]
    choice: Choice
    threshold: Shown | None


def block_view(result: BlockQuantization, prefix: str) -> BlockView:
    """What the page shows of the one block of `result`."""
    spec = FORMATS[result.format]
    element = spec.element or spec
    block = result.blocks[0]
    fate = fates(result)
    errors = [exact_error(s, v) for s, v in zip(result.dequantized.tolist(), result.inputs.tolist(), strict=True)]
    rows = []
    for i, (value, code, stored) in enumerate(zip(result.inputs.tolist(), block.codes, block.values, strict=True)):
        enc = decode(element, code)
        rows.append(ElementRow(i, exact(value), enc.hex, bit_groups(enc), exact(stored),
                               exact(errors[i]), fate[i], visualise_url(element.id, bits=enc.hex, prefix=prefix)))
    summary = summarise(result)
    absmax = block_absmax(result, 0)
    return BlockView(
        rows=rows,
        fate_words=FATE_SHORT,
        bars=_bars(rows, errors),
        chart_height=CHART_HEIGHT,
        max_error_exact=summary.max_error,
        absmax=exact(absmax, FULL),
        absmax_short=exact(absmax, SHORT),
        mse=exact(summary.mse, SHORT),
        max_error=exact(summary.max_error, SHORT),
        zeroed=summary.zeroed,
        nonzero=sum(1 for v in result.inputs.tolist() if v != 0 and not math.isnan(v)),
        saturated=fate.count("saturated"),
        nan_block=not math.isfinite(absmax),
        nonfinite="NaN" if math.isnan(absmax) else INFINITY,  # translated where shown
        bits_per_value=exact(spec.bits_per_value),
        element=element,
        element_fields=layout_roles(element),
        scales=_scales(result, prefix),
        choice=_choice(result, absmax),
        threshold=_zero_threshold(result),
    )


def _scales(result: BlockQuantization, prefix: str) -> list[ScaleView]:
    spec, block = FORMATS[result.format], result.blocks[0]
    if scale_rule(spec) == "absmax":
        return [scale_view(N_("Scale: the absmax, in FP32"), FORMATS["float32"], block.scale_bits, prefix)]
    assert spec.scale is not None, "a block format has a scale format"
    label = N_("Shared scale (E8M0)") if scale_rule(spec) == "mx" else N_("Block scale (E4M3)")  # translated if shown
    views = [scale_view(label, spec.scale, block.scale_bits, prefix)]
    if result.tensor_scale is not None:
        fp32 = FORMATS["float32"]
        pattern = encode(fp32, Real.of(Fraction(result.tensor_scale))).encoding.bits  # exact: an FP32 value
        views.append(scale_view(N_("Tensor scale (FP32)"), fp32, pattern, prefix))
    return views


@dataclass(frozen=True)
class Choice:
    """The numbers of how the scale was chosen, for the template's sentence of each rule."""

    rule: str
    mx: MxExponent | None = None  # None where the absmax has no log2 (0)
    element_emax: int | None = None
    tensor_quotient: Shown | None = None
    tensor_scale: Shown | None = None
    block_quotient: Shown | None = None
    block_scale: Shown | None = None
    saturated: bool = False
    step: Shown | None = None


def _choice(result: BlockQuantization, absmax: float) -> Choice:
    spec, block = FORMATS[result.format], result.blocks[0]
    rule = scale_rule(spec)
    step = exact(block_step(result, 0)) if math.isfinite(block.scale) else None
    if rule == "mx":
        return Choice(rule, mx=mx_exponent(absmax, spec), element_emax=element_emax(spec), step=step)
    if rule == "absmax" or result.tensor_scale is None or not math.isfinite(absmax):
        return Choice(rule, step=step)
    tensor_quotient, block_quotient = nvfp4_quotients(absmax, absmax, result.tensor_scale, spec)
    assert spec.scale is not None
    return Choice(rule, tensor_quotient=exact(tensor_quotient, 40), tensor_scale=exact(result.tensor_scale),
                  block_quotient=exact(block_quotient, 40), block_scale=exact(block.scale),
                  saturated=block_quotient > spec.scale.max, step=step)


def _zero_threshold(result: BlockQuantization) -> Shown | None:
    """Below this |value| an element is flushed to zero: half the smallest nonzero element, times the step."""
    spec, block = FORMATS[result.format], result.blocks[0]
    if not math.isfinite(block.scale):
        return None
    element = spec.element or spec
    return exact(Fraction(block_step(result, 0)) * element.min_positive / 2)


@dataclass(frozen=True)
class OtherRow:
    """The same values in another block format."""

    spec: FormatSpec
    href: str | None
    current: bool
    scales: list[Shown]
    tensor_scale: Shown | None
    mse: Shown
    max_error: Shown
    zeroed: int
    largest: tuple[Shown, Shown, str] | None
    bits: Shown


def side_by_side(values: list[float], current: str, links: dict[str, str | None]) -> list[OtherRow]:
    """Every block format (its own block size: the values may fill several blocks or part of one)."""
    rows = []
    for format_id in BLOCK_FORMAT_IDS:
        summary = summarise(quantize_blocks(values, format_id))
        result = summary.result
        largest = None
        if summary.largest is not None and summary.largest_fate is not None:
            i = summary.largest
            largest = (exact(result.inputs[i].item(), SHORT), exact(result.dequantized[i].item(), SHORT),
                       FATE_WORDS[summary.largest_fate])
        spec = FORMATS[format_id]
        rows.append(OtherRow(
            spec, links.get(format_id), format_id == current,
            [exact(b.scale, SHORT) for b in result.blocks],
            exact(result.tensor_scale, SHORT) if result.tensor_scale is not None else None,
            exact(summary.mse, SHORT), exact(summary.max_error, SHORT),
            summary.zeroed, largest, exact(spec.bits_per_value),
        ))
    return rows
