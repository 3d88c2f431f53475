"""A failure inside a route is a 500 like any other answer: a sentence with the request id, the security headers,
the X-Request-ID header, and the traceback logged under that id."""

from __future__ import annotations

import logging

import pytest
from fastapi.testclient import TestClient

from app.main import create_app


def _fail() -> None:
    raise RuntimeError("a bug, on purpose")


@pytest.fixture
def failing(make_settings):
    app = create_app(make_settings())
    app.add_api_route("/api/fail", _fail)
    app.add_api_route("/fail", _fail)
    with TestClient(app) as client:
        yield client


@pytest.mark.parametrize(("path", "kind"), [("/api/fail", "application/json"), ("/fail", "text/html")])
def test_a_500_has_a_sentence_the_security_headers_and_its_request_id(failing, caplog, path, kind):
    with caplog.at_level(logging.ERROR):
        response = failing.get(path, headers={"X-Request-ID": "trace-me-1"})
    assert response.status_code == 500 and response.headers["content-type"].startswith(kind)
    assert response.headers["x-request-id"] == "trace-me-1"
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"
    text = response.json()["detail"] if kind == "application/json" else response.text
    assert "Something went wrong on our side (request id trace-me-1)" in text
    assert "a bug, on purpose" not in text  # the cause stays in the log
    logged = [r for r in caplog.records if r.exc_info and "a bug, on purpose" in str(r.exc_info[1])]
    assert logged and getattr(logged[0], "request_id", None) == "trace-me-1"


def test_the_next_request_is_answered_as_usual(failing):
    assert failing.get("/api/fail").status_code == 500
    assert failing.get("/api/formats/float16").status_code == 200
