"""/dot updates in the browser as you type (static/js/dot.js), with no request, and shows what the server would: the
script fills the server's own markup (templates/dot.html), so what is compared is what a reader gets: the visible
text of the figure (the table, the exact value, the notes, the step's bits), its links and titles, the chart's
geometry (every path, every tick's place and label, the chart's description) and the tensor-core sources, equal the
server's page for the URL the script moved to, read the same way: for random typed vectors in every format with
random methods, promote_every, steps and step methods, refusals, drawn vectors of 4096 elements, and in Turkish,
Greek and Yoruba."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Browser, Page, expect

from app.formats import DOT_FORMATS, DOT_METHODS, dot_methods_for
from tests.browser.conftest import BrowserLog
from tests.helpers.page_snapshot import snapshot

FIXED_SEED = 20261208

SNAPSHOT = snapshot("doc", """
  const root = doc.getElementById("dot-figure");
  const error = root.querySelector("[data-error]");
  const result = root.querySelector("[data-dot-result]");
  if (result.hidden) return { error: [text(error), error.getAttribute("role"), error.getAttribute("lang")] };
  const svg = result.querySelector("svg");
  const attrs = (el, names) => names.map((n) => el.getAttribute(n)).join(",");
  return {
    error: error.hidden ? null : text(error),
    text: text(result),
    links: [...result.querySelectorAll("a[href]")].filter(visible).map((a) => a.getAttribute("href")),
    titles: [...result.querySelectorAll("[title]")].filter(visible).map((el) => el.title),
    chart: [svg.getAttribute("aria-label"),
      ...[...svg.querySelectorAll("path")].filter((p) => !p.hasAttribute("hidden"))
        .map((p) => p.dataset.series + p.getAttribute("d")),
      ...[...svg.querySelectorAll("line")].map((l) => attrs(l, ["x1", "x2", "y1", "y2"])),
      ...[...svg.querySelectorAll("text")].map((t) => attrs(t, ["x", "y"]) + t.textContent)],
    sources: text(doc.querySelector("[data-sources]")),
  };
""")

# For each case: set the form as a person would, let the script update the page, read it; then fetch the server's
# page for the URL the script left and read that. Only the cases that differ come back.
AGREE = """
async ([cases, snapshot]) => {
  const read = eval(snapshot);
  const form = document.querySelector("[data-dot-form]");
  const fire = (name) => form.elements[name].dispatchEvent(new Event("input", { bubbles: true }));
  const differences = [];
  for (const c of cases) {
    form.elements.format.value = c.format;
    fire("format");
    for (const box of form.querySelectorAll('input[name="method"]')) box.checked = c.methods.includes(box.value);
    for (const name of ["a", "b", "promote_every", "step", "bits", "n", "seed"]) {
      if (name in c) form.elements[name].value = c[name];
    }
    fire("a");
    const url = location.pathname + location.search;
    const mine = JSON.stringify(read(document));
    const response = await fetch(url);
    const served = new DOMParser().parseFromString(await response.text(), "text/html");
    const theirs = served.getElementById("dot-figure") ? JSON.stringify(read(served)) : `status ${response.status}`;
    if (mine !== theirs) differences.push({ case: c, url, mine, theirs });
  }
  return differences;
}
"""

VALUES = ["0.1", "3", "-2.5", "1e-5", "65504", "448", "1/3", "0x1.8p-3", "-0", "0", "2", "10000", "1e39", "1e-46",
          "57344", "-7/16", "1e-8", "0.3333"]


def _first_difference(difference: dict) -> str:
    mine, theirs = difference["mine"], difference["theirs"]
    at = next((i for i, (m, t) in enumerate(zip(mine, theirs, strict=False)) if m != t), min(len(mine), len(theirs)))
    return f"{difference['url']}: script …{mine[max(0, at - 160):at + 80]}… server …{theirs[max(0, at - 160):at + 80]}…"


def _vector(rng: random.Random, n: int) -> str:
    values = [rng.choice(VALUES) if rng.random() < 0.5 else f"{rng.gauss(0, 1):.6g}" for _ in range(n)]
    return rng.choice([", ", " ", ";", "\n"]).join(values)


def _case(rng: random.Random) -> dict:
    format_id = rng.choice(DOT_FORMATS)
    offered = list(dot_methods_for(format_id))
    methods = [] if rng.random() < 0.4 else rng.sample(offered, rng.randint(1, len(offered)))
    n = rng.choice([1, 2, 3, 5, 17, 40, 130, 300])
    typed = rng.random() < 0.9
    return {"format": format_id, "methods": methods, "a": _vector(rng, n) if typed else "",
            "b": _vector(rng, n if rng.random() < 0.95 else n + 1) if typed else "",
            "promote_every": rng.choice(["128", "128", "1", "7", "32", "0", "x"]) if rng.random() < 0.9 else "",
            "step": rng.choice(["", "", "", "1", str(n), str(max(1, n // 2)), str(n + 1)]),
            "bits": rng.choice(["", "", *offered, "pairwise"])}


@pytest.mark.slow  # 50 cases, each with a fetch of the server's page: about 3 s
@pytest.mark.allowed_console_errors(r"422")  # the server's answer to the cases it refuses, fetched to compare
def test_the_page_the_script_writes_is_the_page_the_server_renders(page: Page, browser_log: BrowserLog):
    rng = random.Random(FIXED_SEED)
    cases = [_case(rng) for _ in range(40)]
    base = {"format": "float16", "methods": [], "promote_every": "128", "step": "", "bits": ""}
    cases += [base | {"a": "65504, 65504", "b": "65504, -65504"},
              base | {"format": "float32", "a": "3e38 3e38", "b": "3e38 3e38", "bits": "kahan"},
              base | {"format": "float8_e4m3fn", "a": "448 448", "b": "448 448", "bits": "input_format"},
              base | {"a": "1 0x1p-11 0x1p-11", "b": "1 1 1", "bits": "v100", "step": "2"},
              base | {"a": "1 zebra", "b": "1 2"}, base | {"a": "1 2", "b": ""},
              base | {"a": "1 2", "b": "3 4", "n": "abc"}, base | {"a": "1 x", "b": "3 4", "n": "0"},
              base | {"a": "1 2", "b": "3 4", "n": "1024", "seed": "-1"},
              base | {"a": "1 2", "b": "3 4", "seed": "0", "step": "3"}]
    page.goto("/dot?format=float16&a=1&b=1")
    sent = len(browser_log.requests)
    differences = page.evaluate(AGREE, [cases, SNAPSHOT])
    assert not differences, f"{len(differences)} of {len(cases)} cases differ: {_first_difference(differences[0])}"
    assert len(browser_log.requests[sent:]) == len(cases)  # the test's own fetches only: typing asked nothing
    assert all("/dot" in url for url in browser_log.requests[sent:])


@pytest.mark.slow  # 8 cases of 4096 drawn elements, each with a fetch of the server's page: about 2 s
def test_drawn_vectors_of_4096_are_the_servers_in_every_format(page: Page, browser_log: BrowserLog):
    page.goto("/dot?n=4096&seed=7&distribution=outliers")
    rng = random.Random(f"{FIXED_SEED} drawn")
    cases = [{"format": f, "methods": [], "a": "", "b": "", "promote_every": rng.choice(["128", "33"]),
              "step": rng.choice(["", "100", "4096"]), "bits": rng.choice(["", *dot_methods_for(f)])}
             for f in DOT_FORMATS]
    cases += [cases[0] | {"methods": ["promoted", "h100"], "bits": "promoted", "step": "129"},
              cases[0] | {"format": "float16", "methods": ["v100", "pairwise"], "bits": "pairwise"}]
    sent = len(browser_log.requests)
    differences = page.evaluate(AGREE, [cases, SNAPSHOT])
    assert not differences, f"{len(differences)} of {len(cases)} cases differ: {_first_difference(differences[0])}"
    assert len(browser_log.requests[sent:]) == len(cases)


@pytest.mark.slow  # 9 cases a language, each with a fetch of the server's page: about 2 s each
@pytest.mark.allowed_console_errors(r"422")
@pytest.mark.parametrize("code", ["tr", "el", "yo"])
def test_in_every_language_the_page_the_script_writes_is_the_servers(page: Page, code: str):
    rng = random.Random(f"{FIXED_SEED}-{code}")
    cases = [_case(rng) for _ in range(6)]
    base = {"format": "bfloat16", "methods": [], "promote_every": "128", "step": "", "bits": ""}
    cases += [base | {"a": "0,5; 0,25; 1500", "b": "3; 4; 1500"}, base | {"a": "1 zebra", "b": "1 2"},
              base | {"a": "", "b": "", "step": "1000", "bits": "kahan"}]
    page.goto(f"/{code}/dot?n=1500&seed=3")
    differences = page.evaluate(AGREE, [cases, SNAPSHOT])
    assert not differences, f"{len(differences)} of {len(cases)} cases differ: {_first_difference(differences[0])}"


def test_typing_updates_the_figure_and_the_address(page: Page, browser_log: BrowserLog):
    page.goto("/dot?format=float16&a=1,2&b=3,4")
    expect(page.locator("[data-exact]")).to_have_text("11")
    sent = len(browser_log.requests)
    page.fill("#dot-a", "1,2,3")
    expect(page.locator("[data-error]")).to_have_text("Vector a has 3 numbers and vector b 2; a dot product needs as "
                                                      "many in each.")
    page.fill("#dot-b", "3,4,0x1p-30")
    expect(page.locator("[data-exact]")).to_have_text("11")
    assert "a=1%2C2%2C3" in page.url and "format=float16" in page.url
    expect(page.locator('[data-slot="zeroed"]').first).to_have_text("1")
    page.select_option("#dot-format", "float8_e5m2")
    expect(page.locator('label[data-method="v100"]')).to_be_hidden()
    expect(page.locator('tr[data-method="h100"]')).to_be_visible()
    assert browser_log.requests[sent:] == []


def test_a_new_draw_asks_the_server(page: Page):
    page.goto("/dot?n=64&seed=1")
    page.fill("#dot-seed", "2")
    page.press("#dot-seed", "Enter")
    page.wait_for_url("**seed=2**")
    expect(page.locator('[data-slot="seed"]')).to_have_text("2")


def test_without_javascript_the_form_still_computes(browser: Browser, server_url: str):
    context = browser.new_context(base_url=server_url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/dot")
    page.select_option("#dot-format", "float16")
    page.fill("#dot-a", "1 2")
    page.fill("#dot-b", "3 4")
    page.locator('[data-dot-form] button[type="submit"]').click()
    expect(page.locator("[data-exact]")).to_have_text("11")
    assert "format=float16" in page.url
    context.close()


def test_every_method_has_its_row_series_and_box(page: Page):
    page.goto("/dot?format=float16&a=1&b=1")
    for method in DOT_METHODS:
        expect(page.locator(f'tr[data-method="{method}"]')).to_have_count(1)
        expect(page.locator(f'path[data-series="{method}"]')).to_have_count(1)
        expect(page.locator(f'label[data-method="{method}"]')).to_have_count(1)


def test_the_page_passes_axe_after_the_script_has_filled_it(page: Page, axe_check):
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto("/dot?format=float16&a=1 0x1p-11 0x1p-11&b=1 1 1&bits=v100&step=2")
    page.fill("#dot-promote", "32")
    page.select_option("#dot-bits", "kahan")
    expect(page.locator('[data-slot="sum-method"]')).to_be_visible()
    axe_check(page)


@pytest.mark.allowed_console_errors(r"422")  # the page is first served refused
def test_a_method_asked_for_that_the_format_does_not_take_can_be_unchecked(page: Page):
    page.goto("/dot?format=bfloat16&a=1&b=1&method=v100&method=fp32")
    expect(page.locator("[data-error]")).to_contain_text("'v100' does not take bfloat16")
    page.locator('label[data-method="v100"] input').uncheck()
    expect(page.locator("[data-error]")).to_be_hidden()
    expect(page.locator('tr[data-method="fp32"]')).to_be_visible()
    assert "method=v100" not in page.url


def test_in_a_frame_the_lab_is_instant_and_its_address_stays_framed(page: Page, browser_log: BrowserLog):
    page.goto("/embed/dot?format=float16&a=1,2&b=3,4")
    sent = len(browser_log.requests)
    page.fill("#dot-b", "3,5")
    expect(page.locator("[data-exact]")).to_have_text("13")
    assert "/embed/dot?" in page.url and "b=3%2C5" in page.url
    assert browser_log.requests[sent:] == []
