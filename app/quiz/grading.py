"""Grading one answer as it arrives from a form or JSON, and scoring an attempt."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from app.formats import InputError, Real, decimal, decode, get_format, parse_number
from app.quiz.messages import N_, Message
from app.quiz.questions import BitPattern, ChoiceQuestion, Numeric, Question, approx, show_bits
from app.refusal import Refusal

MAX_ANSWER_LENGTH = 200
_BIT_ANSWER = re.compile(r"(?:0x(?P<hex>[0-9a-f]+)|0b(?P<bin>[01]+)|(?P<plain>[01]+))", re.ASCII | re.IGNORECASE)


class AnswerError(Refusal):
    """An answer that cannot be read; the message says what is expected (a 422, never a wrong answer)."""


@dataclass(frozen=True)
class Feedback:
    """The verdict on one answer: whether it is right, the right answer, and why (paragraphs split by a blank line).
    `answer` and `paragraphs` say the same with the core's sentences as messages (app/quiz/messages.py), for the
    web layer to translate; a plain string among them is the question's own text, in the question's language."""

    correct: bool
    correct_answer: str
    explanation: str
    answer: str | Message = field(default="", compare=False)  # the two above, with their messages
    paragraphs: tuple[str | Message, ...] = field(default=(), compare=False)


def _feedback(correct: bool, answer: str | Message, paragraphs: list[str | Message]) -> Feedback:
    kept = tuple(paragraph for paragraph in paragraphs if paragraph)
    return Feedback(correct, str(answer), "\n\n".join(str(paragraph) for paragraph in kept), answer, kept)


def grade(question: Question, answer: object) -> Feedback:
    """Grade one answer; AnswerError when it cannot be read as an answer to this question."""
    if isinstance(question, ChoiceQuestion):
        picked = _read_choices(answer, question)
        return _choices_feedback(question, picked, picked == question.answers)
    if isinstance(question, Numeric):
        text, given = _read_number(answer)
        return _numeric_feedback(question, text, given.is_finite and question.accepts(given.fraction))
    if isinstance(question, BitPattern):
        pattern = _read_bits(question, answer)
        return _bits_feedback(question, pattern, pattern == question.answer)
    raise TypeError(f"no grading for {type(question).__name__}")


def feedback_on(question: Question, stored: str, correct: bool) -> Feedback:
    """The feedback on an answer graded before, from its stored text (answer_text) and its stored verdict: the
    verdict is not judged again, so what a page shows is what the score counted, even after the bank changed."""
    if isinstance(question, ChoiceQuestion):
        picked = frozenset(int(index) for index in re.split(r"[\s,]+", stored.strip()) if index)
        return _choices_feedback(question, picked, correct)
    if isinstance(question, Numeric):
        return _numeric_feedback(question, stored.strip(), correct)
    if isinstance(question, BitPattern):
        return _bits_feedback(question, read_bit_pattern(stored, get_format(question.format).bits), correct)
    raise TypeError(f"no feedback for {type(question).__name__}")


def answer_text(answer: object) -> str:
    """An answer that grade() accepted, as it is stored: choice indices joined by commas, numbers as typed."""
    if isinstance(answer, list):
        return ",".join(str(item) for item in answer)
    return answer if isinstance(answer, str) else repr(answer)


def right_answer(question: Question) -> int | list[int] | str:
    """The right answer in the form grade() reads and the API takes: the index of the one right choice, the
    indices of every right choice, the exact number as a fraction, or the bit pattern in hex."""
    if isinstance(question, ChoiceQuestion):
        indices = sorted(question.answers)
        return indices[0] if question.type == "single" else indices
    if isinstance(question, Numeric):
        return f"{question.answer.numerator}/{question.answer.denominator}"
    if isinstance(question, BitPattern):
        return hex(question.answer)
    raise TypeError(f"no answer form for {type(question).__name__}")


def score(feedbacks: Iterable[Feedback]) -> tuple[int, int]:
    """(right answers, answers)."""
    verdicts = [feedback.correct for feedback in feedbacks]
    return sum(verdicts), len(verdicts)


def passed(score: int, total: int, pass_mark: float = 0.8) -> bool:
    """Whether score/total reaches the pass mark (0.8 means 80%), compared exactly."""
    return total > 0 and Fraction(score, total) >= Fraction(pass_mark).limit_denominator(10_000)


def read_bit_pattern(text: str, width: int) -> int:
    """A pattern typed as hex (0x3c00), binary (0b0011…) or plain binary digits; spaces and underscores ignored."""
    compact = re.sub(r"[\s_]", "", text)
    match = _BIT_ANSWER.fullmatch(compact)
    if not match or len(compact) > MAX_ANSWER_LENGTH:
        raise AnswerError(
            f"Type a {width}-bit pattern in hex (0x3c00), in binary (0b0011110000000000) or as binary digits "
            "(0011 1100 0000 0000)."
        )
    digits, base = (match["hex"], 16) if match["hex"] else (match["bin"] or match["plain"], 2)
    pattern = int(digits, base)
    if pattern >> width:
        raise AnswerError(f"The pattern {text.strip()!r} has more than {width} bits; this format has {width}.")
    return pattern


def _text(answer: object, expected: str) -> str:
    if not isinstance(answer, str) or not answer.strip() or len(answer) > MAX_ANSWER_LENGTH:
        raise AnswerError(f"Expected {expected}.")
    return answer.strip()


def _read_index(item: object, count: int) -> int:
    if isinstance(item, str) and item.strip().isdigit() and len(item) < 10:
        item = int(item)
    if isinstance(item, bool) or not isinstance(item, int) or not 0 <= item < count:
        raise AnswerError(f"Pick a choice by its index, from 0 to {count - 1}.")
    return item


def _read_choices(answer: object, question: ChoiceQuestion) -> frozenset[int]:
    count = len(question.options)
    if question.type == "single":
        if isinstance(answer, list | tuple):
            raise AnswerError(f"Pick exactly one choice, by its index from 0 to {count - 1}.")
        return frozenset({_read_index(answer, count)})
    items = re.split(r"[\s,]+", _text(answer, "indices")) if isinstance(answer, str) else answer
    if not isinstance(items, list | tuple) or not [item for item in items if item != ""]:
        raise AnswerError(f"Pick one or more choices, as a list of indices from 0 to {count - 1} (such as 0,2).")
    return frozenset(_read_index(item, count) for item in items if item != "")


def _choices_feedback(question: ChoiceQuestion, picked: frozenset[int], correct: bool) -> Feedback:
    right = sorted(question.answers)
    paragraphs: list[str | Message] = [question.explanation, *(question.options[i].explanation for i in right)]
    paragraphs += [
        Message(N_("You chose “%(choice)s”: %(explanation)s"),
                {"choice": question.options[i].text, "explanation": question.options[i].explanation})
        for i in sorted(picked - question.answers)
    ]
    return _feedback(correct, "; ".join(question.options[i].text for i in right), paragraphs)


def _read_number(answer: object) -> tuple[str, Real]:
    if isinstance(answer, int | float) and not isinstance(answer, bool):
        answer = repr(answer)  # the shortest decimal that reads back as the JSON number, as it was typed
    text = _text(answer, "a number such as 65504, 6.1e-5, 1/3 or 0x1p-14, without units")
    try:
        return text, parse_number(text)
    except InputError as error:
        raise AnswerError(f"{error} Type a number without units.") from None


def _numeric_feedback(question: Numeric, text: str, correct: bool) -> Feedback:
    paragraphs: list[str | Message] = [question.explanation]
    if not correct:
        paragraphs.insert(0, Message(N_("You answered %(answer)s."), {"answer": text}))
    return _feedback(correct, _numeric_answer(question), paragraphs)


def _numeric_answer(question: Numeric) -> str | Message:
    """The right answer of a numeric question, with the tolerance a person is allowed."""
    text, notes = Real.of(question.answer).exact_string(), []
    if len(text) > 16:
        text, notes = approx(question.answer, question.figures or 3), [Message(N_("exactly %(value)s"),
                                                                               {"value": text})]
    if question.figures:
        notes.append(Message(N_("answers to %(figures)s significant figures count"), {"figures": question.figures}))
    elif question.tolerance:
        margin = decimal(question.tolerance * 100)[0] + "%" if question.relative else decimal(question.tolerance)[0]
        notes.append(Message(N_("answers within %(margin)s count"), {"margin": margin}))
    return Message(N_("%(answer)s (%(notes)s)"), {"answer": text, "notes": tuple(notes)}) if notes else text


def _read_bits(question: BitPattern, answer: object) -> int:
    spec = get_format(question.format)
    return read_bit_pattern(_text(answer, f"a {spec.bits}-bit pattern as text, such as 0x3c00"), spec.bits)


def _bits_feedback(question: BitPattern, given: int, correct: bool) -> Feedback:
    spec = get_format(question.format)
    paragraphs: list[str | Message] = [question.explanation]
    if not correct:
        value = decode(spec, given).value.exact_string()
        paragraphs.insert(0, Message(N_("You entered %(pattern)s, which in %(format)s is %(value)s."),
                                     {"pattern": _bits_message(question.format, given), "format": spec.name,
                                      "value": value}))
    return _feedback(correct, _bits_message(question.format, question.answer), paragraphs)


def _bits_message(format_id: str, bits: int) -> Message:
    """show_bits as a message: 0x3c00 (binary 0 01111 0000000000)."""
    hex_text, _, binary = show_bits(format_id, bits).removesuffix(")").partition(" (binary ")
    return Message(N_("%(hex)s (binary %(binary)s)"), {"hex": hex_text, "binary": binary})
