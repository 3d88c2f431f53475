"""The browser's block quantiser (static/js/blocks.js) held to the Python core, the reference: random blocks of every
block format (magnitudes over the whole FP32 range, outliers, zeros and -0, NaN and ±inf, values near E8M0's floor
and FP32's subnormals, exact ties of the element formats, short and several blocks long) and every preset give the
same scale bits, element codes, dequantised values, exact errors, fates, MSE and max error; the block page's view
of a block (block_present.block_view: every shown string, the chart's bars, how the scale was chosen) and its
side-by-side of every block format are the same strings; and the values box is read as block_page.py reads it, the
refusals word for word.

Each case is one string of fields on both sides, worked out in one page.evaluate per batch; a difference names its
case and field. The random blocks come from a fixed seed and one derived from the format's id (its CRC-32).
"""

from __future__ import annotations

import json
import math
import random
import struct
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import Page

from app.formats import BLOCK_FORMAT_IDS, FORMATS, InputError, quantize_blocks, summarise
from app.formats.block_detail import exact_error, fates
from app.web.visualise import block_present
from app.web.visualise.block_page import MAX_TEXT, PRESETS, _entries, fp32_values
from app.web.visualise.block_present import FATE_SHORT, FATE_WORDS, Shown, block_view, side_by_side
from app.web.visualise.block_specs import compact_block_specs

FIXED_SEED = 20250611
BLOCKS = 150  # random vectors per format and seed, quantised and detailed
VIEWS = 12  # of them, one block each, also compared as the page shows them (block_view is slow in Python)
SIDE_BY_SIDE = 4  # and as the side-by-side table shows them
SEP = "\x1f"
FP32_MAX = float(FORMATS["float32"].max)
LIMITS = {"title": block_present.TITLE, "cell": block_present.CELL, "short": block_present.SHORT,
          "full": block_present.FULL, "chart_height": block_present.CHART_HEIGHT, "max_text": MAX_TEXT}

HARNESS = """async ([json, limits, words]) => {
  const blocks = await import("/static/js/blocks.js");
  const codec = await import("/static/js/codec.js");
  const { formats: specs, float32 } = blocks.blockFormats(json);
  const byId = Object.fromEntries(specs.map((s) => [s.id, s]));
  const double = (hex) => {
    const view = new DataView(new ArrayBuffer(8));
    view.setBigUint64(0, BigInt("0x" + hex));
    return view.getFloat64(0);
  };
  const hex = (x) => {
    if (Number.isNaN(x)) return "nan";
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, x);
    return view.getBigUint64(0).toString(16).padStart(16, "0");
  };
  const exact = (x) => (x === null ? "None" : x.num + "/" + x.den);  // exact rationals, compared as such
  const s = (v) => (v === null ? "None" : v.text + "~" + v.full);
  const pyFloat = (x) => (Number.isInteger(x) ? x + ".0" : String(x));
  const quantised = (r) => [r.format, r.block_size, r.tensor_scale === null ? "None" : hex(r.tensor_scale),
    r.blocks.map((b) => [b.scale_bits, hex(b.scale), b.codes.join(","), b.values.map(hex).join(",")].join(";"))
      .join("|"),
    r.errors.map(exact).join(","), r.fates.join(","), exact(r.mse), exact(r.max_error), r.zeroed,
    r.largest === null ? "None" : r.largest].join("\\x1f");
  const groups = (gs) => gs.map((g) => g.role + ":" + g.cells).join(" ");
  const viewed = (r, spec) => {
    const v = blocks.explainBlock(r, spec, { prefix: "", limits });
    const c = v.choice, m = c.mx;
    return [
      v.rows.map((row) => [row.index, s(row.input), row.hex, groups(row.groups), s(row.stored), s(row.error),
        row.fate, row.href].join(";")).join("|"),
      v.bars.map((b) => [pyFloat(b.x), pyFloat(b.width), pyFloat(b.height), b.fate, b.label].join(";")).join("|"),
      s(v.absmax), s(v.absmaxShort), s(v.mse), s(v.maxError), v.zeroed, v.nonzero, v.saturated, v.nanBlock,
      v.nonfinite, v.scales.map((x) => [x.hex, groups(x.groups), s(x.value), s(x.short), x.href].join(";")).join("|"),
      c.rule, m ? [m.floorLog2, m.elementEmax, m.unclamped, m.shared, m.clamped].join(";") : "None",
      c.elementEmax ?? "None", s(c.tensorQuotient ?? null), s(c.tensorScale ?? null), s(c.blockQuotient ?? null),
      s(c.blockScale ?? null), c.saturated ?? false, s(c.step), s(v.threshold),
    ].join("\\x1f");
  };
  const others = (values, current) => blocks.sideBySide(values, specs, current,
    { prefix: "", limits, words, links: () => null }).map((o) => [o.id, o.current, o.scales.map(s).join(","),
      s(o.tensorScale), s(o.mse), s(o.maxError), o.zeroed,
      o.largest ? o.largest.map((x, i) => (i < 2 ? s(x) : x)).join(",") : "None"].join(";")).join("|");
  window.harness = {
    quantise: (cases) => cases.map(([id, values]) => quantised(blocks.quantize(values.map(double), byId[id]))),
    view: (cases) => cases.map(([id, values]) => viewed(blocks.quantize(values.map(double), byId[id]), byId[id])),
    others: (cases) => cases.map(([id, values]) => others(values.map(double), id)),
    read: (cases) => cases.map(([text, size]) => {
      try {
        const read = blocks.readList(text, size, float32, limits.max_text);
        return ["ok", read.values.map(hex).join(","), read.changed].join("\\x1f");
      } catch (error) {
        if (!(error instanceof codec.InputError)) throw error;
        return "refused\\x1f" + error.message;
      }
    }),
  };
}"""


@pytest.fixture(scope="module")
def blocks_page(browser: Any, server_url: str) -> Any:
    """One page of the test server with blocks.js loaded and every block format's specification."""
    context = browser.new_context(base_url=server_url)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto("/visualise/mxfp4")
    page.evaluate(HARNESS, [compact_block_specs(), LIMITS, {"short": FATE_SHORT, "long": FATE_WORDS}])
    yield page
    context.close()
    assert not errors, errors


# -- the reference ----------------------------------------------------------------------------------------------


def _hex(x: float) -> str:
    return "nan" if math.isnan(x) else struct.pack(">d", x).hex()


def _exact(x: Fraction | None) -> str:
    return "None" if x is None else f"{x.numerator}/{x.denominator}"


def _s(v: Shown | None) -> str:
    return "None" if v is None else f"{v.text}~{v.full}"


def quantised(values: list[float], format_id: str) -> str:
    r = quantize_blocks(values, format_id)
    summary = summarise(r)
    errors = [exact_error(s, v) for s, v in zip(r.dequantized.tolist(), r.inputs.tolist(), strict=True)]
    return SEP.join(map(str, [
        r.format, r.block_size, "None" if r.tensor_scale is None else _hex(r.tensor_scale),
        "|".join(";".join([str(b.scale_bits), _hex(b.scale), ",".join(map(str, b.codes)),
                           ",".join(map(_hex, b.values))]) for b in r.blocks),
        ",".join(map(_exact, errors)), ",".join(fates(r)), _exact(summary.mse), _exact(summary.max_error),
        summary.zeroed, summary.largest,
    ]))


def _groups(groups: Any) -> str:
    return " ".join(g.role + ":" + "".join(str(c.value) for c in g.cells) for g in groups)


def viewed(values: list[float], format_id: str) -> str:
    v = block_view(quantize_blocks(values, format_id), "")
    c, m = v["choice"], v["choice"].mx
    return SEP.join(map(str, [
        "|".join(";".join(map(str, [row.index, _s(row.input), row.hex, _groups(row.groups), _s(row.stored),
                                    _s(row.error), row.fate, row.href])) for row in v["rows"]),
        "|".join(";".join(map(str, [b.x, b.width, b.height, b.fate, b.label])) for b in v["bars"]),
        _s(v["absmax"]), _s(v["absmax_short"]), _s(v["mse"]), _s(v["max_error"]), v["zeroed"], v["nonzero"],
        v["saturated"], str(v["nan_block"]).lower(), v["nonfinite"],
        "|".join(";".join([x.hex, _groups(x.groups), _s(x.value), _s(x.short), x.href]) for x in v["scales"]),
        c.rule, ";".join(map(str, [m.floor_log2, m.element_emax, m.unclamped, m.shared, str(m.clamped).lower()]))
        if m else "None", c.element_emax, _s(c.tensor_quotient), _s(c.tensor_scale), _s(c.block_quotient),
        _s(c.block_scale), str(c.saturated).lower(), _s(c.step), _s(v["threshold"]),
    ]))


def others(values: list[float], format_id: str) -> str:
    rows = side_by_side(values, format_id, {})
    return "|".join(";".join(map(str, [
        o.spec.id, str(o.current).lower(), ",".join(map(_s, o.scales)), _s(o.tensor_scale), _s(o.mse),
        _s(o.max_error), o.zeroed,
        ",".join([_s(o.largest[0]), _s(o.largest[1]), o.largest[2]]) if o.largest else "None",
    ])) for o in rows)


def read(text: str, size: int) -> str:
    try:
        values, changed = fp32_values(_entries(text, size))
    except InputError as refusal:
        return "refused" + SEP + str(refusal)
    return SEP.join(["ok", ",".join(map(_hex, values)), str(changed)])


def assert_same(call: str, page: Page, cases: list[Any], reference: Callable[[], list[str]], names: list[str]) -> None:
    """The harness's strings of `call` against the reference's, worked out in a thread meanwhile, so that the page
    and Python take one core each."""
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(reference)
        theirs = page.evaluate(f"(cases) => harness.{call}(JSON.parse(cases))", json.dumps(cases))
        reference_strings = pending.result()
    differences = []
    for case, ours, js in zip(cases, reference_strings, theirs, strict=True):
        if ours != js:
            a, b = ours.split(SEP), js.split(SEP)
            fields = [f"  {name}: python {x!r}\n  {' ' * len(name)}  js     {y!r}"
                      for name, x, y in zip(names, a, b, strict=False) if x != y] or [f"  python {a!r}\n  js {b!r}"]
            differences.append(f"{str(case)[:300]}:\n" + "\n".join(f[:1500] for f in fields))
    assert not differences, f"{len(differences)} of {len(cases)} cases differ, the first:\n" + "\n".join(
        differences[:5])


# -- the blocks ----------------------------------------------------------------------------------------------------


def _fp32(x: float) -> float:
    """x rounded to FP32; beyond its range, ±max (a list cannot hold more)."""
    return float(np.float32(max(min(x, FP32_MAX), -FP32_MAX)))


def _tie(rng: random.Random, spec_id: str) -> float:
    """A multiple of a fine power of two: quotients that land on the element format's midpoints exactly."""
    return rng.randrange(-96, 97) * 2.0 ** rng.choice((-4, -3, -2, -1, 0, 3, -40, -130))


def _value(rng: random.Random, kind: str, spec_id: str) -> float:
    if kind == "wide":  # any magnitude FP32 holds, subnormals included
        return _fp32(rng.choice((-1, 1)) * rng.uniform(1, 2) * 2.0 ** rng.randrange(-149, 128))
    if kind == "normal":
        return _fp32(rng.gauss(0, 1) * 2.0 ** rng.choice((0, 0, -8, 10)))
    if kind == "floor":  # around E8M0's 2^-127 and below, into FP32's subnormals
        return _fp32(rng.choice((-1, 1)) * rng.uniform(0, 4) * 2.0 ** rng.randrange(-150, -118))
    return _tie(rng, spec_id)


def random_vectors(spec_id: str, seed: int, count: int) -> list[list[float]]:
    rng, size = random.Random(seed), FORMATS[spec_id].block_size
    vectors = []
    for n in range(count):
        kind = ("wide", "normal", "floor", "tie")[n % 4]
        length = size if rng.random() < 0.6 else rng.randrange(1, 3 * size + 1)
        values = [_value(rng, kind, spec_id) for _ in range(length)]
        if rng.random() < 0.3:  # an outlier
            values[rng.randrange(length)] = _fp32(rng.choice((-1, 1)) * rng.uniform(20, 1e4) * max(map(abs, values)))
        for _ in range(rng.choice((0, 0, 1, 4))):  # zeros and negative zeros
            values[rng.randrange(length)] = rng.choice((0.0, -0.0))
        if rng.random() < 0.15:  # NaN or ±inf, in one block
            values[rng.randrange(length)] = rng.choice((math.nan, math.inf, -math.inf))
        if rng.random() < 0.05:
            values = [rng.choice((0.0, -0.0)) for _ in values]
        vectors.append(values)
    return vectors


def preset_vectors(spec_id: str) -> list[list[float]]:
    size = FORMATS[spec_id].block_size
    return [fp32_values(p.values(size))[0] for p in PRESETS]


def _cases(spec_id: str, vectors: list[list[float]]) -> list[Any]:
    return [[spec_id, [struct.pack(">d", v).hex() for v in vector]] for vector in vectors]


QUANTISED = ["format", "block_size", "tensor_scale", "blocks", "errors", "fates", "mse", "max_error", "zeroed",
             "largest"]
VIEWED = ["rows", "bars", "absmax", "absmax_short", "mse", "max_error", "zeroed", "nonzero", "saturated", "nan_block",
          "nonfinite", "scales", "rule", "mx", "element_emax", "tensor_quotient", "tensor_scale", "block_quotient",
          "block_scale", "saturated", "step", "threshold"]


def _seeds() -> list[Any]:
    return [pytest.param(f, seed, id=f"{f}-seed{seed}")
            for f in BLOCK_FORMAT_IDS for seed in (FIXED_SEED, zlib.crc32(f.encode()))]


@pytest.mark.parametrize(("format_id", "seed"), _seeds())
def test_random_blocks_quantise_as_in_python(blocks_page: Page, format_id: str, seed: int) -> None:
    vectors = random_vectors(format_id, seed, BLOCKS) + preset_vectors(format_id)
    assert_same("quantise", blocks_page, _cases(format_id, vectors), lambda: [quantised(v, format_id) for v in vectors],
                QUANTISED)


@pytest.mark.parametrize(("format_id", "seed"), _seeds())
def test_a_block_shows_as_the_page_shows_it(blocks_page: Page, format_id: str, seed: int) -> None:
    """One block as block_view shows it: the presets, and random blocks that fit one block."""
    size = FORMATS[format_id].block_size
    fitting = [v for v in random_vectors(format_id, seed, 4 * VIEWS) if len(v) <= size][:VIEWS]
    vectors = fitting + (preset_vectors(format_id) if seed == FIXED_SEED else [])
    assert_same("view", blocks_page, _cases(format_id, vectors), lambda: [viewed(v, format_id) for v in vectors],
                VIEWED)


@pytest.mark.parametrize("format_id", BLOCK_FORMAT_IDS)
def test_the_side_by_side_is_as_in_python(blocks_page: Page, format_id: str) -> None:
    vectors = preset_vectors(format_id) + random_vectors(format_id, FIXED_SEED + 1, SIDE_BY_SIDE)
    assert_same("others", blocks_page, _cases(format_id, vectors), lambda: [others(v, format_id) for v in vectors],
                ["table"])


def _texts(rng: random.Random) -> list[tuple[str, int]]:
    """Lists as a person types them: separators of every kind Python's \\s takes, FP32 ties and overflows, specials,
    fractions and hex floats, and each refusal."""
    spaces = [" ", ",", ", ", ";", "\n", "\t", "\x1c", "\x85", "\xa0", "\u2003", "\u3000", "\ufeff", ",,"]
    pieces = ["0.1", "-2.5e-3", "1/3", "0x1.8p-3", "inf", "-inf", "nan", "-0", "\u22121.5", "1e-45", "7e-46",
              "3.4028235e38", "3.4028236e38", "3.5e38", "1.00000005960464477539", "16777217", "zebra", "0x3c00",
              "1/0", "1e999999", "", "+.5", "2.", ".e1"]
    cases = [("", 32), ("   ", 32), (", ".join(["1"] * 33), 32), ("1 " * 2001, 32), ("1" * 4000, 64)]
    for _ in range(400):
        count = rng.randrange(1, 20)
        parts = [rng.choice(pieces) if rng.random() < 0.5
                 else repr(_fp32(rng.gauss(0, 10) * 10.0 ** rng.randrange(-40, 38))) for _ in range(count)]
        text = "".join(p + rng.choice(spaces) for p in parts)
        cases.append((text if rng.random() < 0.7 else rng.choice(spaces) + text, rng.choice((16, 32, 64))))
    return cases


def test_the_values_box_is_read_as_in_python(blocks_page: Page) -> None:
    cases = _texts(random.Random(FIXED_SEED))
    assert_same("read", blocks_page, [list(c) for c in cases], lambda: [read(text, size) for text, size in cases],
                ["outcome", "values", "changed"])
