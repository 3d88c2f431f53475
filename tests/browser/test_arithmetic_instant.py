"""/arithmetic updates in the browser as you type (static/js/arithmetic.js), with no request, and shows what the
server would: the script fills the server's own markup (templates/arithmetic.html), so what is compared is what a
reader gets: the visible text of the figure, its tape, every bit, link and title, equal the server's page for the
URL the script moved to, read the same way, for random operations of every kind in every format, mode and overflow
policy, mixed widths, tapes, refusals, and in every language."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Browser, Page, expect

from app.formats import OPERATIONS, OVERFLOW_POLICIES, ROUNDINGS, SCALAR_FORMATS
from tests.browser.conftest import BrowserLog
from tests.helpers.page_snapshot import snapshot

FIXED_SEED = 20261208
CASES = 36

SNAPSHOT = snapshot("root", """
  const error = root.querySelector("[data-error]");
  const result = root.querySelector("[data-arithmetic-result]");
  if (result.hidden) return { error: [text(error), error.getAttribute("role"), error.getAttribute("lang")] };
  return {
    error: error.hidden ? null : text(error),
    text: text(result),
    bits: [...result.querySelectorAll(".bit-group")].filter(visible).map((g) => g.dataset.role + ":"
      + [...g.querySelectorAll(".bit")].map((b) => b.dataset.value + b.textContent).join("")),
    links: [...result.querySelectorAll("a[href]")].filter(visible).map((a) => a.getAttribute("href")),
    titles: [...result.querySelectorAll("[title]")].filter(visible).map((el) => el.title),
    flags: [...result.querySelectorAll("li[data-flag]")].map((li) => li.dataset.raised),
  };
""")

# For each case: set the form as a person would, let the script update the page, read it; then fetch the server's
# page for the URL the script left and read that. Only the cases that differ come back.
AGREE = """
async ([cases, snapshot]) => {
  const read = eval(snapshot);
  const form = document.querySelector("[data-arithmetic-form]");
  const differences = [];
  for (const c of cases) {
    for (const name of ["format", "op", "result_format", "rounding", "overflow", "seed", "a", "b", "c"]) {
      form.elements[name].value = c[name];
    }
    form.querySelector('input[name="step"]:not([type="hidden"])').value = c.step;
    form.elements.a.dispatchEvent(new Event("input", { bubbles: true }));
    const url = location.pathname + location.search;
    const mine = JSON.stringify(read(document.querySelector("[data-arithmetic-figure]")));
    const html = await (await fetch(url)).text();
    const served = new DOMParser().parseFromString(html, "text/html");
    const theirs = JSON.stringify(read(served.querySelector("[data-arithmetic-figure]")));
    if (mine !== theirs) differences.push({ case: c, url, mine, theirs });
  }
  return differences;
}
"""

FORMATS = [spec.id for spec in SCALAR_FORMATS]
VALUES = ["0.1", "3", "-2.5", "1e-5", "65504", "448", "1/3", "0x1.8p-3", "inf", "-inf", "nan", "-0", "0", "2",
          "10000", "1e39", "1e-46", "0x3c00", "zebra", ""]


def _first_difference(difference: dict) -> str:
    mine, theirs = difference["mine"], difference["theirs"]
    at = next((i for i, (m, t) in enumerate(zip(mine, theirs, strict=False)) if m != t), min(len(mine), len(theirs)))
    return f"{difference['url']}: script …{mine[max(0, at - 120):at + 60]}… server …{theirs[max(0, at - 120):at + 60]}…"


def _value(rng: random.Random) -> str:
    if rng.random() < 0.6:
        return rng.choice(VALUES)
    return f"{rng.choice(['', '-'])}{rng.randint(1, 99999)}e{rng.randint(-40, 10)}"


def _case(rng: random.Random) -> dict[str, str]:
    rounding = rng.choice(ROUNDINGS)
    op = rng.choice(OPERATIONS)
    step = rng.choice(["", "", "add:1", "mul:3", "sqrt", "sub:inf", "div:7", "pow:2"]) if op != "fma" else ""
    return {"format": rng.choice(FORMATS), "op": op, "result_format": rng.choice(["", "", *FORMATS]),
            "rounding": rounding, "overflow": rng.choice(OVERFLOW_POLICIES),
            "seed": str(rng.randint(0, 2**63 - 1)) if rounding == "stochastic" else rng.choice(["", "", "x"]),
            "a": _value(rng), "b": _value(rng), "c": _value(rng), "step": step}


@pytest.mark.slow  # 41 cases, each with a fetch of the server's page: about 4 s
@pytest.mark.allowed_console_errors(r"422")  # the server's answer to the cases it refuses, fetched to compare
def test_the_page_the_script_writes_is_the_page_the_server_renders(page: Page, browser_log: BrowserLog):
    rng = random.Random(FIXED_SEED)
    cases = [_case(rng) for _ in range(CASES)]
    base = {"format": "float16", "result_format": "", "rounding": "nearest_even", "overflow": "format_default",
            "seed": "", "c": "", "step": ""}
    cases += [base | {"op": "mul", "a": "10000", "b": "10000"},
              base | {"op": "mul", "a": "10000", "b": "10000", "result_format": "float32"},
              base | {"op": "add", "a": "1", "b": "0x1p-11", "step": "add:0x1p-11"},
              base | {"op": "fma", "a": "0x1.004p0", "b": "0x1.ff8p-1", "c": "-1"},
              base | {"op": "sqrt", "a": "2", "b": "", "format": "float32"}]
    page.goto("/arithmetic")
    sent = len(browser_log.requests)
    differences = page.evaluate(AGREE, [cases, SNAPSHOT])
    assert not differences, f"{len(differences)} of {len(cases)} cases differ: {_first_difference(differences[0])}"
    assert len(browser_log.requests[sent:]) == len(cases)  # the test's own fetches only: typing asked nothing
    assert all("/arithmetic" in url for url in browser_log.requests[sent:])


@pytest.mark.slow  # 13 cases a language, each with a fetch of the server's page: about 2 s each
@pytest.mark.allowed_console_errors(r"422")
@pytest.mark.parametrize("code", ["tr", "el", "yo"])
def test_in_every_language_the_page_the_script_writes_is_the_servers(page: Page, code: str):
    rng = random.Random(f"{FIXED_SEED}-{code}")
    cases = [_case(rng) for _ in range(10)]
    base = {"format": "float16", "op": "add", "result_format": "", "rounding": "nearest_even",
            "overflow": "format_default", "seed": "", "c": "", "step": ""}
    cases += [base | {"a": "0,5", "b": "0,25"}, base | {"a": "1", "b": "zebra"},
              base | {"op": "mul", "a": "300", "b": "300", "step": "sub:inf"}]
    page.goto(f"/{code}/arithmetic")
    differences = page.evaluate(AGREE, [cases, SNAPSHOT])
    assert not differences, f"{len(differences)} of {len(cases)} cases differ: {_first_difference(differences[0])}"


def test_typing_updates_the_figure_and_the_address(page: Page):
    page.goto("/arithmetic")
    expect(page.locator('[data-slot="answer-stored"]')).to_have_text("inf")
    page.fill("#ar-b", "2")
    expect(page.locator('[data-slot="answer-stored"]')).to_have_text("20000")
    assert "b=2" in page.url and "a=10000" in page.url
    page.select_option("#ar-result-format", "float8_e4m3fn")
    expect(page.locator('li[data-flag="overflow"]')).to_have_attribute("data-raised", "true")
    page.fill("#ar-b", "x")
    expect(page.locator("[data-error]")).to_have_text("b: Could not read 'x' as a number. Accepted: decimals (0.1, "
                                                      "-2.5e-3), hex floats (0x1.8p-3), fractions (1/3), inf, -inf, "
                                                      "nan, -0, and raw bits (0x3c00 or 0b0011110000000000).")
    expect(page.locator("[data-arithmetic-result]")).to_be_hidden()


def test_a_step_typed_and_sent_grows_the_tape(page: Page):
    page.goto("/arithmetic?format=float16&op=add&a=2048&b=1")
    new_step = page.locator('input[name="step"]:not([type="hidden"])').last
    new_step.fill("add:1")
    expect(page.locator("[data-chain-rows] tr")).to_have_count(2)
    new_step.press("Enter")  # the server adds a box for the next step
    expect(page.locator('input[name="step"]:not([type="hidden"])')).to_have_count(2)
    expect(page.locator('[data-chain-rows] [data-slot="stored"]').last).to_have_text("2048")


def test_without_javascript_the_form_still_computes(browser: Browser, server_url: str, axe_check):
    context = browser.new_context(base_url=server_url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/arithmetic")
    page.fill("#ar-a", "1")
    page.fill("#ar-b", "0x1p-11")
    page.select_option("#ar-op", "add")
    page.locator('[data-arithmetic-form] button[type="submit"]').click()
    expect(page.locator('[data-slot="answer-stored"]')).to_have_text("1")
    expect(page.locator('li[data-flag="inexact"]')).to_have_attribute("data-raised", "true")
    assert "op=add" in page.url
    context.close()


def test_the_page_passes_axe_on_a_phone(page: Page, axe_check):
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto("/arithmetic?format=float16&op=add&a=2048&b=1&step=add:1")
    axe_check(page)
    answer = page.locator('[data-slot="answer-stored"]').bounding_box()
    assert answer is not None and answer["y"] + answer["height"] <= 800  # the answer is on the first screen
