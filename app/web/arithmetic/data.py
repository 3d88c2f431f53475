"""The JSON that /arithmetic's script (static/js/arithmetic.js) works from: every scalar format's specification
(codec_specs) with the roles of its bits, a custom layout's where the page has one, and on a page in another
language the words the scripts say (script_words.py): the page's own words are in its markup."""

from __future__ import annotations

from app.formats import CUSTOM_ID, SCALAR_FORMATS, FormatSpec
from app.web.platform.script_words import script_words
from app.web.visualise.codec_specs import codec_spec, embedded_json
from app.web.visualise.inputs import custom_layout_query
from app.web.visualise.present import layout_roles


def _spec(spec: FormatSpec) -> dict[str, object]:
    return codec_spec(spec) | {"roles": layout_roles(spec)}


def arithmetic_data(prefix: str, spec: FormatSpec) -> str:
    """The page's <script type="application/json"> block; `spec` the operands' format (a custom one carried)."""
    custom = spec.id == CUSTOM_ID
    return embedded_json({
        "specs": [_spec(s) for s in SCALAR_FORMATS] + ([_spec(spec)] if custom else []),
        "layout": list(custom_layout_query(spec) or ()) if custom else [],
        "prefix": prefix, "words": script_words(["arithmetic.js"]),
    })
