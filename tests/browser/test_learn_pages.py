"""The guides in a real browser: inline figures, the Listen button, the live quantisation table, layout."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

GUIDES = ["/learn/number-formats", "/learn/mixed-precision-training", "/learn/quantisation"]

# Records every call to the speech API; with forward=false speak() only records, so that the page stays
# "speaking" even in a headless browser without voices (where the real speak() fails at once).
SPEECH_RECORDER = """
(() => {
  const forward = %s;
  const synth = window.speechSynthesis;
  window.speechCalls = { speak: [], cancel: 0, pause: 0, resume: 0 };
  const speak = synth.speak.bind(synth);
  synth.speak = (utterance) => { window.speechCalls.speak.push(utterance.text); if (forward) speak(utterance); };
  for (const name of ["cancel", "pause", "resume"]) {
    const real = synth[name].bind(synth);
    synth[name] = () => { window.speechCalls[name] += 1; real(); };
  }
})();
"""


def speech_calls(page: Page) -> dict:
    return page.evaluate("window.speechCalls")


def first_paragraph(page: Page) -> str:
    text = page.locator("[data-listen-source] section p").first.text_content() or ""
    return " ".join(text.split())


def reach_the_figure(page: Page) -> Locator:
    """Scroll to the guide's inline visualiser, which (with its script) loads only when it comes into view."""
    figure = page.locator("[data-figure='visualiser']")
    figure.scroll_into_view_if_needed()
    expect(figure.locator("[data-stored]")).to_be_visible()
    # the visualiser's script has taken it once the bits are one tab stop (roving tabindex)
    expect(figure.locator('[data-bit-grid] [data-bit][tabindex="-1"]').first).to_be_attached()
    return figure


def test_the_inline_visualiser_loads_only_when_reached_and_a_bit_flips_inside_the_guide(page: Page):
    scripts: list[str] = []
    page.on("request", lambda request: scripts.append(request.url) if request.resource_type == "script" else None)
    page.goto("/learn/number-formats")
    page.wait_for_load_state("networkidle")
    assert not any("visualiser.js" in url for url in scripts)  # the figure is below the first screen
    expect(page.locator("[data-figure='visualiser'] [data-stored]")).to_have_count(0)
    with page.expect_request(lambda request: "visualiser.js" in request.url):  # the script comes with the figure
        figure = reach_the_figure(page)
    expect(figure.locator("[data-stored]")).to_have_text("0.10009765625")
    figure.locator('[data-bit-grid] [data-bit="15"]').click()
    expect(figure.locator("[data-stored]")).to_have_text("-0.10009765625")
    expect(page).to_have_url(re.compile(r"/learn/number-formats$"))  # the reader stays in the guide
    expect(page.locator("[data-announce]")).to_have_text("Stored value -0.10009765625")
    figure.locator('[data-bit-grid] [data-bit="15"]').focus()
    page.keyboard.press("Space")
    expect(figure.locator("[data-stored]")).to_have_text("0.10009765625")


def test_the_compare_and_training_figures_load_on_request(page: Page):
    page.goto("/learn/number-formats")
    page.get_by_role("link", name="Show 70000 in every format").click()
    expect(page.locator("#compare-figure tr[data-format='float16'] [data-stored]")).to_have_text("inf")
    expect(page).to_have_url(re.compile(r"/learn/number-formats$"))
    page.goto("/learn/mixed-precision-training")
    page.get_by_role("link", name="Run the tiny gradients scenario here").click()
    expect(page.locator("#train-figure [data-chart-svg='loss']")).to_be_visible(timeout=30_000)
    expect(page.locator("#train-figure tr[data-recipe='fp16_no_scaling']").first).to_be_visible()


def test_listen_speaks_the_guide_and_pauses_resumes_and_stops(page: Page):
    page.add_init_script(SPEECH_RECORDER % "false")
    page.goto("/learn/mixed-precision-training")
    toggle = page.locator("[data-listen-toggle]")
    stop = page.locator("[data-listen-stop]")
    expect(toggle).to_have_text("Listen")
    expect(stop).to_be_hidden()

    toggle.click()
    spoken = speech_calls(page)["speak"]
    assert spoken[0] == "Mixed-precision training"
    assert first_paragraph(page) in spoken
    assert not any("Run the tiny gradients scenario here" in text for text in spoken)  # figures are not read
    expect(toggle).to_have_text("Pause")
    expect(page.locator("[data-listen-status]")).to_have_text("Reading aloud.")

    toggle.click()
    assert speech_calls(page)["pause"] == 1
    expect(toggle).to_have_text("Resume")
    toggle.click()
    assert speech_calls(page)["resume"] == 1
    expect(toggle).to_have_text("Pause")

    cancels = speech_calls(page)["cancel"]
    stop.click()
    assert speech_calls(page)["cancel"] == cancels + 1
    expect(toggle).to_have_text("Listen")
    expect(stop).to_be_hidden()


def test_listen_uses_the_real_speech_engine_and_stops_it(page: Page):
    page.add_init_script(SPEECH_RECORDER % "true")
    page.goto("/learn/quantisation")
    toggle = page.locator("[data-listen-toggle]")
    toggle.click()
    page.wait_for_function("window.speechCalls.speak.length > 0")
    assert first_paragraph(page) in speech_calls(page)["speak"]
    # A browser without a voice (headless Chromium) fails at once and says so; one with a voice is stopped here.
    if toggle.text_content() == "Pause":
        page.locator("[data-listen-stop]").click()
    else:
        expect(page.locator("[data-listen-status]")).to_contain_text("could not read aloud")
    expect(toggle).to_have_text("Listen")
    assert speech_calls(page)["cancel"] >= 2  # once before speaking, once to stop


def test_listen_stays_hidden_without_the_speech_api(page: Page):
    page.add_init_script("delete window.speechSynthesis; delete Window.prototype.speechSynthesis;")
    page.goto("/learn/number-formats")
    reach_the_figure(page)
    expect(page.locator("[data-listen]")).to_be_hidden()


def test_without_javascript_figures_are_links_and_listen_is_hidden(browser: Browser, server_url: str):
    context = browser.new_context(base_url=server_url, java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto("/learn/number-formats")
        expect(page.locator("[data-listen]")).to_be_hidden()
        link = page.get_by_role("link", name="See 0.1 in BF16 in the visualiser")
        expect(link).to_be_visible()
        link.click()
        expect(page.locator("[data-stored]")).to_have_text("0.10009765625")
        page.goto("/learn/quantisation")
        page.select_option("#sample-distribution", "outliers")
        page.get_by_role("button", name="Measure").click()
        expect(page).to_have_url(re.compile(r"distribution=outliers"))
        expect(page.locator("tr[data-format='int8'] [data-zeroed]")).not_to_have_text("0")
    finally:
        context.close()


def test_the_live_table_follows_the_form(page: Page):
    page.goto("/learn/quantisation")
    e4m3 = page.locator("tr[data-format='float8_e4m3fn'] [data-non-finite]")
    expect(e4m3).to_have_text("0")
    page.select_option("#sample-scale", "1000")
    expect(e4m3).not_to_have_text("0")
    expect(page).to_have_url(re.compile(r"/learn/quantisation\?distribution=normal&scale=1000"))
    expect(page.locator("[data-listen-toggle]")).to_be_visible()  # the guide around the table is untouched


@pytest.mark.parametrize("url", ["/learn", "/learn/glossary", *GUIDES])
def test_pages_pass_axe_and_fit_375_px(page: Page, axe_check: Callable[[Page], None], url: str):
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(url)
    page.wait_for_load_state("networkidle")
    for figure in page.locator("[data-figure-module]").all():  # every inline figure, loaded as a reader reaches it
        figure.scroll_into_view_if_needed()
        expect(figure.locator("[data-stored]")).to_be_visible()
    if url == "/learn/number-formats":
        page.get_by_role("link", name="Show 70000 in every format").click()
        expect(page.locator("#compare-figure table.compare-table").first).to_be_visible()
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0
    axe_check(page)


def test_glossary_anchors_are_reachable_by_keyboard(page: Page):
    page.goto("/learn/glossary#loss-scaling")
    term = page.locator("#loss-scaling")
    expect(term).to_be_visible()
    term.locator(".term-anchor").focus()
    expect(term.locator(".term-anchor")).to_be_focused()
    page.keyboard.press("Tab")
    expect(term.locator("[data-shown]").first).to_be_focused()
