"""POST /api/dot through TestClient: the exact dot product of the stored vectors against Fractions, each method's
error against it, the bits of a step, the documentation, and every bad input refused with a sentence, never 5xx."""

from __future__ import annotations

from fractions import Fraction

import pytest
from fastapi.testclient import TestClient

from app.formats import DOT_METHODS, FORMATS, drawn_vectors
from app.main import create_app


def _dot(client: TestClient, **body: object) -> dict:
    response = client.post("/api/dot", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_typed_vectors_are_stored_and_their_exact_dot_product_is_the_fraction_sum(client: TestClient) -> None:
    body = _dot(client, format="float16", a=[0.1, "1/3", "0x1.8p-3", -2], b=["3", 0.5, 1e-5, 7])
    # FP16's nearest values, worked out by hand: 0.1 -> 1638/16384, 1/3 -> 1365/4096, 1e-5 -> 168/2^24
    assert body["a"] == ["0.0999755859375", "0.333251953125", "0.1875", "-2"]
    assert Fraction(body["b"][2]) == Fraction(168, 2**24)
    exact = sum(Fraction(x) * Fraction(y) for x, y in zip(body["a"], body["b"], strict=True))
    assert Fraction(body["exact"]) == exact and body["drawn"] is False and body["n"] == 4
    assert [m["method"] for m in body["methods"]] == list(DOT_METHODS)  # FP16: every method, V100 included
    for m in body["methods"]:
        assert Fraction(m["error"]) == Fraction(m["value"]) - exact
        assert m["output_format"] == ("float16" if m["method"] == "input_format" else "float32")


def test_drawn_vectors_are_the_documented_draw(client: TestClient) -> None:
    body = _dot(client, format="bfloat16", distribution="lognormal", n=300, seed=11, methods=["fp32", "a100"])
    a, b = drawn_vectors("bfloat16", "lognormal", 300, 11)
    scale = Fraction(2) ** (FORMATS["bfloat16"].emin - FORMATS["bfloat16"].mantissa_bits)
    assert [Fraction(x) for x in body["a"]] == [u * scale for u in a.units]
    assert [m["method"] for m in body["methods"]] == ["fp32", "a100"] and body["drawn"] is True
    assert body["steps"][-1] == 300 and len(body["steps"]) <= 200
    assert all(len(m["running_error"]) == len(body["steps"]) for m in body["methods"])


def test_the_v100_drops_what_fp32_keeps(client: TestClient) -> None:
    """Fasi et al.'s "round-down for positive values": 2 + 3 × 2^-24 in one block is 2 on the V100; FP32's
    round-to-nearest keeps 2 + 2^-22."""
    body = _dot(client, format="float16", a=[2, "0x1.8p-23"], b=[1, 1], methods=["fp32", "v100"], step=2,
                step_method="v100")
    values = {m["method"]: Fraction(m["value"]) for m in body["methods"]}
    assert values["fp32"] == 2 + Fraction(2, 2**23)  # 2 + 1.5 ulp rounds to nearest: 2 + 2^-22
    assert values["v100"] == 2  # truncated to 24 bits from 2^1: the 2^-23 and 2^-24 bits go
    step = body["step"]
    assert step["kind"] == "aligned_block" and (step["first"], step["last"]) == (1, 2) and step["cut"] == -22
    assert Fraction(step["lost"]) == Fraction(3, 2**24)
    product = step["terms"][2]
    assert product["element"] == 2 and Fraction(product["value"]) == Fraction(3, 2**24)
    assert Fraction(product["kept"]) == 0


def test_a_rounded_step_shows_the_operands_and_the_sum(client: TestClient) -> None:
    body = _dot(client, format="bfloat16", a=[1, 1, 1], b=[256, 1, 0.5], methods=["input_format"], step=2)
    step = body["step"]
    assert step["kind"] == "rounded_sum" and [t["role"] for t in step["terms"]] == ["accumulator", "product"]
    assert Fraction(step["exact_sum"]) == 257 and Fraction(step["result"]["value"]) == 256  # BF16 keeps 8 bits
    assert Fraction(step["lost"]) == 1 and step["cut"] == 1


def test_pairwise_has_no_step_bits(client: TestClient) -> None:
    assert _dot(client, n=8, step=3, step_method="pairwise")["step"] is None


BAD = [
    ({"format": "float64"}, "'float64' is not a format for the dot product"),
    ({"format": "nf4"}, "'nf4' is not a format for the dot product"),
    ({"methods": ["sorted"]}, "'sorted' is not a dot-product method"),
    ({"format": "bfloat16", "methods": ["v100"]}, "'v100' does not take bfloat16"),
    ({"format": "float8_e5m2", "methods": ["a100"]}, "'a100' does not take float8_e5m2"),
    ({"a": [1, 2], "b": [1]}, "Vector a has 2 numbers and vector b 1"),
    ({"a": [1]}, "Give both vectors, a and b, or neither"),
    ({"a": [1] * 4097, "b": [1] * 4097}, "4096"),
    ({"n": 4097}, "4096"),
    ({"n": 0}, "n"),
    ({"seed": -1}, "seed"),
    ({"a": ["one"], "b": [1]}, "Number 1 of vector a, 'one', is not a number"),
    ({"a": [1, "nan"], "b": [1, 2]}, "Number 2 of vector a is 'nan'; a dot product here takes finite numbers only."),
    ({"a": [1], "b": ["-inf"]}, "Number 1 of vector b is '-inf'"),
    ({"promote_every": 0}, "promote_every"),
    ({"promote_every": 5000}, "promote_every"),
    ({"n": 10, "step": 11}, "step runs from 1 to 10, the length of the vectors; 11 is not."),
    ({"step": 0}, "step"),
    ({"distribution": "cauchy"}, "'cauchy' is not a distribution here"),
    ({"step": 1, "step_method": "v100", "format": "tfloat32"}, "'v100' does not take tfloat32"),
]


@pytest.mark.parametrize(("body", "sentence"), BAD, ids=[str(b)[:60] for b, _ in BAD])
def test_every_bad_input_is_refused_with_a_sentence(client: TestClient, body: dict, sentence: str) -> None:
    response = client.post("/api/dot", json=body)
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert isinstance(detail, str) and sentence in detail and detail.endswith(".")


def test_a_body_that_is_not_json_is_refused_not_a_server_error(client: TestClient) -> None:
    response = client.post("/api/dot", content=b"a=1", headers={"content-type": "application/json"})
    assert 400 <= response.status_code < 500


def test_the_route_is_documented_with_its_refusals(client: TestClient) -> None:
    operation = client.get("/openapi.json").json()["paths"]["/api/dot"]["post"]
    assert operation["summary"] and "Fasi" in operation["description"]
    assert {"422", "429"} <= set(operation["responses"])


def test_sums_asked_too_often_are_refused_with_429(make_settings) -> None:
    with TestClient(create_app(make_settings(rate_limit_sums="2/minute"))) as client:
        assert [client.post("/api/dot", json={"n": 4}).status_code for _ in range(2)] == [200, 200]
        refused = client.post("/api/dot", json={"n": 4})
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
        assert client.get("/dot?n=4").status_code == 429  # the page counts against the same limit
