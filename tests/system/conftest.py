"""Databases for the system tests: a SQLite file, and a fresh schema on a real PostgreSQL server.

As in tests/store: without PRECISION_LAB_TEST_POSTGRES_URL the PostgreSQL cases skip, unless CI is set, where
they fail, since .ci/run starts a server and sets the variable.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, make_url, text

POSTGRES_URL_VARIABLE = "PRECISION_LAB_TEST_POSTGRES_URL"


def _postgres_schema_url() -> Iterator[str]:
    server_url = os.environ.get(POSTGRES_URL_VARIABLE)
    if not server_url:
        reason = f"{POSTGRES_URL_VARIABLE} is not set, so there is no PostgreSQL server to test against"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; in CI .ci/run starts one and sets it, so the system tests never skip there.")
        pytest.skip(reason)
    schema = f"test_{secrets.token_hex(8)}"
    admin = create_engine(server_url)
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    # Every connection, of the test and of the app processes, finds its tables in the new schema.
    url = make_url(server_url).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.execute(text("SET LOCAL lock_timeout = '10s'"))
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """The URL of an empty schema on the test PostgreSQL server, dropped afterwards."""
    yield from _postgres_schema_url()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database: a new SQLite file, or a new PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'precision_lab.db'}"
        return
    yield from _postgres_schema_url()
