"""Two app processes on one PostgreSQL database: any instance serves any request.

A quiz taken through instance A gives a certificate that instance B verifies (API and page), and an attempt
started on A is answered on B and finished on A with the same token: nothing lives in a process's memory.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from app.web.platform.csrf import TOKEN_HEADER
from tests.helpers.quiz import learn_ids, right_answer
from tests.system.system_servers import two_instances as start_two_instances

pytestmark = pytest.mark.timeout(90)


def _start(client: httpx.Client, database_url: str) -> tuple[str, dict[str, str], list[dict]]:
    response = client.post("/api/quiz/attempts")
    assert response.status_code == 201, response.text
    body = response.json()
    learn_ids(database_url, body["attempt_id"], [question["id"] for question in body["questions"]])
    return body["attempt_id"], {TOKEN_HEADER: body["attempt_token"]}, body["questions"]


def _answer(client: httpx.Client, attempt_id: str, owner: dict[str, str], question_id: str) -> None:
    body = {"question_id": question_id, "answer": right_answer(question_id)}
    response = client.post(f"/api/quiz/attempts/{attempt_id}/answers", json=body, headers=owner)
    assert response.status_code == 200, response.text
    assert response.json()["correct"] is True


def _finish(client: httpx.Client, attempt_id: str, owner: dict[str, str], name: str) -> dict:
    response = client.post(f"/api/quiz/attempts/{attempt_id}/finish", json={"name": name}, headers=owner)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture
def two_instances(postgres_url: str, tmp_path: Path):
    """Instances A and B: two uvicorn processes on one migrated PostgreSQL schema with one signing key."""
    with start_two_instances(postgres_url, tmp_path) as clients:
        yield clients


def test_a_certificate_issued_through_one_instance_verifies_through_the_other(two_instances, postgres_url):
    a, b = two_instances
    assert a.base_url != b.base_url
    attempt_id, owner, questions = _start(a, postgres_url)
    for question in questions:
        _answer(a, attempt_id, owner, question["id"])
    result = _finish(a, attempt_id, owner, "Grace Hopper")
    assert result["passed"] is True and result["certificate_id"]
    certificate_id = result["certificate_id"]

    verified = b.get(f"/api/certificates/{certificate_id}")
    assert verified.status_code == 200, verified.text
    body = verified.json()
    assert body["id"] == certificate_id and body["name"] == "Grace Hopper"
    assert body["status"] == "valid" and body["signature_valid"] is True
    assert body["score"] == body["total"] == len(questions)

    page = b.get(f"/verify/{certificate_id}")
    assert page.status_code == 200
    assert certificate_id in page.text and "Grace Hopper" in page.text
    assert 'data-signature="checks"' in page.text and 'data-status="valid"' in page.text

    # Both instances publish the one key that signed it.
    assert a.get("/.well-known/jwks.json").json() == b.get("/.well-known/jwks.json").json()


def test_an_attempt_started_on_one_instance_is_answered_on_the_other_with_its_token(two_instances, postgres_url):
    a, b = two_instances
    attempt_id, owner, questions = _start(a, postgres_url)
    # Alternate the instances question by question: each sees the answers the other stored.
    for number, question in enumerate(questions):
        _answer((b, a)[number % 2], attempt_id, owner, question["id"])
    first = questions[0]["id"]
    again = a.post(f"/api/quiz/attempts/{attempt_id}/answers",
                   json={"question_id": first, "answer": right_answer(first)}, headers=owner)
    assert again.status_code == 409  # answered on B, locked on A too
    stranger = b.post(f"/api/quiz/attempts/{attempt_id}/finish", json={"name": "Mallory"},
                      headers={TOKEN_HEADER: "not-the-token-" + "x" * 30})
    assert stranger.status_code in (404, 422)  # another token owns nothing on either instance
    result = _finish(b, attempt_id, owner, "Ada Lovelace")
    assert result["passed"] is True and result["score"] == len(questions)
    assert _finish(a, attempt_id, owner, "Ada Lovelace") == result  # finishing again, elsewhere, changes nothing
    certificate = a.get(f"/api/certificates/{result['certificate_id']}").json()
    assert certificate["name"] == "Ada Lovelace" and certificate["signature_valid"] is True
