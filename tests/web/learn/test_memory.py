"""/learn/memory and GET /api/memory through TestClient: known figures, fragments, JavaScript-off form, bad input."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from tests.helpers.html import HX, Elements

FIELDS = ("params", "format", "recipe", "optimizer", "devices", "stage")
HOSTILE = [
    {"params": "abc"}, {"params": "-7B"}, {"params": "1e400"}, {"params": ""}, {"params": "x" * 5000},
    {"params": "<script>alert(1)</script>"}, {"devices": "0"}, {"devices": "99999999999"}, {"devices": "-3"},
    {"recipe": "fp4_magic"}, {"format": "float256"}, {"format": "float8_e8m0fnu"}, {"optimizer": "lion"},
    {"stage": "4"},
]


def _text(html: str, attribute: str) -> str:
    page = Elements(html)
    assert page.having(attribute), f"no element with {attribute}"
    return page.text_of(attribute)


def test_page_shows_the_known_figures(client: TestClient) -> None:
    response = client.get("/learn/memory")
    assert response.status_code == 200
    html = response.text
    assert _text(html, "data-weights-gb") == "14 GB"  # 7B parameters in BF16
    assert _text(html, "data-bytes-per-param") == "16 bytes per parameter"  # Adam, mixed precision
    assert _text(html, "data-training-gb") == "112 GB"
    assert _text(html, "data-per-device-gb") == "14 GB per device"  # ZeRO-3 over 8: 112 / 8
    not_included = html.split("data-not-included")[1].split("</p>")[0]
    assert "Activations" in not_included and "10<sup>9</sup> bytes" in not_included


def test_not_included_says_what_is_counted_and_why_the_rest_is_not(client: TestClient) -> None:
    for text in (client.get("/learn/memory").text.split("data-not-included")[1].split("</p>")[0],
                 client.get("/api/memory", params={"params": "7B"}).json()["not_included"]):
        assert "counts only what grows with the number of parameters" in text
        assert "batch size" in text and "sequence length" in text
        assert "parts that grow with the number of parameters only" not in text  # read as describing the excluded


def test_chosen_figures_follow_the_query(client: TestClient) -> None:
    html = client.get("/learn/memory?params=70B&format=float32&recipe=fp32&optimizer=sgd&devices=4&stage=0").text
    assert _text(html, "data-weights-gb") == "280 GB"
    assert _text(html, "data-bytes-per-param") == "12 bytes per parameter"
    assert _text(html, "data-per-device-gb") == "840 GB per device"  # stage 0 shards nothing
    html = client.get("/learn/memory?params=7B&format=mxfp4").text
    assert _text(html, "data-weights-gb") == "≈ 3.72 GB"  # 7e9 × 4.25 / 8 = 3.71875e9
    assert "4.25 bits per weight" in html


def test_htmx_gets_only_the_results(client: TestClient) -> None:
    response = client.get("/learn/memory?params=13B", headers=HX)
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<div id="memory-results"')
    assert "<html" not in response.text and "26 GB" in response.text


def test_form_works_without_javascript(client: TestClient) -> None:
    html = client.get("/learn/memory").text
    form = re.search(r"<form[^>]*>", html)
    assert form and 'action="/learn/memory"' in form[0] and 'method="get"' in form[0]
    for name in FIELDS:
        assert f'name="{name}"' in html
    assert re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html) is None  # the CSP forbids inline scripts
    assert " style=" not in html


@pytest.mark.parametrize("query", HOSTILE)
@pytest.mark.parametrize("headers", [{}, HX])
def test_bad_input_is_a_422_with_a_sentence(client: TestClient, query: dict[str, str],
                                            headers: dict[str, str]) -> None:
    response = client.get("/learn/memory", params=query, headers=headers)
    assert response.status_code == 422
    message = _text(response.text, "data-error")
    assert message.endswith(".") and len(message) < 400
    assert "<script>alert" not in response.text


def test_api_known_figures(client: TestClient) -> None:
    body = client.get("/api/memory", params={"params": "7B", "devices": "8", "stage": "3"}).json()
    assert body["params"] == 7_000_000_000
    assert body["weights"] == {"format": "bfloat16", "bits_per_value": "16", "bytes": 14 * 10**9, "gb": 14.0}
    bits = {row["format"]: row["bits_per_value"] for row in body["inference"]}
    assert bits["mxfp4"] == "4.25" and bits["nf4"] == "4.5" and bits["float32"] == "32"
    training = {row["recipe"]: row for row in body["training"]}
    assert training["bf16"]["bytes_per_param"]["total"] == 16 and training["bf16"]["gb"] == 112
    assert body["sharded"]["bytes_per_device"]["total"] == 14 * 10**9
    assert body["sharded"]["gb_per_device"] == 14
    assert "Activations" in body["not_included"]
    fits = {row["name"]: row for row in body["accelerators"]}
    assert fits["NVIDIA H200"]["memory_gb"] == 141 and fits["NVIDIA H200"]["training_fits"]


@pytest.mark.parametrize("query", HOSTILE + [{"params": "1e16"}, {"params": "nan"}, {"params": "inf"}])
def test_api_bad_input(client: TestClient, query: dict[str, str]) -> None:
    response = client.get("/api/memory", params={"params": "7B", **query})
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert isinstance(detail, str) and detail.endswith(".")


def test_api_needs_params(client: TestClient) -> None:
    response = client.get("/api/memory")
    assert response.status_code == 422
    assert "params" in response.json()["detail"]
