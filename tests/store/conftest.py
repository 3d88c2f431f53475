"""A fresh, migrated database for every storage test: a SQLite file, and a schema on a real PostgreSQL server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from app.store.database import create_database_engine, migrate, open_session
from tests.postgres_schema import empty_database_url


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database: a new SQLite file, or a new PostgreSQL schema dropped afterwards."""
    yield from empty_database_url(request.param, tmp_path)


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """An engine on the test database, migrated to the newest revision."""
    migrate(database_url)
    database = create_database_engine(database_url)
    yield database
    database.dispose()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with open_session(engine) as database_session:
        yield database_session


@pytest.fixture(scope="session")
def signing_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()
