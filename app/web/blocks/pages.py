"""The block visualiser: one block of a block format (MX, NVFP4, NF4) that a student edits or starts from a preset.

State is the query string: `?preset=outlier` or `?values=0.5, -1.25, 3` (commas, spaces or newlines between
values, each read as the rest of the app reads a value). Each value is first rounded to FP32, as the block formats
quantise FP32 tensors; fewer values than a block holds are padded with zeros (which change neither the absmax
nor the scale), more are refused. NF4 is a scalar codebook too: its block view is the one asked for with
`values` or `preset`, its plain address the scalar view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from statistics import NormalDist
from typing import Any
from urllib.parse import quote

from babel.numbers import get_group_symbol
from fastapi import Request
from fastapi.responses import HTMLResponse

from app.formats import (
    BLOCK_FORMAT_IDS,
    FORMATS,
    FormatSpec,
    InputError,
    encode,
    parse_number,
    quantize_blocks,
)
from app.refusal import quoted
from app.web.blocks import present
from app.web.blocks.block_specs import block_page_data
from app.web.blocks.present import BlockView, OtherRow, block_view, side_by_side
from app.web.platform.catalogs import N_, gettext, prose_decimal
from app.web.platform.decimal_comma import typed_list
from app.web.platform.languages import current_language
from app.web.platform.refusal_sentences import refusal_sentence
from app.web.platform.rendering import render
from app.web.platform.script_words import script_words
from app.web.visualise.codec_specs import embedded_json

MAX_TEXT = 4000  # characters of a typed list: 64 values of 60 characters each (the query's limit is 8 KB)
_SEPARATORS = re.compile(r"[\s,;]+")
_FLOAT32 = FORMATS["float32"]


def _normal(n: int) -> list[str]:
    """n values shaped like a normal distribution: its quantiles at (i + ½)/n to the nearest 1/16, so that FP32
    holds each exactly, in an order that mixes signs and sizes (a step of 13 visits every index of a power-of-two
    block)."""
    quantiles = [round(16 * NormalDist().inv_cdf((i + 0.5) / n)) / 16 for i in range(n)]
    return [f"{quantiles[(13 * i) % n]:g}" for i in range(n)]


@dataclass(frozen=True)
class Preset:
    """A block to start from, of n values: `every` value alike; or the normal values (_normal), each followed by
    `suffix`, the one at index `at` (mod n) then replaced by `text`. The page's data carries the normal values and
    these fields (`rule`), and block_view.js makes each preset from them as `values` does."""

    id: str
    label: str
    every: str | None = None
    suffix: str = ""
    at: int | None = None
    text: str = ""

    def values(self, n: int) -> list[str]:
        if self.every is not None:
            return [self.every] * n
        values = [value + self.suffix for value in _normal(n)]
        if self.at is not None:
            values[self.at % n] = self.text
        return values

    def rule(self) -> dict[str, Any]:
        """The fields that make it, those left at their defaults left out, for the page's data."""
        made = {"every": self.every, "suffix": self.suffix, "at": self.at, "text": self.text}
        return {name: value for name, value in made.items() if value not in (None, "")}


# (the labels translated where shown)
PRESETS: tuple[Preset, ...] = (
    Preset("normal", N_("normal values")),
    Preset("outlier", N_("one outlier"), at=5, text="40"),
    Preset("equal", N_("all equal"), every="0.3125"),
    Preset("floor", N_("near the scale's floor"), suffix="e-39"),
    Preset("zero", N_("all zero"), every="0"),
    Preset("nan", N_("holding NaN"), at=3, text="nan"),
    Preset("inf", N_("holding inf"), at=3, text="inf"),
)
_PRESETS = {p.id: p for p in PRESETS}
DEFAULT_PRESET = "normal"


def wants_block(spec: FormatSpec, request: Request) -> bool:
    """Whether the visualiser shows a block: always for a block format; for NF4 when a block was asked for."""
    query = request.query_params
    return spec.kind == "block" or (spec.id in BLOCK_FORMAT_IDS and ("values" in query or "preset" in query))


def block_url(format_id: str, *, preset: str | None = None, values: str | None = None, prefix: str = "") -> str:
    """The block visualiser's URL: a preset, or the values as typed; NF4's always says which (else it is scalar)."""
    if values is not None:
        return f"{prefix}/visualise/{format_id}?values={quote(values, safe='')}"
    if preset is None and FORMATS[format_id].kind != "block":
        preset = DEFAULT_PRESET
    return f"{prefix}/visualise/{format_id}" + (f"?preset={preset}" if preset else "")


def _entries(text: str, size: int) -> list[str]:
    if len(text) > MAX_TEXT:
        raise InputError(gettext("The list is %(length)s characters long; at most %(most)s are accepted.")
                         % {"length": prose_decimal(len(text)), "most": prose_decimal(MAX_TEXT)})
    entries = [entry for entry in _SEPARATORS.split(text.replace("\u2212", "-")) if entry]
    if not entries:
        raise InputError(gettext("The list is empty; type up to %(size)s numbers, separated by commas, spaces or new "
                                 "lines.") % {"size": size})
    if len(entries) > size:
        raise InputError(gettext("One block holds %(size)s values and the list has %(count)s; remove %(extra)s, or "
                                 "quantise a longer vector with POST /api/blocks/quantize.")
                         % {"size": size, "count": len(entries), "extra": len(entries) - size})
    return entries


def fp32_values(entries: list[str]) -> tuple[list[float], int]:
    """Each entry read exactly and rounded once to FP32 (nearest even); and how many that rounding changed."""
    values, changed = [], 0
    for position, entry in enumerate(entries, 1):
        try:
            rounded = encode(_FLOAT32, parse_number(entry))
        except InputError as error:
            why = refusal_sentence(error)  # the core's sentence, in the page's language where the catalogs have it
            raise InputError(gettext("Value %(position)s (%(entry)s) cannot be used: %(why)s")
                             % {"position": position, "entry": quoted(entry[:40]), "why": why}) from None
        if rounded.overflowed:
            raise InputError(gettext("Value %(position)s (%(entry)s) is beyond FP32's range (±%(max)s); block formats "
                                     "quantise FP32 tensors, so give a value within it, or inf.")
                             % {"position": position, "entry": quoted(entry[:40]), "max": f"{float(_FLOAT32.max):g}"})
        changed += not rounded.error.is_zero and rounded.input.is_finite
        values.append(rounded.encoding.value.to_float())
    return values, changed


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a block of values that could be read comes to: its view, and the same values in every block format."""

    view: BlockView
    count: int  # values typed (or of the preset)
    padding: int  # zeros the quantiser adds to fill the block
    changed: int  # values that FP32 rounded
    others: list[OtherRow]
    words: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BlockPage:
    """What templates/visualise_block.html shows: the form (a preset or the values as typed) and, where they could
    be read, the outcome; else the refusal."""

    spec: FormatSpec
    prefix: str
    size: int
    preset: str | None
    preset_links: dict[str, str]
    action: str
    typed: str
    block_json: str
    error: str | None = None
    outcome: Outcome | None = None
    presets: tuple[Preset, ...] = PRESETS

    def names(self) -> dict[str, Any]:
        """The template's names: this page's fields and, beside them, the outcome's and its view's (rows, bars, ...)."""
        names = {field.name: getattr(self, field.name) for field in fields(self) if field.name != "outcome"}
        if self.outcome is not None:
            names |= {field.name: getattr(self.outcome, field.name) for field in fields(self.outcome)
                      if field.name != "view"}
            names |= {field.name: getattr(self.outcome.view, field.name) for field in fields(self.outcome.view)}
        return names


def block_page(request: Request, spec: FormatSpec, prefix: str) -> HTMLResponse:
    """The block visualiser page (or its htmx fragment) for one block of `spec`."""
    size = spec.block_size
    typed = request.query_params.get("values")
    preset = None if typed is not None else request.query_params.get("preset") or DEFAULT_PRESET
    page = BlockPage(
        spec=spec, prefix=prefix, size=size, preset=preset,
        preset_links={p.id: block_url(spec.id, preset=p.id, prefix=prefix) for p in PRESETS},
        action=f"{prefix}/visualise/{spec.id}", typed=typed or "", block_json=_page_json(spec, prefix),
    )
    try:
        if preset is not None:
            entries = _preset(preset, size)
            page = replace(page, typed=_lines(entries))
        else:
            entries = _entries(typed_list(typed or ""), size)  # 0,5; -1,25 on a Turkish or Greek page
        values, changed = fp32_values(entries)
    except InputError as error:
        page = replace(page, error=str(error))
        return render(request, "visualise_block.html", page.names(), fragment="block", status_code=422)
    result = quantize_blocks(values, spec.id)  # a shorter block is padded with zeros by the quantiser
    links = {other: _other_link(other, preset, typed, len(values), prefix) for other in BLOCK_FORMAT_IDS}
    outcome = Outcome(view=block_view(result, prefix), count=len(values), padding=size - len(values), changed=changed,
                      others=side_by_side(values, spec.id, links), words=SCRIPT_WORDS)
    return render(request, "visualise_block.html", replace(page, outcome=outcome).names(), fragment="block")


# The words the script writes that the page's markup translates (<template data-words>, by their English ids):
# what became of each element (its fate, short and long), and what a block holds that is not finite.
SCRIPT_WORDS = tuple(dict.fromkeys([*present.FATE_SHORT.values(), *present.FATE_WORDS.values(),
                                    "NaN", present.INFINITY]))
# What block_view.js and the modules it imports never say on a block page, by the top-level functions that say it
# (script_words' `unsaid`; tests/unit/test_block_words.py proves each): codec.js's encoders word a note for the
# value they store, which the block view never shows; and codec.js's reader of a bit pattern and of a seed, which
# only its encode() calls, and blocks.js's quantizeList, neither of which the block view imports.
NEVER_SAID = frozenset({"codec.js:encodeFloat", "codec.js:encodeInt", "codec.js:encodeCodebook", "codec.js:parseBits",
                        "codec.js:seedValue", "blocks.js:quantizeList"})


def _page_json(spec: FormatSpec, prefix: str) -> str:
    """The page's data for block_view.js, which quantises edits in the browser: the presets (the normal values and
    how each preset is made of them); the words of the elements' fates (English ids, which the page's markup
    translates) with, on a page in another language, the translations of every sentence the modules it imports can
    say on this page (their refusals, a bar's tooltip: script_words.py, but what NEVER_SAID leaves out); and the
    language's grouping symbol, for the numbers a refusal writes as prose_decimal does (1.000 in Turkish)."""
    limits = {"max_text": MAX_TEXT, "cell": present.CELL, "short": present.SHORT,
              "title": present.TITLE, "full": present.FULL, "chart_height": present.CHART_HEIGHT}
    words = {"short": dict(present.FATE_SHORT), "long": dict(present.FATE_WORDS),
             **(script_words(["block_view.js"], (), NEVER_SAID) or {})}
    presets = {"normal": _normal(spec.block_size), "rules": {p.id: p.rule() for p in PRESETS}}
    group = get_group_symbol(current_language().locale)
    return embedded_json(block_page_data(spec, prefix, presets, limits, words, group))


def _preset(preset: str, size: int) -> list[str]:
    if preset not in _PRESETS:
        raise InputError(gettext("There is no preset %(preset)s; choose one of: %(presets)s.")
                         % {"preset": quoted(preset[:40]), "presets": ", ".join(_PRESETS)})
    return _PRESETS[preset].values(size)


def _lines(entries: list[str]) -> str:
    """A list as the textarea shows it: eight values a line (block_view.js's presetText too)."""
    return "\n".join(", ".join(entries[i : i + 8]) for i in range(0, len(entries), 8))


def _other_link(format_id: str, preset: str | None, typed: str | None, count: int, prefix: str) -> str | None:
    """The same block in another format: the same preset, or the same values where they fit one of its blocks."""
    if typed is None:
        return block_url(format_id, preset=preset, prefix=prefix)
    return block_url(format_id, values=typed, prefix=prefix) if count <= FORMATS[format_id].block_size else None
