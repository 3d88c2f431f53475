"""The bit-layout visualiser in a real browser: flipping bits by mouse and keyboard, URL sharing, layout."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, Page, expect

STORED = "[data-stored]"


def cell(page: Page, index: int):
    return page.locator(f'[data-bit-grid] [data-bit="{index}"]')


def open_float16_one(page: Page) -> None:
    page.goto("/visualise/float16?bits=0x3c00")
    expect(page.locator(STORED)).to_have_text("1")


def test_clicking_a_bit_flips_it_and_updates_the_value_and_the_url(page: Page):
    open_float16_one(page)
    cell(page, 15).click()
    expect(page.locator(STORED)).to_have_text("-1")
    expect(page).to_have_url(re.compile(r"bits=0xbc00"))
    expect(cell(page, 15)).to_have_attribute("data-value", "1")
    expect(page.locator("[data-announce]")).to_have_text("Stored value -1")


def test_space_on_a_focused_bit_flips_it_and_focus_stays_on_that_bit(page: Page):
    open_float16_one(page)
    cell(page, 9).focus()
    page.keyboard.press("Space")
    expect(page.locator(STORED)).to_have_text("1.5")
    expect(cell(page, 9)).to_be_focused()
    page.keyboard.press("Space")
    expect(page.locator(STORED)).to_have_text("1")
    expect(cell(page, 9)).to_be_focused()


def test_enter_on_a_focused_bit_flips_it(page: Page):
    open_float16_one(page)
    cell(page, 15).focus()
    page.keyboard.press("Enter")
    expect(page.locator(STORED)).to_have_text("-1")
    expect(cell(page, 15)).to_be_focused()


def test_arrow_keys_move_between_bits(page: Page):
    open_float16_one(page)
    cell(page, 15).focus()
    page.keyboard.press("ArrowRight")
    expect(cell(page, 14)).to_be_focused()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    expect(cell(page, 14)).to_be_focused()
    page.keyboard.press("End")
    expect(cell(page, 0)).to_be_focused()
    page.keyboard.press("Home")
    expect(cell(page, 15)).to_be_focused()
    expect(page.locator("[data-bit-grid] [tabindex='0']")).to_have_count(1)


def wait_until_settled(page: Page) -> None:
    """Wait until htmx has swapped and settled everything it was updating."""
    page.wait_for_function("!document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')")


def test_typing_a_value_shows_how_it_is_stored_and_the_url_restores_the_view(page: Page, browser: Browser,
                                                                              server_url: str):
    page.goto("/visualise/float16?value=1")
    page.locator("#value").fill("0.1")
    page.locator("#value").press("Enter")
    expect(page.locator(STORED)).to_have_text("0.0999755859375")
    expect(page.locator("[data-bits]")).to_have_text("0x2e66")
    wait_until_settled(page)  # as a person would: the swapped-in form is live before the next choice
    page.locator("#rounding").select_option("toward_positive")
    expect(page.locator(STORED)).to_have_text("0.10003662109375")
    shared = page.url
    assert "rounding=toward_positive" in shared

    other = browser.new_context(base_url=server_url).new_page()
    other.goto(shared)
    expect(other.locator(STORED)).to_have_text("0.10003662109375")
    expect(other.locator("#value")).to_have_value("0.1")
    expect(other.locator("#rounding")).to_have_value("toward_positive")
    other.context.close()


def test_back_and_forward_walk_through_the_flipped_patterns(page: Page):
    open_float16_one(page)
    cell(page, 15).click()
    expect(page.locator(STORED)).to_have_text("-1")
    cell(page, 14).click()
    expect(page.locator(STORED)).to_have_text("-inf")
    page.go_back()
    expect(page.locator(STORED)).to_have_text("-1")
    page.go_back()
    expect(page.locator(STORED)).to_have_text("1")
    page.go_forward()
    expect(page.locator(STORED)).to_have_text("-1")
    cell(page, 9).focus()
    page.keyboard.press("Space")
    expect(page.locator(STORED)).to_have_text("-1.5")


def test_raw_bits_typed_in_the_value_box_decode_in_the_format(page: Page):
    page.goto("/visualise/bfloat16")
    page.locator("#value").fill("0x3f80")
    page.locator("#value").press("Enter")
    expect(page.locator(STORED)).to_have_text("1")


@pytest.mark.allowed_console_errors(r"422")
def test_unreadable_input_shows_the_reason_in_place(page: Page):
    page.goto("/visualise/float16?value=1")
    page.locator("#value").fill("zebra")
    page.locator("#value").press("Enter")
    expect(page.locator("#visualiser [data-error]")).to_contain_text("Could not read")
    expect(page.locator("#value")).to_have_value("zebra")


def test_the_format_switcher_keeps_the_value(page: Page):
    page.goto("/visualise/float16?value=0.1")
    page.locator('.switcher [data-format="bfloat16"]').click()
    expect(page.locator("#visualiser")).to_have_attribute("data-format", "bfloat16")
    expect(page.locator(STORED)).to_have_text("0.10009765625")
    expect(page).to_have_url(re.compile(r"/visualise/bfloat16\?value=0\.1$"))


def test_neighbour_buttons_step_to_the_next_value(page: Page):
    open_float16_one(page)
    page.locator('[data-step="next-up"]').click()
    expect(page.locator(STORED)).to_have_text("1.0009765625")
    page.locator('[data-step="next-down"]').click()
    expect(page.locator(STORED)).to_have_text("1")


def test_bits_are_links_that_work_with_javascript_off(browser: Browser, server_url: str):
    context = browser.new_context(base_url=server_url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/visualise/float16?bits=0x3c00")
    cell(page, 15).click()
    expect(page).to_have_url(re.compile(r"/visualise/float16\?bits=0xbc00$"))
    expect(page.locator(STORED)).to_have_text("-1")
    page.locator("#value").fill("0.1")
    page.locator("#visualiser button[type=submit]").click()  # the visualiser's own, not the Embed panel's
    expect(page.locator(STORED)).to_have_text("0.0999755859375")
    context.close()


@pytest.mark.parametrize("url", ["/visualise/float16?value=0.1", "/visualise/float64?value=0.1",
                                 "/visualise/float8_e4m3fn?value=500", "/visualise/int8?value=-5",
                                 "/visualise/nf4?value=0.3"])
def test_axe_finds_no_serious_violations(page: Page, axe_check: Callable[[Page], None], url: str):
    page.goto(url)
    axe_check(page)


def test_axe_finds_no_serious_violations_after_a_swap(page: Page, axe_check: Callable[[Page], None]):
    open_float16_one(page)
    cell(page, 3).click()
    expect(cell(page, 3)).to_have_attribute("data-value", "1")
    axe_check(page)


@pytest.mark.parametrize("format_id", ["float64", "float16"])
def test_no_horizontal_page_scroll_at_375_px(page: Page, format_id: str):
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(f"/visualise/{format_id}?value=0.1")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
