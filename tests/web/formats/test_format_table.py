"""/formats through TestClient: every format in the table with a link to its visualiser, long constants shortened
with the exact one in a title."""

from __future__ import annotations

from app.formats import FORMATS, SCALAR_FORMATS, Real
from tests.helpers.html import Elements


def test_formats_lists_every_format_and_links_its_visualiser(client):
    page = Elements(client.get("/formats").text)
    rows = {attrs["data-format"] for tag, attrs in page.tags if tag == "tr" and "data-format" in attrs}
    assert rows == set(FORMATS)
    hrefs = {attrs["href"] for tag, attrs in page.tags if tag == "a"}
    assert {f"/visualise/{spec.id}" for spec in SCALAR_FORMATS} <= hrefs
    for link in page.having("data-element"):
        assert client.get(link["href"]).status_code == 200


def test_formats_shortens_long_constants_and_keeps_the_exact_one_in_a_title(client):
    text = client.get("/formats").text
    exact = Real.of(FORMATS["float64"].max).exact_string()
    assert f'title="{exact}">≈1.797693e+308<' in text
    assert ">65504<" in text
