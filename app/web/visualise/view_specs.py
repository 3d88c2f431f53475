"""What the browser's visualiser (static/js/visualiser.js) renders from: for the page's format and every format its
pills switch to, the codec's specification (codec_specs.py) and the presentation that does not depend on the value,
worked out here by the same helpers the template uses, so that the script computes only what the value changes."""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from app.formats import CUSTOM_ID, SATURATING, FormatSpec, decode
from app.web.platform.refusals import core_text
from app.web.platform.script_words import script_words
from app.web.visualise import inputs
from app.web.visualise.block_page import block_url
from app.web.visualise.codebook_line import level_line
from app.web.visualise.codec_specs import codec_spec, embedded_json
from app.web.visualise.present import Mark, layout_roles, number_line


def _log2(x: Any) -> float:
    return math.log2(x.numerator) - math.log2(x.denominator)


# The constants the marks stand at, by label: the script shows them from the codec's own exact constants, so
# that binary128's (thousands of digits each) are not sent twice
_CONSTANTS = {"min subnormal": "min_subnormal", "min normal": "min_normal", "max": "max",
              "min positive": "min_positive", "1": "one"}


def _mark(mark: Mark) -> dict[str, Any]:
    """A fixed mark of the number line: x as the template prints it (str of a float), its value by name."""
    out: dict[str, Any] = {"label": mark.label, "x": str(mark.x), "row": mark.row, "anchor": mark.anchor}
    if mark.label in _CONSTANTS:
        return out | {"of": _CONSTANTS[mark.label]}
    return out | {"text": mark.value.text, "full": mark.value.full}


def _levels(spec: FormatSpec) -> list[dict[str, Any]] | None:
    """A codebook's levels on their line (codebook_line.py): code, value, x as the template prints it, row."""
    if spec.kind != "codebook":
        return None
    return [{"code": level.code, "text": level.value.text, "full": level.value.full, "x": str(level.x),
             "row": level.row} for level in level_line(decode(spec, 0)).levels]


@lru_cache(maxsize=64)  # the same few formats on every page; custom layouts too
def view_spec(spec: FormatSpec) -> dict[str, Any]:
    """One format as the script needs it: `codec` for codec.js, the legend's fields, the number line's fixed marks
    (x as the template prints it) and ends, a codebook's levels, its block page (under no prefix), the layout its
    links carry, and the custom layout it can be changed in."""
    line = number_line(decode(spec, 0))  # the marks do not depend on the pattern
    return {
        "codec": codec_spec(spec),
        "summary": spec.summary,
        "fields": layout_roles(spec),
        "line": {
            "low": _log2(spec.min_positive),
            "high": _log2(spec.max),
            "marks": [_mark(m) for m in line.marks],
        },
        "levels": _levels(spec),
        "block": None if not spec.block_size else {
            "href": block_url(spec.id), "size": spec.block_size, "name": spec.name.split(" (")[0]},
        "layout": inputs.layout_of(spec),
        "custom": None if spec.id == CUSTOM_ID else inputs.custom_layout_query(spec),
    }


def visualiser_data(
    spec: FormatSpec, others: list[FormatSpec], typed: str, from_bits: bool, prefix: str
) -> str:
    """The page's JSON block: its format, the formats of its pills, and the text it shows (a value, or the pattern
    of `bits=`), for <script type="application/json" data-visualiser-data>; on a page in another language, the
    words its script says (script_words.py)."""
    formats = {other.id: _in_language(other) for other in others if other.kind != "block"}
    formats[spec.id] = _in_language(spec)
    return embedded_json({"format": spec.id, "formats": formats, "typed": typed, "bits": from_bits,
                          "prefix": prefix, "words": script_words(["visualiser.js"], _DATA_WORDS)})


# the words the script takes from the data rather than writes: the marks' labels, the libraries a note names
_DATA_WORDS = (*_CONSTANTS, *(str(libraries) for libraries in SATURATING.values()))


def _in_language(spec: FormatSpec) -> dict[str, Any]:
    """view_spec with its summary in the page's language."""
    return view_spec(spec) | {"summary": core_text(spec.summary)}
