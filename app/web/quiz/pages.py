"""The quiz pages: /quiz, one attempt at /quiz/attempts/{id}, and the forms that start, answer and finish it.

Every form posts with a CSRF token and works with JavaScript off (the post redirects back to the attempt);
with htmx an answer swaps only its question's block, now locked and showing the feedback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any, NamedTuple

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel
from sqlalchemy.orm import Session

from app.deps import BankDep, DbDep, HtmxDep, SettingsDep, SigningKeyDep, rate_limited
from app.quiz import (
    MAX_ANSWER_LENGTH,
    Bank,
    ChoiceQuestion,
    public_question,
)
from app.refusal import Refusal
from app.services.quiz_attempts import (
    NAME_MAX_LENGTH,
    Attempt,
    Reviewed,
    answer_question,
    drawn_question_id,
    finish,
    owned_attempt,
    review,
    start_attempt,
)
from app.settings import Settings
from app.web.platform.catalogs import N_, gettext
from app.web.platform.csrf import check_csrf, csrf_token_for, new_owner_token, owner_cookie, set_owner_cookie
from app.web.platform.decimal_comma import typed_number
from app.web.platform.languages import ENGLISH_CODE, current_language
from app.web.platform.rate_limiting import count_request
from app.web.platform.rendering import render
from app.web.quiz.localised import ShownFeedback, question_in_page_language, quiz_name, shown_feedback, topic_titles

router = APIRouter()

NO_ANSWER = N_("Give an answer first: pick a choice, or type your answer in the box.")


class Sentence(NamedTuple):
    """A refusal's sentence and its language: the core's and the store's refusals are English."""

    text: str
    language: str


@dataclass(frozen=True)
class QuestionView:
    """What a page shows of one question: its public view in the language of its texts (`language`: the page's,
    or English where the bank has no translation) and, once answered, the answer given and the feedback."""

    number: int
    public: dict[str, object]
    language: str
    given: str | None = None
    picked: frozenset[int] = frozenset()
    feedback: ShownFeedback | None = None
    error: Sentence | None = None
    typed: str = ""  # what a refused answer said, to type it again


class Refused(NamedTuple):
    """An answer that was not taken: to which question, why, and what was typed."""

    question_id: str
    sentence: Sentence
    typed: str


class AnswerForm(BaseModel):
    csrf_token: str = ""
    question_id: str = ""
    answer: list[str] = []


def _view(bank: Bank, reviewed: Reviewed, seed: int, refused: Refused | None) -> QuestionView:
    question, language = question_in_page_language(bank, reviewed.question)
    public = public_question(question, seed)
    mine = refused is not None and refused.question_id == reviewed.question.id
    error, typed = (refused.sentence, refused.typed) if refused and mine else (None, "")
    if reviewed.given is None or reviewed.feedback is None:
        return QuestionView(reviewed.number, public, language, error=error, typed=typed)
    indices = re.split(r"[\s,]+", reviewed.given.strip()) if isinstance(reviewed.question, ChoiceQuestion) else []
    picked = frozenset(int(index) for index in indices if index)
    feedback = shown_feedback(question, reviewed.given, reviewed.feedback)
    return QuestionView(reviewed.number, public, language, reviewed.given, picked, feedback, error)


def _attempt_context(
    attempt: Attempt, bank: Bank, settings: Settings, csrf: str, refused: Refused | None = None, **extra: Any
) -> dict[str, Any]:
    """Everything the attempt page shows, with the sentence of a refused answer at its question."""
    views = [_view(bank, reviewed, attempt.seed, refused) for reviewed in review(bank, attempt)]
    return {
        "attempt": attempt, "questions": views, "total": len(views),
        "answered": sum(view.feedback is not None for view in views),
        "right": sum(view.feedback.correct for view in views if view.feedback),
        "pass_percent": round(settings.pass_mark * 100), "quiz_name": quiz_name(settings.quiz_name),
        "csrf_token": csrf, "name": "", "finish_error": None,
        "focus": None, "oob": False, **extra,
    }


def _take_answer(
    session: Session, bank: Bank, attempt: Attempt, question_id: str, values: list[str]
) -> Sentence | None:
    """Grade and lock the answer a form sent (one value, or one per checked box); None, or why it was refused."""
    if not values:
        return Sentence(gettext(NO_ANSWER), current_language().code)
    try:
        answer_question(session, bank, attempt, question_id, values[0] if len(values) == 1 else values)
    except Refusal as refused:
        return Sentence(str(refused), ENGLISH_CODE)
    return None


@router.get("/quiz", include_in_schema=False)
def quiz_page(request: Request, bank: BankDep, settings: SettingsDep, key: SigningKeyDep) -> HTMLResponse:
    token = owner_cookie(request, key) or new_owner_token()
    context = {"topics": topic_titles(bank, bank.topics), "settings": settings,
               "quiz_name": quiz_name(settings.quiz_name), "pass_percent": round(settings.pass_mark * 100),
               "csrf_token": csrf_token_for(key, token)}
    response = render(request, "quiz.html", context, fragment="content")
    set_owner_cookie(response, request, token, settings, key)  # refreshed on every visit, so it lasts while in use
    response.headers["Cache-Control"] = "no-store"  # it holds this browser's CSRF token
    return response


@router.post("/quiz/attempts", dependencies=[rate_limited("attempts")], include_in_schema=False)
def start(
    request: Request, session: DbDep, bank: BankDep, settings: SettingsDep, key: SigningKeyDep,
    csrf_token: Annotated[str, Form()] = "",
) -> Response:
    owner = check_csrf(request, key, csrf_token)
    attempt, _ = start_attempt(session, bank, settings, owner, current_language().code)
    return RedirectResponse(f"/quiz/attempts/{attempt.id}", status_code=303)


@router.get("/quiz/attempts/{attempt_id}", include_in_schema=False)
def attempt_page(
    attempt_id: str, request: Request, session: DbDep, bank: BankDep, settings: SettingsDep, key: SigningKeyDep
) -> HTMLResponse:
    token = owner_cookie(request, key)
    attempt = owned_attempt(session, attempt_id, token)
    context = _attempt_context(attempt, bank, settings, csrf_token_for(key, token or ""))
    response = render(request, "quiz_attempt.html", context, fragment="attempt")
    response.headers["Cache-Control"] = "no-store"
    return response


@router.post("/quiz/attempts/{attempt_id}/answers", include_in_schema=False)
def answer(
    attempt_id: str, request: Request, form: Annotated[AnswerForm, Form()], session: DbDep, bank: BankDep,
    settings: SettingsDep, key: SigningKeyDep, htmx: HtmxDep,
) -> Response:
    owner = check_csrf(request, key, form.csrf_token)
    attempt = owned_attempt(session, attempt_id, owner)
    question_id = drawn_question_id(attempt, form.question_id)
    values = [typed_number(value) for value in form.answer if value.strip()]  # 0,1 on a Turkish page
    error = _take_answer(session, bank, attempt, form.question_id, values)
    number = attempt.question_ids.index(question_id) + 1
    if error is None and not htmx:
        return RedirectResponse(f"/quiz/attempts/{attempt.id}#question-{number}", status_code=303)
    typed = values[0][:MAX_ANSWER_LENGTH] if len(values) == 1 else ""
    refused = Refused(question_id, error, typed) if error else None
    context = _attempt_context(attempt, bank, settings, csrf_token_for(key, owner), refused,
                               focus=form.question_id, oob=htmx)
    context["question"] = context["questions"][number - 1]
    return render(request, "quiz_attempt.html", context, fragment="question", status_code=422 if error else 200)


@router.post("/quiz/attempts/{attempt_id}/finish", include_in_schema=False)
def finish_page(
    attempt_id: str, request: Request, session: DbDep, bank: BankDep, settings: SettingsDep, key: SigningKeyDep,
    csrf_token: Annotated[str, Form()] = "", name: Annotated[str, Form()] = "",
) -> Response:
    owner = check_csrf(request, key, csrf_token)
    attempt = owned_attempt(session, attempt_id, owner)
    try:
        finish(session, attempt, settings, key, name, lambda: count_request(request, "passes"))
    except Refusal as refused:  # a name that cannot be printed
        context = _attempt_context(attempt, bank, settings, csrf_token_for(key, owner),
                                   finish_error=Sentence(str(refused), ENGLISH_CODE), name=name[:NAME_MAX_LENGTH])
        return render(request, "quiz_attempt.html", context, fragment="finish", status_code=422)
    return RedirectResponse(f"/quiz/attempts/{attempt.id}#result", status_code=303)
