"""The Python core's block quantisation and the block page's view of it, the reference that the browser's block
quantiser (static/js/blocks.js) is held to: each case one string of fields (tests/helpers/parity.py), as
tests/js/blocks_harness.mjs writes the JavaScript's; and the blocks and typed lists the tests draw."""

from __future__ import annotations

import math
import random
import struct
from fractions import Fraction
from typing import Any

import numpy as np

from app.formats import FORMATS, InputError, quantize_blocks, summarise
from app.formats.block_detail import exact_error, fates
from app.web.blocks.pages import PRESETS, _entries, fp32_values
from app.web.blocks.present import Shown, block_view, side_by_side
from tests.helpers.parity import SEP

FP32_MAX = float(FORMATS["float32"].max)


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
    c, m = v.choice, v.choice.mx
    return SEP.join(map(str, [
        "|".join(";".join(map(str, [row.index, _s(row.input), row.hex, _groups(row.groups), _s(row.stored),
                                    _s(row.error), row.fate, row.href])) for row in v.rows),
        "|".join(";".join(map(str, [b.x, b.width, b.height, b.fate, b.label])) for b in v.bars),
        _s(v.absmax), _s(v.absmax_short), _s(v.mse), _s(v.max_error), v.zeroed, v.nonzero,
        v.saturated, str(v.nan_block).lower(), v.nonfinite,
        "|".join(";".join([x.hex, _groups(x.groups), _s(x.value), _s(x.short), x.href]) for x in v.scales),
        c.rule, ";".join(map(str, [m.floor_log2, m.element_emax, m.unclamped, m.shared, str(m.clamped).lower()]))
        if m else "None", c.element_emax, _s(c.tensor_quotient), _s(c.tensor_scale), _s(c.block_quotient),
        _s(c.block_scale), str(c.saturated).lower(), _s(c.step), _s(v.threshold),
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


# -- what the tests draw --------------------------------------------------------------------------------------------


def _fp32(x: float) -> float:
    """x rounded to FP32; beyond its range, ±max (a list cannot hold more)."""
    return float(np.float32(max(min(x, FP32_MAX), -FP32_MAX)))


def _value(rng: random.Random, kind: str) -> float:
    if kind == "wide":  # any magnitude FP32 holds, subnormals included
        return _fp32(rng.choice((-1, 1)) * rng.uniform(1, 2) * 2.0 ** rng.randrange(-149, 128))
    if kind == "normal":
        return _fp32(rng.gauss(0, 1) * 2.0 ** rng.choice((0, 0, -8, 10)))
    if kind == "floor":  # around E8M0's 2^-127 and below, into FP32's subnormals
        return _fp32(rng.choice((-1, 1)) * rng.uniform(0, 4) * 2.0 ** rng.randrange(-150, -118))
    # a multiple of a fine power of two: quotients that land on the element format's midpoints exactly
    return rng.randrange(-96, 97) * 2.0 ** rng.choice((-4, -3, -2, -1, 0, 3, -40, -130))


def random_vectors(format_id: str, seed: int, count: int) -> list[list[float]]:
    rng, size = random.Random(seed), FORMATS[format_id].block_size
    vectors = []
    for n in range(count):
        kind = ("wide", "normal", "floor", "tie")[n % 4]
        length = size if rng.random() < 0.6 else rng.randrange(1, 3 * size + 1)
        values = [_value(rng, kind) for _ in range(length)]
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


def preset_vectors(format_id: str) -> list[list[float]]:
    size = FORMATS[format_id].block_size
    return [fp32_values(p.values(size))[0] for p in PRESETS]


def typed_lists(rng: random.Random) -> list[tuple[str, int]]:
    """Lists as a person types them, with a block size: separators of every kind Python's \\s takes, FP32 ties and
    overflows, specials, fractions and hex floats, and each refusal."""
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
