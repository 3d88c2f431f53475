"""Compare, formats and docs in a real browser: content, links, axe, narrow screens."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from app.formats import FORMATS, SCALAR_FORMATS

SCALAR_IDS = [spec.id for spec in SCALAR_FORMATS]


def test_compare_renders_every_scalar_format(page: Page):
    page.goto("/compare?value=0.3952")
    rows = page.locator("#compare-table tbody tr[data-format]")
    expect(rows).to_have_count(len(SCALAR_IDS))
    assert rows.evaluate_all("rows => rows.map(row => row.dataset.format)") == SCALAR_IDS
    expect(page.locator('tr[data-format="float16"] [data-stored]')).to_have_text("0.395263671875")
    expect(page.locator('tr[data-format="bfloat16"] [data-stored]')).to_have_text("0.39453125")


def test_typing_a_value_updates_the_table_and_the_url(page: Page):
    page.goto("/compare?value=0.3952")
    page.locator("#value").fill("70000")
    expect(page.locator('tr[data-format="float16"] [data-flag="overflow"]')).to_be_visible()
    expect(page).to_have_url(re.compile(r"/compare\?value=70000"))
    page.locator("#overflow").select_option("saturate")
    expect(page.locator('tr[data-format="float16"] [data-stored]')).to_have_text("65504")


def test_a_format_name_opens_its_visualiser_with_the_value(page: Page):
    page.goto("/compare?value=0.3952")
    page.locator('tr[data-format="float8_e4m3fn"] th a').click()
    expect(page).to_have_url(re.compile(r"/visualise/float8_e4m3fn\?value=0\.3952$"))
    expect(page.locator("[data-stored]")).to_have_text("0.40625")


def test_every_link_of_the_format_table_works(page: Page):
    page.goto("/formats")
    rows = page.locator("tr[data-format]")
    assert sorted(rows.evaluate_all("rows => rows.map(row => row.dataset.format)")) == sorted(FORMATS)
    hrefs = page.locator("table a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert {f"/visualise/{spec_id}" for spec_id in SCALAR_IDS} <= set(hrefs)
    for href in set(hrefs):
        assert page.request.get(href).ok, href
    page.locator('tr[data-format="mxfp4"] a[data-element]').click()
    expect(page.locator("#visualiser")).to_have_attribute("data-format", "float4_e2m1fn")


def test_the_api_examples_answer_json(page: Page):
    page.goto("/docs")
    examples = page.locator("[data-example]")
    expect(examples.first).to_be_visible()
    for href in examples.evaluate_all("links => links.map(a => a.getAttribute('href'))"):
        response = page.request.get(href)
        assert response.ok and response.headers["content-type"].startswith("application/json"), href


@pytest.mark.parametrize("url", ["/", "/compare?value=0.3952", "/formats", "/docs"])
def test_axe_finds_no_serious_violations(page: Page, axe_check: Callable[[Page], None], url: str):
    page.goto(url)
    axe_check(page)


@pytest.mark.allowed_console_errors(r"404|422")
@pytest.mark.parametrize("url", ["/visualise/nosuch", "/visualise/mxfp4?values=1,zebra", "/compare?value=zebra"])
def test_error_pages_say_why_and_pass_axe(page: Page, axe_check: Callable[[Page], None], url: str):
    response = page.goto(url)
    assert response is not None and 400 <= response.status < 500
    expect(page.locator("[data-error]")).not_to_be_empty()
    axe_check(page)


@pytest.mark.parametrize("url", ["/compare?value=0.3952", "/formats", "/docs", "/"])
def test_no_horizontal_page_scroll_at_375_px(page: Page, url: str):
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(url)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
