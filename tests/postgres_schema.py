"""A fresh schema on the test PostgreSQL server, shared by the storage and system tests.

Without PRECISION_LAB_TEST_POSTGRES_URL a PostgreSQL case skips, unless CI is set, where it fails, since
.ci/run starts a server and sets the variable.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, make_url, text

POSTGRES_URL_VARIABLE = "PRECISION_LAB_TEST_POSTGRES_URL"


def postgres_schema_url() -> Iterator[str]:
    """Yield the URL of a new, empty schema (every connection finds its tables there); drop it afterwards."""
    server_url = os.environ.get(POSTGRES_URL_VARIABLE)
    if not server_url:
        reason = f"{POSTGRES_URL_VARIABLE} is not set, so there is no PostgreSQL server to test against"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; in CI .ci/run starts one and sets it, so these tests never skip there.")
        pytest.skip(reason)
    schema = f"test_{secrets.token_hex(8)}"
    admin = create_engine(server_url)
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = make_url(server_url).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.execute(text("SET LOCAL lock_timeout = '10s'"))
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def empty_database_url(kind: str, directory: Path) -> Iterator[str]:
    """Yield the URL of an empty database of this kind: a new SQLite file in directory ("sqlite"), or a new
    PostgreSQL schema ("postgresql"), dropped afterwards."""
    if kind == "sqlite":
        yield f"sqlite:///{directory / 'precision_lab.db'}"
        return
    yield from postgres_schema_url()
