"""The block visualiser updates in the browser: typing in the values box (each keystroke), a preset and the Quantise
button redraw the whole block without one request to the server, the URL follows, and what the script shows is
what the server shows for that URL: the script fills the server's own markup (visualise_block.html and its
_block_*.html parts), so what is compared is what a reader gets, not markup (the text of the block as laid out,
its links, titles and labels, the states its hooks carry, and the chart's bars), so a shared link restores the
view; JavaScript off still works; no console error, axe, 375 px. The scripts write no markup of their own."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect

from app.formats import BLOCK_FORMAT_IDS
from app.web.blocks.pages import PRESETS
from app.web.platform.decimal_comma import typed_list
from app.web.platform.languages import SERVED
from tests.helpers.page_modules import applied

# What a reader gets from a block section: its text as the browser lays it out (innerText: what is hidden, the JSON
# block and a chart kept only for its place while the box holds an error are left out; the values box is compared
# by value), and the attributes that carry meaning (links, titles, labels, with the text of a hidden label an
# element names by aria-labelledby, states, the bars' geometry as numbers and their tooltips). The section is copied
# into a box off screen as wide as the page's, so that both copies, the one the script drew and the server's, are
# laid out alike.
SIGNATURE = """(section) => {
  const box = document.createElement("div");
  const width = `${document.querySelector("#block").offsetWidth}px`;
  Object.assign(box.style, { position: "absolute", left: "-20000px", top: "0", width });
  const copy = document.importNode(section, true);
  copy.removeAttribute("id");
  const named = (ids) => ids.split(" ").map((id) => copy.querySelector(`[id="${id}"]`).textContent).join(" ");
  copy.querySelectorAll("[aria-labelledby]").forEach((e) => e.setAttribute("data-name",
    named(e.getAttribute("aria-labelledby")).replace(/\\s+/g, " ")));
  copy.querySelectorAll("[hidden], [data-stale], textarea, template").forEach((e) => e.remove());
  box.append(copy);
  document.body.append(box);
  const attributes = ["href", "title", "aria-label", "data-name", "aria-describedby", "aria-current", "role",
    "data-fate", "data-value", "data-role", "data-shared-exponent", "data-hx-get"];
  const marks = [];
  copy.querySelectorAll("*").forEach((e) => {
    const found = attributes.filter((a) => e.hasAttribute(a)).map((a) => `${a}=${e.getAttribute(a)}`);
    const tag = e.tagName.toLowerCase();
    const numbers = tag === "rect" ? ["x", "y", "width", "height"] : [];
    found.push(...numbers.map((a) => `${a}=${parseFloat(e.getAttribute(a))}`));
    if (tag === "title") found.push(`text=${e.textContent}`);
    if (found.length) marks.push(`${tag}[${found.join(" ")}]`);
  });
  const text = copy.innerText.replace(/\\s+/g, " ").trim();
  box.remove();
  return { text, marks };
}"""

SERVER_SIGNATURE = f"""async (url) => {{
  const html = await (await fetch(url)).text();
  const doc = new DOMParser().parseFromString(html, "text/html");
  return {{ signature: ({SIGNATURE})(doc.querySelector("#block")), typed: doc.querySelector("#values").value }};
}}"""


def watch_requests(page: Page) -> list[str]:
    """Every request the page makes from now on, but the fetch() by which this test reads the server's page (the
    page's own scripts make none; htmx's requests are XMLHttpRequests)."""
    requests: list[str] = []
    page.on("request", lambda request: None if request.resource_type == "fetch" else requests.append(request.url))
    return requests


def same_as_the_server(page: Page) -> None:
    """The block as the script drew it equals the server's page for the URL the script put in the address bar."""
    ours = page.evaluate(SIGNATURE, page.locator("#block").element_handle())
    path = urlsplit(page.url)
    theirs = page.evaluate(SERVER_SIGNATURE, path.path + (f"?{path.query}" if path.query else ""))
    assert theirs["typed"] == page.locator("#values").input_value()
    assert ours["text"] == theirs["signature"]["text"], first_difference(ours["text"], theirs["signature"]["text"])
    assert ours["marks"] == theirs["signature"]["marks"], first_difference(ours["marks"], theirs["signature"]["marks"])


def first_difference(ours: str | list[str], theirs: str | list[str]) -> str:
    at = next((i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), min(len(ours), len(theirs)))
    if isinstance(ours, str):
        return f"at {at}:\n  drawn  {ours[max(at - 80, 0):at + 160]!r}\n  server {theirs[max(at - 80, 0):at + 160]!r}"
    return f"mark {at}:\n  drawn  {ours[at:at + 3]}\n  server {theirs[at:at + 3]}"


# Every preset in a format of each rule (MX, MX with an integer element, NVFP4, NF4); one in the other MX formats,
# whose page differs only in the element format (tests/js/test_blocks_parity.py holds every format's numbers to
# Python's).
EVERY_PRESET = ["mxfp4", "mxint8", "nvfp4", "nf4"]
CASES = [(f, [p.id for p in PRESETS][::-1] if f in EVERY_PRESET else ["outlier"]) for f in BLOCK_FORMAT_IDS]
# One format of each scale rule in each language: MX's, NVFP4's and NF4's sentences (MXINT8 only words MX's apart)
RULES = ["mxfp4", "nvfp4", "nf4"]


@pytest.mark.parametrize(("format_id", "presets"), CASES, ids=[f for f, _ in CASES])
def test_presets_are_drawn_without_a_request_as_the_server_draws_them(page: Page, format_id: str,
                                                                     presets: list[str]):
    page.goto(f"/visualise/{format_id}" + ("?preset=normal" if format_id == "nf4" else ""))
    requests = watch_requests(page)
    for preset in presets:  # "normal", the first paint's, comes last
        page.locator(f'[data-preset="{preset}"]').click()
        expect(page).to_have_url(re.compile(rf"/visualise/{format_id}\?preset={preset}$"))
        expect(page.locator(f'[data-preset="{preset}"]')).to_have_attribute("aria-current", "true")
        assert requests == [], f"{preset} asked the server for {requests}"
        same_as_the_server(page)


TYPED = [
    "6, -3, 1.5, 0.1",  # a short block: padding
    "1/3; 0x1.8p-3\n-0 1e-40, 3.4028235e38",  # FP32 rounding, a subnormal, FP32's max
    "0.5, nan, 2",
    "-inf 1 2 3",
    "1e-39 2e-39 -3e-39",  # near the scale's floor
    "0, 0, -0",
    "1, 2, zebra",  # a refusal: the block gives way to the sentence
]


@pytest.mark.allowed_console_errors(r"422")  # the server's page for the refused list, which this test reads
@pytest.mark.parametrize("format_id", ["mxfp4", "nvfp4", "nf4"])
def test_typing_redraws_at_each_keystroke_without_a_request(page: Page, format_id: str):
    page.goto(f"/visualise/{format_id}?preset=outlier")
    requests = watch_requests(page)
    box = page.locator("#values")
    for text in TYPED:
        box.fill(text[:-1])
        box.press_sequentially(text[-1])  # the last character as a keystroke: input events alone redraw
        assert requests == []
        same_as_the_server(page)
    # and back from the refusal to a block
    box.fill("1, 2, 3")
    expect(page.locator("[data-error]")).to_be_hidden()
    expect(page.locator("tr[data-element]")).to_have_count(3)
    page.locator("#block button[type=submit]").click()
    assert requests == []
    same_as_the_server(page)


# Typed on a page of each language, besides TYPED: decimal commas with ";" or new lines between values (read on a
# Turkish or Greek page, commas between values on a Yoruba one), a codec's refusal inside the list's, too many
# values, and a list too long, whose counts the sentence groups as the language does (4.001 in Turkish).
TYPED_IN_LANGUAGES = [
    "0,5; -1,25\n3",
    "1,5; 0x1.8p-3; 2,25e-3\n-0,0001",
    "0,5, 1,25, 3",
    "1,5; zebra",
    " ".join(["1"] * 40),
    "1" * 4001,
]


@pytest.mark.slow  # three formats, each with every preset and nine lists, each read twice: about 8 s a language
@pytest.mark.allowed_console_errors(r"422")  # the server's page for the refused lists, which this test reads
@pytest.mark.parametrize("code", ["tr", "el", "yo"])
def test_in_every_language_the_block_the_script_draws_is_the_servers(page: Page, code: str):
    """Every sentence of the block is the page's own, in its language, with the script's numbers in its slots; the
    script reads decimal commas as the server reads them in that language and groups the counts of a refusal as it
    does: for a format of each rule (MX, NVFP4, NF4), every preset and typed list, with no request, is the server's
    page in that language, word for word."""
    for format_id in RULES:
        page.goto(f"/{code}/visualise/{format_id}?preset=normal")
        assert page.locator("html").get_attribute("lang") == code
        requests = watch_requests(page)
        for preset in [p.id for p in PRESETS][::-1]:
            page.locator(f'[data-preset="{preset}"]').click()
            expect(page).to_have_url(re.compile(rf"/{code}/visualise/{format_id}\?preset={preset}$"))
            same_as_the_server(page)
        box = page.locator("#values")
        for text in TYPED[:3] + TYPED_IN_LANGUAGES:
            box.fill(text[:-1])
            box.press_sequentially(text[-1])
            same_as_the_server(page)
        assert requests == [], f"{format_id} asked the server for {requests}"
    # and what it said was the language's: the sentence of a list too long, its counts grouped as the language does
    error = page.locator("[data-error]").text_content() or ""
    assert not error.startswith("The list is") and ("4.001" if code in ("tr", "el") else "4,001") in error


def test_the_scripts_reading_of_a_list_is_the_servers(page: Page):
    """decimal_comma.js's typedList, held to decimal_comma.py's typed_list: a list with decimal commas."""
    page.goto("/tr/visualise/mxfp4")
    rng = random.Random(11)
    texts = ["0,5; -1,25\n3", "0,5, 1,25", "1,2,3;", ";;", "", "0,5\n\n,5", "1.5; 2,5", " 0,5 ;\t-1,e3 ",
             "\u22120,5; 1", "0,5;\u00a02,5", "0,5;\x1c1,5", "\ufeff0,5; 1", "0x1,8p-3; 1"]
    texts += ["".join(rng.choice("0123456789,.;-e \n\u00a0") for _ in range(rng.randrange(1, 14)))
              for _ in range(400)]
    got = applied(page, "decimal_comma.js", "typedList", texts)
    assert got[0] == [typed_list(t, SERVED["tr"]) for t in texts]
    assert got[1] == [typed_list(t, SERVED["en"]) for t in texts] == texts


def test_each_keystroke_changes_the_view(page: Page):
    page.goto("/visualise/mxfp4?values=1")
    requests = watch_requests(page)
    box = page.locator("#values")
    box.click()
    box.press("End")
    scales = []
    for key in "0000":  # 10, 100, 1000, 10000: the shared scale climbs with each
        box.press(key)
        scales.append(page.locator("[data-scale-bits]").first.text_content())
    assert len(set(scales)) == 4 and requests == []
    assert page.url.endswith("?values=10000")


def test_a_shared_link_restores_the_typed_view(page: Page, browser: Browser, server_url: str):
    page.goto("/visualise/nvfp4")
    page.locator("#values").fill("100, 0.01, -7, 1/3")
    url = page.url
    assert "values=100%2C%200.01%2C%20-7%2C%201%2F3" in url
    drawn = page.evaluate(SIGNATURE, page.locator("#block").element_handle())
    other = browser.new_context(base_url=server_url).new_page()
    other.goto(url)
    assert other.locator("#values").input_value() == "100, 0.01, -7, 1/3"
    assert other.evaluate(SIGNATURE, other.locator("#block").element_handle()) == drawn
    other.context.close()


def test_back_returns_to_the_last_preset_and_the_typed_values(page: Page):
    page.goto("/visualise/mxfp4")
    page.locator("#values").fill("1, 2, 3")
    page.locator('[data-preset="outlier"]').click()
    expect(page.locator("[data-scale-bits]").first).to_have_text("0x82")
    page.go_back()
    expect(page).to_have_url(re.compile(r"\?values=1%2C%202%2C%203$"))
    expect(page.locator("tr[data-element]")).to_have_count(3)
    expect(page.locator("#values")).to_have_value("1, 2, 3")
    same_as_the_server(page)


def test_another_format_after_typing_opens_the_same_values(page: Page):
    page.goto("/visualise/mxfp4")
    page.locator("#values").fill("0.25, -8, 3")
    page.locator('tr[data-other="nvfp4"] th a').click()
    expect(page.locator("#block")).to_have_attribute("data-format", "nvfp4")
    expect(page.locator("#values")).to_have_value("0.25, -8, 3")
    page.locator("#values").fill("0.25, -8, 3, 5")  # the swapped-in block is live too
    expect(page.locator("tr[data-element]")).to_have_count(4)
    same_as_the_server(page)


def test_the_typed_view_works_with_javascript_off(browser: Browser, server_url: str):
    context = browser.new_context(base_url=server_url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/visualise/nf4?values=1%2C%20-0.5%2C%20nan")
    expect(page.locator("tr[data-element]")).to_have_count(3)
    expect(page.locator('.fate-legend [data-fate="nan"]')).to_be_visible()
    expect(page.locator("[data-lesson-numbers]")).to_be_hidden()
    context.close()


@pytest.mark.slow  # two axe scans: about 3 s
def test_edited_views_pass_axe_and_fit_a_phone(page: Page, axe_check: Callable[[Page], None]):
    page.set_viewport_size({"width": 375, "height": 812})
    page.goto("/visualise/nvfp4")
    page.locator("#values").fill("1e-40, -3.4e38, 1/3, 0x1.fffffep-127, 7")  # long exact decimals
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    axe_check(page)
    page.locator('[data-preset="nan"]').click()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    axe_check(page)


# What a script writing its own markup would use: HTML parsed from a string, a tag in a string or template, or an
# element made rather than cloned from the server's
MARKUP = re.compile(r"innerHTML|outerHTML|insertAdjacentHTML|createContextualFragment|DOMParser|document\.write|"
                    r"createElement|[`\"']\s*<\s*/?[a-z]")
SCRIPTS = Path(__file__).resolve().parents[2] / "static" / "js"


@pytest.mark.parametrize("module", ["block_view.js", "block_view_fill.js", "compare.js", "compare_rows.js",
                                    "compare_chart.js", "view_slots.js"])
def test_the_views_scripts_write_no_markup(module: str):
    """They fill the server's markup: text and attributes, its variants shown, its nodes cloned (the scripts these
    replaced wrote 17 pieces of markup and made elements)."""
    source = (SCRIPTS / module).read_text()
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("//", "/*", "*")))
    assert not MARKUP.findall(code), module
