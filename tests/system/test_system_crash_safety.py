"""Crash safety: certificates are issued in a loop, the server is killed with SIGKILL mid-way, and restarted.

Every certificate ID the client was given verifies after the restart, and the database holds no half-written
record: each certificate's signature checks and belongs to a finished, passed attempt, and each finished, passed
attempt has its certificate. Runs on a SQLite file and on PostgreSQL.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.quiz.signing import new_seed_text, private_key_from_text
from app.store.certificates import list_certificates, signature_valid
from app.store.database import create_database_engine, migrate, open_session
from app.store.models import Attempt
from app.web.platform.csrf import TOKEN_HEADER
from tests.helpers.quiz import learn_ids, right_answer
from tests.system.system_servers import REQUEST_SECONDS, Server

pytestmark = pytest.mark.timeout(120)

CLIENTS = 4  # concurrent client threads, so that requests are in flight when the kill comes
MAX_ROUNDS = 200  # quizzes per client thread at most: the loop is bounded even if the kill never came
CERTIFICATES_BEFORE_KILL = 5
WAIT_SECONDS = 30.0


class Issuer:
    """Client threads that take quizzes to a pass and keep each certificate ID the server answered with."""

    def __init__(self, base_url: str, database_url: str) -> None:
        self.base_url, self.database_url = base_url, database_url
        self.issued: list[str] = []
        self.broken: list[str] = []  # requests cut off by the kill
        self.unexpected: list[str] = []
        self.in_flight = 0
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._run, daemon=True) for _ in range(CLIENTS)]

    def _request(self, client: httpx.Client, path: str, **kwargs: Any) -> httpx.Response:
        with self.lock:
            self.in_flight += 1
        try:
            return client.post(path, **kwargs)
        finally:
            with self.lock:
                self.in_flight -= 1

    def _quiz(self, client: httpx.Client, number: int) -> str | None:
        started = self._request(client, "/api/quiz/attempts")
        if started.status_code != 201:
            raise AssertionError(f"start: {started.status_code} {started.text}")
        body = started.json()
        attempt_id, owner = body["attempt_id"], {TOKEN_HEADER: body["attempt_token"]}
        learn_ids(self.database_url, attempt_id, [question["id"] for question in body["questions"]])
        for question in body["questions"]:
            answer = {"question_id": question["id"], "answer": right_answer(question["id"])}
            answered = self._request(client, f"/api/quiz/attempts/{attempt_id}/answers", json=answer, headers=owner)
            if answered.status_code != 200:
                raise AssertionError(f"answer: {answered.status_code} {answered.text}")
        finished = self._request(client, f"/api/quiz/attempts/{attempt_id}/finish",
                                 json={"name": f"Learner {number}"}, headers=owner)
        if finished.status_code != 200:
            raise AssertionError(f"finish: {finished.status_code} {finished.text}")
        certificate_id: str | None = finished.json()["certificate_id"]
        return certificate_id

    def _run(self) -> None:
        with httpx.Client(base_url=self.base_url, timeout=REQUEST_SECONDS) as client:
            for number in range(MAX_ROUNDS):
                if self.stop.is_set():
                    return
                try:
                    certificate_id = self._quiz(client, number)
                except httpx.TransportError as error:  # the server died under this request
                    with self.lock:
                        self.broken.append(repr(error))
                    return
                except Exception as error:  # noqa: BLE001 - reported by the test, not lost in a thread
                    with self.lock:
                        self.unexpected.append(repr(error))
                    return
                # Only an answer that came back whole, with 200, counts as issued to the client.
                if certificate_id is None:
                    with self.lock:
                        self.unexpected.append("a quiz answered all right did not pass")
                    return
                with self.lock:
                    self.issued.append(certificate_id)

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def join(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=REQUEST_SECONDS + 5)
        assert not any(thread.is_alive() for thread in self.threads), "a client thread did not end"


def _wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.002)
    pytest.fail(f"timed out after {WAIT_SECONDS:.0f} s waiting for {what}", pytrace=False)


def test_certificates_survive_a_sigkill_and_no_half_written_record_exists(database_url: str, tmp_path: Path):
    migrate(database_url)
    seed = new_seed_text()
    public_key = private_key_from_text(seed).public_key()
    log = tmp_path / "uvicorn.log"
    server = Server(database_url, seed, log)
    issuer: Issuer | None = None
    restarted: Server | None = None
    try:
        server.wait_until_ready()
        issuer = Issuer(server.url, database_url)
        issuer.start()
        _wait_for(lambda: len(issuer.issued) >= CERTIFICATES_BEFORE_KILL or bool(issuer.unexpected),
                  f"{CERTIFICATES_BEFORE_KILL} certificates")
        assert not issuer.unexpected, issuer.unexpected
        _wait_for(lambda: issuer.in_flight > 0, "a request in flight")
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait(timeout=WAIT_SECONDS)
        issuer.join()
        assert not issuer.unexpected, issuer.unexpected
        assert issuer.broken, "no request was in flight when the server was killed"
        issued = list(issuer.issued)
        assert len(issued) == len(set(issued)) >= CERTIFICATES_BEFORE_KILL

        restarted = Server(database_url, seed, log)
        restarted.wait_until_ready()
        with httpx.Client(base_url=restarted.url, timeout=REQUEST_SECONDS) as client:
            for certificate_id in issued:
                response = client.get(f"/api/certificates/{certificate_id}")
                assert response.status_code == 200, f"{certificate_id}: {response.status_code} {response.text}"
                body = response.json()
                assert body["signature_valid"] is True and body["status"] == "valid", body
    finally:
        if issuer is not None:
            issuer.stop.set()
        server.stop()
        if restarted is not None:
            restarted.stop()

    engine = create_database_engine(database_url)
    try:
        with open_session(engine) as session:
            certificates = list_certificates(session)
            stored = {certificate.id for certificate in certificates}
            assert set(issued) <= stored
            for certificate in certificates:
                assert signature_valid(certificate, [public_key]), certificate.id
                attempt = certificate.attempt
                assert attempt.finished_at is not None and attempt.passed is True, certificate.id
                assert (attempt.score, attempt.total) == (certificate.score, certificate.total), certificate.id
                assert len(attempt.answers) == attempt.total, certificate.id
            finished_and_passed = select(Attempt).where(Attempt.finished_at.is_not(None), Attempt.passed.is_(True))
            passed = session.scalars(finished_and_passed).all()
            assert {attempt.id for attempt in passed} == {certificate.attempt_id for certificate in certificates}
            for attempt in session.scalars(select(Attempt).where(Attempt.finished_at.is_not(None))):
                assert attempt.score is not None and attempt.total is not None and attempt.passed is not None
    finally:
        engine.dispose()
