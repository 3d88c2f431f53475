"""GET /readyz: ready only when the database answers and its schema is at the newest migration."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from pydantic import SecretStr
from sqlalchemy import create_engine, text

from app.main import create_app
from app.quiz.signing import new_seed_text
from app.settings import Settings


def _client_on(url: str) -> TestClient:
    return TestClient(
        create_app(Settings(environment="test", database_url=url, signing_key=SecretStr(new_seed_text())))
    )


def test_a_migrated_database_is_ready(client):
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ready"}
    assert response.headers["cache-control"] == "no-store"


def test_an_unmigrated_database_is_not_ready(tmp_path: Path):
    with _client_on(f"sqlite:///{tmp_path / 'empty.db'}") as client:
        response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"
    assert "revision none" in response.json()["detail"]
    assert "precision-lab migrate" in response.json()["detail"]


def test_a_database_behind_the_code_is_not_ready(make_settings):
    settings = make_settings()
    engine = create_engine(settings.database_url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = 'older'"))
    engine.dispose()
    with TestClient(create_app(settings)) as client:
        response = client.get("/readyz")
    assert response.status_code == 503
    assert "revision older" in response.json()["detail"]


def test_an_unreachable_database_is_not_ready(tmp_path: Path):
    with _client_on(f"sqlite:///{tmp_path / 'missing-folder' / 'precision_lab.db'}") as client:
        response = client.get("/readyz")
    assert response.status_code == 503
    assert "does not answer" in response.json()["detail"]


def test_liveness_stays_plain(client):
    assert client.get("/healthz").text == "ok"
