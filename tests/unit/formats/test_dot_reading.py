"""The dot product's bounded reading and vectorised storing (app/formats/dot_reading.py) against the exact path,
parse_vector_items then stored_vector (one exact encode each): every element's stored value, the clamped and zeroed
counts and the refusals, for JSON numbers and strings of every shape, at ties, subnormals, overflow and -0."""

from __future__ import annotations

import math
import random
import struct
from fractions import Fraction

import pytest

from app.formats import FORMATS, DotInputError
from app.formats.dot_inputs import parse_vector, parse_vector_items, stored_vector
from app.formats.dot_product import DOT_FORMATS
from app.formats.dot_reading import read_items, read_vector, store_read
from app.formats.exact import Real
from app.web.dot.figure import stored_strings


def _edges(format_id: str, rng: random.Random) -> list[float]:
    """Doubles at and beside the format's values and midpoints: subnormals, the normal floor, around 1, its top."""
    spec = FORMATS[format_id]
    p, out = spec.mantissa_bits, []
    smallest = spec.emin - p
    exponents = [*range(smallest - 3, smallest + 6), *range(spec.emin - 2, spec.emin + 2), 0, 1, 5,
                 spec.emax - 1, spec.emax, spec.emax + 1]
    for e in exponents:
        for m in range(2 ** (p + 2)) if p < 4 else (rng.randrange(2 ** (p + 2)) for _ in range(40)):
            for half in (0, 1):
                v = math.ldexp(2 * m + half, e - p - 2)
                out += [v, math.nextafter(v, math.inf), math.nextafter(v, -math.inf)]
    top = float(spec.max)
    out += [top, top * (1 + 2.0 ** -(p + 1)), top * (1 + 2.0 ** -(p + 2)), 1e308, 5e-324, 0.0, -0.0,
            1 + 2.0**-24, 1 + 2.0**-11, 1 + 2.0**-8, 1 + 2.0**-4, 1 + 2.0**-3]
    return out + [-x for x in out]


SHAPES = ["1/3", "-2/7e-3", "0x1.8p-3", "0x1.000001p0", "0x1.0000008p0", "1e-100000", "9e99999", "-0", "0/5",
          "1/3e99999", "7e-50000/3e-50000", "0x1p-400000", "0x1p400000", "-0x0p0", "1.0000000596046448",
          "1.00000005960464477539062500001", "1.000000059604644775390625", " 2.5 ", "\u22121.5", "1e-46/1", "1/1e47",
          "3e38/1", "4e38/1", "1.", ".5", "0x.8p1", "1 / 3", "464", "464.00000000000000000001", "-0.0e5",
          "0x1.0000010000000000000000000000001p0", "5e-46/7", "7/5e46", "1/3e-40", "1." + "0" * 1000 + "1",
          "9." + "9" * 1086 + "5e99990", "1." + "1" * 1086 + "5e-99990", "0." + "0" * 44 + "7006492321624085354"]
REFUSED = ["inf", "-nan", "0x3c00", "0b11", "x", "1/0", "1e100001", "0x1p400001", "", "1e99999/1e-99999", "+", ".",
           "2" * 1101]


@pytest.mark.parametrize("format_id", DOT_FORMATS)
def test_numbers_store_as_the_exact_codec_stores_their_decimals(format_id: str) -> None:
    rng = random.Random(format_id)
    values = _edges(format_id, rng)
    values += [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0] for _ in range(3000)]
    values += [rng.gauss(0, 1) * 10 ** rng.randint(-50, 40) for _ in range(3000)]
    values = [v for v in values if math.isfinite(v)]
    texts = [repr(v) for v in values]
    expected = stored_vector(parse_vector_items(texts, "a"), format_id)
    assert store_read(read_items(values, "a"), format_id) == expected
    assert store_read(read_items(texts, "a"), format_id) == expected
    assert expected.clamped and expected.zeroed


@pytest.mark.parametrize("format_id", DOT_FORMATS)
def test_strings_of_every_shape_store_as_the_exact_codec_stores_them(format_id: str) -> None:
    expected = stored_vector(parse_vector_items(SHAPES, "b"), format_id)
    assert store_read(read_items(SHAPES, "b"), format_id) == expected
    typed = " ".join(s.strip().replace(" ", "") for s in SHAPES)
    assert store_read(read_vector(typed, "b"), format_id) == stored_vector(parse_vector(typed, "b"), format_id)


@pytest.mark.parametrize("item", REFUSED)
def test_refusals_are_the_exact_readings(item: str) -> None:
    items: list[float | str] = ["1", 2.5, item]
    with pytest.raises(DotInputError) as expected:
        parse_vector_items([repr(v) if isinstance(v, float) else v for v in items], "a")
    with pytest.raises(DotInputError) as got:
        read_items(items, "a")
    assert (got.value.template, got.value.params) == (expected.value.template, expected.value.params)


def test_numbers_that_are_not_finite_are_refused_as_before() -> None:
    for value in (math.inf, -math.inf, math.nan):
        with pytest.raises(DotInputError) as got:
            read_items([1.0, value], "b")
        assert got.value.params["position"] == "2"


@pytest.mark.parametrize("format_id", DOT_FORMATS)
def test_stored_strings_are_the_exact_strings(format_id: str) -> None:
    rng = random.Random(f"strings {format_id}")
    values = _edges(format_id, rng)[:4000]
    stored = store_read(read_items([v for v in values if math.isfinite(v)], "a"), format_id)
    spec = FORMATS[format_id]
    scale = Fraction(2) ** (spec.emin - spec.mantissa_bits)
    assert stored_strings(stored, format_id) == [Real.of(u * scale).exact_string() for u in stored.units]
