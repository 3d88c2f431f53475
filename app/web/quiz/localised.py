"""The quiz in the page's language: the bank's translations of a question (the English where it has none, said
to be English), a generated question's messages and the core's feedback sentences (app.quiz.messages) through the
catalogs, and the wording of a certificate's credential in the language its attempt was taken in."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass

from app.quiz import Bank, Choice, ChoiceQuestion, Feedback, Message, Question, Topic, Wording, feedback_on, fill
from app.web.platform.catalogs import N_, gettext, translations
from app.web.platform.languages import ENGLISH_CODE, current_language

# Settings.quiz_name's default, marked so that the catalogs translate it; a quiz named otherwise is shown as named.
QUIZ_NAME = N_("Number formats and mixed precision")


def say(message: str | Message) -> str:
    """A core message in the current language, its parameters filled in (text as it is: already in its language)."""
    if isinstance(message, str):
        return message
    return fill(gettext(message.template), message.params, say)


@dataclass(frozen=True)
class Shown:
    """A text and the language it is in, for `lang` on a passage that fell back to English."""

    text: str
    language: str

    @property
    def foreign(self) -> str | None:
        """The passage's lang attribute when it differs from the page's; None when it is the page's language."""
        return self.language if self.language != current_language().code else None


def quiz_name(name: str) -> Shown:
    """The quiz's name in the current language, when the catalogs have it."""
    translated = gettext(name)
    code = current_language().code
    return Shown(translated, code if translated != name or code == ENGLISH_CODE else ENGLISH_CODE)


def topic_titles(bank: Bank, topics: tuple[Topic, ...]) -> list[Shown]:
    return [Shown(*bank.title_in(topic, current_language().code)) for topic in topics]


@dataclass(frozen=True)
class ShownFeedback:
    """The feedback on an answer as the page shows it: whether right, the right answer and the paragraphs, in
    the current language (the question's own texts in the language they are in)."""

    correct: bool
    correct_answer: str
    paragraphs: list[str]


def question_in_page_language(bank: Bank, question: Question) -> tuple[Question, str]:
    """The question in the current language, or the English one; and the language it is in. A generated question
    is worded from its messages when the catalog translates every one of them (else it is shown in English)."""
    code = current_language().code
    if question.messages is None:
        return bank.question_in(question, code)
    parts = [*question.messages, *(part for option in _options(question) for part in option.messages or ())]
    if code == ENGLISH_CODE or not all(_translated(part) for part in parts):
        return question, ENGLISH_CODE
    prompt, explanation = question.messages
    worded = dataclasses.replace(question, prompt=say(prompt), explanation=say(explanation))
    if isinstance(worded, ChoiceQuestion):
        worded = dataclasses.replace(worded, options=tuple(_worded(option) for option in worded.options))
    return worded, code


def _options(question: Question) -> tuple[Choice, ...]:
    return question.options if isinstance(question, ChoiceQuestion) else ()


def _worded(option: Choice) -> Choice:
    if option.messages is None:
        return option
    text, why = option.messages
    return Choice(say(text), say(why), option.messages)


def _translated(part: str | Message) -> bool:
    """Whether the current language's catalog translates the message and every message among its parameters (a
    plain string is a name or a value: the same in every language)."""
    catalog = getattr(translations(current_language().code), "_catalog", {})  # what the .mo holds: no empty entry
    return all(message.template in catalog for message in _messages(part))


def _messages(part: object) -> Iterator[Message]:
    if isinstance(part, Message):
        yield part
        for value in part.params.values():
            yield from _messages(value)
    elif isinstance(part, tuple):
        for item in part:
            yield from _messages(item)


def shown_feedback(question: Question, given: str, feedback: Feedback) -> ShownFeedback:
    """The stored verdict on `given`, worded for `question` (a translation of the one graded: the same answers)."""
    worded = feedback_on(question, given, feedback.correct)
    return ShownFeedback(worded.correct, say(worded.answer), [say(paragraph) for paragraph in worded.paragraphs])


def credential_wording(language: str) -> Wording:
    """The credential's sentences in the language of the attempt (English for an attempt before languages)."""
    return Wording(language, translations(language).gettext) if language != ENGLISH_CODE else Wording()
