"""The question bank: plain-text topic files in quiz/ (format in quiz/README.md), read and schema-checked."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from pathlib import Path

from app.formats import SCALAR_FORMATS, InputError, get_format, parse_number
from app.quiz.grading import AnswerError, read_bit_pattern
from app.quiz.questions import (
    QUESTION_TYPES,
    BitPattern,
    Choice,
    MultipleSelect,
    Numeric,
    Question,
    SingleChoice,
)

BANK_DIR = Path(__file__).resolve().parents[2] / "quiz"

_COMMON = ("id", "type", "prompt", "answer", "explanation")
FIELDS: dict[str, tuple[str, ...]] = {
    "single": _COMMON + ("choice", "explain"),
    "multiple": _COMMON + ("choice", "explain"),
    "numeric": _COMMON + ("tolerance", "figures"),
    "bits": _COMMON + ("format",),
}
_ALL_FIELDS = {"title", *(field for fields in FIELDS.values() for field in fields)}
_LINE = re.compile(r"(?P<key>[a-z]+)\s*:\s?(?P<value>.*)")
_QUESTION_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_TOPIC_ID = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)*")
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_COUNTS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_FIGURES_ASKED = re.compile(r"\b(?P<count>\d+|" + "|".join(_COUNTS) + r")\s+significant\s+(?:figures?|digits?)\b",
                            re.IGNORECASE)
_SCALAR_IDS = {spec.id for spec in SCALAR_FORMATS}


class BankError(ValueError):
    """A topic file that breaks the schema: the file, the line and what is wrong."""

    def __init__(self, file: str, line: int, sentence: str) -> None:
        super().__init__(f"{file}, line {line}: {sentence}")
        self.file, self.line, self.sentence = file, line, sentence


@dataclass(frozen=True)
class Topic:
    """One topic file: its id (the file name without .txt), its title and its questions."""

    id: str
    title: str
    questions: tuple[Question, ...]


@dataclass(frozen=True)
class Bank:
    """Every topic of the quiz, in file-name order."""

    topics: tuple[Topic, ...]

    @cached_property
    def questions(self) -> dict[str, Question]:
        """Every written question by its id."""
        return {q.id: q for topic in self.topics for q in topic.questions}


@dataclass(frozen=True)
class _Field:
    key: str
    value: str
    line: int


def load_bank(directory: Path = BANK_DIR) -> Bank:
    """Read and check every topic file of the bank; BankError names the first broken file and line."""
    paths = sorted(directory.glob("*.txt"))
    if not paths:
        raise BankError(directory.name, 0, "The bank has no topic files (*.txt).")
    topics: list[Topic] = []
    first_seen: dict[str, str] = {}
    for path in paths:
        topic, lines = _load_topic(path)
        for question, line in zip(topic.questions, lines, strict=True):
            if question.id in first_seen:
                raise BankError(path.name, line, f"The id {question.id!r} is already used in "
                                                 f"{first_seen[question.id]}; every id is used once.")
            first_seen[question.id] = f"{path.name}, line {line}"
        topics.append(topic)
    return Bank(tuple(topics))


def _load_topic(path: Path) -> tuple[Topic, list[int]]:
    """One topic file, and the line on which each of its questions starts."""
    name = path.name
    if not _TOPIC_ID.fullmatch(path.stem):
        raise BankError(name, 0, "A topic file is named in lowercase letters, digits and underscores, ending in .txt.")
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")  # a byte-order mark, as some Windows editors write, is fine
    except UnicodeDecodeError as error:
        raise BankError(name, raw[: error.start].count(b"\n") + 1, "The file is not UTF-8 text.") from None
    blocks = _blocks(text, name)
    if not blocks or [f.key for f in blocks[0]] != ["title"] or not blocks[0][0].value:
        raise BankError(name, blocks[0][0].line if blocks else 1,
                        "A topic file starts with one 'title:' line and a blank line before the first question.")
    if len(blocks) == 1:
        raise BankError(name, blocks[0][0].line, "A topic file has at least one question after its title.")
    questions = tuple(_question(block, path.stem, name) for block in blocks[1:])
    return Topic(path.stem, blocks[0][0].value, questions), [block[0].line for block in blocks[1:]]


def _blocks(text: str, name: str) -> list[list[_Field]]:
    """Fields grouped into blocks split by blank lines; an indented line continues the field above it."""
    blocks: list[list[_Field]] = [[]]
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("#"):
            continue
        if not line.strip():
            if blocks[-1]:
                blocks.append([])
            continue
        if line[0].isspace():
            if not blocks[-1]:
                raise BankError(name, number, "An indented line continues the field above it, but there is none.")
            last = blocks[-1][-1]
            blocks[-1][-1] = _Field(last.key, f"{last.value} {line.strip()}".strip(), last.line)
            continue
        match = _LINE.fullmatch(line.rstrip())
        if not match:
            raise BankError(name, number, "Expected a field such as 'prompt: …' (a lowercase name, then a colon).")
        if match["key"] not in _ALL_FIELDS:
            known = ", ".join(sorted(_ALL_FIELDS))
            raise BankError(name, number, f"Unknown field {match['key']!r}; the fields are: {known}.")
        blocks[-1].append(_Field(match["key"], match["value"].strip(), number))
    return [block for block in blocks if block]


def _question(block: list[_Field], topic: str, name: str) -> Question:
    first = block[0].line
    single: dict[str, _Field] = {}
    for field in block:
        if field.key in ("choice", "explain"):
            continue
        if field.key in single:
            raise BankError(name, field.line, f"'{field.key}:' appears twice (first on line {single[field.key].line}).")
        if not field.value:
            raise BankError(name, field.line, f"'{field.key}:' is empty.")
        single[field.key] = field
    for key in ("id", "type", "prompt", "answer"):
        if key not in single:
            raise BankError(name, first, f"This question has no '{key}:' line.")
    question_id, kind = single["id"], single["type"]
    if not _QUESTION_ID.fullmatch(question_id.value):
        raise BankError(name, question_id.line, "An id is lowercase letters and digits, in words joined by hyphens.")
    if kind.value not in QUESTION_TYPES:
        raise BankError(name, kind.line, f"Unknown type {kind.value!r}; the types are: {', '.join(QUESTION_TYPES)}.")
    for field in block:
        if field.key not in FIELDS[kind.value]:
            raise BankError(name, field.line, f"A {kind.value} question has no '{field.key}:' field; "
                                              f"its fields are: {', '.join(FIELDS[kind.value])}.")
    common = {"id": question_id.value, "topic": topic, "prompt": single["prompt"].value,
              "explanation": single["explanation"].value if "explanation" in single else ""}
    if kind.value in ("single", "multiple"):
        options = _choices(block, name)
        answers = _letters(single["answer"], len(options), name, several=kind.value == "multiple")
        # Shown in an order of their own, the same every time, so the right choice is not always where
        # the teacher happened to write it.
        order = random.Random(question_id.value).sample(range(len(options)), len(options))
        cls = SingleChoice if kind.value == "single" else MultipleSelect
        return cls(**common, options=tuple(options[i] for i in order),
                   answers=frozenset(order.index(i) for i in answers))
    if "explanation" not in single:
        raise BankError(name, first, f"A {kind.value} question needs an 'explanation:' of its answer.")
    if kind.value == "numeric":
        answer = _number(single["answer"], name)
        if "figures" in single or _FIGURES_ASKED.search(single["prompt"].value):
            if "tolerance" in single:
                raise BankError(name, single["tolerance"].line, "A question that asks for significant figures "
                                "takes 'figures:' instead of 'tolerance:': answers to that many figures count.")
            return Numeric(**common, answer=answer, tolerance=Fraction(0), relative=False,
                           figures=_figures(single, answer, name))
        tolerance, relative = _tolerance(single.get("tolerance"), name)
        return Numeric(**common, answer=answer, tolerance=tolerance, relative=relative, figures=None)
    if "format" not in single:
        raise BankError(name, first, "A bits question needs a 'format:' line with a format id, such as bfloat16.")
    return BitPattern(**common, format=_format(single["format"], name), answer=_bits(single, name))


def _choices(block: list[_Field], name: str) -> tuple[Choice, ...]:
    pairs = [f for f in block if f.key in ("choice", "explain")]
    options: list[Choice] = []
    for i, field in enumerate(pairs):
        if field.key == "explain" and (i == 0 or pairs[i - 1].key != "choice"):
            raise BankError(name, field.line, "'explain:' goes right after the 'choice:' it explains.")
        if field.key == "choice":
            if i + 1 == len(pairs) or pairs[i + 1].key != "explain":
                raise BankError(name, field.line, "This choice has no 'explain:' line after it; every choice, "
                                                  "wrong ones included, says why it is right or wrong.")
            if not field.value or not pairs[i + 1].value:
                raise BankError(name, field.line, "A choice and its explanation must not be empty.")
            options.append(Choice(field.value, pairs[i + 1].value))
    if not 2 <= len(options) <= len(_LETTERS):
        raise BankError(name, block[0].line, f"A choice question has 2 to {len(_LETTERS)} choices, not {len(options)}.")
    return tuple(options)


def _letters(field: _Field, count: int, name: str, several: bool) -> frozenset[int]:
    letters = [part for part in re.split(r"[\s,]+", field.value.upper()) if part]
    last = _LETTERS[count - 1]
    if not several and len(letters) != 1:
        raise BankError(name, field.line, f"A single-choice answer is one letter, A to {last}.")
    indices: set[int] = set()
    for letter in letters:
        if len(letter) != 1 or letter not in _LETTERS[:count]:
            raise BankError(name, field.line,
                            f"The answer {letter!r} is not a choice: there are {count} choices, A to {last}.")
        indices.add(_LETTERS.index(letter))
    return frozenset(indices)


def _number(field: _Field, name: str) -> Fraction:
    try:
        value = parse_number(field.value)
    except InputError as error:
        raise BankError(name, field.line, str(error)) from None
    if not value.is_finite:
        raise BankError(name, field.line, f"'{field.key}:' is a finite number.")
    return value.fraction


def _tolerance(field: _Field | None, name: str) -> tuple[Fraction, bool]:
    if field is None:
        return Fraction(0), False
    relative = field.value.endswith("%")
    tolerance = _number(_Field(field.key, field.value.removesuffix("%").strip(), field.line), name)
    if tolerance < 0:
        raise BankError(name, field.line, "A tolerance is zero or positive: 0.5 (absolute) or 1% (relative).")
    return (tolerance / 100, True) if relative else (tolerance, False)


def _figures(single: dict[str, _Field], answer: Fraction, name: str) -> int:
    """The count of 'figures:', which the prompt must ask for in the same words: the grade follows the prompt."""
    prompt = single["prompt"]
    asked = _FIGURES_ASKED.search(prompt.value)
    if "figures" not in single:
        raise BankError(name, prompt.line, f"The prompt asks for {asked and asked[0]}; add 'figures:' with that "
                                           "count, so that answers rounded as asked count.")
    field = single["figures"]
    if not field.value.isdigit() or not 1 <= int(field.value) <= len(_COUNTS):
        raise BankError(name, field.line, f"'figures:' is a count of significant figures, 1 to {len(_COUNTS)}.")
    figures = int(field.value)
    if asked is None or _count(asked["count"]) != figures:
        raise BankError(name, field.line, f"'figures: {figures}' needs a prompt that asks for "
                                          f"{_COUNTS[figures - 1]} significant figures, in those words.")
    if not answer:
        raise BankError(name, single["answer"].line, "Significant figures need a nonzero answer.")
    return figures


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _COUNTS.index(word.lower()) + 1


def _format(field: _Field, name: str) -> str:
    if field.value not in _SCALAR_IDS:
        raise BankError(name, field.line, f"Unknown format {field.value!r}; use a scalar format id such as "
                                          "float16, bfloat16 or float8_e4m3fn.")
    return field.value


def _bits(single: dict[str, _Field], name: str) -> int:
    try:
        return read_bit_pattern(single["answer"].value, get_format(single["format"].value).bits)
    except AnswerError as error:
        raise BankError(name, single["answer"].line, str(error)) from None
