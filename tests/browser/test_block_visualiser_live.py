"""The block visualiser in a real browser: presets and the values box swap the block in place, the URL keeps the
state, elements open in their own visualiser, JavaScript off works, narrow screens, axe."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, Page, expect

SCALE_BITS = "[data-scale-bits]"


def wait_until_settled(page: Page) -> None:
    page.wait_for_function("!document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')")


def test_a_preset_swaps_the_block_in_place_and_the_url_keeps_it(page: Page):
    page.goto("/visualise/mxfp4")
    expect(page.locator("#block")).to_be_visible()
    page.evaluate("window.__notReloaded = true")
    page.locator('[data-preset="outlier"]').click()
    expect(page.locator(SCALE_BITS).first).to_have_text("0x82")
    expect(page).to_have_url(re.compile(r"/visualise/mxfp4\?preset=outlier$"))
    expect(page.locator('[data-preset="outlier"]')).to_have_attribute("aria-current", "true")
    assert page.evaluate("window.__notReloaded === true"), "the preset reloaded the page instead of swapping"
    page.go_back()
    expect(page.locator(SCALE_BITS).first).not_to_have_text("0x82")


def test_typing_values_quantises_them_in_place(page: Page):
    page.goto("/visualise/nvfp4")
    wait_until_settled(page)
    page.evaluate("window.__notReloaded = true")
    page.locator("#values").fill("6, -3, 1.5, 0.1")
    page.locator("#block button[type=submit]").click()
    expect(page.locator("tr[data-element]")).to_have_count(4)
    expect(page).to_have_url(re.compile(r"values=6%2C(\+|%20)-3"))
    expect(page.locator('[data-note="padding"]')).to_contain_text("the other 12 of the block are zeros")
    assert page.evaluate("window.__notReloaded === true")


@pytest.mark.allowed_console_errors(r"422")
def test_a_bad_entry_says_which_and_keeps_the_text(page: Page):
    page.goto("/visualise/mxfp4")
    wait_until_settled(page)
    page.locator("#values").fill("1, 2, zebra")
    page.locator("#block button[type=submit]").click()
    expect(page.locator("[data-error]")).to_contain_text("Value 3 ('zebra') cannot be used")
    expect(page.locator("#values")).to_have_value("1, 2, zebra")


def test_an_element_opens_in_its_own_visualiser(page: Page):
    page.goto("/visualise/mxfp4?preset=outlier")
    link = page.locator('tr[data-element="5"] [data-element-link]')
    href = link.get_attribute("href")
    assert href == "/visualise/float4_e2m1fn?bits=0x6"
    link.click()
    expect(page).to_have_url(re.compile(r"/visualise/float4_e2m1fn\?bits=0x6$"))
    expect(page.locator("[data-stored]")).to_have_text("4")  # the element before the block's scale 8


def test_another_format_of_the_table_opens_the_same_block(page: Page):
    page.goto("/visualise/mxfp4?preset=outlier")
    page.locator('tr[data-other="nvfp4"] th a').click()
    expect(page.locator("#block")).to_have_attribute("data-format", "nvfp4")
    expect(page).to_have_url(re.compile(r"/visualise/nvfp4\?preset=outlier$"))


def test_the_block_works_with_javascript_off(browser: Browser, server_url: str):
    context = browser.new_context(base_url=server_url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/visualise/mxint8")
    page.locator('[data-preset="nan"]').click()
    expect(page).to_have_url(re.compile(r"\?preset=nan$"))
    expect(page.locator(SCALE_BITS).first).to_have_text("0xff")
    page.locator("#values").fill("1, -0.5")
    page.locator("#block button[type=submit]").click()
    expect(page.locator("tr[data-element]")).to_have_count(2)
    expect(page.locator(SCALE_BITS).first).to_have_text("0x7f")  # absmax 1: ⌊log2 1⌋ − 0 = 0, field 127
    context.close()


BLOCK_PAGES = ["/visualise/mxfp4?preset=outlier", "/visualise/nvfp4", "/visualise/nf4?preset=normal",
               "/visualise/mxfp8_e5m2?preset=nan", "/embed/visualise/mxfp6_e3m2?preset=floor"]


@pytest.mark.parametrize("url", BLOCK_PAGES)
def test_no_horizontal_page_scroll_at_375_px(page: Page, url: str):
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(url)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    # the figure first: the chart is on the first screen of a phone
    assert page.locator(".error-chart svg").bounding_box()["y"] < 800  # type: ignore[index]


@pytest.mark.parametrize("url", BLOCK_PAGES)
def test_axe_finds_no_serious_violations(page: Page, axe_check: Callable[[Page], None], url: str):
    page.goto(url)
    axe_check(page)


def test_axe_finds_no_serious_violations_after_a_swap(page: Page, axe_check: Callable[[Page], None]):
    page.goto("/visualise/mxfp4")
    page.locator('[data-preset="inf"]').click()
    expect(page.locator(SCALE_BITS).first).to_have_text("0xff")
    wait_until_settled(page)
    axe_check(page)


def test_the_notes_box_shows_only_while_a_note_is_shown(page: Page):
    """Every note is a hidden variant of the server's markup; with none shown, no empty box stands in the page."""
    page.goto("/visualise/mxfp4?preset=outlier")
    expect(page.locator("[data-notes]")).to_be_hidden()
    page.locator("#values").fill("1, 2, 3")
    expect(page.locator("[data-notes]")).to_be_visible()
    expect(page.locator("[data-notes]")).to_contain_text("29")  # the padding note: 3 given, 29 zeros
    page.locator("#values").fill(", ".join(str(n) for n in range(1, 33)))
    expect(page.locator("[data-notes]")).to_be_hidden()
