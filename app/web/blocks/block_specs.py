"""What the browser's block quantiser (static/js/blocks.js) and the block visualiser's script (block_view.js) work
from: every block format's facts, taken from the registry and the core, so that none is typed twice; and the
block page's own data (its format, its presets as blocks/pages.py makes them, the words and limits it shows)."""

from __future__ import annotations

from typing import Any

from app.formats import BLOCK_FORMAT_IDS, FORMATS, FormatSpec, element_emax, scale_rule
from app.web.visualise.codec_specs import codec_spec
from app.web.visualise.present import layout_roles

_FLOAT32 = FORMATS["float32"]


def block_spec(format_id: str) -> dict[str, Any]:
    """Everything blocks.js needs of one block format: its rule, block size, element and scale formats (as codec.js
    reads them), NVFP4's FP32 tensor scale, the element's implicit scale and OCP MX's emax, and the bit fields of
    the element and the scale, for their cells."""
    spec = FORMATS[format_id]
    rule = scale_rule(spec)
    element = spec.element or spec  # NF4 is a codebook scaled by its FP32 absmax
    scale = _FLOAT32 if rule == "absmax" else spec.scale
    assert scale is not None, "a block format has a scale format"
    return {
        "id": spec.id,
        "name": spec.name,
        "rule": rule,
        "block_size": spec.block_size,
        "element": codec_spec(element),
        "scale": codec_spec(scale),
        "element_scale_exp": spec.element_scale_exp,
        "element_emax": element_emax(spec),
        "element_roles": layout_roles(element),
        "scale_roles": layout_roles(scale),
        "tensor": float32_spec() if rule == "nvfp4" else None,  # NVFP4's second level, over the whole tensor
    }


def block_specs() -> list[dict[str, Any]]:
    """Every block format's specification, in BLOCK_FORMAT_IDS's order (the side-by-side table's)."""
    return [block_spec(format_id) for format_id in BLOCK_FORMAT_IDS]


def float32_spec() -> dict[str, Any]:
    """FP32, which every input is rounded to first, with its bit fields."""
    return {**codec_spec(_FLOAT32), "roles": layout_roles(_FLOAT32)}


def compact_block_specs() -> dict[str, Any]:
    """block_specs() with each scalar format sent once (FP32 is three of them, E2M1 two): the block formats name
    theirs by id in `scalars`, which holds each with its bit fields; blocks.js's blockFormats() puts them back."""
    scalars: dict[str, dict[str, Any]] = {"float32": float32_spec()}
    formats = []
    for spec in block_specs():
        for part, roles in (("element", "element_roles"), ("scale", "scale_roles")):
            scalars.setdefault(spec[part]["id"], {**spec[part], "roles": spec[roles]})
        formats.append({key: value for key, value in spec.items() if key not in ("element_roles", "scale_roles")}
                       | {"element": spec["element"]["id"], "scale": spec["scale"]["id"],
                          "tensor": None if spec["tensor"] is None else "float32"})
    return {"formats": formats, "scalars": scalars}


def block_page_data(spec: FormatSpec, prefix: str, presets: dict[str, Any], limits: dict[str, int],
                    words: dict[str, Any], group: str = ",") -> dict[str, Any]:
    """The JSON block of one block page: its format, the specifications, the presets (the normal values, and how
    each preset is made of them: pages.Preset), the limits of the box and of the shown values, the words for
    what became of each element (and, in another language, the translations of the script's words), and the
    grouping symbol of the page's numbers."""
    return {
        "format": spec.id,
        "prefix": prefix,
        "blocks": compact_block_specs(),
        "presets": presets,
        "limits": limits,
        "words": words,
        "group": group,
    }
