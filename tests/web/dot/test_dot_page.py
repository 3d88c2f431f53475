"""/dot through TestClient: the page and its htmx fragment, with JavaScript off (a plain GET form whose query string is
the whole state), the chart, the table against the API's numbers, the bits of a step, the sources of the tensor-core
models, and every bad input refused on the page with a 422 and its sentence."""

from __future__ import annotations

from fractions import Fraction

import pytest
from fastapi.testclient import TestClient

from app.formats import TENSOR_CORES, dot_methods_for
from tests.helpers.html import HX, Elements

PAGE = "/dot"


def test_the_page_with_javascript_off_is_a_get_form_with_every_control(client: TestClient) -> None:
    response = client.get(PAGE)
    assert response.status_code == 200
    page = Elements(response.text)
    (form,) = [attrs for tag, attrs in page.tags if tag == "form" and "dot-form" in attrs.get("class", "")]
    assert form["method"] == "get" and form["action"] == PAGE
    names = {attrs.get("name") for tag, attrs in page.tags if tag in ("input", "select", "textarea")}
    assert {"format", "a", "b", "distribution", "n", "seed", "method", "promote_every", "step", "bits"} <= names
    # the figure comes before the form: on a phone the chart is on the first screen
    assert response.text.index("data-chart") < response.text.index("dot-form")


def test_the_table_shows_each_methods_result_as_the_api_computes_it(client: TestClient) -> None:
    query = {"format": "float16", "distribution": "uniform", "n": "500", "seed": "3"}
    page = Elements(client.get(PAGE, params=query).text)
    body = client.post("/api/dot", json={"format": "float16", "distribution": "uniform", "n": 500, "seed": 3}).json()
    rows = [attrs["data-method"] for tag, attrs in page.tags if tag == "tr" and "data-method" in attrs]
    assert rows == list(dot_methods_for("float16"))
    results = page.having("data-result")
    for m, cell in zip(body["methods"], results, strict=True):
        shown = cell["title"]  # the exact value is the cell's tooltip
        assert Fraction(shown) == Fraction(m["value"])
    assert Fraction(page.having("data-exact")[0]["title"]) == Fraction(body["exact"])
    paths = [attrs["data-series"] for tag, attrs in page.tags if tag == "path"]
    assert paths == list(dot_methods_for("float16"))


def test_typed_vectors_and_the_step_of_a_tensor_core(client: TestClient) -> None:
    response = client.get(PAGE, params={"format": "float16", "a": "2 0x1.8p-23", "b": "1, 1", "step": "2",
                                        "bits": "v100"})
    assert response.status_code == 200
    page = Elements(response.text)
    assert "NVIDIA V100 (Volta): elements 1 to 2 in one block" in page.text_of("data-step")
    assert page.text_of("data-step-result") == "2"
    dropped = [i for i, (tag, attrs) in enumerate(page.tags) if tag == "span" and attrs.get("class") == "dropped"]
    assert dropped, "the product's low bits are shown as dropped"
    lost = page.text_of("data-step-lost").removeprefix("Lost in this step: ")
    assert Fraction(lost) == Fraction(3, 2**24)  # the 2^-23 and 2^-24 bits under the V100's 24-bit window


def test_the_sources_and_assumptions_of_each_model_are_on_the_page(client: TestClient) -> None:
    page = Elements(client.get(PAGE, params={"format": "float8_e4m3fn", "n": "64"}).text)
    cores = {attrs["data-core"] for tag, attrs in page.tags if "data-core" in attrs and "hidden" not in attrs}
    assert cores == {core for core in TENSOR_CORES if "float8_e4m3fn" in TENSOR_CORES[core].models}
    text = " ".join(page.texts_of("data-sources"))
    assert "MMA-Sim" in text and "DeepSeek-V3" in text and "3.3.2" in text and "e8m13" in text
    assert "Fasi" in client.get(PAGE, params={"format": "float16", "n": "8"}).text


def test_htmx_gets_only_the_figure(client: TestClient) -> None:
    full = client.get(PAGE, params={"n": "100"})
    fragment = client.get(PAGE, params={"n": "100"}, headers=HX)
    assert fragment.status_code == 200 and fragment.text.lstrip().startswith('<div id="dot-figure"')
    assert "<html" not in fragment.text and "<html" in full.text
    assert "HX-Request" in full.headers["vary"] and "HX-Request" in fragment.headers["vary"]


def test_pairwise_says_it_has_no_single_step(client: TestClient) -> None:
    page = Elements(client.get(PAGE, params={"n": "10", "bits": "pairwise"}).text)
    assert page.having("data-step-none") and all("hidden" in attrs for attrs in page.having("data-step"))


BAD = [
    ({"format": "float64"}, "'float64' is not a format for the dot product"),
    ({"method": "v100", "format": "bfloat16"}, "'v100' does not take bfloat16"),
    ({"method": "sorted"}, "'sorted' is not a dot-product method"),
    ({"a": "1 2", "b": "1"}, "Vector a has 2 numbers and vector b 1"),
    ({"a": "1 2"}, "Give both vectors"),
    ({"a": "1 x", "b": "1 2"}, "Number 2 of vector a, 'x', is not a number"),
    ({"a": "inf", "b": "1"}, "finite numbers only"),
    ({"n": "5000"}, "n must be a whole number from 1 to 4096"),
    ({"n": "abc"}, "n must be a whole number"),
    ({"seed": "-3"}, "seed must be a whole number"),
    ({"promote_every": "0"}, "promote_every must be a whole number from 1 to 4096"),
    ({"n": "10", "step": "11"}, "step runs from 1 to 10"),
    ({"step": "x"}, "step must be a whole number"),
    ({"distribution": "cauchy"}, "'cauchy' is not a distribution here"),
    ({"bits": "v100", "format": "float32"}, "'v100' does not take float32"),
]


@pytest.mark.parametrize(("query", "sentence"), BAD, ids=[str(q)[:50] for q, _ in BAD])
@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "htmx"])
def test_every_bad_input_is_refused_on_the_page(client: TestClient, query: dict, sentence: str, headers) -> None:
    response = client.get(PAGE, params=query, headers=headers)
    assert response.status_code == 422
    assert sentence in Elements(response.text).text_of("data-error")


def test_the_page_speaks_turkish_and_reads_a_decimal_comma_list(client: TestClient) -> None:
    response = client.get("/tr" + PAGE, params={"format": "float32", "a": "0,5; 1,5", "b": "2; 4"})
    assert response.status_code == 200 and '<html lang="tr"' in response.text
    assert Fraction(Elements(response.text).having("data-exact")[0]["title"]) == 7
