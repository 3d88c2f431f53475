"""Embedding in Chromium: a course page on another origin frames the visualiser and the training demo, both work
inside their frames, a page outside /embed/ refuses to be framed, and the Embed button follows the state."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Page, expect

from tests.helpers.course_site import course_site as course_site_at

VISUALISER = "/visualise/bfloat16?value=0.1"
DEMO = "/train?steps=60&width=16&seed=303"
RUN_SECONDS = 60
COURSE_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"><title>Week 3: number formats</title></head>
<body><main><h1>Week 3: number formats</h1>
<p>Flip the bits of 0.1 in bfloat16, then train the same network in several precisions.</p>
{frames}
</main></body></html>"""


def oembed_html(server_url: str, page: str) -> str:
    """The iframe a consumer of our oEmbed puts in the course page."""
    query = urlencode({"url": server_url + page, "format": "json"})
    with urllib.request.urlopen(f"{server_url}/oembed?{query}") as response:
        return str(json.load(response)["html"])


@pytest.fixture(scope="module")
def course_site(server_url: str) -> Iterator[str]:
    """Base URL of the course site, on localhost (a different site from the app's 127.0.0.1) and its own port."""
    pages = {
        "/": COURSE_PAGE.format(frames=oembed_html(server_url, VISUALISER) + "\n" + oembed_html(server_url, DEMO)),
        "/framing-the-full-page": COURSE_PAGE.format(
            frames=f'<iframe src="{server_url}{VISUALISER}" width="600" height="400" title="The full visualiser">'
            "</iframe>"
        ),
    }
    with course_site_at(pages) as base:
        yield base


def test_the_framed_visualiser_flips_a_bit_inside_the_course_page(page: Page, course_site: str, server_url: str):
    page.goto(course_site + "/")
    frame = page.frame_locator('iframe[src*="/embed/visualise/"]')
    expect(frame.locator("[data-stored]")).to_have_text("0.10009765625")
    expect(frame.locator(".site-header")).to_have_count(0)
    frame.locator('[data-bit-grid] [data-bit="15"]').click()
    expect(frame.locator("[data-stored]")).to_have_text("-0.10009765625")
    # the bit flip stayed in the frame, and the frame's Embed snippet and way out follow the new state
    frame.locator("[data-embed] summary").click()
    state = "/visualise/bfloat16?bits=0xbdcd"
    expect(frame.locator("[data-embed-snippet]")).to_contain_text(f'src="{server_url}/embed{state}"')
    expect(frame.locator("[data-open-full]")).to_have_attribute("href", state)
    assert page.url == course_site + "/"
    # the course page's iframe does not allow clipboard-write: Copy selects the snippet to copy by hand
    frame.locator("[data-embed-copy]").click()
    expect(frame.locator("[data-embed-status]")).to_have_text(re.compile(r"^(Copied|Selected: press Ctrl\+C)"))


def test_the_framed_demo_trains_inside_the_course_page(page: Page, course_site: str):
    page.goto(course_site + "/")
    frame = page.frame_locator('iframe[src*="/embed/train"]')
    frame.locator("[data-action=start]").click()
    expect(frame.locator("[data-live]")).to_have_attribute("data-state", "done", timeout=RUN_SECONDS * 1000)
    expect(frame.locator("[data-step]")).to_have_text("Step 60 of 60")
    expect(frame.locator("[data-final] tbody tr").first).to_be_visible()
    # The frame grows as the run ends and may leave the viewport, and Chromium runs no animation frames in a
    # cross-origin frame out of view, which Playwright's click waits for: bring the frame's top (its Embed bar)
    # back into view, as a reader scrolls to it.
    page.locator('iframe[src*="/embed/train"]').evaluate("frame => frame.scrollIntoView({block: 'start'})")
    frame.locator("[data-embed] summary").click()
    expect(frame.locator("[data-embed-snippet]")).to_contain_text("/embed/train?")
    expect(frame.locator("[data-embed-snippet]")).to_contain_text("run=1")


REFUSED = "frame-ancestors 'none'"  # in Chromium's console message, whichever its wording


@pytest.mark.allowed_console_errors(REFUSED)
def test_a_page_outside_embed_refuses_to_be_framed(page: Page, course_site: str):
    with page.expect_console_message(lambda message: REFUSED in message.text):
        page.goto(course_site + "/framing-the-full-page")
    expect(page.locator("h1")).to_have_text("Week 3: number formats")
    (frame,) = page.main_frame.child_frames
    assert not frame.url.startswith("http")  # Chromium's error page stands where the app would be
    expect(page.frame_locator("iframe").locator("[data-bit-grid]")).to_have_count(0)


def test_the_embed_button_gives_the_snippet_of_the_current_state_and_copies_it(page: Page, server_url: str):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server_url)
    page.goto("/visualise/float16?bits=0x3c00")
    snippet = page.locator("[data-embed-snippet]")
    expect(snippet).to_be_hidden()
    page.locator("[data-embed] summary").click()
    expect(snippet).to_be_visible()
    expect(snippet).to_contain_text(f'src="{server_url}/embed/visualise/float16?bits=0x3c00"')
    page.locator('[data-bit-grid] [data-bit="15"]').click()
    expect(page.locator("[data-stored]")).to_have_text("-1")
    expect(snippet).to_contain_text(f'src="{server_url}/embed/visualise/float16?bits=0xbc00"')
    page.locator("[data-embed-copy]").click()
    expect(page.locator("[data-embed-status]")).to_have_text("Copied.")
    assert page.evaluate("navigator.clipboard.readText()") == snippet.input_value()


def test_the_snippet_follows_the_demo_settings(page: Page, server_url: str):
    page.goto("/train?steps=60")
    page.locator("[data-embed] summary").click()
    page.locator("#steps").fill("80")
    expect(page.locator("[data-embed-snippet]")).to_contain_text("steps=80")
    expect(page.locator("[data-embed-snippet]")).to_contain_text(f'src="{server_url}/embed/train?')


@pytest.mark.parametrize("url", ["/embed/visualise/bfloat16?value=0.1", "/embed/compare", "/embed/train"])
def test_embed_pages_have_no_serious_accessibility_violations(page: Page, axe_check, url: str):
    page.goto(url)
    page.locator("[data-embed] summary").click()
    axe_check(page)
