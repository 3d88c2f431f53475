"""/compare updates in the browser as you type (static/js/compare.js), with no request, and shows what the server
would: the script fills the server's own markup (templates/compare.html), so what is compared here is what a reader
gets, not markup: the visible text of every row, the input line and the refusal, every bit, link and title, each
bar's kind, width and words and the axis, equal the server's page for the URL the script moved to, read the same
way, for random values of every kind × every rounding mode × both overflow policies, in every language. A shared
URL restores the view, JavaScript off still works, and the chart's bars follow the errors the Python core works
out."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from fractions import Fraction
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect

from app.formats import (
    BLOCK_FORMAT_IDS,
    FORMATS,
    OVERFLOW_POLICIES,
    ROUNDINGS,
    SCALAR_FORMATS,
    InputError,
    encode,
    parse_number,
    quantize_blocks,
)
from tests.browser.conftest import BrowserLog
from tests.helpers.page_snapshot import snapshot

FIXED_SEED = 20250611
CASES = 40  # random inputs, each in a random rounding mode and overflow policy, besides every mode × policy

# What a view is made of, read the same way from the live page and from the server's HTML: the visible text of
# each row (hidden parts skipped), every bit, link and title, each bar's kind, width and words, and the axis.
SNAPSHOT = snapshot("root", """
  const rows = [...root.querySelectorAll("tr[data-format], tr[data-block-format]")].map((row) => ({
    id: row.dataset.format || "block " + row.dataset.blockFormat,
    text: text(row),
    fate: row.dataset.fate || null,
    bits: [...row.querySelectorAll(".bit")].filter(visible).map((b) => b.dataset.value + b.textContent).join(""),
    flags: [...row.querySelectorAll("[data-flag]")].filter(visible).map((f) => f.dataset.flag),
    href: row.querySelector("th a").getAttribute("href"),
    titles: [...row.querySelectorAll("[title]")].map((el) => el.title),
  }));
  const error = root.querySelector("[data-error]");
  const result = root.querySelector("[data-compare-result]");
  return {
    error: error && !error.hidden ? [text(error), error.getAttribute("role"), error.getAttribute("lang")] : null,
    shown: !result.hidden,
    input: result.hidden ? null : text(root.querySelector("[data-input-line]")),
    rows: result.hidden ? [] : rows,
    bars: result.hidden ? [] : [...root.querySelectorAll("li[data-bar]")].map((li) => [li.dataset.group,
      li.dataset.bar, li.dataset.kind, parseFloat(li.querySelector(".bar").getAttribute("width")), text(li)]),
    grid: result.hidden ? [] : [...root.querySelectorAll("[data-grid] line")].map((line) =>
      ["x1", "x2", "y1", "y2"].map((name) => parseFloat(line.getAttribute(name))).join(" ")),
    axis: result.hidden ? [] : [...root.querySelectorAll("[data-axis] text")].map((t) =>
      [parseFloat(t.getAttribute("x")), t.getAttribute("text-anchor"), t.textContent]),
  };
""")

# For each case: set the form as a person would, let the script update the page, read it; then fetch the
# server's page for the URL the script left and read that. Only the cases that differ come back.
AGREE = """
async ([cases, snapshot]) => {
  const read = eval(snapshot);
  const form = document.querySelector("[data-compare-form]");
  const differences = [];
  for (const [value, rounding, overflow, seed] of cases) {
    form.elements.rounding.value = rounding;
    form.elements.overflow.value = overflow;
    form.elements.seed.value = seed;
    const box = form.elements.value;
    box.value = value;
    box.dispatchEvent(new Event("input", { bubbles: true }));
    const url = location.pathname + location.search;
    const mine = JSON.stringify(read(document.querySelector("[data-compare]")));
    const html = await (await fetch(url)).text();
    const served = new DOMParser().parseFromString(html, "text/html");
    const theirs = JSON.stringify(read(served.querySelector("[data-compare]")));
    if (mine !== theirs) differences.push({ case: [value, rounding, overflow, seed], url, mine, theirs });
  }
  return differences;
}
"""

DIGITS = "0123456789"


def _decimal(rng: random.Random) -> str:
    digits = "".join(rng.choice(DIGITS) for _ in range(rng.randint(1, 25))).lstrip("0") or "0"
    point = rng.randint(0, len(digits))
    mantissa = digits[:point] + ("." + digits[point:] if point < len(digits) else "")
    exponent = rng.choice([0, 0, rng.randint(-50, 50), rng.randint(-330, 330), rng.randint(-5000, 5000)])
    return rng.choice(["", "-"]) + (mantissa or "0") + (f"e{exponent}" if exponent else "")


def _value(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.55:
        return _decimal(rng)
    if kind < 0.65:  # a value a format holds, or a tie between two neighbours of FP8/FP16
        spec = rng.choice([FORMATS["float8_e4m3fn"], FORMATS["float16"], FORMATS["bfloat16"], FORMATS["float4_e2m1fn"]])
        half = Fraction(rng.randint(1, 2**spec.bits - 1), 2) * Fraction(2) ** rng.randint(-12, 4)
        return f"{half.numerator}/{half.denominator}"
    if kind < 0.75:
        mantissa = "".join(rng.choice("0123456789abcdef") for _ in range(rng.randint(1, 10)))
        return f"{rng.choice(['', '-'])}0x1.{mantissa}p{rng.randint(-160, 160)}"
    if kind < 0.85:
        return f"{rng.randint(-10**6, 10**6)}/{rng.randint(1, 10**4)}"
    return rng.choice(["inf", "-inf", "nan", "-0", "0", "1e39", "-3.5e38", "1e-46", "65504", "65520", "448", "464",
                       "zebra", "", "0x3c00", "1/0", "1e999999", "٣", " 0.5 ", "−2.5"])


def _seed(rng: random.Random, rounding: str) -> str:
    if rounding != "stochastic":
        return rng.choice(["", "", "", "7"])
    return rng.choice(["", str(rng.randint(0, 2**63 - 1)), "0", "x1"])


@pytest.mark.slow  # 52 cases, each with a fetch of the server's page: about 8 s
@pytest.mark.allowed_console_errors(r"422")  # the server's answer to the cases it refuses, fetched to compare
def test_the_page_the_script_writes_is_the_page_the_server_renders(page: Page, browser_log: BrowserLog):
    rng = random.Random(FIXED_SEED)
    cases = []
    for _ in range(CASES):
        rounding, overflow = rng.choice(ROUNDINGS), rng.choice(OVERFLOW_POLICIES)
        cases.append([_value(rng), rounding, overflow, _seed(rng, rounding)])
    cases += [["0.1", mode, policy, "12345"] for mode in ROUNDINGS for policy in OVERFLOW_POLICIES]
    page.goto("/compare?value=0.1")
    sent = len(browser_log.requests)
    differences = page.evaluate(AGREE, [cases, SNAPSHOT])
    assert not differences, f"{len(differences)} of {len(cases)} cases differ; the first: {differences[0]}"
    # the only requests were the test's own fetches of the server's pages, one a case
    assert len(browser_log.requests[sent:]) == len(cases)
    assert all("/compare?" in url for url in browser_log.requests[sent:])


# Typed as a person of each language might: decimal commas (read on a Turkish or Greek page, refused on a Yoruba one,
# as the server does), a comma number the rule leaves alone, and the values whose rows say the most (notes of the
# codec naming its libraries, overflow, underflow, NaN and inf flags, blocks refused beyond FP32, every word of the
# chart, a refused seed).
IN_LANGUAGES = [
    ["0,1", "nearest_even", "format_default", ""], ["-2,5", "toward_zero", "saturate", ""],
    [",5", "nearest_away", "format_default", ""], ["1,5e-3", "toward_negative", "format_default", ""],
    ["-464,25", "nearest_even", "format_default", ""], ["0,3952", "stochastic", "format_default", "12345"],
    ["1.234,5", "nearest_even", "format_default", ""], ["1,2,3", "nearest_even", "format_default", ""],
    ["464", "nearest_even", "format_default", ""], ["70000", "toward_positive", "saturate", ""],
    ["1e39", "nearest_even", "format_default", ""], ["1e-46", "nearest_even", "format_default", ""],
    ["nan", "nearest_even", "saturate", ""], ["-inf", "nearest_even", "format_default", ""],
    ["-inf", "nearest_even", "saturate", ""], ["0", "stochastic", "saturate", "7"],
    ["1/3", "stochastic", "format_default", "x1"],
    ["zebra", "nearest_even", "format_default", ""], ["", "nearest_even", "format_default", ""],
]
LANGUAGE_CASES = 12  # random inputs besides, per language


@pytest.mark.slow  # 31 cases, each with a fetch of the server's page: about 5 s a language
@pytest.mark.allowed_console_errors(r"422")  # the server's answer to the cases it refuses, fetched to compare
@pytest.mark.parametrize("code", ["tr", "el", "yo"])
def test_in_every_language_the_page_the_script_writes_is_the_servers(page: Page, browser_log: BrowserLog, code: str):
    """The rows, notes, flags, chart and refusals the script shows are in the page's language (the words of the
    server's markup, and the codec's refusals and notes from the page's data) and it reads a decimal comma where the
    language writes one: every case agrees with the server's page in that language, word for word; and typing asks
    the server for nothing."""
    rng = random.Random(f"{FIXED_SEED}-{code}")
    cases = [*IN_LANGUAGES]
    for _ in range(LANGUAGE_CASES):
        rounding, overflow = rng.choice(ROUNDINGS), rng.choice(OVERFLOW_POLICIES)
        cases.append([_value(rng), rounding, overflow, _seed(rng, rounding)])
    page.goto(f"/{code}/compare?value=0.1")
    assert page.locator("html").get_attribute("lang") == code
    differences = page.evaluate(AGREE, [cases, SNAPSHOT])
    assert not differences, f"{len(differences)} of {len(cases)} cases differ; the first: {differences[0]}"
    # what it said was the language's, not English; a decimal comma was read where the language has one; no request
    sent = len(browser_log.requests)
    box = page.locator("#value")
    box.fill("zebra")
    error = page.locator("[data-error]").text_content() or ""
    assert "zebra" in error and error != _sentence("zebra")
    box.fill("0,5")
    if code in ("tr", "el"):
        expect(page.locator('tr[data-format="float4_e2m1fn"] [data-stored]')).to_have_text("0.5")
    else:  # a comma is no decimal point in Yoruba: the sentence refuses it, as the server's does
        expect(page.locator("[data-error]")).to_contain_text("0,5")
    box.fill("1e39")
    note = page.locator('tr[data-block-format="mxfp4"] [data-notes]').text_content() or ""
    assert "3.402823e+38" in note and not note.startswith("Beyond FP32")
    assert browser_log.requests[sent:] == []
    expect(page).to_have_url(re.compile(rf"/{code}/compare\?value=1e39(&|$)"))


def _view(page: Page) -> dict:
    return page.evaluate(f"({SNAPSHOT})(document.querySelector('[data-compare]'))")


def test_typing_updates_every_row_with_no_request(page: Page, browser_log: BrowserLog):
    page.goto("/compare?value=0.1")
    before = _view(page)
    sent = len(browser_log.requests)
    box = page.locator("#value")
    box.fill("")
    box.press_sequentially("7e4", delay=5)
    page.locator("#rounding").select_option("toward_zero")
    page.locator("#overflow").select_option("saturate")
    box.press("Enter")
    assert browser_log.requests[sent:] == []
    expect(page).to_have_url("/compare?value=7e4&rounding=toward_zero&overflow=saturate")
    after = _view(page)
    changed = [a["id"] for a, b in zip(after["rows"], before["rows"], strict=True) if a["text"] != b["text"]]
    assert changed == [row["id"] for row in after["rows"]]  # 0.1 and 7e4 differ in every format
    expect(page.locator('tr[data-format="float16"] [data-stored]')).to_have_text("65504")
    expect(page.locator('tr[data-format="float16"] [data-flag="overflow"]')).to_be_visible()


def test_an_invalid_value_says_the_servers_sentence_and_a_valid_one_brings_the_rows_back(page: Page):
    page.goto("/compare?value=0.1")
    page.locator("#value").fill("zebra")
    expect(page.locator("[data-error]")).to_have_text(_sentence("zebra"))
    expect(page.locator("[data-error]")).to_have_attribute("role", "alert")
    expect(page.locator("[data-compare-result]")).to_be_hidden()
    page.locator("#value").fill("1.5")
    expect(page.locator("[data-error]")).to_be_hidden()
    expect(page.locator("[data-compare-result]")).to_be_visible()
    expect(page.locator('tr[data-format="float4_e2m1fn"] [data-stored]')).to_have_text("1.5")


def _sentence(text: str) -> str:
    """The sentence the Python core refuses the text with."""
    try:
        parse_number(text)
    except InputError as error:
        return str(error)
    raise AssertionError(f"{text!r} is a value")


@pytest.mark.allowed_console_errors(r"422")
def test_a_page_served_with_an_error_comes_back_to_life_as_you_type(page: Page):
    page.goto("/compare?value=zebra")
    page.locator("#value").fill("3")
    expect(page.locator("[data-error]")).to_be_hidden()
    expect(page.locator("[data-compare-result]")).to_be_visible()
    expect(page.locator('tr[data-format="int8"] [data-stored]')).to_have_text("3")


def test_stochastic_rounding_draws_a_seed_shows_it_and_a_shared_url_restores_it(page: Page, browser: Browser,
                                                                              server_url: str):
    page.goto("/compare?value=0.1")
    page.locator("#rounding").select_option("stochastic")
    seed = page.locator("#seed").input_value()
    assert seed.isdigit()
    query = parse_qs(urlsplit(page.url).query)
    assert query["seed"] == [seed] and query["rounding"] == ["stochastic"]
    shown = _view(page)
    other = browser.new_context(base_url=server_url).new_page()
    other.goto(page.url)
    assert other.locator("#seed").input_value() == seed
    assert other.locator("#rounding").input_value() == "stochastic"
    assert _view(other) == shown
    other.context.close()


def test_javascript_off_still_compares(browser: Browser, server_url: str):
    context = browser.new_context(base_url=server_url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/compare?value=0.1")
    page.locator("#value").fill("70000")
    page.locator("#overflow").select_option("saturate")
    page.get_by_role("button", name="Compare").click()
    expect(page).to_have_url("/compare?value=70000&rounding=nearest_even&overflow=saturate&seed=")
    expect(page.locator('tr[data-format="float16"] [data-stored]')).to_have_text("65504")
    assert page.locator("li[data-bar]").count() == len(SCALAR_FORMATS) + len(BLOCK_FORMAT_IDS)
    context.close()


def _magnitudes(value: str) -> dict[tuple[str, str], float | None]:
    """|relative error| of every format as the Python core works it out; 0 for exact, None for none."""
    x = parse_number(value)
    out: dict[tuple[str, str], float | None] = {}
    for spec in SCALAR_FORMATS:
        result = encode(spec, x)
        out["scalar", spec.id] = 0.0 if result.error.is_zero else (
            None if result.rel_error is None else abs(result.rel_error))
    fp32 = encode(FORMATS["float32"], x).encoding.value
    for format_id in BLOCK_FORMAT_IDS:
        stored = Fraction(float(quantize_blocks([fp32.to_float()], format_id).dequantized[0]))
        out["block", format_id] = abs(float((stored - x.fraction) / x.fraction))
    return out


@pytest.mark.parametrize("value", ["0.1", "70000"])
def test_the_chart_has_a_bar_for_every_format_in_the_order_of_the_errors(page: Page, value: str):
    page.goto("/compare?value=0.5")
    page.locator("#value").fill(value)  # the script's chart, which equals the server's (tested above)
    bars = page.locator("li[data-bar]").evaluate_all(
        "items => items.map(li => [li.dataset.group, li.dataset.bar, li.dataset.kind, "
        "parseFloat(li.querySelector('.bar').getAttribute('width'))])")
    expected = _magnitudes(value)
    assert [(group, format_id) for group, format_id, _, _ in bars] == list(expected)
    placed = [(expected[group, format_id], width) for group, format_id, kind, width in bars if kind == "bar"]
    assert all(expected[group, format_id] == 0 for group, format_id, kind, _ in bars if kind == "exact")
    assert len(placed) >= 10
    for error_a, width_a in placed:
        for error_b, width_b in placed:
            assert error_a is not None and error_b is not None
            if error_a < error_b:
                assert width_a <= width_b, (error_a, width_a, error_b, width_b)
    assert max(w for _, w in placed) > 5 * min(w for _, w in placed)  # a log scale spreads them out


@pytest.mark.slow  # an axe scan: about 6 s
@pytest.mark.parametrize(("width", "value"), [(375, "70000"), (1280, "1e39")])
def test_axe_finds_no_serious_violations(page: Page, axe_check: Callable[[Page], None], width: int, value: str):
    """On the page as the script leaves it (the server's page is checked in test_compare_formats.py); 1e39 is
    beyond FP32, so the block rows say why they have no block."""
    page.set_viewport_size({"width": width, "height": 812})
    page.goto("/compare?value=0.1")
    page.locator("#value").fill(value)
    axe_check(page)


@pytest.mark.parametrize("value", ["70000", "1e39", "-1.2345678901234567890123e-300"])
def test_nothing_scrolls_sideways_at_375_px(page: Page, value: str):
    page.set_viewport_size({"width": 375, "height": 812})
    page.goto(f"/compare?value={value}")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.locator("#value").fill("1/3")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    # a card per format: bits, stored value and error all on screen, none in a hidden column
    card = page.locator('tr[data-format="float32"]')
    for part in (".bits", "[data-stored]", "[data-error-cell]"):
        box = card.locator(part).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375, part
