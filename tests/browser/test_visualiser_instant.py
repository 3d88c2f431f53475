"""The visualiser answers in the browser (static/js/visualiser*.js): flips, keystrokes and choices fill the server's
markup of the view with no request, a format pill fetches that format's fragment once, the URL follows, and what
the page shows is what the server renders for that URL.

The agreement test walks every scalar format (and a custom layout, and the framed page) through random values, bit
patterns, flips, neighbours, a rounding mode, an overflow policy, stochastic rounding with a seed and refused
inputs, all driven inside the page; then it renders each URL the page moved to on the server and compares the two
sections as a person meets them: the visible text, and the visible elements with their attributes (hooks, links,
labels, titles), the marker positions within a hundredth of the line and the percentage within one. A refused input
keeps the last view and shows the server's sentence for it.
"""

from __future__ import annotations

import random
import re
import urllib.request
from collections.abc import Callable
from fractions import Fraction
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import Browser, Page, Request, expect

from app.formats import OVERFLOW_POLICIES, ROUNDINGS, SCALAR_FORMATS, FormatSpec, decode, get_format, next_up
from app.formats.exact import Real

STORED = "[data-stored]"
SEED = 20250611  # the documented seed of the random states
STATES_PER_FORMAT = 6
# one format of each kind, for the walks in the other languages: their words are the same in every format
KINDS = ("float16", "float8_e4m3fnuz", "float8_e8m0fnu", "int4", "uint8", "nf4")

# In the page: what a section shows. Its text as read (whitespace runs one space, a line break around every block
# element), its elements with their attributes (tabindex aside: the script moves it), both leaving out what is hidden
# (a variant the value does not call for, and all inside it); the positions on the number line apart, as numbers
# with how far they may differ (a hundredth of a percent of the line's width... or one for the percentage), and
# whether the picture's accessible name is the sentence shown under it. A server's page is read the same way.
HELPERS = """() => {
  const BLOCKS = new Set(["address", "div", "p", "dl", "dt", "dd", "ul", "ol", "li", "h1", "h2", "h3", "figure",
    "figcaption", "form", "fieldset", "legend", "section", "nav", "svg", "text", "table", "tr", "td", "th", "br"]);
  const PLACES = new Set(["x", "cx", "x1", "x2", "text-anchor"]);
  // a refusal's sentence aside too: it is compared with the server's for the refused query
  const away = (el) => ["script", "template"].includes(el.localName) || el.hasAttribute("hidden")
    || el.hasAttribute("data-error");
  window.snap = (root) => {
    let text = "";
    const elements = [], positions = [];
    const walk = (node) => {
      if (node.nodeType === 3) text += node.data.replace(/\\s+/g, " ");
      if (node.nodeType !== 1 || away(node)) return;
      const block = BLOCKS.has(node.localName);
      if (block) text += "\\n";
      if (node.dataset.slot === "share") {
        text += "#";
        positions.push([Number(node.textContent), 1]);
      } else for (const child of node.childNodes) walk(child);
      if (block) text += "\\n";
      if (node === root) return;
      const attrs = [...node.attributes].filter((a) => a.name !== "tabindex" && !PLACES.has(a.name)
        && !(node.matches("svg.nl") && a.name === "aria-label")).map((a) => `${a.name}=${a.value}`);
      elements.push(`${node.localName} ${attrs.sort().join(" ")}`);
      for (const name of ["cx", "x", "x1"]) {
        if (node.hasAttribute(name)) positions.push([parseFloat(node.getAttribute(name)), 0.05]);
      }
    };
    walk(root);
    const svg = root.querySelector("svg.nl"), description = root.querySelector('[data-slot="description"]');
    const said = description && ([...description.children].find((c) => c.matches("[data-if]") && !away(c))
      ?? description).textContent.trim();
    text = text.replace(/ *\\n[\\n ]*/g, "\\n").replace(/ +/g, " ").trim();
    return { text, elements, positions, named: !svg || svg.getAttribute("aria-label") === said };
  };
}"""

# In the page: each action as a person's (a keystroke's input event, a select's change, a click on a link or a
# bit), then what the page shows (kept in the page: window.walk) and where its URL went. A pill waits for its view.
RUN = """async ([actions, selector]) => {
  const root = () => document.querySelector(selector);
  window.walk = window.walk || [];
  const out = [];
  for (const [kind, a, b] of actions) {
    const form = root().querySelector("form");
    if (kind === "type" || kind === "seed") {
      const box = form.querySelector(kind === "type" ? "[name=value]" : "[name=seed]");
      box.value = a;
      box.dispatchEvent(new Event("input", { bubbles: true }));
    } else if (kind === "select") {
      const select = form.querySelector(`[name=${a}]`);
      select.value = b;
      select.dispatchEvent(new Event("change", { bubbles: true }));
    } else if (kind === "flip") {
      const cells = root().querySelectorAll("[data-bit-grid] [data-bit]");
      cells[a % cells.length].click();
    } else if (kind === "step") {
      root().querySelector(`[data-step="${a}"]:not([hidden])`)?.click();
    } else if (kind === "pill") {
      root().querySelector(`[data-switcher] a[data-format="${a}"]`).click();
      const data = () => JSON.parse(root().querySelector("script[data-visualiser-data]").textContent);
      for (let waited = 0; data().format !== a && waited < 10000; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    const error = root().querySelector("[data-error]:not([hidden])");
    const field = (name) => form.querySelector(`[name=${name}]`).value;
    const state = {
      action: [kind, a ?? null, b ?? null], url: location.pathname + location.search, format: root().dataset.format,
      error: error ? error.textContent : null, value: field("value"), rounding: field("rounding"),
      overflow: field("overflow"), seed: field("seed"),
      announce: document.querySelector("[data-announce]")?.textContent ?? null,
    };
    window.walk.push([state, window.snap(root())]);
    out.push(state);
  }
  return out;
}"""

# In the page, once the walk is over: every state's section against the server's page for its URL (fetched then),
# and a refused state's sentence against the server's for what its form holds. The differences come back.
COMPARE = """async (selector) => {
  const pages = new Map();
  const server = (url) => {
    if (!pages.has(url)) pages.set(url, fetch(url).then((r) => r.text()).then((html) => {
      const doc = new DOMParser().parseFromString(html, "text/html");
      const error = doc.querySelector(`${selector} [data-error]:not([hidden])`);
      return { ...window.snap(doc.querySelector(selector)), error: error && error.textContent,
        announce: doc.querySelector("[data-announce]")?.textContent ?? null };
    }));
    return pages.get(url);
  };
  const refusedUrl = (state) => {
    const [path, query = ""] = state.url.split("?");
    const params = new URLSearchParams(query);
    for (const name of ["value", "bits", "rounding", "overflow", "seed"]) params.delete(name);
    for (const name of ["value", "rounding", "overflow", "seed"]) params.append(name, state[name]);
    return `${path}?${params}`;
  };
  const typedOf = (url) => {
    const params = new URLSearchParams(url.split("?")[1] || "");
    return params.get("bits") ?? params.get("value") ?? "0.1";
  };
  const differences = [];
  const walk = window.walk;
  for (let i = 0; i < walk.length; i += 8) {
    await Promise.all(walk.slice(i, i + 8).map(async ([state, mine]) => {
      const where = `after ${JSON.stringify(state.action)} at ${state.url}`;
      const theirs = await server(state.url);
      const differ = (what, a, b) => differences.push({ where, what, mine: a, theirs: b });
      if (theirs.error !== null) differ("the URL is refused", null, theirs.error);
      if (mine.text !== theirs.text) differ("text", mine.text, theirs.text);
      const at = mine.elements.findIndex((e, k) => e !== theirs.elements[k]);
      if (at >= 0 || mine.elements.length !== theirs.elements.length) {
        differ("elements", mine.elements.slice(at, at + 3), theirs.elements.slice(at, at + 3));
      }
      const far = mine.positions.some(([x, within], k) => !(Math.abs(x - theirs.positions[k]?.[0]) <= within));
      if (far || mine.positions.length !== theirs.positions.length) {
        differ("positions", mine.positions, theirs.positions);
      }
      if (!mine.named || !theirs.named) differ("the picture's name is not its sentence", mine.named, theirs.named);
      if (state.error === null) {
        if (state.announce !== theirs.announce) differ("announcement", state.announce, theirs.announce);
        if (state.value !== typedOf(state.url)) differ("value box", state.value, typedOf(state.url));
      } else {
        const refused = await server(refusedUrl(state));
        if (state.error !== refused.error) differ("sentence", state.error, refused.error);
        if (state.announce !== state.error) differ("announcement", state.announce, state.error);
      }
    }));
  }
  window.walk = [];
  return { differences: differences.slice(0, 5), count: differences.length, states: walk.length };
}"""


def watch_requests(page: Page) -> list[str]:
    """The requests the page sends from now on."""
    sent: list[str] = []

    def record(request: Request) -> None:
        sent.append(request.url)

    page.on("request", record)
    return sent


def open_visualiser(page: Page, url: str) -> list[str]:
    page.goto(url)
    page.wait_for_load_state("networkidle")
    page.evaluate(HELPERS)
    return watch_requests(page)


def fetch(server_url: str, path: str) -> str:
    """The server's page for a path, as a fresh visit gets it."""
    with urllib.request.urlopen(server_url + path, timeout=30) as response:
        return str(response.read().decode())


# -- the random states -----------------------------------------------------------------------------------------


def _decimal(x: Fraction) -> str:
    return Real.of(x).exact_string()


def _inputs(spec: FormatSpec, rng: random.Random) -> list[str]:
    """Values of every kind over the format's range: decimals, ties between neighbours, hex floats, fractions,
    raw bits, specials and values beyond each end."""
    top = spec.max
    enc = decode(spec, rng.randrange(1 << spec.bits))
    up = next_up(enc)
    out = [
        f"{rng.choice('+-')}{rng.randrange(1, 10**rng.randint(1, 12))}e{rng.randint(-12, 12)}",
        f"{rng.randint(-99, 99)}/{rng.randint(1, 999)}",
        f"0x{rng.randrange(1, 4096):x}.{rng.randrange(16):x}p{rng.randint(-30, 30)}",
        f"0x{rng.randrange(1 << spec.bits):0{(spec.bits + 3) // 4}x}",
        rng.choice(["inf", "-inf", "nan", "-0", "0"]),
        _decimal(top * 3 / 2) if rng.random() < 0.5 else "-" + _decimal(top * 5 / 4),
    ]
    if up is not None and enc.value.kind == "finite" and up.value.kind == "finite":
        out.append(_decimal((enc.value.fraction + up.value.fraction) / 2))  # an exact tie
    return out


REFUSED = ["zebra", "1e", "1/0", "0x1.8", "", "1" * 1200]


def actions_for(spec: FormatSpec, rng: random.Random, count: int) -> list[list[Any]]:
    """A person's session in one format: values typed, choices made, bits flipped, neighbours, a refusal."""
    values = _inputs(spec, rng)
    moves: list[list[Any]] = [["type", v] for v in values]
    moves += [["flip", rng.randrange(spec.bits)] for _ in range(2)]
    moves += [["step", rng.choice(["next-up", "next-down"])], ["type", rng.choice(REFUSED)]]
    moves += [["select", "rounding", rng.choice(ROUNDINGS[:-1])], ["select", "overflow", rng.choice(OVERFLOW_POLICIES)]]
    rng.shuffle(moves)
    moves = moves[:count]
    # stochastic rounding with its seed, a value that needs rounding, then the format's default choices again
    moves += [["seed", str(rng.randrange(2**63))], ["select", "rounding", "stochastic"], ["type", values[0]],
              ["select", "rounding", "nearest_even"], ["select", "overflow", "format_default"], ["seed", ""]]
    return moves


# -- comparing -------------------------------------------------------------------------------------------------


def compare(page: Page, sent: list[str], pills: int, selector: str = "#visualiser") -> int:
    """The walk sent one request per format it switched to (that format's fragment) and no other; then every state
    agrees with the server. How many states."""
    assert len(sent) == pills and all("/visualise/" in url for url in sent), sent
    result = page.evaluate(COMPARE, selector)
    assert result["count"] == 0, f"{result['count']} differences from the server, the first: {result['differences']}"
    return int(result["states"])


def walk_formats(page: Page, rng: random.Random, ids: list[str], count: int, prefix: str = "") -> list[dict[str, Any]]:
    """Switch to each format by its pill and walk through `count` random actions, stochastic rounding and a refused
    input there."""
    states: list[dict[str, Any]] = []
    for format_id in ids:
        moves = [["pill", format_id], *actions_for(get_format(format_id), rng, count), ["type", rng.choice(REFUSED)]]
        states += page.evaluate(RUN, [moves, "#visualiser"])
    assert {s["format"] for s in states} == set(ids)
    assert all(s["url"].startswith(f"{prefix}/visualise/") for s in states)
    return states


# the comparison fetches the server's page of each refused input, a 422 that the browser logs
@pytest.mark.slow  # 15 s: every scalar format walked, then each state's page rendered by the server
@pytest.mark.allowed_console_errors(r"status of 422")
def test_the_view_the_script_fills_is_the_servers_for_every_format(page: Page):
    rng = random.Random(SEED)
    sent = open_visualiser(page, "/visualise/float32?value=0.1")
    ids = [spec.id for spec in SCALAR_FORMATS]
    states = walk_formats(page, rng, ids, STATES_PER_FORMAT)
    assert sum(s["error"] is not None for s in states) >= len(ids)  # refusals were met
    assert compare(page, sent, len(ids)) >= len(ids) * STATES_PER_FORMAT


# the comparison fetches the server's page of each refused input, a 422 that the browser logs
@pytest.mark.slow  # 3 to 4.5 s a language: six formats walked and compared
@pytest.mark.allowed_console_errors(r"status of 422")
@pytest.mark.parametrize("code", ["tr", "el", "yo"])
def test_in_every_language_the_view_the_script_fills_is_the_servers(page: Page, code: str):
    """The script says every word in the page's language (the server's markup, and the words in its data), the
    codec's refusals and notes too, and reads a decimal comma where the language writes one."""
    rng = random.Random(f"{SEED}-{code}")
    sent = open_visualiser(page, f"/{code}/visualise/float32?value=0.1")
    assert page.locator("html").get_attribute("lang") == code
    states = walk_formats(page, rng, list(KINDS), STATES_PER_FORMAT // 2, prefix=f"/{code}")
    moves = [["type", rng.choice(REFUSED)], ["type", "1e-9"], ["select", "overflow", "saturate"], ["type", "1e9"]]
    if code in ("tr", "el"):
        moves.append(["type", f"-{rng.randrange(1, 999)},{rng.randrange(1000):03d}"])
    states += page.evaluate(RUN, [moves, "#visualiser"])
    assert sum(s["error"] is not None for s in states) >= len(KINDS)
    compare(page, sent, len(KINDS))
    # and what it said was the language's, not English: a refusal of the codec's
    sent = watch_requests(page)
    page.locator("#value").fill("zebra")
    error = page.locator("#visualiser [data-error]").text_content() or ""
    assert "zebra" in error and not error.startswith("Could not read")
    assert sent == []


# the comparison fetches the server's page of each refused input, a 422 that the browser logs
@pytest.mark.allowed_console_errors(r"status of 422")
def test_a_custom_layout_and_the_framed_page_agree_with_the_server_too(page: Page):
    rng = random.Random(SEED + 1)
    custom = "/visualise/custom?exponent_bits=4&mantissa_bits=3&bias=11&nan_style=fnuz&value=0.1"
    sent = open_visualiser(page, custom)
    states = page.evaluate(RUN, [actions_for(decode_spec(page), rng, 8), "#visualiser"])
    states += page.evaluate(RUN, [[["pill", "float8_e4m3fnuz"], ["type", "0.3"], ["flip", 2]], "#visualiser"])
    assert states[-1]["url"].startswith("/visualise/float8_e4m3fnuz?bits=")
    assert page.locator("#visualiser [data-layout]").count() == 0  # the custom layout's fields went with it
    compare(page, sent, 1)

    sent = open_visualiser(page, "/embed/visualise/bfloat16?value=0.1")
    moves = [*actions_for(get_format("bfloat16"), rng, 6), ["pill", "float32"], ["flip", 31]]
    states = page.evaluate(RUN, [moves, "#visualiser"])
    assert all(s["url"].startswith("/embed/visualise/") for s in states)
    compare(page, sent, 1)


def decode_spec(page: Page) -> FormatSpec:
    """The custom layout the page shows, as the registry would make it."""
    from app.web.visualise.inputs import custom_layout

    query = dict(parse_qsl(urlsplit(page.url).query))
    return custom_layout(query["exponent_bits"], query["mantissa_bits"], query.get("bias"), query.get("nan_style"))


# -- a person's hands ------------------------------------------------------------------------------------------


def cell(page: Page, index: int):
    return page.locator(f'[data-bit-grid] [data-bit="{index}"]')


def test_click_space_enter_typing_and_choices_update_without_a_request_and_a_pill_with_one(page: Page):
    sent = open_visualiser(page, "/visualise/float16?bits=0x3c00")
    cell(page, 15).click()
    expect(page.locator(STORED)).to_have_text("-1")
    expect(page).to_have_url(re.compile(r"/visualise/float16\?bits=0xbc00$"))
    expect(cell(page, 15)).to_be_focused()
    page.keyboard.press("Space")
    expect(page.locator(STORED)).to_have_text("1")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    expect(page.locator(STORED)).to_have_text("inf")  # bit 14 set too: every exponent bit one
    expect(cell(page, 14)).to_be_focused()
    expect(page).to_have_url(re.compile(r"bits=0x7c00$"))
    box = page.locator("#value")
    box.fill("")
    box.press_sequentially("0.3")
    expect(page.locator(STORED)).to_have_text("0.300048828125")
    expect(page).to_have_url(re.compile(r"/visualise/float16\?value=0\.3$"))
    box.press_sequentially("e")
    expect(page.locator("#visualiser [data-error]")).to_contain_text("Could not read '0.3e'")  # as the server says
    expect(page.locator(STORED)).to_have_text("0.300048828125")  # the last view stands
    expect(page).to_have_url(re.compile(r"/visualise/float16\?value=0\.3$"))
    box.press("Backspace")
    box.press("Backspace")
    box.press_sequentially("1")
    expect(page.locator("#visualiser [data-error]")).to_be_hidden()
    page.locator("#rounding").select_option("toward_zero")
    expect(page.locator(STORED)).to_have_text("0.0999755859375")
    expect(page).to_have_url(re.compile(r"value=0\.1&rounding=toward_zero$"))
    page.locator("#overflow").select_option("saturate")
    assert sent == []
    page.locator('.switcher [data-format="bfloat16"]').click()  # the server's view of another format, once
    expect(page.locator("#visualiser")).to_have_attribute("data-format", "bfloat16")
    expect(page.locator(STORED)).to_have_text("0.099609375")
    expect(page).to_have_url(re.compile(r"/visualise/bfloat16\?value=0\.1&rounding=toward_zero&overflow=saturate$"))
    expect(page.locator('.switcher [data-format="bfloat16"]')).to_be_focused()
    expect(page.locator("#rounding")).to_have_value("toward_zero")
    assert [urlsplit(url).path for url in sent] == ["/visualise/bfloat16"]
    page.locator('[data-step="next-up"]').click()
    expect(page.locator(STORED)).to_have_text("0.10009765625")
    page.go_back()
    page.go_back()  # back across the format change: the server's view of float16 again, once
    expect(page.locator("#visualiser")).to_have_attribute("data-format", "float16")
    expect(page.locator(STORED)).to_have_text("0.0999755859375")
    assert len(sent) == 2


def test_dragging_paints_bits_with_a_mouse_and_a_finger(browser: Browser, server_url: str):
    context = browser.new_context(base_url=server_url, has_touch=True)
    page = context.new_page()
    try:
        sent = open_visualiser(page, "/visualise/float16?bits=0x0000")
        centres = [cell(page, i).bounding_box() for i in (9, 8, 7, 6)]
        points = [(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2) for b in centres if b]
        page.mouse.move(*points[0])
        page.mouse.down()
        for x, y in points[1:]:
            page.mouse.move(x, y, steps=4)
        page.mouse.up()
        expect(page.locator("[data-bits]")).to_have_text("0x03c0")  # bits 9 to 6 painted 1
        assert page.evaluate("getSelection().toString()") == ""
        cdp = context.new_cdp_session(page)
        # a finger from bit 9 to bit 7 paints them back to 0 (the flip of bit 9's 1)
        def touch(kind: str, *at: tuple[float, float]) -> None:
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [{"x": x, "y": y} for x, y in at]})

        touch("touchStart", points[0])
        for point in points[1:3]:
            touch("touchMove", point)
        touch("touchEnd")
        expect(page.locator("[data-bits]")).to_have_text("0x0040")
        expect(page).to_have_url(re.compile(r"bits=0x0040$"))
        assert sent == []
    finally:
        context.close()


def test_a_shared_url_restores_the_view_and_back_walks_the_flips(page: Page, browser: Browser, server_url: str):
    sent = open_visualiser(page, "/visualise/float32?value=0.1")
    page.locator("#rounding").select_option("stochastic")
    seed = page.locator("#seed").input_value()
    assert re.fullmatch(r"[0-9]{1,19}", seed) and int(seed) < 2**63  # a fresh seed, shown, in the URL
    expect(page).to_have_url(re.compile(rf"rounding=stochastic&seed={seed}$"))
    stored = page.locator(STORED).text_content()
    cell(page, 0).click()
    flipped = page.locator(STORED).text_content()
    assert sent == []
    shared = page.url
    other = browser.new_context(base_url=server_url).new_page()
    other.goto(shared)
    expect(other.locator(STORED)).to_have_text(flipped or "")
    expect(other.locator("#seed")).to_have_value(seed)
    other.context.close()
    page.go_back()
    expect(page.locator(STORED)).to_have_text(stored or "")
    expect(page.locator("#rounding")).to_have_value("stochastic")
    page.go_forward()
    expect(page.locator(STORED)).to_have_text(flipped or "")


def test_the_guide_figure_is_instant_and_leaves_the_guides_url_alone(page: Page, server_url: str):
    page.goto("/learn/number-formats")
    figure = page.locator("[data-figure='visualiser']")
    figure.scroll_into_view_if_needed()  # it loads, and its script with it, when the reader reaches it
    expect(figure.locator(STORED)).to_have_text("0.10009765625")
    # the script has taken the figure once it made the bits one tab stop (roving tabindex): until then a click is
    # still the plain link's round trip
    expect(figure.locator('[data-bit-grid] [data-bit][tabindex="-1"]').first).to_be_attached()
    page.evaluate(HELPERS)
    sent = watch_requests(page)
    figure.locator('[data-bit-grid] [data-bit="15"]').click()
    figure.locator("#value").fill("2.5")
    figure.locator('[data-bit-grid] [data-bit="0"]').click()
    expect(figure.locator("[data-bits]")).to_have_text("0x4021")
    expect(page).to_have_url(re.compile(r"/learn/number-formats$"))
    assert sent == []
    theirs = page.evaluate("""(html) => window.snap(new DOMParser().parseFromString(html, "text/html")
      .querySelector('#visualiser'))""", fetch(server_url, "/visualise/bfloat16?bits=0x4021"))
    mine = page.evaluate("() => window.snap(document.querySelector('[data-figure] #visualiser'))")
    for key in ("elements", "text", "named"):
        assert mine[key] == theirs[key], key


@pytest.mark.parametrize("url", ["/visualise/float64?value=0.1", "/visualise/nf4?value=0.3"])
def test_after_flips_axe_passes_and_nothing_scrolls_sideways_at_375_px(page: Page, axe_check: Callable[[Page], None],
                                                                      url: str):
    page.set_viewport_size({"width": 375, "height": 812})
    open_visualiser(page, url)
    cell(page, 3).click()
    page.locator("#value").fill("-1e-300")
    expect(page.locator("[data-bit-grid] [tabindex='0']")).to_have_count(1)
    assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
    axe_check(page)


def test_a_seed_the_server_drew_goes_into_the_address(page: Page):
    sent = open_visualiser(page, "/visualise/bfloat16?value=0.1&rounding=stochastic")
    seed = page.locator("#seed").input_value()
    assert re.fullmatch(r"[0-9]{1,19}", seed)
    expect(page).to_have_url(re.compile(rf"rounding=stochastic&seed={seed}$"))
    page.locator("#value").fill("0.3")
    expect(page).to_have_url(re.compile(rf"value=0\.3&rounding=stochastic&seed={seed}$"))  # the same seed kept
    assert sent == []
