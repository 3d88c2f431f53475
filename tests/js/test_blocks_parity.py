"""The browser's block quantiser (static/js/blocks.js), run in Node, held to the Python core, the reference: random
blocks of every block format (magnitudes over the whole FP32 range, outliers, zeros and -0, NaN and ±inf, values near
E8M0's floor and FP32's subnormals, exact ties of the element formats, short and several blocks long) and every preset
give the same scale bits, element codes, dequantised values, exact errors, fates, MSE and max error; the block page's
view of a block (blocks.present.block_view: every shown string, the chart's bars, how the scale was chosen) and its
side-by-side of every block format are the same strings; and the values box is read as blocks/pages.py reads it, the
refusals word for word.

One Node process (tests/js/blocks_harness.mjs) answers the whole module, each batch worked out while Python works
out its reference; a difference names its case and field. The random blocks come from a fixed seed and one derived
from the format's id (its CRC-32).
"""

from __future__ import annotations

import json
import random
import struct
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.formats import BLOCK_FORMAT_IDS, FORMATS
from app.web.blocks import present as block_present
from app.web.blocks.block_specs import compact_block_specs
from app.web.blocks.pages import MAX_TEXT
from app.web.blocks.present import FATE_SHORT, FATE_WORDS
from tests.helpers.blocks_reference import others, preset_vectors, quantised, random_vectors, read, typed_lists, viewed
from tests.helpers.node import Harness, harness
from tests.helpers.parity import assert_same

FIXED_SEED = 20250611
BLOCKS = 150  # random vectors per format and seed, quantised and detailed
VIEWS = 12  # of them, one block each, also compared as the page shows them (block_view is slow in Python)
SIDE_BY_SIDE = 4  # and as the side-by-side table shows them
LIMITS = {"title": block_present.TITLE, "cell": block_present.CELL, "short": block_present.SHORT,
          "full": block_present.FULL, "chart_height": block_present.CHART_HEIGHT, "max_text": MAX_TEXT}
QUANTISED = ["format", "block_size", "tensor_scale", "blocks", "errors", "fates", "mse", "max_error", "zeroed",
             "largest"]
VIEWED = ["rows", "bars", "absmax", "absmax_short", "mse", "max_error", "zeroed", "nonzero", "saturated", "nan_block",
          "nonfinite", "scales", "rule", "mx", "element_emax", "tensor_quotient", "tensor_scale", "block_quotient",
          "block_scale", "saturated", "step", "threshold"]


@pytest.fixture(scope="module")
def node() -> Iterator[Harness]:
    """blocks.js in one Node process, with every block format's specification and the page's limits and words."""
    with harness(Path(__file__).with_name("blocks_harness.mjs")) as running:
        running.call("setup", compact_block_specs(), LIMITS, {"short": FATE_SHORT, "long": FATE_WORDS})
        yield running


def compared(node: Harness, call: str, cases: list[Any], reference: Callable[[], list[str]],
             fields: list[str]) -> None:
    """Node's strings of `call` on these cases against the reference's, worked out meanwhile."""
    node.send(call, cases)
    ours = reference()
    assert_same([json.dumps(case)[:300] for case in cases], ours, node.receive(), fields)


def _cases(format_id: str, vectors: list[list[float]]) -> list[Any]:
    return [[format_id, [struct.pack(">d", v).hex() for v in vector]] for vector in vectors]


def _seeds() -> list[Any]:
    return [pytest.param(f, seed, id=f"{f}-seed{seed}")
            for f in BLOCK_FORMAT_IDS for seed in (FIXED_SEED, zlib.crc32(f.encode()))]


@pytest.mark.parametrize(("format_id", "seed"), _seeds())
def test_random_blocks_quantise_as_in_python(node: Harness, format_id: str, seed: int) -> None:
    vectors = random_vectors(format_id, seed, BLOCKS) + preset_vectors(format_id)
    compared(node, "quantise", _cases(format_id, vectors), lambda: [quantised(v, format_id) for v in vectors],
             QUANTISED)


@pytest.mark.parametrize(("format_id", "seed"), _seeds())
def test_a_block_shows_as_the_page_shows_it(node: Harness, format_id: str, seed: int) -> None:
    """One block as block_view shows it: the presets, and random blocks that fit one block."""
    size = FORMATS[format_id].block_size
    fitting = [v for v in random_vectors(format_id, seed, 4 * VIEWS) if len(v) <= size][:VIEWS]
    vectors = fitting + (preset_vectors(format_id) if seed == FIXED_SEED else [])
    compared(node, "view", _cases(format_id, vectors), lambda: [viewed(v, format_id) for v in vectors], VIEWED)


@pytest.mark.parametrize("format_id", BLOCK_FORMAT_IDS)
def test_the_side_by_side_is_as_in_python(node: Harness, format_id: str) -> None:
    vectors = preset_vectors(format_id) + random_vectors(format_id, FIXED_SEED + 1, SIDE_BY_SIDE)
    compared(node, "side", _cases(format_id, vectors), lambda: [others(v, format_id) for v in vectors], ["table"])


def test_the_values_box_is_read_as_in_python(node: Harness) -> None:
    cases = typed_lists(random.Random(FIXED_SEED))
    compared(node, "read", [list(c) for c in cases], lambda: [read(text, size) for text, size in cases],
             ["outcome", "values", "changed"])
