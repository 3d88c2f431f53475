"""The quiz's JSON API (DESIGN.md section 3), and the attempt steps that the quiz pages share with it.

An API client owns its attempt with the attempt_token it is given, sent back in the X-Attempt-Token header.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field, JsonValue
from sqlalchemy.orm import Session

from app.quiz import (
    AnswerError,
    Bank,
    Feedback,
    Question,
    draw_attempt,
    grade,
    passed,
    public_question,
    question_from_id,
    stored_id,
)
from app.quiz.signing import Signed, certificate_signer
from app.services.metrics import CERTIFICATES_ISSUED
from app.settings import Settings
from app.store.attempts import (
    AlreadyAnswered,
    AttemptFinished,
    QuestionNotDrawn,
    check_name,
    create_attempt,
    finish_attempt,
    get_attempt,
    record_answer,
)
from app.store.models import NAME_MAX_LENGTH, Answer, Attempt
from app.web.shared.csrf import TOKEN_HEADER, new_owner_token
from app.web.shared.deps import ApiTokenDep, BankDep, DbDep, SettingsDep, SigningKeyDep
from app.web.shared.rate_limiting import rate_limited

router = APIRouter(prefix="/api/quiz", tags=["quiz"])

NOT_YOURS = ("There is no such quiz attempt for you: an attempt opens only in the browser that started it "
             f"(through the API: with its attempt_token in the {TOKEN_HEADER} header).")
ANSWERED = "This question has its answer already: each question takes one answer, which is then locked."
FINISHED = "This attempt is finished, so it takes no more answers; start a new one to try again."
NOT_DRAWN = "question_id is not one of this attempt's questions."


def start_attempt(session: Session, bank: Bank, settings: Settings, owner_token: str) -> tuple[Attempt, list[Question]]:
    """Draw a fresh seeded mix of questions and store it as an attempt owned by owner_token."""
    seed = secrets.randbits(62)  # fits the signed 64-bit column on every backend
    questions = draw_attempt(bank, seed, settings.quiz_questions)
    attempt = create_attempt(session, seed, [question.id for question in questions], owner_token)
    return attempt, questions


def owned_attempt(session: Session, attempt_id: str, owner_token: str | None) -> Attempt:
    """The attempt if owner_token started it; the same 404 for an unknown attempt and for someone else's."""
    attempt = get_attempt(session, attempt_id, owner_token) if owner_token and len(attempt_id) <= 64 else None
    if attempt is None:
        raise HTTPException(404, NOT_YOURS)
    return attempt


def answer_text(answer: object) -> str:
    """An answer that grade() accepted, as stored: choice indices joined by commas, numbers as typed."""
    if isinstance(answer, list):
        return ",".join(str(item) for item in answer)
    return answer if isinstance(answer, str) else repr(answer)


def drawn_question_id(attempt: Attempt, shown: str) -> str:
    """The stored id of the attempt's question that is shown as `shown` (app.quiz.shown_id); QuestionNotDrawn
    for none of them."""
    question_id = stored_id(attempt.seed, attempt.question_ids, shown)
    if question_id is None:
        raise QuestionNotDrawn(shown)
    return question_id


def answer_question(session: Session, bank: Bank, attempt: Attempt, shown: str, answer: object) -> Feedback:
    """Grade and lock one answer to the question shown as `shown`; AnswerError, QuestionNotDrawn, AlreadyAnswered
    or AttemptFinished refuse it."""
    question_id = drawn_question_id(attempt, shown)
    feedback = grade(question_from_id(bank, question_id), answer)
    record_answer(session, attempt, question_id, answer_text(answer), feedback.correct)
    return feedback


def finish(session: Session, attempt: Attempt, settings: Settings, key: Ed25519PrivateKey, name: str,
           count_pass: Callable[[], None]) -> Attempt:
    """Score the attempt and close it, issuing the certificate of a pass; a finished one is returned as it is.

    A pass is counted first (count_pass: the per-client limit on certificates, which raises 429 past it and
    leaves the attempt open). ValueError (a sentence) when a passed attempt has no name that can be printed.
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


def result_json(attempt: Attempt) -> dict[str, Any]:
    return {"score": attempt.score, "total": attempt.total, "passed": attempt.passed,
            "certificate_id": attempt.certificate_id}


class AnswerRequest(BaseModel):
    """One answer to one question of the attempt."""

    model_config = ConfigDict(extra="forbid")

    question_id: str = Field(max_length=120, description="The id of one of the attempt's questions.")
    answer: JsonValue = Field(description=(
        "single: the index of the choice (0 for the first); multiple: a list of indices, such as [0, 2]; "
        "numeric: a number, or its text such as \"6.1e-5\", \"1/3\" or \"0x1p-14\"; "
        "bits: the pattern as text, such as \"0x3c00\" or \"0b0011110000000000\"."
    ))


class FinishRequest(BaseModel):
    """The name to print on the certificate, if the attempt passed."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field("", description=f"Needed when the attempt passed: 1 to {NAME_MAX_LENGTH} characters, "
                                      "printed on the certificate and stored with it. Ignored otherwise.")


@router.post(
    "/attempts", status_code=201, dependencies=[rate_limited("attempts")],
    summary="Start an attempt: its questions without answers, and the token that owns it",
    response_description=f"attempt_id, attempt_token (send it back in the {TOKEN_HEADER} header), pass_mark, "
                         "and questions: id, type (single, multiple, numeric or bits), prompt, choices",
    responses={429: {"description": "Too many attempts started from this address; retry after Retry-After seconds"}},
)
def create(session: DbDep, bank: BankDep, settings: SettingsDep) -> dict[str, Any]:
    token = new_owner_token()
    attempt, questions = start_attempt(session, bank, settings, token)
    return {"attempt_id": attempt.id, "attempt_token": token, "pass_mark": settings.pass_mark,
            "questions": [public_question(question, attempt.seed) for question in questions]}


@router.post(
    "/attempts/{attempt_id}/answers",
    summary="Answer one question, once: whether it is right, the right answer, and why",
    responses={404: {"description": "No such attempt for this token"},
               409: {"description": "The question has its answer already, or the attempt is finished"},
               422: {"description": "An answer that cannot be read; the detail says what is expected"}},
)
def answer(attempt_id: str, body: AnswerRequest, session: DbDep, bank: BankDep, token: ApiTokenDep) -> dict[str, Any]:
    attempt = owned_attempt(session, attempt_id, token)
    try:
        feedback = answer_question(session, bank, attempt, body.question_id, body.answer)
    except AnswerError as error:
        raise HTTPException(422, str(error)) from None
    except QuestionNotDrawn:
        raise HTTPException(422, NOT_DRAWN) from None
    except AlreadyAnswered:
        raise HTTPException(409, ANSWERED) from None
    except AttemptFinished:
        raise HTTPException(409, FINISHED) from None
    return {"correct": feedback.correct, "correct_answer": feedback.correct_answer,
            "explanation": feedback.explanation}


@router.post(
    "/attempts/{attempt_id}/finish",
    summary="Finish the attempt: score, pass, and the certificate of a pass (finishing again changes nothing)",
    response_description="score, total, passed, certificate_id (null unless passed)",
    responses={404: {"description": "No such attempt for this token"},
               422: {"description": "A passed attempt without a name that can be printed"}},
)
def finish_api(
    attempt_id: str, body: FinishRequest, request: Request, session: DbDep, settings: SettingsDep,
    key: SigningKeyDep, token: ApiTokenDep,
) -> dict[str, Any]:
    attempt = owned_attempt(session, attempt_id, token)
    try:
        finished = finish(session, attempt, settings, key, body.name,
                          lambda: request.app.state.rate_limits.check(request, "passes"))
    except ValueError as error:
        raise HTTPException(422, str(error)) from None
    return result_json(finished)
