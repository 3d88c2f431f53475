"""The quiz's JSON API through TestClient: whole attempts passed and failed, locked answers, owners, refusals.

The right answer to each question is the test's own knowledge (tests/helpers/quiz.py): it reads the attempt's
stored question ids from the database (a generated question's shown id hides its parameters), rebuilds each
question with question_from_id, as the server does, and reads the answer there. No response is ever asked for it.
"""

from __future__ import annotations

import json
import re

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from app.main import create_app
from app.quiz import Numeric
from app.settings import Settings
from app.store.attempts import QuestionNotDrawn
from app.store.certificates import list_certificates
from app.store.database import open_session
from app.web.platform.csrf import TOKEN_HEADER, signed_owner
from tests.helpers.quiz import (
    hidden_texts,
    learn_ids,
    right_answer,
    start,
    stored_id,
    stored_question,
    take_attempt,
    wrong_answer,
)
from tests.helpers.refusals import is_sentence

QUESTION_FIELDS = {"id", "type", "prompt", "choices"}


def test_starting_gives_the_questions_without_answers_and_a_token(client):
    response = client.post("/api/quiz/attempts")
    body = response.json()
    assert set(body) == {"attempt_id", "attempt_token", "pass_mark", "questions"}
    assert len(body["questions"]) == 12 and body["pass_mark"] == 0.8
    learn_ids(client.app.state.engine, body["attempt_id"], [question["id"] for question in body["questions"]])
    for question in body["questions"]:
        assert set(question) <= QUESTION_FIELDS and question["type"] in ("single", "multiple", "numeric", "bits")
        assert ("choices" in question) == (question["type"] in ("single", "multiple"))
        for text in hidden_texts(question["id"]):
            assert text not in response.text
    assert "set-cookie" not in response.headers  # the API owns attempts by header, never by cookie


def test_a_generated_questions_id_does_not_show_its_parameters(client):
    attempt_id, owner, questions = start(client)
    generated = [(question["id"], stored_id(question["id"])) for question in questions
                 if stored_id(question["id"]).startswith("gen:")]
    assert len(generated) == 6  # half the attempt
    for shown, stored in generated:
        assert re.fullmatch(r"gen-[a-z2-7]{16}", shown)
        assert not any(parameter.lower() in shown for parameter in stored.split(":")[1:] if len(parameter) > 2)
    # The stored id, which holds the parameters, is not an id the attempt takes.
    url = f"/api/quiz/attempts/{attempt_id}/answers"
    refused = client.post(url, json={"question_id": generated[0][1], "answer": "1"}, headers=owner)
    assert refused.status_code == 422 and refused.json()["detail"] == str(QuestionNotDrawn())


def test_two_attempts_draw_different_questions(client):
    assert {q["id"] for q in start(client)[2]} != {q["id"] for q in start(client)[2]}


def test_a_whole_attempt_answered_right_passes_and_its_certificate_verifies(client):
    result = take_attempt(client, name="Grace Hopper")
    assert result["score"] == result["total"] == 12 and result["passed"] is True
    certificate = client.get(f"/api/certificates/{result['certificate_id']}").json()
    assert certificate["name"] == "Grace Hopper" and certificate["score"] == 12 and certificate["total"] == 12
    assert certificate["status"] == "valid" and certificate["signature_valid"] is True
    assert certificate["quiz"] == "Number formats and mixed precision"
    assert set(certificate) >= {"id", "name", "quiz", "score", "issued_at", "status", "signature_valid"}


def test_a_failed_attempt_gets_no_certificate_and_needs_no_name(client):
    result = take_attempt(client, right=0, name="")
    assert result == {"score": 0, "total": 12, "passed": False, "certificate_id": None}
    with open_session(client.app.state.engine) as session:
        assert list_certificates(session) == []


@pytest.mark.parametrize(("right", "passed"), [(10, True), (9, False)])
def test_the_pass_mark_is_eighty_percent(client, right, passed):
    result = take_attempt(client, right=right)
    assert result["score"] == right and result["passed"] is passed
    assert (result["certificate_id"] is not None) is passed


def test_each_answer_gets_the_verdict_the_right_answer_and_why(client):
    attempt_id, owner, questions = start(client)
    first, second = questions[0]["id"], questions[1]["id"]
    right = client.post(f"/api/quiz/attempts/{attempt_id}/answers",
                        json={"question_id": first, "answer": right_answer(first)}, headers=owner).json()
    wrong = client.post(f"/api/quiz/attempts/{attempt_id}/answers",
                        json={"question_id": second, "answer": wrong_answer(second)}, headers=owner).json()
    assert set(right) == set(wrong) == {"correct", "correct_answer", "explanation"}
    assert right["correct"] is True and wrong["correct"] is False
    assert right["correct_answer"] and wrong["explanation"]


def test_a_second_answer_is_refused_even_when_it_is_right(client):
    attempt_id, owner, questions = start(client)
    question_id = questions[0]["id"]
    url = f"/api/quiz/attempts/{attempt_id}/answers"
    assert client.post(url, json={"question_id": question_id, "answer": wrong_answer(question_id)},
                       headers=owner).status_code == 200
    again = client.post(url, json={"question_id": question_id, "answer": right_answer(question_id)}, headers=owner)
    assert again.status_code == 409 and is_sentence(again.json()["detail"])
    result = client.post(f"/api/quiz/attempts/{attempt_id}/finish", json={}, headers=owner).json()
    assert result["score"] == 0


def test_finishing_twice_gives_the_same_result_and_a_finished_attempt_takes_no_answers(client):
    attempt_id, owner, questions = start(client)
    for question in questions:
        client.post(f"/api/quiz/attempts/{attempt_id}/answers",
                    json={"question_id": question["id"], "answer": right_answer(question["id"])}, headers=owner)
    url = f"/api/quiz/attempts/{attempt_id}/finish"
    first = client.post(url, json={"name": "Ada"}, headers=owner).json()
    second = client.post(url, json={"name": "Someone Else"}, headers=owner).json()
    assert first == second and first["passed"] is True
    assert client.get(f"/api/certificates/{first['certificate_id']}").json()["name"] == "Ada"


def test_unanswered_questions_count_as_wrong(client):
    attempt_id, owner, _ = start(client)
    result = client.post(f"/api/quiz/attempts/{attempt_id}/finish", json={"name": "Ada"}, headers=owner).json()
    assert result == {"score": 0, "total": 12, "passed": False, "certificate_id": None}
    refused = client.post(f"/api/quiz/attempts/{attempt_id}/answers",
                          json={"question_id": "fp16-max", "answer": 0}, headers=owner)
    assert refused.status_code in (409, 422)


@pytest.mark.parametrize("name", ["", "   ", "x" * 201, "Ada\nLovelace", "Tab\there", "\u202eecalevoL adA",
                                  "Ada\u200bLovelace", "Ada \u2067Lovelace", "Z" + "\u0301" * 9])
def test_a_passed_attempt_needs_a_printable_name(client, name):
    attempt_id, owner, questions = start(client)
    for question in questions:
        client.post(f"/api/quiz/attempts/{attempt_id}/answers",
                    json={"question_id": question["id"], "answer": right_answer(question["id"])}, headers=owner)
    url = f"/api/quiz/attempts/{attempt_id}/finish"
    refused = client.post(url, json={"name": name}, headers=owner)
    assert refused.status_code == 422 and is_sentence(refused.json()["detail"])
    assert client.post(url, json={"name": "x" * 200}, headers=owner).json()["passed"] is True


def test_an_attempt_answers_only_to_its_own_token(client):
    attempt_id, owner, questions = start(client)
    _, other, _ = start(client)
    body = {"question_id": questions[0]["id"], "answer": right_answer(questions[0]["id"])}
    answers = [
        client.post(f"/api/quiz/attempts/{attempt_id}/answers", json=body, headers=other),
        client.post(f"/api/quiz/attempts/{attempt_id}/answers", json=body),
        client.post(f"/api/quiz/attempts/{attempt_id}/answers", json=body, headers={TOKEN_HEADER: "x" * 5000}),
        client.post("/api/quiz/attempts/no-such-attempt/answers", json=body, headers=owner),
        client.post(f"/api/quiz/attempts/{attempt_id}/finish", json={"name": "Eve"}, headers=other),
    ]
    assert {response.status_code for response in answers} == {404}
    assert len({response.json()["detail"] for response in answers}) == 1
    # a browser's cookie does not stand in for the header
    client.cookies.set("quiz_owner", signed_owner(client.app.state.settings.load_signing_key(), owner[TOKEN_HEADER]))
    assert client.post(f"/api/quiz/attempts/{attempt_id}/answers", json=body).status_code == 404
    client.cookies.clear()
    assert client.post(f"/api/quiz/attempts/{attempt_id}/answers", json=body, headers=owner).status_code == 200


HOSTILE_ANSWERS = [
    ("not json", 422),
    ("[1, 2", 422),
    (json.dumps([]), 422),
    (json.dumps({}), 422),
    (json.dumps({"question_id": "fp16-max"}), 422),
    (json.dumps({"answer": 1}), 422),
    (json.dumps({"question_id": 5, "answer": 1}), 422),
    (json.dumps({"question_id": "no-such-question", "answer": 1}), 422),
    (json.dumps({"question_id": "x" * 5000, "answer": 1}), 422),
    (json.dumps({"question_id": "<script>alert(1)</script>", "answer": 1}), 422),
    (json.dumps({"question_id": "Q", "answer": 1, "extra": True}), 422),
]


@pytest.mark.parametrize(("body", "status"), HOSTILE_ANSWERS)
def test_hostile_answer_bodies_get_a_4xx_sentence(client, body, status):
    attempt_id, owner, questions = start(client)
    body = body.replace('"Q"', json.dumps(questions[0]["id"]))
    response = client.post(f"/api/quiz/attempts/{attempt_id}/answers", content=body,
                           headers=owner | {"Content-Type": "application/json"})
    assert response.status_code == status and is_sentence(response.json()["detail"])


@pytest.mark.parametrize("body", ["", "not json", json.dumps({"name": 5}), json.dumps({"name": ["Ada"]}),
                                  json.dumps({"name": "Ada", "score": 12}), json.dumps(["Ada"])])
def test_hostile_finish_bodies_get_a_422_sentence_and_leave_the_attempt_open(client, body):
    attempt_id, owner, _ = start(client)
    url = f"/api/quiz/attempts/{attempt_id}/finish"
    response = client.post(url, content=body, headers=owner | {"Content-Type": "application/json"})
    assert response.status_code == 422 and is_sentence(response.json()["detail"])
    assert client.post(url, json={}, headers=owner).json()["score"] == 0


@pytest.mark.parametrize("answer", [None, True, {"a": 1}, [[0]], -1, 99, 1.5, "", " ", "x" * 5000, [0, 0, 99],
                                    "0x", "1e999999", "nan(", ["a"], "<b>1</b>"])
def test_answers_of_the_wrong_type_get_a_422_sentence_and_leave_the_question_open(client, answer):
    attempt_id, owner, questions = start(client)
    url = f"/api/quiz/attempts/{attempt_id}/answers"
    for question in questions:
        response = client.post(url, json={"question_id": question["id"], "answer": answer}, headers=owner)
        assert response.status_code in (200, 422), response.text
        if response.status_code == 422:
            assert is_sentence(response.json()["detail"])
            again = client.post(url, json={"question_id": question["id"], "answer": right_answer(question["id"])},
                                headers=owner)
            assert again.json()["correct"] is True


def test_a_numeric_answer_may_be_a_json_number(client):
    for _ in range(30):
        attempt_id, owner, questions = start(client)
        drawn = [(q["id"], stored_question(q["id"])) for q in questions]
        numeric = [(shown, q) for shown, q in drawn if isinstance(q, Numeric) and q.answer.denominator == 1]
        if numeric:
            body = {"question_id": numeric[0][0], "answer": int(numeric[0][1].answer)}
            response = client.post(f"/api/quiz/attempts/{attempt_id}/answers", json=body, headers=owner)
            assert response.json()["correct"] is True
            return
    pytest.fail("no attempt drew a numeric question with an integer answer")


def test_starting_attempts_is_rate_limited(make_settings):
    with TestClient(create_app(make_settings(rate_limit_attempts="2/minute"))) as client:
        assert [client.post("/api/quiz/attempts").status_code for _ in range(2)] == [201, 201]
        refused = client.post("/api/quiz/attempts")
        assert refused.status_code == 429 and is_sentence(refused.json()["detail"])
        assert 1 <= int(refused.headers["retry-after"]) <= 60


def test_a_rate_limit_setting_must_read_as_limits():
    with pytest.raises(ValidationError, match="PRECISION_LAB_RATE_LIMIT_VERIFY"):
        Settings(rate_limit_verify="often")
    assert Settings(rate_limit_attempts="5/minute;100/day").rate_limit_attempts == "5/minute;100/day"


def test_openapi_describes_the_quiz_and_certificate_routes(client):
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/quiz/attempts", "/api/quiz/attempts/{attempt_id}/answers",
                 "/api/quiz/attempts/{attempt_id}/finish", "/api/certificates/{certificate_id}",
                 "/certificates/{certificate_id}/credential.jwt", "/.well-known/jwks.json"):
        assert path in paths
