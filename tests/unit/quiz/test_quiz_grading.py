"""Grading each type of question: right, wrong, and malformed answers (AnswerError, never a silent wrong)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from app.quiz import (
    GENERATORS,
    AnswerError,
    BitPattern,
    Choice,
    Feedback,
    MultipleSelect,
    Numeric,
    Question,
    SingleChoice,
    grade,
    load_bank,
    passed,
    right_answer,
    score,
)
from app.quiz.generators import generate

OPTIONS = (Choice("65504", "Right: 2^15 × (2 − 2^−10)."), Choice("65536", "That is 2^16, which overflows."),
           Choice("32767", "That is INT16's maximum."))
SINGLE = SingleChoice(id="s", topic="t", prompt="Max?", options=OPTIONS, answers=frozenset({0}))
MULTIPLE = MultipleSelect(id="m", topic="t", prompt="Which?", options=OPTIONS, answers=frozenset({0, 2}),
                          explanation="Two are right.")
EXACT = Numeric(id="n", topic="t", prompt="Bias?", answer=Fraction(15), explanation="2^4 − 1.")
RELATIVE = Numeric(id="r", topic="t", prompt="Min normal?", answer=Fraction(1, 2**14), tolerance=Fraction(1, 1000),
                   relative=True, explanation="2^−14.")
EPSILON = Numeric(id="f", topic="t", prompt="FP32 epsilon, to three significant figures?", answer=Fraction(1, 2**23),
                  figures=3, explanation="2^−23.")
ABSOLUTE = Numeric(id="a", topic="t", prompt="About?", answer=Fraction(10), tolerance=Fraction(1, 2),
                   explanation="Ten.")
BITS = BitPattern(id="b", topic="t", prompt="Bits of 1.0?", format="float16", answer=0x3C00,
                  explanation="0 01111 0000000000.")


@pytest.mark.parametrize("answer", [0, "0", " 0 "])
def test_single_right(answer: object) -> None:
    feedback = grade(SINGLE, answer)
    assert feedback == Feedback(True, "65504", "Right: 2^15 × (2 − 2^−10).")


@pytest.mark.parametrize("answer", [1, "1"])
def test_single_wrong_explains_the_right_choice_and_the_chosen_one(answer: object) -> None:
    feedback = grade(SINGLE, answer)
    assert not feedback.correct and feedback.correct_answer == "65504"
    assert "Right: 2^15" in feedback.explanation
    assert "You chose “65536”: That is 2^16, which overflows." in feedback.explanation
    assert "INT16" not in feedback.explanation


@pytest.mark.parametrize("answer", [3, -1, "x", "", "1.0", True, None, [0], 0.0, "99999999999"])
def test_single_malformed(answer: object) -> None:
    with pytest.raises(AnswerError, match="index"):
        grade(SINGLE, answer)


@pytest.mark.parametrize("answer", [[0, 2], [2, 0], ["0", "2"], "0,2", "2, 0", "0 2", (0, 2)])
def test_multiple_right(answer: object) -> None:
    feedback = grade(MULTIPLE, answer)
    assert feedback.correct and feedback.correct_answer == "65504; 32767"
    assert feedback.explanation.startswith("Two are right.")


@pytest.mark.parametrize("answer", [[0], [0, 1, 2], "1"])
def test_multiple_wrong(answer: object) -> None:
    feedback = grade(MULTIPLE, answer)
    assert not feedback.correct and "INT16" in feedback.explanation
    assert ("You chose “65536”" in feedback.explanation) == ("1" in str(answer))


@pytest.mark.parametrize("answer", [[], "", " , ", "0,x", [5], [True], None, 0, [[0]]])
def test_multiple_malformed(answer: object) -> None:
    with pytest.raises(AnswerError):
        grade(MULTIPLE, answer)


@pytest.mark.parametrize(("question", "answer"), [
    (EXACT, "15"), (EXACT, 15), (EXACT, 15.0), (EXACT, "0xfp0"), (EXACT, "30/2"), (EXACT, " 1.5e1 "),
    (RELATIVE, "6.1e-5"), (RELATIVE, "6.10e-5"), (RELATIVE, "0x1p-14"), (RELATIVE, "1/16384"),
    (ABSOLUTE, "10.5"), (ABSOLUTE, "9.5"), (ABSOLUTE, 10),
    (EPSILON, "1.19e-7"), (EPSILON, "1.192e-7"), (EPSILON, "0.000000119"), (EPSILON, "0x1p-23"), (EPSILON, 1.19e-7),
])
def test_numeric_right(question: Numeric, answer: object) -> None:
    assert grade(question, answer).correct


@pytest.mark.parametrize(("question", "answer"), [
    (EXACT, "16"), (EXACT, "15.0000001"), (EXACT, "-15"), (EXACT, "inf"), (EXACT, "nan"),
    (RELATIVE, "6e-5"), (RELATIVE, "6.2e-5"), (ABSOLUTE, "10.50001"), (ABSOLUTE, 9.4),
    (EPSILON, "1.2e-7"), (EPSILON, "1.18e-7"), (EPSILON, "1.20e-7"), (EPSILON, "-1.19e-7"),
])
def test_numeric_wrong(question: Numeric, answer: object) -> None:
    feedback = grade(question, answer)
    assert not feedback.correct
    assert feedback.explanation.startswith("You answered ") and question.explanation in feedback.explanation


def test_numeric_correct_answer_as_a_person_reads_it() -> None:
    assert grade(EXACT, "1").correct_answer == "15"
    assert grade(RELATIVE, "1").correct_answer == "0.00006103515625 (answers within 0.1% count)"
    assert grade(ABSOLUTE, "1").correct_answer == "10 (answers within 0.5 count)"
    assert grade(EPSILON, "1").correct_answer == ("≈ 1.19e-7 (exactly 1.1920928955078125e-7; "
                                                  "answers to 3 significant figures count)")


@pytest.mark.parametrize(("answer", "figures", "allowed"), [
    (Fraction(1, 2**23), 3, Fraction(1, 2 * 10**9)), (Fraction(448), 2, Fraction(5)), (Fraction(-65504), 3, 50),
    (Fraction(1), 1, Fraction(1, 2)), (Fraction(999), 3, Fraction(1, 2)), (Fraction(1000), 3, 5),
])
def test_significant_figures_allow_half_a_unit_of_the_last_figure(answer, figures, allowed) -> None:
    assert Numeric(id="f", topic="t", prompt="?", answer=answer, figures=figures).allowed_error == allowed


@pytest.mark.parametrize("fields", [{"figures": 0}, {"figures": 3, "tolerance": Fraction(1, 1000)}])
def test_figures_are_a_positive_count_and_never_beside_a_tolerance(fields) -> None:
    with pytest.raises(ValueError, match="figures"):
        Numeric(id="f", topic="t", prompt="?", answer=Fraction(1), **fields)


@pytest.mark.parametrize("answer", ["", "fifteen", "14 GB", "65,504", "0x3c00", [15], None, True, "1" * 300])
def test_numeric_malformed(answer: object) -> None:
    with pytest.raises(AnswerError, match="number"):
        grade(EXACT, answer)


@pytest.mark.parametrize("answer", [
    "0x3c00", "0x3C00", "0X3c00", "0x3c_00", "0b0011110000000000", "0011 1100 0000 0000", "11110000000000",
    " 0b 0011_1100_0000_0000 ",
])
def test_bits_right(answer: str) -> None:
    feedback = grade(BITS, answer)
    assert feedback.correct
    assert feedback.correct_answer == "0x3c00 (binary 0 01111 0000000000)"


def test_bits_wrong_says_what_the_entered_pattern_is() -> None:
    feedback = grade(BITS, "0x3c01")
    assert not feedback.correct
    assert feedback.explanation.startswith("You entered 0x3c01 (binary 0 01111 0000000001), which in FP16")
    assert "1.0009765625" in feedback.explanation


@pytest.mark.parametrize("answer", ["", "0x", "0b", "12", "0b012", "0x3g00", "0x10000", "1" * 17, 15360, None, ["0"]])
def test_bits_malformed(answer: object) -> None:
    with pytest.raises(AnswerError):
        grade(BITS, answer)


def test_answer_error_is_a_value_error_with_a_sentence() -> None:
    with pytest.raises(ValueError, match=r"^Type a 16-bit pattern in hex .*\.$"):
        grade(BITS, "12")


def test_score_and_pass_mark() -> None:
    feedbacks = [Feedback(i < 10, "", "") for i in range(12)]
    assert score(feedbacks) == (10, 12)
    assert score([]) == (0, 0)
    assert passed(10, 12) and passed(8, 10) and passed(12, 12)
    assert not passed(9, 12) and not passed(7, 10) and not passed(0, 0)
    assert passed(6, 12, pass_mark=0.5) and not passed(5, 12, pass_mark=0.5)
    assert passed(7, 10, pass_mark=0.7)  # 0.7 as a float is just below 7/10; the mark means 70%


def _every_kind_of_question() -> list[Question]:
    rng = random.Random(0)
    generated = [generate(name, rng) for name in GENERATORS for _ in range(20)]
    return [*load_bank().questions.values(), *generated, SINGLE, MULTIPLE, EXACT, RELATIVE]


@pytest.mark.parametrize("question", _every_kind_of_question(), ids=lambda q: q.id)
def test_the_right_answer_of_every_question_grades_right_and_anything_else_in_its_form_does_not(question):
    answer = right_answer(question)
    assert grade(question, answer).correct
    if isinstance(answer, list):
        assert not grade(question, answer[:-1] or [i for i in range(len(question.options)) if i not in answer]).correct
    elif isinstance(answer, int):
        assert not grade(question, (answer + 1) % len(question.options)).correct
