"""Schemathesis against /openapi.json: every operation answers with a status code, a media type and a body that
its schema documents, and never with a 5xx.

The schema is loaded when this module is imported, as `schemathesis.pytest.from_fixture` fails under pytest 9
(schemathesis 4.32.5 reads `Function._nodeid`, which pytest 9 no longer has).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, settings
from pydantic import SecretStr
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from app.main import create_app
from app.quiz.signing import new_seed_text
from app.settings import Settings
from app.store.database import migrate

# A status, media type or body the schema does not document is a bug of the route or of its `responses=`.
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]

_DATABASE_DIR = Path(tempfile.mkdtemp(prefix="precision-lab-fuzz-"))


def _app(database: Path) -> FastAPI:
    # The fuzzer sends thousands of requests from one client; 429s would only hide the routes behind them. The
    # training deadline guards a server against overload, not what is tested here: on a busy machine its 503 would
    # only say how busy the machine is.
    return create_app(Settings(
        environment="test",
        database_url=f"sqlite:///{database}",
        signing_key=SecretStr(new_seed_text()),
        rate_limit_attempts="1000000/minute",
        rate_limit_verify="1000000/minute",
        rate_limit_train="1000000/minute", rate_limit_passes="1000000/minute",
        train_max_seconds=3600,
    ))


def _schema() -> schemathesis.BaseSchema:
    """The app's own /openapi.json, served by the app under test."""
    database = _DATABASE_DIR / "precision_lab.db"
    migrate(f"sqlite:///{database}")
    return schemathesis.openapi.from_asgi("/openapi.json", _app(database))


schema = _schema()


@pytest.fixture(scope="module", autouse=True)
def _remove_database() -> Iterator[None]:
    yield
    shutil.rmtree(_DATABASE_DIR, ignore_errors=True)


TRAINING = "/api/train"  # each valid request trains for up to seconds, so it gets fewer examples than the rest
FUZZ = settings(derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck))


@schema.exclude(path=TRAINING).parametrize()
@settings(FUZZ, max_examples=100)
def test_every_json_endpoint_answers_within_its_schema(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=CHECKS)


@schema.include(path=TRAINING).parametrize()
@settings(FUZZ, max_examples=25)
def test_training_answers_within_its_schema(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=CHECKS)


def test_openapi_declares_the_error_sentence(tmp_path: Path) -> None:
    """422 bodies are declared as the one sentence the app sends, not FastAPI's list of validation errors."""
    detail = _app(tmp_path / "unused.db").openapi()["components"]["schemas"]["HTTPValidationError"]
    assert detail["properties"]["detail"].get("type") == "string"
