"""A fresh, migrated database for every storage test: a SQLite file, and a schema on a real PostgreSQL server."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import Engine, create_engine, make_url, text
from sqlalchemy.orm import Session

from app.store.database import create_database_engine, migrate, open_session

POSTGRES_URL_VARIABLE = "PRECISION_LAB_TEST_POSTGRES_URL"


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database: a new SQLite file, or a new PostgreSQL schema dropped afterwards."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'precision_lab.db'}"
        return
    server_url = os.environ.get(POSTGRES_URL_VARIABLE)
    if not server_url:
        reason = f"{POSTGRES_URL_VARIABLE} is not set, so there is no PostgreSQL server to test against"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; in CI .ci/run starts one and sets it, so the storage tests never skip there.")
        pytest.skip(reason)
    schema = f"test_{secrets.token_hex(8)}"
    admin = create_engine(server_url)
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    # Every connection of the test finds its tables (and Alembic's version table) in the new schema.
    url = make_url(server_url).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


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
