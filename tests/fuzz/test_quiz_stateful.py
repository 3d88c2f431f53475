"""The quiz API as a state machine: hypothesis starts attempts and answers, finishes and looks up in any order.

Each step is checked against a model of what the server must hold: no 5xx ever, every 4xx a sentence, an answered
question locked with its first verdict, the score the number of right first answers, finishing twice the same
result, a passed attempt's certificate verifying and a failed one having none. The right answer to each question
is the test's own knowledge (question_from_id, in tests/helpers/quiz.py), never asked of the server.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import quote

import httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, rule, run_state_machine_as_test
from pydantic import SecretStr

from app.main import create_app
from app.quiz.grading import passed
from app.quiz.signing import new_seed_text
from app.settings import Settings
from app.store.database import migrate
from app.store.models import NAME_MAX_LENGTH
from app.web.platform.csrf import OWNER_COOKIE, TOKEN_HEADER, signed_owner
from tests.helpers.quiz import learn_ids, right_answer, verdicts, wrong_answer
from tests.helpers.refusals import is_sentence
from tests.hostile_inputs import HOSTILE_TEXTS

UNLIMITED = "1000000/minute"
PASS_MARK = 0.8
# Answers no question reads: wrong JSON types, indices out of range, text no parser takes.
UNREADABLE = [None, True, {"a": 1}, [[0]], 1.5, -1, 99, [0, 0, 99], "", "0x", "nan(", "1e999999", ["a"]]
NAMES = ["Ada Lovelace", "  Grace Hopper  ", "名前 テスト", "", "   ", "x" * (NAME_MAX_LENGTH + 1), "Ada\nLovelace",
         "tab\there", "\x00", *HOSTILE_TEXTS[:4]]


@dataclass
class Attempt:
    """What the server must hold for one attempt, as the test saw it happen."""

    id: str
    token: str
    questions: list[str]
    verdicts: dict[str, bool] = field(default_factory=dict)  # each question's first verdict
    result: dict[str, Any] | None = None  # the finish response, once finished
    name: str = ""

    @property
    def owner(self) -> dict[str, str]:
        return {TOKEN_HEADER: self.token}


def printable(name: str) -> bool:
    """Whether a certificate can carry this name (the model's own reading of the rule in app/store/attempts.py)."""
    name = name.strip()
    return 0 < len(name) <= NAME_MAX_LENGTH and not any(unicodedata.category(c) == "Cc" for c in name)


def refused_with_a_sentence(response: httpx.Response, *statuses: int) -> None:
    assert response.status_code in statuses, (response.status_code, response.text[:300])
    assert is_sentence(response.json()["detail"]), response.text[:300]


class QuizMachine(RuleBasedStateMachine):
    client: ClassVar[TestClient]
    attempts = Bundle("attempts")

    def post(self, path: str, body: object, attempt: Attempt) -> httpx.Response:
        response = self.client.post(path, json=body, headers=attempt.owner)
        assert response.status_code < 500, response.text[:300]
        return response

    @rule(target=attempts)
    def start(self) -> Attempt:
        response = self.client.post("/api/quiz/attempts")
        assert response.status_code == 201, response.text[:300]
        body = response.json()
        assert all("answer" not in question for question in body["questions"])
        learn_ids(self.client.app.state.engine, body["attempt_id"], [question["id"] for question in body["questions"]])
        return Attempt(body["attempt_id"], body["attempt_token"], [question["id"] for question in body["questions"]])

    @rule(attempt=attempts, data=st.data(), kind=st.sampled_from(["right", "wrong", "unreadable", "hostile"]))
    def answer(self, attempt: Attempt, data: st.DataObject, kind: str) -> None:
        question_id = data.draw(st.sampled_from(attempt.questions), label="question")
        given = {
            "right": lambda: right_answer(question_id),
            "wrong": lambda: wrong_answer(question_id),
            "unreadable": lambda: data.draw(st.sampled_from(UNREADABLE), label="unreadable"),
            "hostile": lambda: data.draw(st.sampled_from(HOSTILE_TEXTS), label="hostile"),
        }[kind]()
        response = self.post(f"/api/quiz/attempts/{attempt.id}/answers",
                             {"question_id": question_id, "answer": given}, attempt)
        if attempt.result is not None or question_id in attempt.verdicts:
            # An answer is read before the lock is checked, so one that cannot be read may say that instead.
            refused_with_a_sentence(response, *((409,) if kind in ("right", "wrong") else (409, 422)))
        elif kind in ("right", "wrong"):
            assert response.status_code == 200, response.text[:300]
            assert response.json()["correct"] is (kind == "right")
            attempt.verdicts[question_id] = kind == "right"
        elif response.status_code == 200:  # hostile text that reads as an answer is graded like any other
            attempt.verdicts[question_id] = response.json()["correct"]
        else:
            refused_with_a_sentence(response, 422)

    @rule(attempt=attempts)
    def answer_the_rest_right(self, attempt: Attempt) -> None:
        for question_id in attempt.questions:
            if attempt.result is None and question_id not in attempt.verdicts:
                response = self.post(f"/api/quiz/attempts/{attempt.id}/answers",
                                     {"question_id": question_id, "answer": right_answer(question_id)}, attempt)
                assert response.status_code == 200 and response.json()["correct"] is True
                attempt.verdicts[question_id] = True

    @rule(attempt=attempts, other=attempts)
    def answer_a_question_of_another_attempt(self, attempt: Attempt, other: Attempt) -> None:
        foreign = [question for question in other.questions if question not in attempt.questions]
        question_id = foreign[0] if foreign else "not-a-question"
        response = self.post(f"/api/quiz/attempts/{attempt.id}/answers",
                             {"question_id": question_id, "answer": right_answer(other.questions[0])}, attempt)
        refused_with_a_sentence(response, 422)

    @rule(attempt=attempts, other=attempts, finishing=st.booleans())
    def use_another_attempts_token(self, attempt: Attempt, other: Attempt, finishing: bool) -> None:
        if attempt.token == other.token:
            return
        if finishing:
            response = self.post(f"/api/quiz/attempts/{attempt.id}/finish", {"name": "Mallory"}, other)
        else:
            body = {"question_id": attempt.questions[0], "answer": right_answer(attempt.questions[0])}
            response = self.post(f"/api/quiz/attempts/{attempt.id}/answers", body, other)
        refused_with_a_sentence(response, 404)

    @rule(attempt=attempts, name=st.one_of(st.sampled_from(NAMES), st.text(max_size=40)))
    def finish(self, attempt: Attempt, name: str) -> None:
        response = self.post(f"/api/quiz/attempts/{attempt.id}/finish", {"name": name}, attempt)
        if attempt.result is not None:
            assert response.status_code == 200 and response.json() == attempt.result
            return
        score = sum(attempt.verdicts.values())
        will_pass = passed(score, len(attempt.questions), PASS_MARK)
        if will_pass and not printable(name):
            refused_with_a_sentence(response, 422)
            return
        assert response.status_code == 200, response.text[:300]
        result = response.json()
        assert (result["score"], result["total"], result["passed"]) == (score, len(attempt.questions), will_pass)
        assert (result["certificate_id"] is not None) is will_pass
        attempt.result, attempt.name = result, name.strip()
        if will_pass:
            self.check_certificate(attempt)

    @rule(attempt=attempts)
    def look_up_the_certificate(self, attempt: Attempt) -> None:
        if attempt.result is not None and attempt.result["certificate_id"] is not None:
            self.check_certificate(attempt)

    def check_certificate(self, attempt: Attempt) -> None:
        assert attempt.result is not None
        response = self.client.get(f"/api/certificates/{attempt.result['certificate_id']}")
        assert response.status_code == 200, response.text[:300]
        certificate = response.json()
        assert certificate["signature_valid"] is True and certificate["status"] == "valid"
        assert (certificate["name"], certificate["score"]) == (attempt.name, attempt.result["score"])

    @rule(text=st.one_of(st.sampled_from(HOSTILE_TEXTS), st.text(max_size=30)))
    def look_up_a_certificate_that_does_not_exist(self, text: str) -> None:
        response = self.client.get(f"/api/certificates/{quote(text or 'x', safe='')}")
        refused_with_a_sentence(response, 404)

    @rule(attempt=attempts)
    def the_page_shows_each_first_verdict(self, attempt: Attempt) -> None:
        """The attempt's HTML page (the browser's view, owned through the same token) agrees with the model."""
        key = self.client.app.state.settings.load_signing_key()
        self.client.cookies.set(OWNER_COOKIE, signed_owner(key, attempt.token))
        try:
            page = self.client.get(f"/quiz/attempts/{attempt.id}")
        finally:
            self.client.cookies.clear()
        assert page.status_code == 200
        assert verdicts(page.text) == {q: str(right).lower() for q, right in attempt.verdicts.items()}


@pytest.fixture(scope="module")
def quiz_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path_factory.mktemp('quiz-machine') / 'precision_lab.db'}"
    migrate(url)
    app = create_app(Settings(
        environment="test", database_url=url, signing_key=SecretStr(new_seed_text()), pass_mark=PASS_MARK,
        rate_limit_attempts=UNLIMITED, rate_limit_verify=UNLIMITED, rate_limit_train=UNLIMITED,
        rate_limit_passes=UNLIMITED,
    ))
    with TestClient(app) as client:
        yield client


def test_the_quiz_api_keeps_its_invariants_in_any_order_of_steps(quiz_client: TestClient) -> None:
    QuizMachine.client = quiz_client
    # The server draws each attempt's questions at random, so replaying a failing run is not the same run: no
    # shrinking and no example database (they would report a flaky strategy instead of the failure's steps).
    run_state_machine_as_test(QuizMachine, settings=settings(
        max_examples=30, stateful_step_count=25, deadline=None, database=None, phases=[Phase.explicit, Phase.generate],
        suppress_health_check=[HealthCheck.too_slow],
    ))
