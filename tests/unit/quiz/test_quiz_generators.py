"""Generated questions: answers recomputed from the formats core, ids that rebuild the exact question."""

from __future__ import annotations

import random
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from app.formats import decode, encode, get_format, next_up, parse_number
from app.quiz import GENERATORS, BitPattern, MultipleSelect, Numeric, SingleChoice, UnknownQuestion, grade
from app.quiz.generators import generate, generated_question

SEEDS = range(40)


def _drawn(name: str) -> list:
    return [generate(name, random.Random(seed)) for seed in SEEDS]


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_a_generated_question_is_rebuilt_from_its_id(name: str) -> None:
    questions = _drawn(name)
    for question in questions:
        assert question.id.startswith(f"gen:{name}:")
        assert generated_question(question.id) == question
        assert question.explanation and question.prompt
    assert len({q.id for q in questions}) > (1 if name == "max" else 20), "seeds should give different questions"


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_the_right_answer_grades_as_correct(name: str) -> None:
    for question in _drawn(name):
        if isinstance(question, SingleChoice):
            answer: object = min(question.answers)
        elif isinstance(question, MultipleSelect):
            answer = sorted(question.answers)
        elif isinstance(question, Numeric):
            answer = str(question.answer)  # a fraction such as 7/16, as a person may type it
        else:
            answer = hex(question.answer)
        assert grade(question, answer).correct, question.id


def _params(question_id: str) -> tuple[str, ...]:
    return tuple(question_id.split(":")[2:])


def test_bits_answers() -> None:
    for question in _drawn("bits"):
        assert isinstance(question, BitPattern)
        format_id, value = _params(question.id)
        encoding = encode(get_format(format_id), parse_number(value)).encoding
        assert question.answer == encoding.bits
        assert encoding.hex in question.explanation and encoding.value.exact_string() in question.explanation


def test_decode_answers() -> None:
    for question in _drawn("decode"):
        assert isinstance(question, Numeric)
        format_id, pattern = _params(question.id)
        value = decode(get_format(format_id), int(pattern, 16)).value
        assert question.answer == value.fraction and question.tolerance == 0
        assert value.exact_string() in question.explanation


def test_max_answers() -> None:
    for format_id in ("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn"):
        question = generated_question(f"gen:max:{format_id}")
        assert isinstance(question, Numeric)
        assert question.answer == get_format(format_id).max
    assert generated_question("gen:max:float8_e4m3fn").answer == 448
    assert generated_question("gen:max:float8_e5m2").answer == 57344
    assert grade(generated_question("gen:max:bfloat16"), "3.39e38").correct


def test_next_up_answers() -> None:
    for question in _drawn("next_up"):
        assert isinstance(question, Numeric)
        format_id, pattern = _params(question.id)
        spec, bits = get_format(format_id), int(pattern, 16)
        here = decode(spec, bits)
        assert not here.value.negative
        assert question.answer == decode(spec, bits + 1).value.fraction  # the next positive pattern
        assert question.answer == next_up(here).value.fraction  # type: ignore[union-attr]


def test_underflow_answers() -> None:
    for question in _drawn("underflow"):
        assert isinstance(question, SingleChoice)
        format_id, value = _params(question.id)
        stored = encode(get_format(format_id), parse_number(value)).encoding
        right = question.options[min(question.answers)].text
        expected = {"zero": "becomes 0", "subnormal": "subnormal", "normal": "normal number"}[stored.cls]
        assert expected in right
    classes = {min(q.answers) for q in _drawn("underflow")}
    assert classes == {0, 1, 2}, "the draw should ask about all three outcomes"


def test_stored_answers() -> None:
    for question in _drawn("stored"):
        assert isinstance(question, Numeric)
        format_id, value = _params(question.id)
        spec, x = get_format(format_id), parse_number(value)
        stored = encode(spec, x).encoding
        assert question.answer == stored.value.fraction
        for neighbour in (stored.bits - 1, stored.bits + 1):  # no other value is nearer
            if decode(spec, neighbour).value.is_finite:
                assert abs(question.answer - x.fraction) <= abs(decode(spec, neighbour).value.fraction - x.fraction)


def test_overflow_answers() -> None:
    expected = {"float16": "infinity", "float8_e5m2": "infinity", "float8_e4m3fn": "NaN",
                "float6_e3m2fn": "saturation", "float4_e2m1fn": "saturation"}
    for question in _drawn("overflow"):
        assert isinstance(question, SingleChoice)
        format_id, value = _params(question.id)
        rounded = encode(get_format(format_id), parse_number(value))
        assert rounded.overflowed
        assert expected[format_id] in question.options[min(question.answers)].text
        assert rounded.encoding.value.exact_string() in question.explanation


def test_small_addend_answers() -> None:
    """Against numpy's and ml_dtypes' own addition (float64, exact here, then one cast)."""
    for question in _drawn("small_addend"):
        assert isinstance(question, Numeric)
        format_id, j, k, d = _params(question.id)
        a, b = 2.0 ** int(j), int(d) * 2.0 ** (int(j) - int(k))
        dtype = np.float16 if format_id == "float16" else getattr(ml_dtypes, format_id)
        assert question.answer == Fraction(float(np.float64(a + b).astype(dtype)))
    drawn = {_params(q.id)[2:] for q in _drawn("small_addend")}
    assert len(drawn) > 4, "ties, steps and exact sums are all drawn"


def test_product_flags_answers() -> None:
    """The flags picked are IEEE 754's: overflow where ml_dtypes' product is beyond max, inexact where it differs
    from the exact product, and "none of them" exactly when the product is exact."""
    for question in _drawn("product_flags"):
        assert isinstance(question, MultipleSelect)
        format_id, a, b = _params(question.id)
        spec = get_format(format_id)
        x, y = (decode(spec, int(p, 16)).value.fraction for p in (a, b))
        exact = x * y
        dtype = np.float16 if format_id == "float16" else getattr(ml_dtypes, format_id)
        with np.errstate(all="ignore"):
            stored = float(np.float64(float(exact)).astype(dtype))
        picked = {question.options[i].text for i in question.answers}
        beyond = abs(exact) > spec.max and not (stored == stored and abs(Fraction(stored)) <= spec.max)
        assert ("overflow" in picked) == beyond, question.id
        exact_here = stored == stored and stored not in (float("inf"), float("-inf")) and Fraction(stored) == exact
        assert ("none of them" in picked) == exact_here, question.id
        assert ("inexact" in picked) == (not exact_here), question.id
    assert {q.options[min(q.answers)].text for q in _drawn("product_flags")} >= {"inexact", "none of them"}


BAD_IDS = [
    "", "gen", "gen:", "gen:nothing", "gen:bits", "gen:bits:float16", "gen:bits:float32:0.1",
    "gen:bits:bfloat16:0.10", "gen:bits:bfloat16:1e300", "gen:bits:bfloat16:0.1:more", "gen:max:float16:extra",
    "gen:max:nf4", "gen:decode:float16:0x7c00", "gen:decode:float16:0x3C00", "gen:decode:float16:3c00",
    "gen:next_up:float16:0xbc00", "gen:next_up:float16:0x7bff", "gen:underflow:float16:-1e-8",
    "gen:underflow:float16:1", "gen:stored:float8_e4m3fn:inf", "gen:overflow:float16:3", "gex:max:float16",
    "fp16-max", "gen:max:float16" + ":" * 200, "gen:small_addend:float16:0:13:1", "gen:small_addend:float16:3:10:1",
    "gen:small_addend:float16:0:10:2", "gen:small_addend:float16:00:10:1", "gen:small_addend:float32:0:10:1",
    "gen:product_flags:float16:0x3c00", "gen:product_flags:float16:0x3c00:0x7c00",
    "gen:product_flags:float16:0x3c00:0x0001", "gen:product_flags:float32:0x3c00:0x3c00",
]


@pytest.mark.parametrize("question_id", BAD_IDS)
def test_ids_that_no_generator_draws_are_unknown(question_id: str) -> None:
    with pytest.raises(UnknownQuestion):
        generated_question(question_id)
