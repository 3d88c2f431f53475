"""The block formats' specifications that blocks.js works from (block_specs.py): taken from the registry, each
scalar format sent once in the compact form the block page embeds, and the page's JSON block readable."""

from __future__ import annotations

import json
import re

from app.formats import BLOCK_FORMAT_IDS, FORMATS, element_emax
from app.web.blocks.block_specs import block_specs, compact_block_specs, float32_spec
from app.web.blocks.pages import PRESETS
from app.web.visualise.codec_specs import codec_spec


def test_every_block_format_is_specified_from_the_registry():
    specs = block_specs()
    assert [s["id"] for s in specs] == list(BLOCK_FORMAT_IDS)
    for s in specs:
        spec = FORMATS[s["id"]]
        assert s["block_size"] == spec.block_size and s["element_emax"] == element_emax(spec)
        assert s["element"] == codec_spec(spec.element or spec)
        assert (s["tensor"] is not None) == (s["rule"] == "nvfp4")
    assert {s["rule"] for s in specs} == {"mx", "nvfp4", "absmax"}


def test_the_compact_form_names_each_scalar_format_once_and_loses_nothing():
    compact, full = compact_block_specs(), block_specs()
    scalars = compact["scalars"]
    assert scalars["float32"] == float32_spec()
    for short, spec in zip(compact["formats"], full, strict=True):
        element, scale = scalars[short["element"]], scalars[short["scale"]]
        assert {k: v for k, v in element.items() if k != "roles"} == spec["element"]
        assert element["roles"] == spec["element_roles"] and scale["roles"] == spec["scale_roles"]
        assert {k: v for k, v in scale.items() if k != "roles"} == spec["scale"]
        assert (scalars[short["tensor"]] if short["tensor"] else None) == spec["tensor"]
    assert len(json.dumps(compact)) < len(json.dumps(full)) * 0.7


def test_the_block_page_embeds_its_presets_and_specifications(client):
    html = client.get("/visualise/nvfp4").text
    data = json.loads(re.search(r'<script type="application/json" data-block-data>(.*?)</script>', html, re.S)[1])
    assert data["format"] == "nvfp4" and data["blocks"] == json.loads(json.dumps(compact_block_specs()))
    # the presets as blocks/pages.py's PRESETS make them: the normal values, and each preset's rule (block_view.js makes
    # each preset's text of them; tests/browser/test_block_instant.py holds it to the server's box)
    assert data["presets"]["normal"] == PRESETS[0].values(16)
    assert data["presets"]["rules"]["outlier"] == {"at": 5, "text": "40"}
    assert data["presets"]["rules"]["floor"] == {"suffix": "e-39"} and data["presets"]["rules"]["normal"] == {}
    assert set(data["words"]["short"]) == {"kept", "saturated", "zeroed", "nan"}
