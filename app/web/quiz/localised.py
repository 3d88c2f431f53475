"""The quiz in the page's language: the bank's translations of a question (the English where it has none, said
to be English), the core's feedback sentences (app.quiz.messages) through the catalogs, and the wording of a
certificate's credential in the language its attempt was taken in."""

from __future__ import annotations

from dataclasses import dataclass

from app.quiz import Bank, Feedback, Message, Question, Topic, Wording, feedback_on, fill
from app.web.platform.languages import ENGLISH_CODE, current_language
from app.web.platform.translations import N_, gettext, translations

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
    """The question in the current language, or the English one; and the language it is in."""
    return bank.question_in(question, current_language().code)


def shown_feedback(question: Question, given: str, feedback: Feedback) -> ShownFeedback:
    """The stored verdict on `given`, worded for `question` (a translation of the one graded: the same answers)."""
    worded = feedback_on(question, given, feedback.correct)
    return ShownFeedback(worded.correct, say(worded.answer), [say(paragraph) for paragraph in worded.paragraphs])


def credential_wording(language: str) -> Wording:
    """The credential's sentences in the language of the attempt (English for an attempt before languages)."""
    return Wording(language, translations(language).gettext) if language != ENGLISH_CODE else Wording()
