"""/learn/accumulation (page, htmx fragment, /embed/ frame) and GET /api/accumulation through TestClient: the
figure's numbers against an independent exact sum, the state in the URL, every bad input refused, and the links."""

from __future__ import annotations

from fractions import Fraction
from urllib.parse import quote

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.formats import FORMATS
from app.formats.vector import round_to_format
from tests.helpers.html import HX, Elements

PAGE = "/learn/accumulation"
ORIGIN = "http://127.0.0.1:8000"  # Settings.public_base_url in the tests
BAD = [
    ({"n": "0"}, "n must be"), ({"n": "1000001"}, "n must be"), ({"n": "abc"}, "n must be"),
    ({"n": "1.5"}, "n must be"),
    ({"n": "1e400"}, "n must be"), ({"n": "9" * 500}, "n must be"), ({"n": "10^99"}, "n must be"),
    ({"format": "nf4"}, "not a format summed here"), ({"format": "float256"}, "not a format summed here"),
    ({"format": "mxfp4"}, "not a format summed here"), ({"distribution": "cauchy"}, "not a distribution"),
    ({"seed": "-1"}, "seed must be"), ({"seed": "4294967296"}, "seed must be"), ({"seed": "x"}, "seed must be"),
    ({"seed": "１"}, "seed must be"), ({"method": "sorted"}, "not a summation method"),
]


def _api(client: TestClient, **params: str | list[str]) -> dict:
    response = client.get("/api/accumulation", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_the_api_sums_the_stored_values_against_their_exact_sum(client: TestClient) -> None:
    body = _api(client, format="bfloat16", distribution="uniform", n="2000", seed="7")
    drawn = np.random.default_rng(7).random(2000)  # the documented draw: numpy's default generator from the seed
    stored = round_to_format(drawn, FORMATS["bfloat16"]).astype(np.float64)
    exact = sum((Fraction(v) for v in stored.tolist()), Fraction(0))
    assert Fraction(body["exact_sum"]) == exact
    assert [m["method"] for m in body["methods"]] == ["naive", "fp32", "pairwise", "kahan"]
    for m in body["methods"]:
        assert Fraction(m["error"]) == Fraction(m["result"]) - exact
        assert m["rel_error"] == pytest.approx(float(abs(Fraction(m["error"])) / exact))
        assert len(m["running"]) == len(body["steps"])
    assert body["steps"][0] == 1 and body["steps"][-1] == 2000 and len(body["steps"]) <= 240


def test_bf16_stalls_near_256_on_ten_thousand_uniform_values(client: TestClient) -> None:
    body = _api(client, format="bfloat16", distribution="uniform", n="10000", seed="0")
    naive = next(m for m in body["methods"] if m["method"] == "naive")
    assert naive["result"] == "256" and naive["stall_step"] is not None and naive["stall_step"] < 1000
    fp32 = next(m for m in body["methods"] if m["method"] == "fp32")
    assert abs(Fraction(fp32["error"])) < abs(Fraction(naive["error"])) / 100


def test_only_the_methods_asked_for_in_the_figures_order(client: TestClient) -> None:
    body = _api(client, n="50", method=["kahan", "naive"])
    assert [m["method"] for m in body["methods"]] == ["naive", "kahan"]


def test_fp64_leaves_fp32_accumulation_out(client: TestClient) -> None:
    body = _api(client, format="float64", n="100")
    assert [m["method"] for m in body["methods"]] == ["naive", "pairwise", "kahan"]
    page = client.get(PAGE, params={"format": "float64", "n": "100"})
    assert page.status_code == 200 and "FP32 accumulation is left out for FP64" in page.text


def test_an_overflow_is_reported_not_hidden(client: TestClient) -> None:
    body = _api(client, format="float8_e4m3fn", distribution="lognormal", n="3000", seed="1")
    assert body["clamped"] > 0  # lognormal values beyond 448 are stored as 448
    naive = next(m for m in body["methods"] if m["method"] == "naive")
    assert naive["result"] == "nan" and naive["rel_error"] is None and naive["overflow_step"] >= 1
    assert None in naive["running"]  # JSON has no NaN


@pytest.mark.parametrize(("params", "words"), BAD)
def test_every_bad_input_is_refused_with_a_sentence(client: TestClient, params: dict, words: str) -> None:
    api = client.get("/api/accumulation", params=params)
    assert api.status_code == 422 and words in api.json()["detail"]
    page = client.get(PAGE, params=params)
    assert page.status_code == 422
    error = Elements(page.text).text_of("data-error")
    assert words in error and error.endswith(".")
    assert 'action="/learn/accumulation"' in page.text  # the form is still there to correct it
    fragment = client.get(PAGE, params=params, headers=HX)
    assert fragment.status_code == 422 and fragment.text.lstrip().startswith('<div id="accumulation-figure"')


def test_the_page_shows_the_chart_the_stall_and_the_table_without_script(client: TestClient) -> None:
    response = client.get(PAGE, params={"format": "bfloat16", "distribution": "ones", "n": "1000"})
    assert response.status_code == 200
    page = Elements(response.text)
    assert {s["data-series"] for s in page.having("data-series") if "d" in s} == {
        "exact", "naive", "fp32", "pairwise", "kahan"}
    assert all(s["d"].startswith("M") for s in page.having("data-series") if "d" in s)
    assert len(page.having("data-stall-mark")) == 1
    assert "stops at 256 after step 256" in page.text_of("data-stall")
    assert [row["data-method"] for row in page.having("data-method") if "data-label" not in row][-4:] == [
        "naive", "fp32", "pairwise", "kahan"]
    assert len(page.having("data-result")) == 4
    assert "<script>" not in response.text  # no inline script (CSP)


def test_the_state_is_in_the_url_and_the_form_carries_it(client: TestClient) -> None:
    response = client.get(PAGE, params={"format": "float16", "distribution": "normal", "n": "500", "seed": "42",
                                        "method": ["pairwise", "naive"]})
    page = Elements(response.text)
    selected = {tag["value"] for tag in page.having("selected")}
    assert {"float16", "normal"} <= selected
    inputs = {tag.get("name"): tag.get("value") for tag in page.having("name") if "type" not in tag}
    assert inputs["n"] == "500" and inputs["seed"] == "42"
    checked = {tag["value"] for tag in page.having("checked") if tag.get("name") == "method"}
    assert checked == {"pairwise", "naive"}
    offered = {tag["value"] for tag in page.having("type") if tag["type"] == "checkbox" and tag["name"] == "method"}
    assert offered == {"naive", "fp32", "pairwise", "kahan"}
    summed = [tag["data-method"] for tag in page.having("data-method") if "data-label" not in tag][-2:]
    assert summed == ["naive", "pairwise"]  # the table's rows: only the chosen methods, in the figure's order


def test_htmx_gets_the_figure_alone(client: TestClient) -> None:
    response = client.get(PAGE, params={"n": "100"}, headers=HX)
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<div id="accumulation-figure"') and "<html" not in response.text


def test_the_same_url_gives_the_same_page(client: TestClient) -> None:
    params = {"format": "float8_e5m2", "distribution": "normal", "n": "3000", "seed": "3"}
    assert client.get(PAGE, params=params).text == client.get(PAGE, params=params).text


def test_the_framed_page_has_no_chrome_and_keeps_its_links_in_the_frame(client: TestClient) -> None:
    response = client.get("/embed" + PAGE, params={"n": "1000"})
    assert response.status_code == 200
    assert "frame-ancestors 'none'" not in response.headers["content-security-policy"]
    page = Elements(response.text)
    assert page.having("data-open-full")[0]["href"] == PAGE + "?n=1000"
    assert [f["action"] for f in page.having("action") if f.get("method") == "get"][0] == "/embed" + PAGE
    stall_links = [a["href"] for a in page.having("href") if a["href"].startswith("/embed/visualise/")]
    assert stall_links == ["/embed/visualise/bfloat16?value=256"]
    assert client.get(PAGE).headers["content-security-policy"].count("frame-ancestors 'none'") == 1


def test_oembed_answers_for_the_figure(client: TestClient) -> None:
    url = f"{ORIGIN}{PAGE}?format=float16&n=5000"
    response = client.get(f"/oembed?url={quote(url, safe='')}&format=json")
    assert response.status_code == 200
    body = response.json()
    assert "accumulation" in body["title"] and f"{ORIGIN}/embed{PAGE}?format=float16&amp;n=5000" in body["html"]


def test_the_guide_and_the_demo_link_the_figure(client: TestClient) -> None:
    guide = Elements(client.get("/learn/mixed-precision-training").text)
    links = [tag["href"] for tag in guide.having("data-accumulation-link")]
    assert links and all(link.startswith(PAGE) for link in links)
    assert client.get(links[0]).status_code == 200
    demo = Elements(client.get("/train").text)
    assert [tag["href"] for tag in demo.having("data-accumulation-link")] == [PAGE]
