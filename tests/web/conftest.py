"""Fixtures for driving the app in-process through Starlette's TestClient."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings


@pytest.fixture
def client() -> Iterator[TestClient]:
    """A client for a fresh app built with test settings."""
    with TestClient(create_app(Settings(environment="test"))) as test_client:
        yield test_client
