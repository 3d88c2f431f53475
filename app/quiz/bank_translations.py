"""The bank's translations: quiz/<language>/<topic>.txt, a copy of the English topic file with its texts (title,
prompt, choice, explain, explanation) translated and everything else (id, type, answer, tolerance, figures,
format) kept. Each is checked against the English: a question the English has not, another answer or another
number of choices is a BankError. A topic or question left untranslated falls back to the English."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.quiz.bank_fields import BankError, Field, choice_order, choices
from app.quiz.questions import ChoiceQuestion, Question

if TYPE_CHECKING:
    from app.quiz.bank import Topic

ENGLISH = "en"
KEPT = ("type", "answer", "tolerance", "figures", "format")  # graded from the English: kept word for word
TEXTS = ("prompt", "explanation")


@dataclass(frozen=True)
class Translation:
    """One language's texts of the bank: topic titles by topic id, and questions by id. A translated question
    is the English one with other texts: the same id, type, answers, and choices in the same order."""

    language: str
    titles: dict[str, str]
    questions: dict[str, Question]


English = tuple["Topic", list[list[Field]]]  # (Topic, the fields of each question as written)


def load_translation(language: str, files: Sequence[tuple[Path, list[list[Field]], English | None]]) -> Translation:
    """A language's topic files, each with its blocks and the English topic of the same name (None if none)."""
    titles: dict[str, str] = {}
    questions: dict[str, Question] = {}
    for path, blocks, english in files:
        name = f"{language}/{path.name}"
        if english is None:
            raise BankError(name, 0, f"The English bank has no {path.name}: a translation is named as the "
                                     "topic file it translates.")
        topic, written = english
        titles[path.stem] = blocks[0][0].value
        originals = {_value(block, "id"): (question, block)
                     for question, block in zip(topic.questions, written, strict=True)}
        for block in blocks[1:]:
            question = _translated(block, originals, name)
            if question.id in questions:
                raise BankError(name, block[0].line, f"The id {question.id!r} is translated twice.")
            questions[question.id] = question
    return Translation(language, titles, questions)


def _value(block: list[Field], key: str) -> str | None:
    return next((field.value for field in block if field.key == key), None)


def _translated(block: list[Field], originals: dict[str | None, tuple[Question, list[Field]]], name: str) -> Question:
    first = block[0].line
    question_id = _value(block, "id")
    if question_id not in originals:
        raise BankError(name, first, f"The English topic file has no question with the id {question_id!r}; a "
                                     "translation keeps the ids of the English.")
    english, written = originals[question_id]
    seen: set[str] = set()
    for field in block:
        if field.key in ("choice", "explain"):
            continue
        if field.key in seen:
            raise BankError(name, field.line, f"'{field.key}:' appears twice.")
        seen.add(field.key)
    for key in KEPT:
        if _value(block, key) != _value(written, key):
            raise BankError(name, first, f"'{key}:' differs from the English ({_value(written, key)!r}): a "
                                         f"translation keeps {', '.join(KEPT)} as the English has them.")
    texts: dict[str, str] = {}
    for key in TEXTS:
        value, original = _value(block, key), _value(written, key)
        if bool(value) != bool(original):
            raise BankError(name, first, f"The English question {question_id!r} has {'an' if original else 'no'} "
                                         f"'{key}:'; its translation must have {'one' if original else 'none'}.")
        texts[key] = value or ""
    if not isinstance(english, ChoiceQuestion):
        if any(field.key in ("choice", "explain") for field in block):
            raise BankError(name, first, f"The English question {question_id!r} has no choices.")
        return dataclasses.replace(english, prompt=texts["prompt"], explanation=texts["explanation"])
    options = choices(block, name)
    if len(options) != len(english.options):
        raise BankError(name, first, f"The English question {question_id!r} has {len(english.options)} choices, "
                                     f"this translation {len(options)}: translate each, in the same order.")
    order = choice_order(english.id, len(options))
    return dataclasses.replace(english, prompt=texts["prompt"], explanation=texts["explanation"],
                               options=tuple(options[i] for i in order))
