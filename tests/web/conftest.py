"""Fixtures for driving the app in-process through Starlette's TestClient.

The quiz, certificate and rate-limit tests run twice: on a fresh SQLite file and on a fresh PostgreSQL schema
(tests/postgres_schema.py: skipped without a server, failed in CI); the other web tests on SQLite only, since
they store nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from app.main import create_app
from app.quiz.signing import new_seed_text
from app.settings import Settings
from app.store.database import migrate
from tests.postgres_schema import empty_database_url

# Modules whose tests store attempts, certificates or rate-limit counters, and so run on both databases.
ON_BOTH_DATABASES = {"test_quiz_api", "test_quiz_pages", "test_certificates", "test_rate_limits"}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    module = metafunc.module.__name__.rsplit(".", 1)[-1]
    if "database" in metafunc.fixturenames and module in ON_BOTH_DATABASES:
        metafunc.parametrize("database", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture
def database(request: pytest.FixtureRequest) -> str:
    """Which database the test's app stores in: sqlite, unless the module runs on both."""
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture
def database_url(database: str, tmp_path: Path) -> Iterator[str]:
    """A fresh, migrated database of that kind: a SQLite file, or a PostgreSQL schema dropped afterwards."""
    with contextmanager(empty_database_url)(database, tmp_path) as url:
        migrate(url)
        yield url


@pytest.fixture
def make_settings(database_url: str) -> Callable[..., Settings]:
    """Test settings on a fresh migrated database and a fresh signing key; keywords override any setting."""
    url = database_url
    seed = new_seed_text()

    def settings(**overrides: Any) -> Settings:
        return Settings(environment="test", database_url=url, signing_key=SecretStr(seed), **overrides)

    return settings


@pytest.fixture
def client(make_settings: Callable[..., Settings]) -> Iterator[TestClient]:
    """A client for a fresh app built with test settings."""
    with TestClient(create_app(make_settings())) as test_client:
        yield test_client
