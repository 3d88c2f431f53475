"""The fields of a question block in a topic file, read and checked: choices and their explanations, answer
letters, numbers, tolerances, significant figures, formats and bit patterns. Each refusal is a BankError with
the file, the line and a sentence."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from fractions import Fraction

from app.formats import SCALAR_FORMATS, InputError, get_format, parse_number
from app.quiz.grading import AnswerError, read_bit_pattern
from app.quiz.questions import Choice

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_COUNTS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
FIGURES_ASKED = re.compile(r"\b(?P<count>\d+|" + "|".join(_COUNTS) + r")\s+significant\s+(?:figures?|digits?)\b",
                            re.IGNORECASE)
_SCALAR_IDS = {spec.id for spec in SCALAR_FORMATS}


class BankError(ValueError):
    """A topic file that breaks the schema: the file, the line and what is wrong."""

    def __init__(self, file: str, line: int, sentence: str) -> None:
        super().__init__(f"{file}, line {line}: {sentence}")
        self.file, self.line, self.sentence = file, line, sentence


@dataclass(frozen=True)
class Field:
    key: str
    value: str
    line: int


def choices(block: list[Field], name: str) -> tuple[Choice, ...]:
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
    if not 2 <= len(options) <= len(LETTERS):
        raise BankError(name, block[0].line, f"A choice question has 2 to {len(LETTERS)} choices, not {len(options)}.")
    return tuple(options)


def choice_order(question_id: str, count: int) -> list[int]:
    """The order a question's choices are shown in, by their place in the file: its own, the same every time
    and in every language, so the right choice is not always where the teacher happened to write it."""
    return random.Random(question_id).sample(range(count), count)


def letters(field: Field, count: int, name: str, several: bool) -> frozenset[int]:
    letters = [part for part in re.split(r"[\s,]+", field.value.upper()) if part]
    last = LETTERS[count - 1]
    if not several and len(letters) != 1:
        raise BankError(name, field.line, f"A single-choice answer is one letter, A to {last}.")
    indices: set[int] = set()
    for letter in letters:
        if len(letter) != 1 or letter not in LETTERS[:count]:
            raise BankError(name, field.line,
                            f"The answer {letter!r} is not a choice: there are {count} choices, A to {last}.")
        indices.add(LETTERS.index(letter))
    return frozenset(indices)


def number_field(field: Field, name: str) -> Fraction:
    try:
        value = parse_number(field.value)
    except InputError as error:
        raise BankError(name, field.line, str(error)) from None
    if not value.is_finite:
        raise BankError(name, field.line, f"'{field.key}:' is a finite number.")
    return value.fraction


def tolerance(field: Field | None, name: str) -> tuple[Fraction, bool]:
    if field is None:
        return Fraction(0), False
    relative = field.value.endswith("%")
    tolerance = number_field(Field(field.key, field.value.removesuffix("%").strip(), field.line), name)
    if tolerance < 0:
        raise BankError(name, field.line, "A tolerance is zero or positive: 0.5 (absolute) or 1% (relative).")
    return (tolerance / 100, True) if relative else (tolerance, False)


def figures(single: dict[str, Field], answer: Fraction, name: str) -> int:
    """The count of 'figures:', which the prompt must ask for in the same words: the grade follows the prompt."""
    prompt = single["prompt"]
    asked = FIGURES_ASKED.search(prompt.value)
    if "figures" not in single:
        raise BankError(name, prompt.line, f"The prompt asks for {asked and asked[0]}; add 'figures:' with that "
                                           "count, so that answers rounded as asked count.")
    field = single["figures"]
    if not field.value.isdigit() or not 1 <= int(field.value) <= len(_COUNTS):
        raise BankError(name, field.line, f"'figures:' is a count of significant figures, 1 to {len(_COUNTS)}.")
    figures = int(field.value)
    if asked is None or count_field(asked["count"]) != figures:
        raise BankError(name, field.line, f"'figures: {figures}' needs a prompt that asks for "
                                          f"{_COUNTS[figures - 1]} significant figures, in those words.")
    if not answer:
        raise BankError(name, single["answer"].line, "Significant figures need a nonzero answer.")
    return figures


def count_field(word: str) -> int:
    return int(word) if word.isdigit() else _COUNTS.index(word.lower()) + 1


def format_field(field: Field, name: str) -> str:
    if field.value not in _SCALAR_IDS:
        raise BankError(name, field.line, f"Unknown format {field.value!r}; use a scalar format id such as "
                                          "float16, bfloat16 or float8_e4m3fn.")
    return field.value


def bits_field(single: dict[str, Field], name: str) -> int:
    try:
        return read_bit_pattern(single["answer"].value, get_format(single["format"].value).bits)
    except AnswerError as error:
        raise BankError(name, single["answer"].line, str(error)) from None
