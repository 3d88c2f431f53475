"""The quiz's JSON API (DESIGN.md section 3): routes over the attempt workflow in app/services/quiz_attempts.py.

An API client owns its attempt with the attempt_token it is given, sent back in the X-Attempt-Token header.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from app.deps import ApiTokenDep, BankDep, DbDep, SettingsDep, SigningKeyDep, rate_limited
from app.quiz import public_question
from app.services.quiz_attempts import (
    NAME_MAX_LENGTH,
    TOKEN_HEADER,
    Attempt,
    answer_question,
    finish,
    owned_attempt,
    start_attempt,
)
from app.web.platform.csrf import new_owner_token
from app.web.platform.rate_limiting import count_request
from app.web.platform.schemas import UNREADABLE_BODY, refused
from app.web.quiz.schemas import FinishedAttemptAnswer, NewAttemptAnswer, VerdictAnswer

router = APIRouter(prefix="/api/quiz", tags=["quiz"])


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
    response_model=NewAttemptAnswer, response_model_exclude_unset=True,  # a typed answer's question has no choices
    responses={429: refused("Too many attempts started from this address; retry after Retry-After seconds")},
)
def create(session: DbDep, bank: BankDep, settings: SettingsDep) -> dict[str, Any]:
    token = new_owner_token()
    attempt, questions = start_attempt(session, bank, settings, token)
    return {"attempt_id": attempt.id, "attempt_token": token, "pass_mark": settings.pass_mark,
            "questions": [public_question(question, attempt.seed) for question in questions]}


@router.post(
    "/attempts/{attempt_id}/answers",
    summary="Answer one question, once: whether it is right, the right answer, and why",
    response_model=VerdictAnswer,
    responses={400: UNREADABLE_BODY,
               404: refused("No such attempt for this token"),
               409: refused("The question has its answer already, the attempt is finished, or the question bank "
                            "changed since it began"),
               422: refused("An answer that cannot be read; the detail says what is expected")},
)
def answer(attempt_id: str, body: AnswerRequest, session: DbDep, bank: BankDep, token: ApiTokenDep) -> dict[str, Any]:
    attempt = owned_attempt(session, attempt_id, token)
    feedback = answer_question(session, bank, attempt, body.question_id, body.answer)
    return {"correct": feedback.correct, "correct_answer": feedback.correct_answer,
            "explanation": feedback.explanation}


@router.post(
    "/attempts/{attempt_id}/finish",
    summary="Finish the attempt: score, pass, and the certificate of a pass (finishing again changes nothing)",
    response_description="score, total, passed, certificate_id (null unless passed)",
    response_model=FinishedAttemptAnswer,
    responses={400: UNREADABLE_BODY,
               404: refused("No such attempt for this token"),
               422: refused("A passed attempt without a name that can be printed"),
               429: refused("Too many certificates earned from this address today; the attempt stays open")},
)
def finish_api(
    attempt_id: str, body: FinishRequest, request: Request, session: DbDep, settings: SettingsDep,
    key: SigningKeyDep, token: ApiTokenDep,
) -> dict[str, Any]:
    attempt = owned_attempt(session, attempt_id, token)
    finished = finish(session, attempt, settings, key, body.name,
                      lambda: count_request(request, "passes"))
    return result_json(finished)
