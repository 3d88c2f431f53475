"""Taking the quiz as a test: the right answer to each question is the test's own knowledge.

A test reads an attempt's stored question ids from the database (a generated question's shown id hides its
parameters), rebuilds each question with question_from_id, as the server does, and reads the answer there. No
response is ever asked for it.
"""

from __future__ import annotations

from collections.abc import Sequence

import jwt
from cryptography.hazmat.primitives import serialization
from sqlalchemy import Engine

from app.quiz import BitPattern, ChoiceQuestion, Numeric, Question, load_bank, question_from_id
from app.quiz import right_answer as quiz_right_answer
from app.store.database import create_database_engine, open_session
from app.store.models import Attempt
from app.web.platform.csrf import TOKEN_HEADER
from tests.helpers.html import Elements

BANK = load_bank()
_STORED: dict[str, str] = {}  # shown id → stored id of every question the tests have seen in an attempt


def learn_ids(database: Engine | str, attempt_id: str, shown_ids: Sequence[str]) -> None:
    """Pair the ids an attempt shows with the stored ids of its database row (an engine, or the URL of a server's
    database), question by question."""
    engine = create_database_engine(database) if isinstance(database, str) else database
    try:
        with open_session(engine) as session:
            attempt = session.get(Attempt, attempt_id)
            assert attempt is not None
            _STORED.update(zip(shown_ids, attempt.question_ids, strict=True))
    finally:
        if isinstance(database, str):
            engine.dispose()


def stored_id(question_id: str) -> str:
    """The id the attempt stores for the question it shows with this id (an id it stores is its own)."""
    return _STORED.get(question_id, question_id)


def stored_question(question_id: str) -> Question:
    """The question shown (or stored) with this id, rebuilt as the server rebuilds it."""
    return question_from_id(BANK, stored_id(question_id))


def right_answer(question_id: str) -> object:
    """The right answer as the API takes it, known by rebuilding the question from its stored id."""
    return quiz_right_answer(stored_question(question_id))


def wrong_answer(question_id: str) -> object:
    """An answer that reads well and is wrong."""
    question = stored_question(question_id)
    if isinstance(question, ChoiceQuestion):
        others = sorted(set(range(len(question.options))) - question.answers)
        return others[0] if question.type == "single" else (others or sorted(question.answers)[1:])
    if isinstance(question, Numeric):
        return str(question.answer * 3 + 1000)
    assert isinstance(question, BitPattern)
    return hex(question.answer ^ 1)


def hidden_texts(question_id: str) -> list[str]:
    """Texts that only feedback may show: the explanations (of every choice too)."""
    question = stored_question(question_id)
    texts = [question.explanation]
    if isinstance(question, ChoiceQuestion):
        texts += [option.explanation for option in question.options]
    return [text for text in texts if len(text) > 20]


def form_value(answer: object) -> str | list[str]:
    """An API answer as a form sends it: indices as strings, one per checked box."""
    if isinstance(answer, list):
        return [str(index) for index in answer]
    return str(answer)


# -- through the API --------------------------------------------------------------------------------------------


def start(client) -> tuple[str, dict[str, str], list[dict]]:
    """A new attempt through the API: its id, the header that owns it, and its public questions."""
    response = client.post("/api/quiz/attempts")
    assert response.status_code == 201
    body = response.json()
    learn_ids(client.app.state.engine, body["attempt_id"], [question["id"] for question in body["questions"]])
    return body["attempt_id"], {TOKEN_HEADER: body["attempt_token"]}, body["questions"]


def take_attempt(client, *, right: int | None = None, name: str = "Ada Lovelace") -> dict:
    """Start an attempt, answer `right` questions right (all when None) and the rest wrong, and finish it."""
    attempt_id, owner, questions = start(client)
    for number, question in enumerate(questions):
        answer = right_answer if right is None or number < right else wrong_answer
        body = {"question_id": question["id"], "answer": answer(question["id"])}
        response = client.post(f"/api/quiz/attempts/{attempt_id}/answers", json=body, headers=owner)
        assert response.status_code == 200, response.text
        assert response.json()["correct"] is (answer is right_answer)
    finished = client.post(f"/api/quiz/attempts/{attempt_id}/finish", json={"name": name}, headers=owner)
    assert finished.status_code == 200, finished.text
    return finished.json()


# -- reading the attempt page -----------------------------------------------------------------------------------


def question_ids(html: str) -> list[str]:
    """The shown ids of an attempt page's questions, in order."""
    return [attrs["data-question-id"] for attrs in Elements(html).having("data-question-id")]


def verdicts(html: str) -> dict[str, str]:
    """Question id to "true" or "false" for every answered question of an attempt page."""
    found: dict[str, str] = {}
    question = ""
    for _, attrs in Elements(html).tags:
        question = attrs.get("data-question-id", question)
        if "data-feedback" in attrs:
            found[question] = attrs["data-correct"]
    return found


def public_key_pem(client) -> bytes:  # type: ignore[no-untyped-def]
    """The site's signing key as PEM, read from its published JWKS, as a verifier gets it."""
    (jwk,) = client.get("/.well-known/jwks.json").json()["keys"]
    return jwt.PyJWK(jwk).key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
