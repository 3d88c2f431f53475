"""The question bank: every topic file loads and follows the schema; broken files are reported by file and line."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Context, Decimal
from pathlib import Path

import pytest

from app.quiz import Bank, BankError, BitPattern, MultipleSelect, Numeric, SingleChoice, grade, load_bank
from app.quiz.bank import BANK_DIR
from app.quiz.generators import GENERATORS

TOPICS = {"number_formats", "fp16_vs_bf16", "fp8", "tf32_tensor_cores", "mixed_precision", "memory_quantisation"}


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_bank()


def test_every_topic_file_loads(bank: Bank) -> None:
    assert {topic.id for topic in bank.topics} == TOPICS
    assert {path.stem for path in BANK_DIR.glob("*.txt")} == TOPICS
    assert all(topic.title and len(topic.questions) >= 10 for topic in bank.topics)


def test_at_least_sixty_written_questions_with_unique_ids(bank: Bank) -> None:
    ids = [q.id for topic in bank.topics for q in topic.questions]
    assert len(ids) >= 60
    assert len(ids) == len(set(ids)) == len(bank.questions)


def test_every_type_is_used(bank: Bank) -> None:
    kinds = {type(q) for q in bank.questions.values()}
    assert kinds == {SingleChoice, MultipleSelect, Numeric, BitPattern}


def test_every_choice_is_explained_and_every_answer_has_a_reason(bank: Bank) -> None:
    for q in bank.questions.values():
        assert q.prompt.strip(), q.id
        if isinstance(q, SingleChoice | MultipleSelect):
            assert len(q.options) >= 2, q.id
            assert all(option.text and len(option.explanation) > 20 for option in q.options), q.id
            assert q.answers and all(0 <= i < len(q.options) for i in q.answers), q.id
            assert len(q.answers) == 1 or isinstance(q, MultipleSelect), q.id
            assert len({option.text for option in q.options}) == len(q.options), q.id
        else:
            assert len(q.explanation) > 20, q.id


def test_choices_are_not_always_right_in_the_same_place(bank: Bank) -> None:
    places = {min(q.answers) for q in bank.questions.values() if isinstance(q, SingleChoice)}
    assert len(places) >= 3


def test_the_topic_of_a_question_is_its_file(bank: Bank) -> None:
    for topic in bank.topics:
        assert all(q.topic == topic.id for q in topic.questions)


# -- significant figures: the grade follows what the prompt asks for ----------------------------

_ASKED = re.compile(r"\b(one|two|three|four|five|\d+) significant figures", re.IGNORECASE)
_WORDS = ("one", "two", "three", "four", "five")


def _asking_for_figures() -> list[Numeric]:
    generated = [GENERATORS["max"].build(name) for name in ("bfloat16", "float16", "float8_e4m3fn")]
    return [q for q in (*load_bank().questions.values(), *generated) if isinstance(q, Numeric)
            and _ASKED.search(q.prompt)]


def _rounded(question: Numeric, figures: int, rounding: str) -> Decimal:
    exact = Decimal(question.answer.numerator) / Decimal(question.answer.denominator)
    return Context(prec=figures, rounding=rounding).plus(exact)  # type: ignore[no-any-return]


def test_every_numeric_prompt_that_asks_for_figures_is_graded_by_them() -> None:
    questions = _asking_for_figures()
    assert {"fp32-epsilon", "e5m2-min-subnormal", "bf16-max", "gen:max:bfloat16"} <= {q.id for q in questions}
    for question in questions:
        match = _ASKED.search(question.prompt)
        assert match is not None
        word = match[1].lower()
        assert question.figures == (int(word) if word.isdigit() else _WORDS.index(word) + 1), question.id


@pytest.mark.parametrize("question", _asking_for_figures(), ids=lambda q: q.id)
def test_the_answer_rounded_as_the_prompt_says_is_accepted_and_a_figure_off_is_not(question: Numeric) -> None:
    figures = question.figures
    assert figures is not None
    for rounding in (ROUND_HALF_EVEN, ROUND_HALF_UP):
        rounded = _rounded(question, figures, rounding)
        for typed in (f"{rounded:e}", f"{rounded:E}", str(rounded)):
            assert grade(question, typed).correct, (question.id, typed)
        unit = Decimal(1).scaleb(rounded.adjusted() - figures + 1)
        for neighbour in (rounded - unit, rounded + unit):
            assert not grade(question, f"{neighbour:e}").correct, (question.id, neighbour)


def test_the_two_keys_the_review_found_wrong_now_accept_their_own_explanations(bank: Bank) -> None:
    for question_id, typed in (("fp32-epsilon", "1.19e-7"), ("e5m2-min-subnormal", "1.53e-5")):
        question = bank.questions[question_id]
        assert typed in question.explanation and grade(question, typed).correct


# -- broken files ---------------------------------------------------------------------------------

GOOD = """title: A topic

id: good-one
type: single
prompt: Which?
choice: this one
explain: because it is right
choice: that one
explain: because it is wrong
answer: A
"""  # lines: 1 title, 3 id, 4 type, 5 prompt, 6 choice, 7 explain, 8 choice, 9 explain, 10 answer

NUMERIC = """

id: number-one
type: numeric
prompt: How many?
answer: 16
tolerance: {tolerance}
explanation: because
"""  # appended to GOOD: 13 id, 14 type, 15 prompt, 16 answer, 17 tolerance, 18 explanation

BITS = """

id: bits-one
type: bits
format: {format}
prompt: Which bits?
answer: {answer}
explanation: because
"""  # appended to GOOD: 13 id, 14 type, 15 format, 16 prompt, 17 answer, 18 explanation


def _load(tmp_path: Path, text: str, name: str = "topic.txt") -> Bank:
    (tmp_path / name).write_text(text, encoding="utf-8")
    return load_bank(tmp_path)


def _replace(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new)


BROKEN = [
    ("missing answer", _replace("answer: A\n", ""), 3, "no 'answer:'"),
    ("unknown type", _replace("type: single", "type: essay"), 4, "Unknown type 'essay'"),
    ("duplicate id", GOOD + "\n" + GOOD.split("\n\n", 1)[1], 12, "already used in topic.txt, line 3"),
    ("choice without explanation", _replace("explain: because it is wrong\n", ""), 8, "no 'explain:'"),
    ("answer out of range", _replace("answer: A", "answer: C"), 10, "there are 2 choices, A to B"),
    ("two answers to a single choice", _replace("answer: A", "answer: A, B"), 10, "one letter"),
    ("explain without choice", _replace("prompt: Which?", "prompt: Which?\nexplain: why"), 6, "right after"),
    ("one choice only", _replace("choice: that one\nexplain: because it is wrong\n", ""), 3, "2 to 26 choices"),
    ("unknown field", _replace("prompt: Which?", "prompt: Which?\ncolour: red"), 6, "Unknown field 'colour'"),
    ("field twice", _replace("prompt: Which?", "prompt: Which?\nprompt: Again?"), 6, "appears twice"),
    ("field of another type", _replace("answer: A", "answer: A\ntolerance: 1"), 11, "no 'tolerance:' field"),
    ("empty field", _replace("prompt: Which?", "prompt:"), 5, "'prompt:' is empty"),
    ("bad id", _replace("id: good-one", "id: Good One"), 3, "An id is lowercase"),
    ("not a field", _replace("prompt: Which?", "prompt: Which?\nWhat is this"), 6, "Expected a field"),
    ("no title", GOOD.split("\n\n", 1)[1], 1, "starts with one 'title:'"),
    ("title only", "title: Empty\n", 1, "at least one question"),
    ("continuation with nothing above", "  indented\n" + GOOD, 1, "continues the field above"),
    ("missing format", GOOD + BITS.format(format="x", answer="0x1").replace("format: x\n", ""), 13, "'format:'"),
    ("unknown format", GOOD + BITS.format(format="float7", answer="0x1"), 15, "Unknown format 'float7'"),
    ("block format", GOOD + BITS.format(format="mxfp4", answer="0x1"), 15, "Unknown format 'mxfp4'"),
    ("pattern too wide", GOOD + BITS.format(format="float8_e4m3fn", answer="0x100"), 17, "more than 8 bits"),
    ("pattern unreadable", GOOD + BITS.format(format="float16", answer="0x3g00"), 17, "hex"),
    ("bad tolerance", GOOD + NUMERIC.format(tolerance="lots"), 17, "Could not read 'lots'"),
    ("negative tolerance", GOOD + NUMERIC.format(tolerance="-1%"), 17, "zero or positive"),
    ("numeric answer not a number", GOOD + NUMERIC.format(tolerance="0").replace("16", "sixteen"), 16, "sixteen"),
    ("numeric answer infinite", GOOD + NUMERIC.format(tolerance="0").replace("answer: 16", "answer: inf"), 16,
     "finite"),
    ("figures not asked for", GOOD + NUMERIC.format(tolerance="0").replace("tolerance: 0", "figures: 3"), 17,
     "asks for three significant figures"),
    ("figures asked, none given", GOOD + NUMERIC.format(tolerance="0").replace("tolerance: 0\n", "").replace(
        "How many?", "How many, to two significant figures?"), 15, "add 'figures:'"),
    ("figures asked beside a tolerance", GOOD + NUMERIC.format(tolerance="0.1%").replace(
        "How many?", "How many, to two significant figures?"), 17, "instead of 'tolerance:'"),
    ("figures that disagree with the prompt", GOOD + NUMERIC.format(tolerance="0").replace(
        "tolerance: 0", "figures: 3").replace("How many?", "How many, to 2 significant figures?"), 17,
     "asks for three significant figures"),
    ("figures not a count", GOOD + NUMERIC.format(tolerance="0").replace("tolerance: 0", "figures: many").replace(
        "How many?", "How many, to two significant figures?"), 17, "a count of significant figures"),
    ("numeric without explanation", GOOD + NUMERIC.format(tolerance="0").replace("explanation: because\n", ""), 13,
     "needs an 'explanation:'"),
]


@pytest.mark.parametrize(("text", "line", "phrase"), [case[1:] for case in BROKEN], ids=[c[0] for c in BROKEN])
def test_a_broken_file_is_reported_with_its_name_and_line(tmp_path: Path, text: str, line: int, phrase: str) -> None:
    with pytest.raises(BankError) as caught:
        _load(tmp_path, text)
    error = caught.value
    assert (error.file, error.line) == ("topic.txt", line), str(error)
    assert phrase in str(error)
    assert str(error).startswith(f"topic.txt, line {line}: ")


def test_the_good_fixtures_load(tmp_path: Path) -> None:
    text = GOOD + NUMERIC.format(tolerance="0.5%") + BITS.format(format="float16", answer="0011 1100 0000 0000")
    bank = _load(tmp_path, text)
    numeric, bits = bank.questions["number-one"], bank.questions["bits-one"]
    assert isinstance(numeric, Numeric) and numeric.relative and numeric.tolerance * 1000 == 5
    assert isinstance(bits, BitPattern) and bits.answer == 0x3C00


def test_a_byte_order_mark_and_windows_line_ends_are_fine(tmp_path: Path) -> None:
    (tmp_path / "topic.txt").write_bytes(b"\xef\xbb\xbf" + GOOD.replace("\n", "\r\n").encode())
    assert load_bank(tmp_path).questions["good-one"].prompt == "Which?"


def test_comments_and_continuation_lines(tmp_path: Path) -> None:
    text = _replace("prompt: Which?", "# a comment\nprompt: Which\n    one is it?")
    assert _load(tmp_path, text).questions["good-one"].prompt == "Which one is it?"


def test_a_duplicate_id_across_files_names_both(tmp_path: Path) -> None:
    (tmp_path / "a_topic.txt").write_text(GOOD, encoding="utf-8")
    with pytest.raises(BankError, match=r"b_topic.txt, line 3: .*already used in a_topic.txt, line 3"):
        _load(tmp_path, GOOD, "b_topic.txt")


def test_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "topic.txt").write_bytes(GOOD.encode() + b"\n\nid: caf\xe9\n")
    with pytest.raises(BankError, match=r"topic.txt, line 13: .*UTF-8"):
        load_bank(tmp_path)


def test_a_badly_named_file_and_an_empty_bank(tmp_path: Path) -> None:
    with pytest.raises(BankError, match="no topic files"):
        load_bank(tmp_path)
    with pytest.raises(BankError, match="Bad-Name.txt, line 0: A topic file is named"):
        _load(tmp_path, GOOD, "Bad-Name.txt")
