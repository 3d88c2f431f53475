"""The HTML pages through TestClient: page and fragment, key content, JavaScript-off links, hostile input."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.helpers.html import HX, PAGE_BUDGET, Elements, budgeted, first_visit
from tests.hostile_inputs import INJECTIONS

PAGES = [
    "/",
    "/visualise/float16?value=0.1",
    "/visualise/float64?bits=0x3fb999999999999a",
    "/visualise/int8?value=-123",
    "/visualise/nf4?value=0.5",
    "/visualise/mxfp4?preset=outlier",
    "/visualise/nvfp4",
    "/visualise/nf4?preset=normal",
    "/visualise/float128?value=0.1",
    "/visualise/custom?exponent_bits=4&mantissa_bits=3&bias=11&nan_style=fnuz&value=0.1",
    "/compare?value=0.3952",
    "/formats",
    "/docs",
]
STATIC = Path(__file__).resolve().parents[3] / "static"


def bits_of(href: str) -> int:
    return int(parse_qs(urlsplit(href).query)["bits"][0], 16)


# -- page or fragment ---------------------------------------------------------------------------


@pytest.mark.parametrize("url", PAGES)
def test_a_browser_gets_the_whole_page(client, url):
    response = client.get(url)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "<html" in response.text and re.search(r"/static/[0-9a-f]{12}/css/site.css", response.text)
    assert "HX-Request" in response.headers["vary"]


HTMX = re.compile(r"/static/[0-9a-f]{12}/vendor/htmx.min.js")


@pytest.mark.parametrize("url", ["/visualise/float16?value=0.1", "/visualise/mxfp4?preset=outlier",
                                 "/compare?value=0.1", "/train", "/embed/visualise/float16?value=0.1",
                                 "/tr/visualise/float16?value=0.1", "/yo/embed/visualise/nf4?value=0.3",
                                 "/tr/visualise/mxfp4", "/yo/visualise/nf4?preset=outlier", "/el/compare?value=0,1"])
def test_pages_whose_script_does_every_round_trip_leave_htmx_out(client, url):
    assert not HTMX.search(client.get(url).text)


@pytest.mark.parametrize("url", ["/learn/memory", "/learn/accumulation", "/learn/quantisation",
                                 "/tr/visualise/mxfp4?values=zebra",  # a block page that opened on an error
                                 "/visualise/custom?exponent_bits=99&mantissa_bits=3"])
def test_pages_that_need_htmx_round_trips_load_it(client, url):
    response = client.get(url)
    assert response.status_code in (200, 422) and HTMX.search(response.text)


@pytest.mark.parametrize("url", PAGES)
def test_htmx_gets_only_the_fragment(client, url):
    response = client.get(url, headers=HX)
    assert response.status_code == 200
    assert "<html" not in response.text and "<head" not in response.text
    assert response.text.strip()


@pytest.mark.parametrize("url", budgeted(PAGES))
def test_first_visit_stays_under_150_kb(client, url):
    page = client.get(url).text
    assets = first_visit(page, client)  # what the page links and names, and what its modules import
    assert any(a.endswith("/css/site.css") for a in assets) and any(a.endswith(".js") for a in assets)  # all counted
    assert len(page.encode()) + sum(len(body) for body in assets.values()) < PAGE_BUDGET


# -- docs, home --------------------------------------------------------------


def test_docs_describe_every_api_path_and_their_examples_work(client):
    page = Elements(client.get("/docs").text)
    documented = {attrs["data-path"] for attrs in page.having("data-path")}
    assert documented == set(client.get("/openapi.json").json()["paths"])
    examples = [a["href"] for a in page.having("data-example")]
    assert "/api/formats/float16/decode?bits=0x3c00" in examples
    for href in examples:
        assert client.get(href).status_code == 200, href


def test_home_links_to_every_page(client):
    hrefs = {attrs["href"].split("?")[0] for tag, attrs in Elements(client.get("/").text).tags if tag == "a"}
    assert {"/compare", "/formats", "/docs", "/visualise/float16", "/visualise/float8_e4m3fn"} <= hrefs


# -- hostile input ------------------------------------------------------------------------------

HOSTILE = [
    ("/visualise/float16", {"value": "garbage"}, 422),
    ("/visualise/float16", {"value": "9" * 5000}, 422),
    ("/visualise/float16", {"value": "1" * 1200}, 422),
    ("/visualise/float16", {"value": "١٢٣"}, 422),
    ("/visualise/float16", {"value": "１２"}, 422),
    ("/visualise/float16", {"value": "1e999999999"}, 422),
    ("/visualise/float16", {"value": ""}, 422),
    ("/visualise/float16", {"value": "   "}, 422),
    ("/visualise/float16", {"value": "\x00"}, 422),
    ("/visualise/float16", {"value": "NaN(0x7e00)"}, 422),
    ("/visualise/float16", {"value": "infinity!"}, 422),
    ("/visualise/float16", {"value": "--1"}, 422),
    ("/visualise/float16", {"value": "1/0"}, 422),
    ("/visualise/float16", {"value": "0x"}, 422),
    ("/visualise/float16", {"value": "0x10000"}, 422),
    ("/visualise/float16", {"value": "1; DROP TABLE formats; --"}, 422),
    ("/visualise/float16", {"value": "' OR '1'='1"}, 422),
    ("/visualise/float16", {"bits": "0x10000"}, 422),
    ("/visualise/float16", {"bits": "0b" + "1" * 17}, 422),
    ("/visualise/float8_e4m3fn", {"bits": "256"}, 422),
    ("/visualise/float16", {"bits": ""}, 422),
    ("/visualise/float16", {"bits": "-1"}, 422),
    ("/visualise/float16", {"value": "1", "rounding": "sideways"}, 422),
    ("/visualise/float16", {"value": "1", "overflow": "explode"}, 422),
    ("/visualise/float16", {"value": "1", "seed": "abc"}, 422),
    ("/visualise/float16", {"value": "1", "seed": "-1"}, 422),
    ("/visualise/float16", {"value": "1", "seed": "9" * 30}, 422),
    ("/visualise/nosuch", {"value": "1"}, 404),
    ("/visualise/FLOAT16", {}, 404),
    ("/visualise/%3Cscript%3Ealert(1)%3C%2Fscript%3E", {}, 404),
    ("/visualise/mxfp8_e4m3", {"values": "1, zebra"}, 422),
    ("/visualise/nvfp4", {"preset": "gaussian"}, 422),
    ("/visualise/float16/extra", {}, 404),
    ("/compare", {"value": "garbage"}, 422),
    ("/compare", {"value": ""}, 422),
    ("/compare", {"value": "0x3c00"}, 422),
    ("/compare", {"value": "1e999999999"}, 422),
    ("/compare", {"value": "٣"}, 422),
    ("/compare", {"value": "x" * 5000}, 422),
    ("/compare", {"rounding": "up"}, 422),
    ("/compare", {"overflow": "wrap"}, 422),
] + [(page, {"value": text}, 422) for text in INJECTIONS for page in ("/visualise/float16", "/compare")]


@pytest.mark.parametrize(("path", "params", "status"), HOSTILE, ids=[f"{p}-{q}"[:60] for p, q, _ in HOSTILE])
@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "htmx"])
def test_hostile_input_gets_a_4xx_with_the_reason_and_no_markup(client, path, params, status, headers):
    response = client.get(path, params=params, headers=headers)
    assert response.status_code == status
    assert response.headers["content-type"].startswith("text/html")
    assert Elements(response.text).text_of("data-error")
    for text in INJECTIONS:
        assert text not in response.text


def test_the_hostile_table_is_long_enough():
    assert len(HOSTILE) >= 30


@pytest.mark.parametrize(("path", "location"), [
    ("/quiz/", "/quiz"), ("/learn/", "/learn"), ("/visualise/float16/?value=0.1", "/visualise/float16?value=0.1"),
    ("/quiz//", "/quiz"),
])
def test_a_trailing_slash_redirects_to_the_path_never_to_the_requests_host(client, path, location):
    response = client.get(path, headers={"Host": "evil.example"}, follow_redirects=False)
    assert response.status_code == 307 and response.headers["location"] == location


@pytest.mark.parametrize("path", ["/nothing-here/", "/static/css/"])
def test_a_trailing_slash_on_no_page_is_the_404_page(client, path):
    assert client.get(path, follow_redirects=False).status_code == 404


DESCRIBED = [*PAGES, "/learn", "/learn/number-formats", "/learn/glossary", "/learn/memory", "/learn/hardware",
             "/quiz", "/verify", "/train", "/visualise/bfloat16?value=0.1"]


def _head(client, url: str) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    page = Elements(client.get(url).text)
    description = next(a["content"] for tag, a in page.tags if tag == "meta" and a.get("name") == "description")
    canonical = next(a["href"] for tag, a in page.tags if tag == "link" and a.get("rel") == "canonical")
    return description, canonical


def test_every_page_has_a_description_of_its_own_and_a_canonical_link(client):
    base = client.app.state.settings.public_base_url
    heads = {url: _head(client, url) for url in DESCRIBED}
    descriptions = [description for description, _ in heads.values()]
    assert len(set(descriptions)) == len(descriptions), descriptions
    assert all(len(d) > 40 for d in descriptions)
    for url, (_, canonical) in heads.items():
        assert canonical == base + url


def test_an_embedded_page_names_the_full_page_as_canonical(client):
    base = client.app.state.settings.public_base_url
    assert _head(client, "/embed/visualise/float16?value=0.1")[1] == base + "/visualise/float16?value=0.1"
    assert _head(client, "/embed/compare?value=0.1")[1] == base + "/compare?value=0.1"
