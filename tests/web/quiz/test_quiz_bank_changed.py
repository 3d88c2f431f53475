"""A teacher edits the bank while attempts are open: their removed questions get a 409 sentence, never a 500."""

from __future__ import annotations

import dataclasses

from app.quiz import load_bank
from tests.helpers.quiz import start


def _without(bank, question_ids):
    """The bank with these written questions taken out, as if a teacher had deleted them."""
    topics = tuple(
        dataclasses.replace(topic, questions=tuple(q for q in topic.questions if q.id not in question_ids))
        for topic in bank.topics
    )
    return dataclasses.replace(bank, topics=topics)


def test_a_removed_question_is_a_conflict_with_a_sentence(client):
    attempt_id, owner, questions = start(client)
    bank = load_bank()
    written = [q["id"] for q in questions if q["id"] in bank.questions]
    client.app.state.quiz_bank = _without(bank, set(written))
    body = {"question_id": written[0], "answer": "0"}
    api = client.post(f"/api/quiz/attempts/{attempt_id}/answers", json=body, headers=owner)
    assert api.status_code == 409
    assert "start a new attempt" in api.json()["detail"]


def test_an_unmigrated_database_is_a_503_with_a_sentence(tmp_path):
    from fastapi.testclient import TestClient
    from pydantic import SecretStr

    from app.main import create_app
    from app.quiz.signing import new_seed_text
    from app.settings import Settings

    settings = Settings(
        environment="test", database_url=f"sqlite:///{tmp_path / 'empty.db'}", signing_key=SecretStr(new_seed_text())
    )
    with TestClient(create_app(settings)) as fresh:
        response = fresh.post("/api/quiz/attempts")
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "60" and "not migrated" in response.json()["detail"]
