"""Schemathesis against /openapi.json: every operation answers with a status code, a media type and a body that
its schema documents, never with a 5xx, and accepts every request its schema allows.

The schema is loaded when this module is imported, as `schemathesis.pytest.from_fixture` fails under pytest 9
(schemathesis 4.32.5 reads `Function._nodeid`, which pytest 9 no longer has).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, settings
from pydantic import SecretStr
from schemathesis.checks import not_a_server_error
from schemathesis.hooks import HookContext
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from app.formats import FORMATS, MAX_EXPONENT_BITS, MAX_MANTISSA_BITS
from app.main import create_app
from app.quiz.signing import new_seed_text
from app.settings import Settings
from app.store.database import migrate
from app.training import LIMITS

# A status, media type or body the schema does not document is a bug of the route or of its `responses=`; a
# request the schema allows and the app refuses (positive_data_acceptance) is a limit the schema does not state.
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          positive_data_acceptance]

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
        rate_limit_train="1000000/minute", rate_limit_passes="1000000/minute", rate_limit_sums="1000000/minute",
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

# Two kinds of limit lie between fields, which a schema has no way to state (the fields' descriptions say them, and
# the app refuses what is past them with its sentence): the fuzzer keeps within them. Every other limit is in the
# schema. Negative cases pass through this hook too, so what is not a plain number is left as it is.
WIDEST = 1 + MAX_EXPONENT_BITS + MAX_MANTISSA_BITS
# steps, width and batch size at most these (where they are within their limits): runs of a second or two, well
# within the lab's work and memory budget
QUICK_RUN = {"steps": 40, "width": 32, "batch_size": 64}


def map_case(ctx: HookContext, case: schemathesis.Case) -> schemathesis.Case:
    """A decoded pattern within the width of its format, the one in the path or the layout the query sets; a
    training run quick, and so within the lab's budget for one run (about the product of its steps, width, depth,
    batch size and recipes), which each setting's limits do not bound together."""
    width = _width(case)
    if width is not None and isinstance(case.query, dict) and (bits := _within(case.query.get("bits"), width)):
        case.query = {**case.query, "bits": bits}
    if case.operation.path == DOT and isinstance(case.body, dict):
        case.body = _dot_within(case.body)
    if case.operation.path == TRAINING and isinstance(case.body, dict):
        case.body = {**case.body, **{name: most for name, most in QUICK_RUN.items()
                                     if type(case.body.get(name)) in (int, float)
                                     and most < case.body[name] <= LIMITS[name][1]}}
    return case


DOT = "/api/dot"  # both vectors or neither, as many numbers in each, and a step within their length


def _is_whole(x: object) -> bool:
    """Whether x is a whole number as JSON Schema counts one: 527, and 527.0 too."""
    return type(x) is int or (type(x) is float and x.is_integer())


def _dot_within(body: dict[str, Any]) -> dict[str, Any]:
    """A dot product's body with its vectors paired (the shorter one's length, or the one given twice) and its step
    at most their length; what is not a list or a plain number is left as it is."""
    a, b = body.get("a"), body.get("b")
    if isinstance(a, list) and isinstance(b, list) and a and b:
        a, b = a[:len(b)], b[:len(a)]
    elif isinstance(a, list) and b is None:
        b = a
    elif isinstance(b, list) and a is None:
        a = b
    body = {**body, "a": a, "b": b} if isinstance(a, list) and isinstance(b, list) else body
    length = len(a) if isinstance(a, list) else body.get("n", 256)
    step = body.get("step")
    if _is_whole(step) and _is_whole(length) and length >= 1 and step > length:
        body = {**body, "step": int(length)}
    return body


def _whole(value: Any) -> int | None:
    text = str(value)
    return int(text) if isinstance(value, int | str) and text.isascii() and text.isdigit() else None


def _width(case: schemathesis.Case) -> int | None:
    """The width of the format a decode request names, where it names one."""
    if case.operation.path == "/api/formats/{format_id}/decode":
        spec = FORMATS.get(str((case.path_parameters or {}).get("format_id")))
        return spec.bits if spec is not None else None
    if case.operation.path == "/api/formats/custom/decode" and isinstance(case.query, dict):
        exponent_bits, mantissa_bits = _whole(case.query.get("exponent_bits")), _whole(case.query.get("mantissa_bits"))
        if exponent_bits is not None and mantissa_bits is not None:
            return 1 + exponent_bits + mantissa_bits
    return None


def _within(bits: Any, width: int) -> str | None:
    """A pattern as typed (0x…, 0b… or decimal digits) cut to its lowest `width` bits, written the same way."""
    text = str(bits).strip()
    base = {"0x": 16, "0b": 2}.get(text[:2].lower(), 10)
    digits = text if base == 10 else text[2:]
    if width > WIDEST or not digits.isascii() or not digits.isalnum():
        return None
    try:
        pattern = int(digits, base) & ((1 << width) - 1)
    except ValueError:
        return None
    return {16: hex, 2: bin, 10: str}[base](pattern)


FUZZ = settings(derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck))


@schema.hooks.apply(map_case)
@schema.exclude(path=TRAINING).parametrize()
@settings(FUZZ, max_examples=100)
def test_every_json_endpoint_answers_within_its_schema(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=CHECKS)


@schema.hooks.apply(map_case)
@schema.include(path=TRAINING).parametrize()
@settings(FUZZ, max_examples=25)
def test_training_answers_within_its_schema(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=CHECKS)


def test_openapi_declares_the_error_sentence(tmp_path: Path) -> None:
    """422 bodies are declared as the one sentence the app sends, not FastAPI's list of validation errors."""
    detail = _app(tmp_path / "unused.db").openapi()["components"]["schemas"]["HTTPValidationError"]
    assert detail["properties"]["detail"].get("type") == "string"
