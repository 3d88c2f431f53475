"""The accumulation figure in a real browser: changing a setting swaps the figure and the URL (htmx), the page
works with JavaScript off, passes axe, and fits a 375 px phone without sideways scrolling."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Browser, Page, expect

PAGE = "/learn/accumulation"


def test_a_change_of_setting_swaps_the_figure_and_the_url(page: Page) -> None:
    page.goto(PAGE + "?n=1000&distribution=ones")
    expect(page.locator("[data-stall]")).to_contain_text("stops at 256 after step 256")
    page.select_option("#acc-format", "float16")
    # FP16 sums a thousand ones exactly: no stall now, and the URL says FP16
    expect(page.locator("[data-stall]")).to_have_count(0)
    expect(page).to_have_url(re.compile(r"format=float16"))
    expect(page.locator('tr[data-method="naive"] [data-result]')).to_have_text("1000")
    page.uncheck('input[name="method"][value="kahan"]')
    expect(page.locator('tr[data-method="kahan"]')).to_have_count(0)
    assert "method=kahan" not in page.url and "method=naive" in page.url


def test_the_figure_works_without_javascript(browser: Browser, server_url: str) -> None:
    context = browser.new_context(base_url=server_url, java_script_enabled=False)
    page = context.new_page()
    page.goto(PAGE)
    page.fill("#acc-n", "3000")
    page.select_option("#acc-format", "float8_e4m3fn")
    page.click("form.accumulation-form button[type=submit]")
    assert "format=float8_e4m3fn" in page.url and "n=3000" in page.url
    expect(page.locator("[data-stall]")).to_contain_text("after step")
    expect(page.locator("svg.acc-svg path[data-series=naive]")).to_have_count(1)
    context.close()


def test_the_page_passes_axe_and_fits_375_px(page: Page, axe_check: Callable[[Page], None]) -> None:
    page.set_viewport_size({"width": 375, "height": 812})
    page.goto(PAGE + "?n=20000&distribution=normal&format=float16")
    expect(page.locator("svg.acc-svg")).to_be_visible()
    axe_check(page)
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow} px at 375 px"
