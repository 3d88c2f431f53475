"""The JSON that /compare's script (static/js/compare.js) works from: every scalar format's specification
(codec_specs), every block format's (block_specs) with its element, scale and tensor formats named by id rather
than repeated, FP32's, and on a page in another language the words the codec says (its refusals and notes), in it
(script_words.py): the page's own words are in its markup."""

from __future__ import annotations

from typing import Any

from app.formats import SATURATING
from app.web.blocks.block_specs import block_specs, float32_spec
from app.web.platform.script_words import script_words
from app.web.visualise.codec_specs import codec_specs, embedded_json


def _pack_block(spec: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A block format's specification with its element and scale formats (those of codec_specs) by id."""
    refs = {name: spec[name]["id"] for name in ("element", "scale")}
    assert all(spec[name] == by_id[refs[name]] for name in refs), "block_specs repeats codec_specs' formats"
    return spec | refs | {"tensor": None if spec["tensor"] is None else "float32"}


# the words the script takes from the data rather than writes: the libraries an overflow note of the codec names
_DATA_WORDS = tuple(str(libraries) for libraries in SATURATING.values())


def compare_data(prefix: str) -> str:
    """The page's <script type="application/json"> block."""
    scalar = codec_specs()
    by_id = {spec["id"]: spec for spec in scalar}
    return embedded_json({
        "specs": scalar,
        "blocks": [_pack_block(spec, by_id) for spec in block_specs()],
        "float32": float32_spec(),
        "prefix": prefix, "words": script_words(["compare.js"], _DATA_WORDS),
    })
