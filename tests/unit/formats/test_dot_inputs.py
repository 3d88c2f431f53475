"""The dot product's inputs: typed vectors read and refused with sentences, stored in the format as the exact codec
stores them (clamped to ± the largest value), and seeded draws that repeat."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from app.formats import FORMATS, DotInputError, drawn_vectors, encode, parse_dot_setting, parse_vector, stored_vector
from app.formats.dot_inputs import DOT_DISTRIBUTIONS


def test_commas_semicolons_spaces_and_new_lines_separate_values():
    read = parse_vector("1, -2.5;0x1.8p-3\n1/3   \u22124e2", "a")
    assert [v.fraction for v in read] == [1, Fraction(-5, 2), Fraction(3, 16), Fraction(1, 3), -400]


@pytest.mark.parametrize(("text", "sentence"), [
    ("", "Vector a is empty"),
    (" , ;", "Vector a is empty"),
    ("1, 2, x", "Number 3 of vector a, 'x', is not a number"),
    ("1, inf", "Number 2 of vector a is 'inf'; a dot product here takes finite numbers only."),
    ("nan", "Number 1 of vector a is 'nan'"),
    (", ".join(["1"] * 4097), "Vector a has 4097 numbers; at most 4096 are taken."),
    ("1" * 300_000, "characters long; at most 262144 are read."),
])
def test_what_cannot_be_read_is_refused_with_a_sentence(text, sentence):
    with pytest.raises(DotInputError, match=sentence.replace("(", r"\(")):
        parse_vector(text, "a")


def test_stored_values_are_what_the_codec_stores_saturating():
    spec = FORMATS["float8_e4m3fn"]
    typed = parse_vector("0.3, 1000, -1e-9, 0, 448", "a")
    stored = stored_vector(typed, "float8_e4m3fn")
    scale = Fraction(2) ** (spec.emin - spec.mantissa_bits)
    expected = [encode(spec, v, "nearest_even", "saturate").encoding.value.fraction for v in typed]
    assert [u * scale for u in stored.units] == expected
    assert expected[1] == 448 and stored.clamped == 1 and stored.zeroed == 1


@pytest.mark.parametrize("distribution", sorted(DOT_DISTRIBUTIONS))
def test_a_seed_draws_the_same_vectors_and_another_seed_others(distribution):
    a, b = drawn_vectors("bfloat16", distribution, 500, 3)
    again, _ = drawn_vectors("bfloat16", distribution, 500, 3)
    other, _ = drawn_vectors("bfloat16", distribution, 500, 4)
    assert a == again and a.units != b.units and a.units != other.units


def test_outliers_are_a_hundred_times_the_normal_draws():
    spec = FORMATS["float32"]
    a, _ = drawn_vectors("float32", "outliers", 4000, 0)
    x = np.abs(np.ldexp(np.array(a.units, dtype=np.float64), spec.emin - spec.mantissa_bits))
    assert 10 <= np.count_nonzero(x > 10) <= 20  # 20 outliers of 4000, nearly all beyond 10 standard deviations


def test_fp8_draws_count_the_values_too_small_to_keep():
    """E4M3's smallest subnormal is 2^-9: a draw within half of it of zero is stored as zero."""
    wide, _ = drawn_vectors("float32", "normal", 4096, 1)
    narrow, _ = drawn_vectors("float8_e4m3fn", "normal", 4096, 1)
    spec = FORMATS["float32"]
    x = np.abs(np.ldexp(np.array(wide.units, dtype=np.float64), spec.emin - spec.mantissa_bits))
    assert narrow.zeroed == np.count_nonzero((x <= 2.0**-10) & (x > 0)) > 0


@pytest.mark.parametrize(("text", "good"), [("128", True), (" 7 ", True), ("0", False), ("4097", False),
                                            ("1e2", False), ("-1", False), ("١٢", False)])
def test_settings_are_whole_numbers_in_range(text, good):
    if good:
        assert parse_dot_setting(text, "promote_every", 1, 4096) == int(text)
    else:
        with pytest.raises(DotInputError, match="promote_every must be a whole number from 1 to 4096"):
            parse_dot_setting(text, "promote_every", 1, 4096)


def test_unknown_distribution_format_or_length_is_refused():
    with pytest.raises(DotInputError, match="'cauchy' is not a distribution here"):
        drawn_vectors("float16", "cauchy", 10, 0)
    with pytest.raises(DotInputError, match="'int8' is not a format for the dot product"):
        drawn_vectors("int8", "normal", 10, 0)
    with pytest.raises(DotInputError, match="n runs from 1 to 4096"):
        drawn_vectors("float16", "normal", 4097, 0)
