"""The quiz attempt workflow, for the quiz pages and the JSON API alike: start an attempt (a seeded draw),
answer its questions once each, review what was answered, and finish (score, and the certificate of a pass).

An attempt belongs to the owner token that started it: the browser's cookie, or an API client's X-Attempt-Token.
Every refusal is a Refusal with its sentence (app/refusal.py), answered alike by the pages and the API.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy.orm import Session

from app.quiz import (
    Bank,
    Feedback,
    Question,
    Signed,
    answer_text,
    certificate_signer,
    draw_attempt,
    feedback_on,
    grade,
    passed,
    question_from_id,
    stored_id,
)
from app.refusal import NotFound
from app.services.metrics import CERTIFICATES_ISSUED
from app.settings import Settings
from app.store.attempts import (
    AlreadyAnswered,
    AttemptFinished,
    QuestionNotDrawn,
    UnprintableName,
    check_name,
    create_attempt,
    finish_attempt,
    get_attempt,
    record_answer,
)
from app.store.models import NAME_MAX_LENGTH, Answer, Attempt

__all__ = ["NAME_MAX_LENGTH", "TOKEN_HEADER", "AlreadyAnswered", "Attempt", "AttemptFinished", "NoSuchAttempt",
           "QuestionNotDrawn", "Reviewed", "UnprintableName", "answer_question", "drawn_question_id", "finish",
           "owned_attempt", "review", "start_attempt"]

TOKEN_HEADER = "X-Attempt-Token"
_LONGEST_ID = 64  # more than an attempt id has


class NoSuchAttempt(NotFound):
    """The same refusal for an unknown attempt and for someone else's."""

    def __init__(self) -> None:
        super().__init__("There is no such quiz attempt for you: an attempt opens only in the browser that started "
                         f"it (through the API: with its attempt_token in the {TOKEN_HEADER} header).")


def start_attempt(session: Session, bank: Bank, settings: Settings, owner_token: str,
                  language: str = "en") -> tuple[Attempt, list[Question]]:
    """Draw a fresh seeded mix of questions and store it as an attempt owned by owner_token, taken in `language`
    (its certificate speaks it)."""
    seed = secrets.randbits(62)  # fits the signed 64-bit column on every backend
    questions = draw_attempt(bank, seed, settings.quiz_questions)
    attempt = create_attempt(session, seed, [question.id for question in questions], owner_token, language)
    return attempt, questions


def owned_attempt(session: Session, attempt_id: str, owner_token: str | None) -> Attempt:
    """The attempt if owner_token started it; NoSuchAttempt for an unknown attempt and for someone else's."""
    attempt = get_attempt(session, attempt_id, owner_token) if owner_token and len(attempt_id) <= _LONGEST_ID else None
    if attempt is None:
        raise NoSuchAttempt()
    return attempt


def drawn_question_id(attempt: Attempt, shown: str) -> str:
    """The stored id of the attempt's question that is shown as `shown` (app.quiz.shown_id); QuestionNotDrawn
    for none of them."""
    question_id = stored_id(attempt.seed, attempt.question_ids, shown)
    if question_id is None:
        raise QuestionNotDrawn()
    return question_id


def answer_question(session: Session, bank: Bank, attempt: Attempt, shown: str, answer: object) -> Feedback:
    """Grade and lock one answer to the question shown as `shown`; AnswerError, QuestionNotDrawn, AlreadyAnswered
    or AttemptFinished refuse it."""
    question_id = drawn_question_id(attempt, shown)
    feedback = grade(question_from_id(bank, question_id), answer)
    record_answer(session, attempt, question_id, answer_text(answer), feedback.correct)
    return feedback


@dataclass(frozen=True)
class Reviewed:
    """One question of an attempt as a page shows it: the question, and once answered the answer as stored and
    the feedback on it (its stored verdict, not judged again)."""

    number: int
    question: Question
    given: str | None
    feedback: Feedback | None


def review(bank: Bank, attempt: Attempt) -> list[Reviewed]:
    """Every question of the attempt in order, with its stored answer and that answer's feedback."""
    answers = {answer.question_id: answer for answer in attempt.answers}
    reviewed = []
    for number, question_id in enumerate(attempt.question_ids, start=1):
        question = question_from_id(bank, question_id)
        stored = answers.get(question_id)
        feedback = feedback_on(question, stored.answer, stored.correct) if stored else None
        reviewed.append(Reviewed(number, question, stored.answer if stored else None, feedback))
    return reviewed


def finish(session: Session, attempt: Attempt, settings: Settings, key: Ed25519PrivateKey, name: str,
           count_pass: Callable[[], None]) -> Attempt:
    """Score the attempt and close it, issuing the certificate of a pass; a finished one is returned as it is.

    A pass is counted first (count_pass: the per-client limit on certificates, which refuses past it and leaves
    the attempt open). UnprintableName when a passed attempt has no name that can be printed.
    """
    if attempt.finished_at is not None:
        return attempt
    total = len(attempt.question_ids)
    right_so_far = sum(answer.correct for answer in attempt.answers)
    if passed(right_so_far, total, settings.pass_mark):
        check_name(name.strip())  # a name that cannot be printed is refused before the pass is counted
        count_pass()

    def result(answers: Sequence[Answer]) -> tuple[int, int, bool]:
        right = sum(answer.correct for answer in answers)
        return right, total, passed(right, total, settings.pass_mark)

    sign = certificate_signer(key)
    signed: list[Mapping[str, object]] = []

    def issue(payload: Mapping[str, object]) -> Signed:
        # Called only by the finish that issues a certificate (of two racing ones, the winner), before it commits.
        signed.append(payload)
        return sign(payload)

    finished = finish_attempt(session, attempt, name=name.strip(), quiz=settings.quiz_name, result=result,
                              issue=issue)
    if signed:
        CERTIFICATES_ISSUED.inc()
    return finished
