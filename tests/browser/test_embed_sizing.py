"""Embeds that fit, in Chromium: a course page on another origin pastes the Embed dialog's snippets, and each frame
takes its content's height (within SLACK px) after it loads, after a training run, and after the course page's
window narrows and widens again; a frame of another origin cannot set its height; and the teacher's hide flags hide
their parts while the rest works."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from urllib.request import urlopen

import pytest
from playwright.sync_api import Frame, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.helpers.course_site import course_site as course_site_at
from tests.helpers.html import Elements

SLACK = 10  # px between a frame's height and its content's
FIT_SECONDS = 20.0  # the longest a frame may take to fit after its content changed
RUN_SECONDS = 60
DEMO = "/train?steps=40&width=16&seed=11"
VISUALISER = "/visualise/float16?value=0.1"
LESSON = "/train?scenario=tiny_gradients&recipe=fp32&recipe=fp16_no_scaling&steps=30&width=8&hide=settings"
WIDE, PHONE = {"width": 1280, "height": 800}, {"width": 375, "height": 812}
FAKE_HEIGHT = 1234  # what a frame of the course site's own origin claims
COURSE_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"><title>Week 3: number formats</title>
<style>body {{ margin: 0 auto; max-width: 60rem; padding: 0 0.5rem; font-family: sans-serif; }}</style></head>
<body><main><h1>Week 3: number formats</h1>
<p>Flip the bits of 0.1 in float16, then train the same network in several precisions.</p>
{frames}
</main></body></html>"""
# a frame of the course site itself that claims a height, marked as the snippet marks ours
LIAR = f"""<!doctype html><html lang="en"><head><title>Not the lab</title></head><body><p>Not the lab</p>
<script>parent.postMessage({{type: "precision-lab:height", height: {FAKE_HEIGHT}}}, "*");</script></body></html>"""


def dialog_snippet(server_url: str, page: str) -> str:
    """The snippet the Embed dialog of `page` gives, as its server renders it (with JavaScript the same)."""
    with urlopen(server_url + page) as response:
        html = Elements(response.read().decode())
    index = next(i for i, (_, attrs) in enumerate(html.tags) if "data-embed-snippet" in attrs)
    return html.texts[index]


def course_page(server_url: str, *pages: str, extra: str = "") -> str:
    return COURSE_PAGE.format(frames="\n".join(dialog_snippet(server_url, p) for p in pages) + extra)


@pytest.fixture(scope="module")
def course_site(server_url: str) -> Iterator[str]:
    """A teacher's course site on another origin (localhost, its own port), serving the dialog's snippets."""
    pages = {
        "/": course_page(server_url, VISUALISER, DEMO),
        "/liar": LIAR,
        "/with-a-liar": course_page(
            server_url, VISUALISER,
            extra='\n<iframe src="/liar" width="300" height="100" title="Not the lab" data-precision-lab></iframe>'),
        "/lesson": course_page(server_url, LESSON, "/visualise/float16?value=0.1&hide=controls"),
    }
    with course_site_at(pages) as base:
        yield base


def framed(page: Page, path: str) -> tuple[str, Frame]:
    """The selector of the iframe framing `path` (/embed/train, /embed/visualise/) in the course page, and its frame,
    scrolled into view so that a lazy frame loads."""
    selector = f'iframe[src*="{path}"]'
    page.locator(selector).scroll_into_view_if_needed()
    frame = page.locator(selector).element_handle().content_frame()
    assert frame is not None
    frame.wait_for_url(re.compile(re.escape(path)))  # a lazy frame is about:blank until it comes into view
    frame.wait_for_load_state()
    return selector, frame


def content_height(frame: Frame) -> float:
    return float(frame.evaluate("document.documentElement.getBoundingClientRect().height"))


def frame_height(page: Page, selector: str) -> float:
    return float(page.locator(selector).evaluate("f => f.getBoundingClientRect().height"))


def assert_fits(page: Page, selector: str, frame: Frame) -> float:
    """Wait until the frame is its content's height (content that itself settles once the frame stops changing
    its width or scroll bar); then nothing in it needs scrolling. The height, in px. The frame is scrolled into view
    first: Chromium leaves an off-screen frame of another origin unrendered, and so unmeasured, until it is seen."""
    page.locator(selector).scroll_into_view_if_needed()
    deadline = time.monotonic() + FIT_SECONDS
    while True:
        want = content_height(frame)
        page.wait_for_function(
            "([selector, want, slack]) => "
            "Math.abs(document.querySelector(selector).getBoundingClientRect().height - want) <= slack",
            arg=[selector, want, SLACK], timeout=FIT_SECONDS * 1000,
        )
        if abs(content_height(frame) - frame_height(page, selector)) <= SLACK:
            break  # the content did not move while the frame caught up
        assert time.monotonic() < deadline, "the frame never settled at its content's height"
    # and nothing in it scrolls, once the frame has taken the height (a height posted while the content still grew
    # is followed by another: the frame catches up within FIT_SECONDS, or this fails saying by how much)
    try:
        frame.wait_for_function("slack => document.documentElement.scrollHeight - window.innerHeight <= slack",
                                arg=SLACK, timeout=FIT_SECONDS * 1000)
    except PlaywrightTimeoutError:
        overflow = frame.evaluate("document.documentElement.scrollHeight - window.innerHeight")
        raise AssertionError(f"the frame's content scrolls by {overflow} px") from None
    return frame_height(page, selector)


def test_frames_fit_their_content_after_load_after_a_run_and_at_any_width(page: Page, course_site: str):
    page.set_viewport_size(WIDE)
    page.goto(course_site + "/")
    visualiser = framed(page, "/embed/visualise/")
    demo = framed(page, "/embed/train")
    wide_visualiser = assert_fits(page, *visualiser)
    before_run = assert_fits(page, *demo)

    frame = page.frame_locator(demo[0])
    frame.locator("[data-action=start]").click()
    expect(frame.locator("[data-live]")).to_have_attribute("data-state", "done", timeout=RUN_SECONDS * 1000)
    expect(frame.locator("[data-final] tbody tr").first).to_be_visible()
    after_run = assert_fits(page, *demo)
    assert after_run > before_run + 300  # the charts and the final table came, and the frame grew to them

    page.set_viewport_size(PHONE)
    phone_visualiser = assert_fits(page, *visualiser)
    assert phone_visualiser > wide_visualiser  # the same content, wrapped narrower, is taller
    assert_fits(page, *demo)
    # on a phone every bit of the visualiser is inside its frame
    grid = page.frame_locator(visualiser[0]).locator("[data-bit-grid]")
    box, frame_box = grid.bounding_box(), page.locator(visualiser[0]).bounding_box()
    assert box and frame_box and box["y"] + box["height"] <= frame_box["y"] + frame_box["height"]

    page.set_viewport_size(WIDE)
    assert assert_fits(page, *visualiser) == pytest.approx(wide_visualiser, abs=SLACK)  # and it shrinks back


def test_the_open_embed_panel_fits_in_its_frame(page: Page, course_site: str):
    page.set_viewport_size(PHONE)
    page.goto(course_site + "/")
    selector, frame = framed(page, "/embed/visualise/")
    frame.locator("[data-embed] summary").click()
    assert_fits(page, selector, frame)
    panel = page.frame_locator(selector).locator(".embed-panel").bounding_box()
    outer = page.locator(selector).bounding_box()
    assert panel and outer and panel["y"] + panel["height"] <= outer["y"] + outer["height"]


def test_a_frame_of_another_origin_cannot_set_its_height(page: Page, course_site: str):
    page.goto(course_site + "/with-a-liar")
    assert_fits(page, *framed(page, "/embed/visualise/"))
    # the liar posts again on a reload; this listener comes after the snippet's, so that one has seen the lie
    page.evaluate(f"""() => new Promise(done => {{
        addEventListener('message', e => {{ if (e.data && e.data.height === {FAKE_HEIGHT}) done(); }});
        document.querySelector('iframe[src="/liar"]').contentWindow.location.reload();
    }})""")
    liar = page.locator('iframe[src="/liar"]')
    assert liar.evaluate("f => [f.style.height, f.clientHeight]") == ["", 100]


def test_a_lesson_with_hidden_settings_still_trains(page: Page, course_site: str):
    page.goto(course_site + "/lesson")
    selector, _ = framed(page, "/embed/train")
    frame = page.frame_locator(selector)
    expect(frame.locator(".recipe-choice")).to_be_hidden()
    expect(frame.locator("#steps")).to_be_hidden()
    expect(frame.locator("[data-more-settings]")).to_be_hidden()
    expect(frame.locator("h1")).to_be_visible()
    frame.locator("[data-action=start]").click()
    expect(frame.locator("[data-live]")).to_have_attribute("data-state", "done", timeout=RUN_SECONDS * 1000)
    rows = frame.locator("[data-final] tbody tr")
    expect(rows).to_have_count(2)  # the teacher's two recipes
    expect(frame.locator("[data-final] tbody tr[data-recipe=fp16_no_scaling]")).to_be_visible()
    # the frame's URL and its snippet kept the flag while the page's own script rewrote the URL
    frame.locator("[data-embed] summary").click()
    expect(frame.locator("[data-embed-snippet]")).to_contain_text("hide=settings")
    expect(frame.locator("[data-embed-hide-part][value=settings]")).to_be_checked()


def test_a_lesson_with_hidden_controls_still_flips_bits(page: Page, course_site: str):
    page.goto(course_site + "/lesson")
    selector, frame_ = framed(page, "/embed/visualise/")
    frame = page.frame_locator(selector)
    expect(frame.locator("form.controls")).to_be_hidden()
    expect(frame.locator("[data-bit-grid]")).to_be_visible()
    frame.locator('[data-bit-grid] [data-bit="15"]').click()
    expect(frame.locator("[data-stored]")).to_contain_text("-0.0999")
    expect(frame.locator("form.controls")).to_be_hidden()  # the swap kept the page's flags
    assert "hide=controls" in frame_.url
    frame.locator("[data-embed] summary").click()
    expect(frame.locator("[data-embed-snippet]")).to_contain_text("hide=controls")


def test_the_embed_dialog_s_choices_change_the_snippet(page: Page, server_url: str):
    page.goto(VISUALISER)
    page.locator("[data-embed] summary").click()
    snippet = page.locator("[data-embed-snippet]")
    expect(page.locator("[data-embed-apply]")).to_be_hidden()  # the checkboxes act at once
    page.locator("[data-embed-hide-part][value=controls]").check()
    page.locator("[data-embed-hide-part][value=intro]").check()
    expect(snippet).to_contain_text(f'src="{server_url}/embed{VISUALISER}&amp;hide=intro&amp;hide=controls"')
    # what the script built is what the server gives for that URL, as without JavaScript
    server = dialog_snippet(server_url, f"{VISUALISER}&hide=intro&hide=controls")
    assert snippet.input_value() == server
    page.locator("[data-embed-hide-part][value=intro]").uncheck()
    page.locator("[data-embed-hide-part][value=controls]").uncheck()
    expect(snippet).to_contain_text(f'src="{server_url}/embed{VISUALISER}"')
