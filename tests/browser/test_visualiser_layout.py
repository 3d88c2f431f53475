"""The scalar visualiser's figure first, in a real browser: the bits and the whole stored value on the first screen
at 1280×800 and 375×812, the bits above the pills on a phone, a skip link to the bits, grouped and titled pills,
nothing scrolling sideways, and no serious accessibility violation, light and dark."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

SCREENS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 375, "height": 812}}
PAGES = [
    "/visualise/float16",
    "/visualise/float16?value=0.1",
    "/visualise/float32?value=0.1",
    "/visualise/float64?value=0.1",
    "/visualise/float64?value=1e300",
    "/visualise/float128?value=0.1",
    "/visualise/custom?exponent_bits=4&mantissa_bits=3&value=0.1",
    "/visualise/custom?exponent_bits=15&mantissa_bits=112&value=0.1",
    "/visualise/float8_e4m3fn?value=0.3&rounding=stochastic",
    "/visualise/int8?value=-5",
    "/visualise/nf4",
]

BOXES = """() => {
  const box = (selector) => {
    const r = document.querySelector(selector).getBoundingClientRect();
    return {top: r.top, bottom: r.bottom};
  };
  return {grid: box('[data-bit-grid]'), stored: box('[data-stored]'), pills: box('[data-switcher]'),
          form: box('form.controls'), height: window.innerHeight, scroll: window.scrollY,
          width: document.documentElement.scrollWidth};
}"""


@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_bits_and_the_stored_value_are_on_the_first_screen(page: Page, screen: str):
    page.set_viewport_size(SCREENS[screen])
    for url in PAGES:  # one browser page for all: a fresh one each would take most of the time
        page.goto(url)
        boxes = page.evaluate(BOXES)
        assert boxes["scroll"] == 0, url
        assert 0 < boxes["grid"]["bottom"] <= boxes["height"], (url, boxes)
        assert 0 < boxes["stored"]["bottom"] <= boxes["height"], (url, boxes)
        assert boxes["grid"]["bottom"] <= boxes["stored"]["top"] <= boxes["form"]["top"] < boxes["pills"]["top"], url
        assert boxes["width"] <= SCREENS[screen]["width"], url  # nothing scrolls sideways


# Tab stops before an element, in document order: links, controls, summaries and the bit grid's one stop
STOPS_BEFORE = """(selector) => {
  const target = document.querySelector(selector);
  const stops = [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex="0"]')]
    .filter(e => e.tabIndex >= 0 && e.getClientRects().length && !e.closest('[data-bit-grid]'));
  return stops.filter(e => e.compareDocumentPosition(target) & Node.DOCUMENT_POSITION_FOLLOWING).length;
}"""


def test_the_skip_link_is_the_first_stop_in_the_content_and_lands_on_the_bits(page: Page):
    page.goto("/visualise/float16?value=0.1")
    presses = 0
    while not page.evaluate("document.activeElement.matches('[data-skip-bits]')"):
        assert page.evaluate("!document.activeElement.closest('main')"), "a stop in the content before the link"
        page.keyboard.press("Tab")
        presses += 1
        assert presses < 40
    expect(page.locator("[data-skip-bits]")).to_be_visible()  # shown while it has focus
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.dataset.bit")
    assert focused is not None, "Tab after the skip link goes to a bit"
    # without the link, every stop before the grid comes first (the Embed button's, and any added before it)
    without = page.evaluate(STOPS_BEFORE, "[data-bit-grid]") + 1
    assert presses + 1 < without
    page.keyboard.press("Space")
    expect(page.locator("[data-stored]")).not_to_have_text("0.0999755859375")


def test_the_skip_link_works_with_javascript_off(browser, server_url: str):
    context = browser.new_context(base_url=server_url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/visualise/float64?value=0.1")
    page.locator("[data-skip-bits]").focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('[data-bit-grid]') !== null")
    context.close()


def test_the_pills_are_grouped_labelled_named_and_titled(page: Page):
    page.set_viewport_size(SCREENS["phone"])
    page.goto("/visualise/float16?value=0.1")
    groups = page.locator("[data-format-group]")
    expect(groups).to_have_count(6)
    labels = page.locator(".pill-group-label").all_inner_texts()
    assert labels[:3] == ["IEEE, BF16 and TF32", "FP8", "FP6, FP4 and E8M0"]
    ocp = page.locator('[data-format-group="fp8"] [data-format="float8_e4m3fn"]')
    expect(ocp).to_have_text("FP8 E4M3 (OCP)")
    expect(ocp).to_have_attribute("title", "OCP FP8 for weights and activations: no inf, max 448, one NaN per sign.")
    titles = page.eval_on_selector_all("[data-switcher] a", "links => links.map(a => a.title)")
    assert len(titles) > 30 and all(titles)
    for pill in page.locator("[data-switcher] a").all():
        box = pill.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375


def test_a_block_pill_opens_the_block_page(page: Page):
    page.goto("/visualise/float16?value=0.1")
    page.locator('[data-block-format="mxfp4"]').click()
    expect(page).to_have_url(f"{page.url.split('/visualise')[0]}/visualise/mxfp4")
    expect(page.locator("h1")).to_contain_text("MXFP4")


def test_a_drawn_seed_is_shown_and_the_link_keeps_the_view(page: Page):
    page.goto("/visualise/float8_e4m3fn?value=0.3&rounding=stochastic")
    seed = page.locator("[data-seed-drawn]").get_attribute("data-seed-drawn")
    assert seed and seed.isdigit()
    expect(page.locator("#seed")).to_have_value(seed)
    stored = page.locator("[data-stored]").inner_text()
    expect(page.locator("[data-odds]")).to_contain_text("rounds up with probability 0.6 (to 0.3125), down with 0.4")
    page.locator("[data-seed-link]").click()
    expect(page).to_have_url(f"{page.url.split('?')[0]}?value=0.3&rounding=stochastic&seed={seed}")
    expect(page.locator("[data-stored]")).to_have_text(stored)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("url", ["/visualise/nf4", "/visualise/float8_e4m3fn?value=0.3&rounding=stochastic",
                                 "/visualise/custom?exponent_bits=5&mantissa_bits=2&value=0.1"])
def test_axe_finds_no_serious_violations_on_a_phone(page: Page, axe_check: Callable[[Page], None], url: str,
                                                     scheme: str):
    page.set_viewport_size(SCREENS["phone"])
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    page.goto(url)
    axe_check(page)
