"""Take it home in Chromium: the links and the script follow the form as it changes, and are then what the server
writes for the same URL (JavaScript off); refused settings say why; the section is accessible."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect


def _section(page: Page) -> tuple[list[str | None], str]:
    links = [a.get_attribute("href") for a in page.locator("[data-script-link]").all()]
    return links, page.locator("[data-script-code]").text_content() or ""


def test_the_links_and_the_script_follow_the_form_as_the_server_would_write_them(page: Page):
    page.goto("/train?scenario=tiny_gradients")
    page.locator("#recipe-fp32").uncheck()
    page.fill("#steps", "77")
    first = page.locator("[data-script-link]").first
    expect(first).to_have_attribute("data-script-link", "fp16_no_scaling")
    expect(page.locator("[data-script-name]")).to_have_text("FP16, no loss scaling")
    expect(page.locator("[data-script-code]")).to_contain_text("STEPS = 77")
    links, script = _section(page)
    assert 'RECIPE = "fp16_no_scaling"' in script
    assert page.request.get(links[0] or "").text() == script  # the download is the script shown
    page.goto(page.url)  # the page's URL follows the form (train.js): the server's section for the same settings
    server_links, server_script = _section(page)
    assert server_script == script
    assert [link.split("?")[0] for link in server_links] == [link.split("?")[0] for link in links]  # type: ignore[union-attr]
    assert [page.request.get(link or "").text() for link in server_links] == \
        [page.request.get(link or "").text() for link in links]


@pytest.mark.allowed_console_errors(r"status of 422")
def test_refused_settings_say_why_instead_of_offering_a_script(page: Page):
    page.goto("/train")
    page.fill("#steps", "99999")
    expect(page.locator("[data-script-message]")).to_contain_text("steps must be at most 2000")
    expect(page.locator("[data-script-links]")).to_be_hidden()
    expect(page.locator("[data-script-view]")).to_be_hidden()
    page.fill("#steps", "50")
    expect(page.locator("[data-script-code]")).to_contain_text("STEPS = 50")
    expect(page.locator("[data-script-links]")).to_be_visible()


def test_the_section_is_accessible_with_the_script_open(page: Page, axe_check):
    page.goto("/train?recipe=bf16&recipe=fp8_hybrid_delayed")
    page.locator("[data-script-view] summary").click()
    expect(page.locator("[data-script-code]")).to_be_visible()
    axe_check(page)
