"""What the browser's visualiser (static/js/visualiser.js) computes from: the page's format as the codec needs it
(codec_specs.py), the ends of its number line, the layout its links carry and the custom layout it can be changed
in. The markup it fills is the server's (templates/_visualise_*.html); another format's view is the server's too,
fetched when the person switches to it, so a page carries its own format only."""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from app.formats import CUSTOM_ID, SATURATING, FormatSpec
from app.web.platform.script_words import script_words
from app.web.visualise import inputs
from app.web.visualise.codec_specs import codec_spec, embedded_json


def _log2(x: Any) -> float:
    return math.log2(x.numerator) - math.log2(x.denominator)


@lru_cache(maxsize=64)  # the same few formats on every page; custom layouts too
def view_spec(spec: FormatSpec) -> dict[str, Any]:
    """One format as the script needs it: `codec` for codec.js, the log2 of its number line's ends (the smallest
    positive value and max), the layout its links carry, and the custom layout it can be changed in."""
    return {
        "codec": codec_spec(spec),
        "line": {"low": _log2(spec.min_positive), "high": _log2(spec.max)},
        "layout": inputs.layout_of(spec),
        "custom": None if spec.id == CUSTOM_ID else inputs.custom_layout_query(spec),
    }


# the words the script takes from the data rather than writes: the libraries a codec's note names
_DATA_WORDS = tuple(str(libraries) for libraries in SATURATING.values())


def visualiser_data(spec: FormatSpec, typed: str, from_bits: bool, prefix: str) -> str:
    """The page's JSON block: its format, and the text it shows (a value, or the pattern of `bits=`), for
    <script type="application/json" data-visualiser-data>; on a page in another language, the words its script
    says (script_words.py)."""
    return embedded_json({"format": spec.id, "spec": view_spec(spec), "typed": typed, "bits": from_bits,
                          "prefix": prefix, "words": script_words(["visualiser.js"], _DATA_WORDS)})
