"""The question bank: plain-text topic files in quiz/ (format in quiz/README.md), read and schema-checked, and
their translations in quiz/<language>/ (app/quiz/bank_translations.py), checked against the English."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from typing import Any

from app.quiz.bank_fields import (
    FIGURES_ASKED,
    BankError,
    Field,
    bits_field,
    choice_order,
    choices,
    figures,
    format_field,
    letters,
    number_field,
    tolerance,
)
from app.quiz.bank_translations import ENGLISH, Translation, load_translation
from app.quiz.questions import (
    QUESTION_TYPES,
    BitPattern,
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
_LANGUAGE_DIR = re.compile(r"[a-z]{2,3}")  # an ISO 639 code: quiz/tr/ holds the Turkish topic files


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
    translations: Mapping[str, Translation] = dataclasses.field(default_factory=dict)

    @cached_property
    def questions(self) -> dict[str, Question]:
        """Every written question by its id."""
        return {q.id: q for topic in self.topics for q in topic.questions}

    def question_in(self, question: Question, language: str) -> tuple[Question, str]:
        """A question in `language` (the same answers, choices in the same order) and the language it is in:
        the English question, and "en", when the bank has no translation of it."""
        translated = self.translations.get(language)
        found = translated.questions.get(question.id) if translated else None
        return (found, language) if found is not None else (question, ENGLISH)

    def title_in(self, topic: Topic, language: str) -> tuple[str, str]:
        """A topic's title in `language` and the language it is in (English when it has no translation)."""
        translated = self.translations.get(language)
        title = translated.titles.get(topic.id) if translated else None
        return (title, language) if title else (topic.title, ENGLISH)

    def missing_in(self, language: str) -> list[str]:
        """The topics and questions that `language` has no translation of (all of them for a language without)."""
        translated = self.translations.get(language, Translation(language, {}, {}))
        return [f"{topic.id}.txt" for topic in self.topics if topic.id not in translated.titles] + [
            question_id for question_id in self.questions if question_id not in translated.questions]


def load_bank(directory: Path = BANK_DIR) -> Bank:
    """Read and check every topic file of the bank; BankError names the first broken file and line."""
    paths = sorted(directory.glob("*.txt"))
    if not paths:
        raise BankError(directory.name, 0, "The bank has no topic files (*.txt).")
    topics: list[Topic] = []
    english: dict[str, tuple[Topic, list[list[Field]]]] = {}
    first_seen: dict[str, str] = {}
    for path in paths:
        topic, blocks = _load_topic(path)
        for question, block in zip(topic.questions, blocks, strict=True):
            line = block[0].line
            if question.id in first_seen:
                raise BankError(path.name, line, f"The id {question.id!r} is already used in "
                                                 f"{first_seen[question.id]}; every id is used once.")
            first_seen[question.id] = f"{path.name}, line {line}"
        topics.append(topic)
        english[topic.id] = (topic, blocks)
    translations = {
        folder.name: load_translation(folder.name, [
            (path, topic_blocks(path, f"{folder.name}/{path.name}"), english.get(path.stem))
            for path in sorted(folder.glob("*.txt"))])
        for folder in sorted(directory.iterdir()) if folder.is_dir() and _LANGUAGE_DIR.fullmatch(folder.name)
    }
    return Bank(tuple(topics), translations)


def _load_topic(path: Path) -> tuple[Topic, list[list[Field]]]:
    """One topic file, and the fields of each of its questions as written."""
    name = path.name
    if not _TOPIC_ID.fullmatch(path.stem):
        raise BankError(name, 0, "A topic file is named in lowercase letters, digits and underscores, ending in .txt.")
    blocks = topic_blocks(path, name)
    questions = tuple(_question(block, path.stem, name) for block in blocks[1:])
    return Topic(path.stem, blocks[0][0].value, questions), blocks[1:]


def topic_blocks(path: Path, name: str) -> list[list[Field]]:
    """The blocks of a topic file, its title block first; BankError for a file that is not a topic file."""
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
    return blocks


def _blocks(text: str, name: str) -> list[list[Field]]:
    """Fields grouped into blocks split by blank lines; an indented line continues the field above it."""
    blocks: list[list[Field]] = [[]]
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
            blocks[-1][-1] = Field(last.key, f"{last.value} {line.strip()}".strip(), last.line)
            continue
        match = _LINE.fullmatch(line.rstrip())
        if not match:
            raise BankError(name, number, "Expected a field such as 'prompt: …' (a lowercase name, then a colon).")
        if match["key"] not in _ALL_FIELDS:
            known = ", ".join(sorted(_ALL_FIELDS))
            raise BankError(name, number, f"Unknown field {match['key']!r}; the fields are: {known}.")
        blocks[-1].append(Field(match["key"], match["value"].strip(), number))
    return [block for block in blocks if block]


def _question(block: list[Field], topic: str, name: str) -> Question:
    first = block[0].line
    single: dict[str, Field] = {}
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
    common: dict[str, Any] = {"id": question_id.value, "topic": topic, "prompt": single["prompt"].value,
              "explanation": single["explanation"].value if "explanation" in single else ""}
    if kind.value in ("single", "multiple"):
        options = choices(block, name)
        answers = letters(single["answer"], len(options), name, several=kind.value == "multiple")
        # Shown in an order of their own, the same every time, so the right choice is not always where
        # the teacher happened to write it.
        order = choice_order(question_id.value, len(options))
        cls = SingleChoice if kind.value == "single" else MultipleSelect
        return cls(**common, options=tuple(options[i] for i in order),
                   answers=frozenset(order.index(i) for i in answers))
    if "explanation" not in single:
        raise BankError(name, first, f"A {kind.value} question needs an 'explanation:' of its answer.")
    if kind.value == "numeric":
        answer = number_field(single["answer"], name)
        if "figures" in single or FIGURES_ASKED.search(single["prompt"].value):
            if "tolerance" in single:
                raise BankError(name, single["tolerance"].line, "A question that asks for significant figures "
                                "takes 'figures:' instead of 'tolerance:': answers to that many figures count.")
            return Numeric(**common, answer=answer, tolerance=Fraction(0), relative=False,
                           figures=figures(single, answer, name))
        margin, relative = tolerance(single.get("tolerance"), name)
        return Numeric(**common, answer=answer, tolerance=margin, relative=relative, figures=None)
    if "format" not in single:
        raise BankError(name, first, "A bits question needs a 'format:' line with a format id, such as bfloat16.")
    return BitPattern(**common, format=format_field(single["format"], name), answer=bits_field(single, name))
