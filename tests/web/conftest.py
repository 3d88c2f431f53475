"""Fixtures for driving the app in-process through Starlette's TestClient."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from app.main import create_app
from app.quiz.signing import new_seed_text
from app.settings import Settings
from app.store.database import migrate


@pytest.fixture
def make_settings(tmp_path: Path) -> Callable[..., Settings]:
    """Test settings on a fresh migrated SQLite file and a fresh signing key; keywords override any setting."""
    url = f"sqlite:///{tmp_path / 'precision_lab.db'}"
    migrate(url)
    seed = new_seed_text()

    def settings(**overrides: Any) -> Settings:
        return Settings(environment="test", database_url=url, signing_key=SecretStr(seed), **overrides)

    return settings


@pytest.fixture
def client(make_settings: Callable[..., Settings]) -> Iterator[TestClient]:
    """A client for a fresh app built with test settings."""
    with TestClient(create_app(make_settings())) as test_client:
        yield test_client
