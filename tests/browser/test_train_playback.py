"""The training demo's playback in Chromium: pause, step, scrub, speed and the keys change the step shown and
what the charts hold; the decision boundary is drawn at the snapshot up to the step shown; reduced motion shows
the last step; a change of settings marks the charts stale until Start; the first screen at 1280×800 and a phone's
first two screens; the page without JavaScript.

No test waits a duration: playback is driven by its controls, by the keys, or by the player's `advance(ms)`,
and every wait is for a state the page reaches.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Browser, Page, expect

from app.training.run_shape import GRID_POINTS, is_snapshot

STEPS = 60
RUN = f"/train?steps={STEPS}&width=16&seed=611"  # the server caches it: after the first test, runs replay at once
# only the settings beside Start: "More settings" stays folded (a URL that changes one of them opens it)
FOLDED = f"/train?steps={STEPS}&seed=611"
RUN_SECONDS = 60
CHARTS = ("loss", "loss_scale", "underflow_fraction")


def shown(page: Page) -> int:
    return int(page.locator("[data-step]").inner_text().split()[1])


def points(page: Page) -> set[int]:
    """How many steps each live chart holds (its uPlot data's length)."""
    return {int(page.locator(f"[data-chart={name}]").get_attribute("data-points")) for name in CHARTS}


def finish(page: Page) -> None:
    page.click("[data-action=start]")
    expect(page.locator("[data-live]")).to_have_attribute("data-state", "done", timeout=RUN_SECONDS * 1000)


def show(page: Page, n: int) -> None:
    """Scrub to step n, as a person dragging the slider does."""
    page.locator("[data-scrub]").fill(str(n))
    expect(page.locator("[data-step]")).to_have_text(f"Step {n} of {STEPS}")


def snapshot_before(n: int) -> int:
    """The step of the last gradient histogram and decision grid at or before step n (0: none yet)."""
    return max((s for s in range(1, n + 1) if is_snapshot(s, STEPS)), default=0)


def boundary_pixels(page: Page, recipe: str) -> list[list[tuple[int, ...]]]:
    """The colours of a recipe's decision-boundary canvas, row by row from the top."""
    return page.evaluate("""id => {
        const canvas = document.querySelector(`[data-boundary="${id}"] canvas`);
        const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
        const w = canvas.width;
        const pixel = (i, j) => Array.from(data.slice(4 * (j * w + i), 4 * (j * w + i + 1)));
        return Array.from({ length: canvas.height }, (_, j) => Array.from({ length: w }, (_, i) => pixel(i, j)));
    }""", recipe)


def final_losses(page: Page) -> dict[str, str]:
    rows = page.locator("[data-final] tbody tr")
    expect(rows.first).to_be_visible()
    return {row.get_attribute("data-recipe"): row.locator("[data-final-loss]").get_attribute("data-final-loss")
            for row in rows.all()}


def test_scrub_step_and_play_change_the_step_shown_and_what_the_charts_hold(page: Page):
    page.goto(RUN)
    finish(page)
    show(page, 10)
    assert points(page) == {10}
    expect(page.locator("[data-playback]")).to_have_attribute("data-playback", "paused")
    note = page.locator("[data-histogram-note]").first
    expect(note).to_contain_text(f"At step {snapshot_before(10)}:")
    expect(page.locator("[data-boundary-step]").first).to_have_text(f"At step {snapshot_before(10)}")

    page.click("[data-playback-action=forward]")
    expect(page.locator("[data-step]")).to_have_text(f"Step 11 of {STEPS}")
    assert points(page) == {11}
    page.click("[data-playback-action=back]")
    page.click("[data-playback-action=back]")
    expect(page.locator("[data-step]")).to_have_text(f"Step 9 of {STEPS}")
    assert points(page) == {9}
    expect(note).to_contain_text(f"At step {snapshot_before(9)}:")

    show(page, STEPS)
    assert points(page) == {STEPS}
    expect(page.locator("[data-boundaries] [data-boundary]")).to_have_count(4)
    expect(page.locator("[data-playback-action=forward]")).to_be_disabled()

    # Play at the end plays the run again from its start (slowly: 6 s); Pause holds it where it is
    page.select_option("[data-speed]", "10")
    page.click("[data-playback-action=play]")
    expect(page.locator("[data-playback-action=play]")).to_have_text("Pause")
    expect(page.locator("[data-step]")).not_to_have_text(f"Step {STEPS} of {STEPS}")
    page.click("[data-playback-action=play]")
    expect(page.locator("[data-playback]")).to_have_attribute("data-playback", "paused")
    at = shown(page)
    assert at < STEPS and points(page) == {at}


def test_the_speed_is_how_many_steps_a_second_of_playback_shows(page: Page):
    page.goto(RUN)
    finish(page)
    show(page, 0)
    advance = "ms => document.querySelector('[data-playback]').player.advance(ms)"
    page.select_option("[data-speed]", "10")
    page.evaluate(advance, 1000)
    expect(page.locator("[data-step]")).to_have_text(f"Step 10 of {STEPS}")
    page.select_option("[data-speed]", "25")
    page.evaluate(advance, 400)
    expect(page.locator("[data-step]")).to_have_text(f"Step 20 of {STEPS}")
    assert points(page) == {20}
    page.evaluate(advance, 10_000)  # no further than the run
    expect(page.locator("[data-step]")).to_have_text(f"Step {STEPS} of {STEPS}")


def test_keys_play_pause_and_step_outside_the_fields_and_are_announced(page: Page):
    page.goto(RUN)
    finish(page)
    show(page, 20)
    announced = page.locator("[data-announce]")
    expect(page.locator("#train-keys")).to_be_visible()
    expect(page.locator("[data-playback]")).to_have_attribute("aria-describedby", "train-keys")
    assert page.get_attribute("[data-playback-action=play]", "aria-keyshortcuts") == "k Space"
    assert page.get_attribute("[data-playback-action=forward]", "aria-keyshortcuts") == ". ArrowRight"
    assert page.get_attribute("[data-playback-action=back]", "aria-keyshortcuts") == ", ArrowLeft"

    page.locator("h1").click()  # focus leaves the slider
    for key, step in ((".", 21), (",", 20), ("ArrowRight", 21), ("ArrowLeft", 20)):
        page.keyboard.press(key)
        expect(page.locator("[data-step]")).to_have_text(f"Step {step} of {STEPS}")
        expect(announced).to_have_text(f"Step {step} of {STEPS}.")
    page.keyboard.press("k")
    expect(page.locator("[data-playback]")).to_have_attribute("data-playback", "playing")
    expect(announced).to_have_text(re.compile(r"^Playing at 50 steps a second"))
    page.keyboard.press(" ")
    expect(page.locator("[data-playback]")).to_have_attribute("data-playback", "paused")
    expect(announced).to_have_text(re.compile(r"^Paused\. Step \d+ of 60\.$"))

    at = shown(page)
    page.focus("#seed")  # in a field the keys are the field's
    page.keyboard.press(".")
    page.keyboard.press("k")
    assert shown(page) == at
    expect(page.locator("[data-playback]")).to_have_attribute("data-playback", "paused")


def test_with_reduced_motion_the_run_shows_its_last_step_and_the_steps_still_work(page: Page):
    page.emulate_media(reduced_motion="reduce")
    page.goto(RUN)
    finish(page)
    expect(page.locator("[data-step]")).to_have_text(f"Step {STEPS} of {STEPS}")
    expect(page.locator("[data-playback]")).to_have_attribute("data-playback", "paused")
    # nothing played: a playback that had run to the end would have said "Played to the end"
    expect(page.locator("[data-announce]")).to_have_text("")
    assert points(page) == {STEPS}
    expect(page.locator("[data-boundaries] [data-boundary]").first).to_be_visible()
    page.click("[data-playback-action=back]")
    expect(page.locator("[data-step]")).to_have_text(f"Step {STEPS - 1} of {STEPS}")
    assert points(page) == {STEPS - 1}


def test_a_change_of_settings_marks_the_charts_stale_until_start_or_their_settings_return(page: Page, axe_check):
    page.goto(RUN)
    finish(page)
    first = final_losses(page)
    banner = page.locator("[data-stale-banner]")
    expect(banner).to_be_hidden()

    page.fill("#seed", "612")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Stale: these charts are for the previous settings; press Start.")
    expect(page.locator("[data-live]")).to_have_class(re.compile(r"\bis-stale\b"))
    expect(page.locator("#train-final")).to_have_class(re.compile(r"\bis-stale\b"))
    legend = page.locator("[data-legend]")
    expect(legend.locator(".legend-stale")).to_have_text("Stale: previous settings")
    expect(legend).to_have_attribute("aria-label", re.compile("stale"))
    expect(page.locator("[data-announce]")).to_contain_text("stale")
    assert "run" not in parse_qs(urlsplit(page.url).query)  # the URL is of the settings, not of these charts
    axe_check(page)

    page.fill("#seed", "611")  # the settings of the charts again
    expect(banner).to_be_hidden()
    expect(legend.locator(".legend-stale")).to_have_count(0)

    page.fill("#seed", "612")
    expect(banner).to_be_visible()
    page.click("[data-stale-start]")  # the banner's Start
    expect(banner).to_be_hidden()
    expect(page.locator("[data-live]")).not_to_have_class(re.compile(r"\bis-stale\b"))
    expect(page.locator("[data-live]")).to_have_attribute("data-state", "done", timeout=RUN_SECONDS * 1000)
    second = final_losses(page)
    assert second != first
    assert parse_qs(urlsplit(page.url).query)["seed"] == ["612"]

    page.fill("#seed", "611")  # a run this page finished: shown again, not stale
    expect(page.locator("[data-step]")).to_have_text(f"Step {STEPS} of {STEPS}")
    expect(banner).to_be_hidden()
    expect(page.locator("[data-live]")).to_have_attribute("data-state", "done")
    assert final_losses(page) == first
    assert parse_qs(urlsplit(page.url).query)["run"] == ["1"]


def test_the_servers_charts_of_a_finished_run_are_marked_stale_too(page: Page):
    page.goto(RUN + "&run=1")
    expect(page.locator("[data-chart-svg]")).to_have_count(3)
    page.check("#recipe-tf32")
    expect(page.locator("[data-stale-banner]")).to_be_visible()
    expect(page.locator("[data-finished]")).to_have_class(re.compile(r"\bis-stale\b"))
    expect(page.locator("[data-finished] .chart-legend .legend-stale")).to_be_visible()
    page.uncheck("#recipe-tf32")
    expect(page.locator("[data-stale-banner]")).to_be_hidden()


def test_the_first_screen_at_1280_by_800_holds_the_scenario_recipes_start_and_the_first_chart(page: Page):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(FOLDED)
    for selector in ("[data-scenario-title]", ".recipe-choice", "[data-action=start]", "[data-more-settings] summary"):
        box = page.locator(selector).bounding_box()
        assert box and box["y"] + box["height"] <= 800, selector
    expect(page.locator("#lr")).to_be_hidden()  # folded under "More settings"
    finish(page)
    chart = page.locator("[data-chart=loss]").bounding_box()
    assert chart and chart["y"] < 800
    page.goto(FOLDED + "&run=1")  # the server's charts stand in the same place
    chart = page.locator("[data-chart-svg]").first.bounding_box()
    assert chart and chart["y"] < 800


def test_on_a_phone_start_is_within_the_first_two_screens_and_nothing_scrolls_sideways(page: Page):
    page.set_viewport_size({"width": 375, "height": 812})
    page.goto(RUN)
    start = page.locator("[data-action=start]").bounding_box()
    assert start and start["y"] + start["height"] <= 2 * 812
    finish(page)
    show(page, 30)
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0


def test_without_javascript_the_form_trains_on_the_server_and_more_settings_opens(browser: Browser, server_url: str):
    context = browser.new_context(base_url=server_url, java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(RUN)
        expect(page.locator("#lr")).to_be_visible()  # the URL changes the width: the fold opens to show it
        page.goto(FOLDED)
        expect(page.locator("#lr")).to_be_hidden()
        page.click("[data-more-settings] summary")
        expect(page.locator("#lr")).to_be_visible()
        page.click("[data-action=start]")
        expect(page.locator("[data-chart-svg]")).to_have_count(3)
        assert parse_qs(urlsplit(page.url).query)["run"] == ["1"]
        expect(page.locator("[data-final] tbody tr")).to_have_count(4)
        expect(page.locator("[data-live]")).to_be_hidden()
    finally:
        context.close()


def test_the_scenario_links_load_a_scenarios_settings_without_leaving_the_page(page: Page):
    page.goto(FOLDED)
    page.evaluate("window.sameDocument = true")
    page.click("[data-scenario-link=tiny_gradients]")
    expect(page.locator("[data-scenario-title]")).to_contain_text("Tiny gradients")
    expect(page.locator("#recipe-fp16_static_scaling")).to_be_checked()
    expect(page.locator("[data-scenario-link=tiny_gradients]")).to_have_attribute("aria-current", "page")
    assert page.evaluate("window.sameDocument") is True
    assert parse_qs(urlsplit(page.url).query)["scenario"] == ["tiny_gradients"]


def test_scrubbing_back_shows_the_earlier_boundary_the_server_predicted_there(page: Page, server_url: str):
    page.goto(RUN)
    finish(page)
    figure = page.locator("[data-boundary=fp32]")
    expect(figure.locator("[data-boundary-step]")).to_have_text(f"At step {STEPS}")
    expect(figure.locator("[data-boundary-test]")).to_contain_text("test accuracy")
    final = boundary_pixels(page, "fp32")

    early = snapshot_before(4)
    show(page, 4)
    expect(figure.locator("[data-boundary-step]")).to_have_text(f"At step {early}")
    expect(figure.locator("[data-boundary-test]")).to_have_text("")  # the test numbers are the trained model's
    expect(figure.locator("canvas")).to_have_attribute("aria-label", re.compile(f"at step {early}$"))
    drawn = boundary_pixels(page, "fp32")
    assert drawn != final

    # the canvas is the server's grid at that step: one colour per predicted class, the first row at the bottom
    body = {"steps": STEPS, "width": 16, "seed": 611}
    grids = page.request.post(f"{server_url}/api/train", data=body).json()["recipes"]["fp32"]["decision_grids"]
    values = next(g["values"] for g in grids if g["step"] == early)
    assert values != grids[-1]["values"]
    assert len(drawn) == len(drawn[0]) == GRID_POINTS
    colours: dict[int, tuple[int, ...]] = {}
    for j, row in enumerate(values):
        for i, predicted in enumerate(row):
            pixel = tuple(drawn[GRID_POINTS - 1 - j][i])
            assert colours.setdefault(predicted, pixel) == pixel
    assert len(set(colours.values())) == len(colours) > 1

    before = next(n for n in range(STEPS) if snapshot_before(n + 1) > 0)  # the last step without a snapshot
    show(page, before)
    expect(figure.locator("[data-boundary-step]")).to_have_text("Drawn at the first snapshot, after a few steps.")
    show(page, STEPS)
    assert boundary_pixels(page, "fp32") == final
