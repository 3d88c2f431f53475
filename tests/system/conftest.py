"""Databases for the system tests: a SQLite file, and a fresh schema on a real PostgreSQL server.

As in tests/store: without PRECISION_LAB_TEST_POSTGRES_URL the PostgreSQL cases skip, unless CI is set, where
they fail, since .ci/run starts a server and sets the variable.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.postgres_schema import empty_database_url, postgres_schema_url


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """The URL of an empty schema on the test PostgreSQL server, dropped afterwards."""
    yield from postgres_schema_url()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database: a new SQLite file, or a new PostgreSQL schema dropped afterwards."""
    yield from empty_database_url(request.param, tmp_path)
