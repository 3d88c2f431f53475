"""The training demo in Chromium: a live run that updates as it trains, Stop, a shared URL that brings the same
run back, the scenario chooser, accessibility, and a phone-sized screen."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect

from app.store.database import migrate
from tests.browser.browser_server import serve_app

# a run of several seconds, so that it can be watched and stopped; each test its own seed, so none is cached
LONG_RUN = "/train?scenario=small_updates&steps=2000&seed={seed}"
SHORT_RUN = "/train?steps=60&width=16&seed={seed}"
RUN_SECONDS = 60


def step(page: Page) -> int:
    return int(page.locator("[data-step]").inner_text().split()[1])


def wait_for(condition, seconds: float = RUN_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def finish(page: Page) -> dict[str, str]:
    """Start the run, wait until it is done and its table is in; the final loss of each recipe, exactly."""
    page.click("[data-action=start]")
    expect(page.locator("[data-live]")).to_have_attribute("data-state", "done", timeout=RUN_SECONDS * 1000)
    rows = page.locator("[data-final] tbody tr")
    expect(rows.first).to_be_visible()
    return {row.get_attribute("data-recipe"): row.locator("[data-final-loss]").get_attribute("data-final-loss")
            for row in rows.all()}


def test_the_charts_update_while_it_trains_and_stop_ends_the_run(page: Page):
    page.goto(LONG_RUN.format(seed=101))
    page.click("[data-action=start]")
    wait_for(lambda: step(page) > 0)
    first = step(page)
    assert page.locator("[data-live]").get_attribute("data-state") == "running"
    wait_for(lambda: step(page) > first)
    assert step(page) < 2000
    expect(page.locator("[data-chart=loss] canvas").first).to_be_visible()
    expect(page.locator("[data-progress]")).to_have_attribute("max", "2000")

    page.click("[data-action=stop]")
    expect(page.locator("[data-live]")).to_have_attribute("data-state", "stopped")
    stopped_at = step(page)
    time.sleep(1.0)
    assert step(page) == stopped_at < 2000
    expect(page.locator("[data-status]")).to_have_text(f"Stopped at step {stopped_at} of 2000.")
    expect(page.locator("[data-action=stop]")).to_be_disabled()


def test_a_shared_url_gives_the_same_run_back(page: Page):
    page.goto(SHORT_RUN.format(seed=202))
    finished = finish(page)
    assert len(finished) == 4
    shared = page.url
    assert parse_qs(urlsplit(shared).query)["run"] == ["1"]

    other = page.context.new_page()
    try:
        other.goto(shared)
        rows = other.locator("[data-final] tbody tr")
        again = {row.get_attribute("data-recipe"): row.locator("[data-final-loss]").get_attribute("data-final-loss")
                 for row in rows.all()}
        assert again == finished
        assert other.locator("#steps").input_value() == "60" and other.locator("#seed").input_value() == "202"
        expect(other.locator("[data-chart-svg]")).to_have_count(3)
    finally:
        other.close()


def test_choosing_a_scenario_loads_its_settings_into_the_form_and_the_url(page: Page):
    page.goto("/train")
    expect(page.locator("#scenario")).to_be_hidden()  # folded under "More settings"
    page.click("[data-more-settings] summary")
    page.select_option("#scenario", "tiny_gradients")
    expect(page.locator("#loss_scale")).to_have_value("65536")
    expect(page.locator("#recipe-fp16_static_scaling")).to_be_checked()
    expect(page.locator("[data-scenario-title]")).to_contain_text("Tiny gradients")
    query = parse_qs(urlsplit(page.url).query)
    assert query["scenario"] == ["tiny_gradients"] and query["loss_scale"] == ["65536"]
    page.fill("#params", "70B")
    expect(page.locator("#train-memory [data-gigabytes]").first).to_have_text("1,120 GB")


def test_the_page_is_accessible_before_and_after_a_run(page: Page, axe_check):
    page.goto(SHORT_RUN.format(seed=303))
    axe_check(page)
    finish(page)
    axe_check(page)


def test_a_phone_screen_has_no_sideways_scrolling(page: Page):
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(SHORT_RUN.format(seed=404))
    finish(page)
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0
    page.goto(page.url)  # the finished run drawn by the server
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0


def test_a_run_the_server_stops_at_its_time_limit_shows_the_servers_sentence(
    browser: Browser, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """With a time limit of 0 s the stream ends with an error event; the page says what the server said."""
    migrated = tmp_path_factory.mktemp("deadline") / "precision_lab.db"
    database_url = f"sqlite:///{migrated}"
    migrate(database_url)
    with serve_app(tmp_path_factory, database_url, train_max_seconds="0") as url:
        context = browser.new_context(base_url=url)
        page = context.new_page()
        page.goto(SHORT_RUN.format(seed=303))
        page.click("[data-action=start]")
        expect(page.locator("[data-live]")).to_have_attribute("data-state", "error", timeout=RUN_SECONDS * 1000)
        expect(page.locator("[data-live-error]")).to_contain_text("within its limit of 0 seconds")
        context.close()
