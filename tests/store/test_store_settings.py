"""Which database the app uses: the database_url setting, a plain DATABASE_URL, and the PostgreSQL driver."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.settings import Settings
from app.store.database import normalise_url


@pytest.fixture(autouse=True)
def _no_database_configured(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # away from any .env file
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("PRECISION_LAB_DATABASE_URL", raising=False)


def test_the_default_is_a_sqlite_file_in_the_working_directory() -> None:
    assert Settings().database_url == "sqlite:///precision_lab.db"


def test_a_plain_database_url_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://lab@127.0.0.1/lab")
    assert Settings().database_url == "postgresql://lab@127.0.0.1/lab"


def test_the_prefixed_variable_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://lab@127.0.0.1/platform")
    monkeypatch.setenv("PRECISION_LAB_DATABASE_URL", "sqlite:///mine.db")
    assert Settings().database_url == "sqlite:///mine.db"


def test_the_setting_can_be_given_by_name() -> None:
    assert Settings(database_url="sqlite:///given.db").database_url == "sqlite:///given.db"


@pytest.mark.parametrize(
    ("given", "used"),
    [
        ("postgres://lab:p%40ss@127.0.0.1:5432/lab", "postgresql+psycopg://lab:p%40ss@127.0.0.1:5432/lab"),
        ("postgresql://lab@127.0.0.1/lab", "postgresql+psycopg://lab@127.0.0.1/lab"),
        ("postgresql+psycopg://lab@127.0.0.1/lab", "postgresql+psycopg://lab@127.0.0.1/lab"),
        ("sqlite:///precision_lab.db", "sqlite:///precision_lab.db"),
    ],
)
def test_postgresql_urls_use_psycopg_3(given: str, used: str) -> None:
    assert normalise_url(given) == used
