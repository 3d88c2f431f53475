"""Request size limits: an over-long query string gets 414, an over-large body 413, each with a sentence."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from app.main import create_app
from app.settings import Settings
from app.web.platform.request_limits import RequestLimits

# The largest POST /api/blocks/quantize: 16384 values, each the longest text a double has in JSON, in 1024 blocks.
LONGEST_DOUBLE = -2.2250738585072014e-308
MAXIMAL_QUANTIZE = {"format": "mxfp8_e4m3", "values": [LONGEST_DOUBLE] * 16384, "block_size": 16}


def _chunks(size: int, chunk: int = 64 * 1024) -> Iterator[bytes]:
    """A body of `size` bytes sent in pieces, so it travels chunked with no Content-Length."""
    for start in range(0, size, chunk):
        yield b" " * min(chunk, size - start)


@pytest.fixture
def small_client(make_settings) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(max_body_bytes=4096, max_query_bytes=512))) as test_client:
        yield test_client


@pytest.mark.parametrize("path", ["/api/compare", "/compare"])
def test_an_over_long_query_string_gets_414_with_a_sentence(small_client, path):
    response = small_client.get(path, params={"value": "1" * 600})
    assert response.status_code == 414
    sentence = response.json()["detail"] if path.startswith("/api") else response.text
    assert "query string is longer than this site accepts (512 bytes)" in sentence


def test_a_query_string_at_the_limit_passes(small_client):
    value = "1" * (512 - len("value="))
    assert small_client.get("/api/compare", params={"value": value}).status_code == 200


def test_the_refusal_page_is_html_with_the_security_headers(small_client):
    response = small_client.get("/compare", params={"value": "1" * 600})
    assert response.headers["content-type"].startswith("text/html")
    assert "data-error" in response.text
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


@pytest.mark.parametrize("path", ["/api/blocks/quantize", "/quiz/attempts/some-attempt/answers"])
def test_a_declared_over_large_body_gets_413_at_once(small_client, path):
    response = small_client.post(path, content=b"x" * 5000, headers={"content-type": "application/json"})
    assert response.status_code == 413
    sentence = response.json()["detail"] if path.startswith("/api") else response.text
    assert "request body is larger than this site accepts (4,096 bytes)" in sentence


def test_a_streamed_over_large_api_body_is_cut_off_with_413(small_client):
    response = small_client.post(
        "/api/blocks/quantize", content=_chunks(10_000, 1000), headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    assert "4,096 bytes" in response.json()["detail"]


def test_a_streamed_over_large_form_is_cut_off_with_a_413_page(small_client):
    response = small_client.post(
        "/quiz/attempts/some-attempt/answers",
        content=_chunks(10_000, 1000),
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert response.status_code == 413
    assert response.headers["content-type"].startswith("text/html")
    assert "4,096 bytes" in response.text


def test_a_streamed_body_under_the_limit_passes(small_client):
    body = json.dumps({"format": "mxfp4", "values": [1.0, 2.0]}).encode()
    response = small_client.post(
        "/api/blocks/quantize", content=iter([body[:10], body[10:]]), headers={"content-type": "application/json"}
    )
    assert response.status_code == 200


def test_the_largest_valid_quantize_body_fits_the_default_limit(client):
    body = json.dumps(MAXIMAL_QUANTIZE).encode()
    assert len(body) <= Settings.model_fields["max_body_bytes"].default
    response = client.post("/api/blocks/quantize", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 200
    assert len(response.json()["dequantized"]) == 16384


def test_a_body_read_outside_the_routes_still_gets_413():
    async def echo(request: Request) -> PlainTextResponse:
        return PlainTextResponse(str(len(await request.body())))

    app = RequestLimits(Starlette(routes=[Route("/api/echo", echo, methods=["POST"])]), max_body_bytes=100,
                        max_query_bytes=100)
    with TestClient(app) as bare:
        assert bare.post("/api/echo", content=iter([b"x" * 60, b"x" * 60])).status_code == 413
        assert bare.post("/api/echo", content=iter([b"x" * 60, b"x" * 40])).text == "100"
