"""The languages in a real browser: the switcher keeps the state that script put in the address, the script's
repetitions of the server's rules agree with it, Listen speaks each passage in its language (or says politely it
cannot), axe passes on a page of every kind in every language, and Greek does not scroll sideways on a phone."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, Page, expect

from app.web.platform.decimal_comma import typed_number
from app.web.platform.languages import LANGUAGES, SERVED, speaking, switch_links
from tests.helpers.page_modules import applied, module_url

STORED = "#visualiser [data-stored]"
PREFIXES = [language.prefix for language in LANGUAGES]

# Speech with voices the test chooses (headless Chromium has none): speak() records each utterance.
SPEECH_STUB = """
(() => {
  const voices = VOICES.map((lang) => ({ lang, name: `voice ${lang}`, voiceURI: lang, localService: true }));
  window.spoken = [];
  window.SpeechSynthesisUtterance = class {
    constructor(text) { this.text = text; this.lang = ""; this.voice = null; }
    addEventListener() {}
  };
  const synth = window.speechSynthesis;
  synth.getVoices = () => voices;
  synth.speak = (u) => window.spoken.push({ text: u.text, lang: u.lang, voice: u.voice && u.voice.lang });
  synth.cancel = () => {};
})();
"""


def test_switching_language_keeps_the_state_the_script_put_in_the_address(page: Page):
    page.goto("/visualise/float16?value=0.1")
    box = page.locator("#value")
    box.fill("")
    box.press_sequentially("0.3")
    expect(page).to_have_url(re.compile(r"/visualise/float16\?value=0\.3$"))
    page.locator("#rounding").select_option("toward_zero")
    expect(page).to_have_url(re.compile(r"value=0\.3&rounding=toward_zero$"))
    page.locator('[data-language-switch] a[hreflang="tr"]').click()
    expect(page).to_have_url(re.compile(r"/tr/visualise/float16\?value=0\.3&rounding=toward_zero$"))
    expect(page.locator("html")).to_have_attribute("lang", "tr")
    expect(page.locator("#value")).to_have_value("0.3")
    expect(page.locator("#rounding")).to_have_value("toward_zero")
    stored = page.locator(STORED).text_content()
    page.locator('[data-language-switch] a[hreflang="el"]').click()
    expect(page).to_have_url(re.compile(r"/el/visualise/float16\?value=0\.3&rounding=toward_zero$"))
    expect(page.locator(STORED)).to_have_text(stored or "")
    page.locator('[data-language-switch] a[hreflang="en"]').click()
    expect(page).to_have_url(re.compile(r"/visualise/float16\?value=0\.3&rounding=toward_zero$"))
    expect(page.locator("html")).to_have_attribute("lang", "en")


def test_the_home_page_switcher_goes_to_each_home_page_and_english_sticks(browser: Browser, server_url: str):
    context = browser.new_context(base_url=server_url, locale="tr-TR", extra_http_headers={"Accept-Language": "tr"})
    page = context.new_page()
    try:
        page.goto("/")
        expect(page).to_have_url(re.compile(r"/tr/$"))  # the first visit follows the browser's language
        expect(page.locator("html")).to_have_attribute("lang", "tr")
        page.locator('[data-language-switch] a[hreflang="en"]').click()
        expect(page.locator("html")).to_have_attribute("lang", "en")
        page.goto("/")  # the choice is remembered: no redirect back to Turkish
        expect(page.locator("html")).to_have_attribute("lang", "en")
    finally:
        context.close()


def _server_switch(path: str, query: str, code: str) -> dict[str, str]:
    with speaking(SERVED[code]):
        return {link.language.code: link.href for link in switch_links(path, query)}


def test_the_scripts_switcher_links_are_the_servers(page: Page):
    page.goto("/formats")
    cases = [(path, query, code) for path in ["/", "/visualise/float16", "/embed/compare", "/learn/quantisation"]
             for query in ["", "?value=0.1&rounding=toward_zero"] for code in SERVED]
    inputs = []
    for path, query, code in cases:
        here = SERVED[code].prefix
        inputs.append({"pathname": here + path if path != "/" else (here + "/" if here else "/"), "search": query,
                       "here": here, "targets": [[lang.code, lang.prefix] for lang in LANGUAGES]})
    module = module_url(page, "locale_links.js")
    got = page.evaluate("""async ([module, cases]) => {
      const { switchHref } = await import(module);
      return cases.map((c) => Object.fromEntries(c.targets.map(([code, to]) =>
        [code, switchHref(c.pathname, c.search, c.here, to, code)])));
    }""", [module, inputs])
    for (path, query, code), links in zip(cases, got, strict=True):
        assert links == _server_switch(path, query.lstrip("?"), code), (path, query, code)


def test_the_scripts_decimal_comma_is_the_servers(page: Page):
    page.goto("/tr/formats")
    rng = random.Random(7)
    texts = ["0,1", "-2,5", ",5", "1,", "1,5e-3", "1,5E+3", "1.234,5", "1,2,3", "0.1", "0x1,8p-3", " 0,1 ", "\u22120,1",
             ",", "", "e,1", "1,e5", "1,5e", "inf", "0,1;0,2"]
    texts += ["".join(rng.choice("0123456789,.-+e \u2212x") for _ in range(rng.randrange(1, 8))) for _ in range(300)]
    got = applied(page, "decimal_comma.js", "typedNumber", texts)
    assert got[0] == [typed_number(t, SERVED["tr"]) for t in texts]
    assert got[1] == [typed_number(t, SERVED["en"]) for t in texts] == texts
    assert page.evaluate("document.documentElement.hasAttribute('data-decimal-comma')")


def _spoken(page: Page) -> list[dict[str, str]]:
    return page.evaluate("window.spoken")


def test_listen_speaks_each_passage_in_its_language_with_a_voice_of_it(page: Page):
    page.add_init_script(SPEECH_STUB.replace("VOICES", json.dumps(["en-US", "tr-TR", "el-GR"])))
    page.goto("/tr/learn/number-formats")
    toggle = page.locator("[data-listen-toggle]")
    expect(toggle).to_have_text("Dinle")  # the controls speak the page's language
    toggle.click()
    spoken = _spoken(page)
    assert spoken and {piece["lang"] for piece in spoken} == {"tr"}  # the guide, translated, in Turkish
    assert {piece["voice"] for piece in spoken} == {"tr-TR"}
    expect(toggle).to_have_text("Duraklat")
    page.locator("[data-listen-stop]").click()
    # a passage in Greek is read in Greek, with the Greek voice
    page.evaluate("for (const el of document.querySelectorAll('main, main [lang]')) el.setAttribute('lang', 'el');"
                  "window.spoken = []")
    toggle.click()
    spoken = _spoken(page)
    assert spoken and {(piece["lang"], piece["voice"]) for piece in spoken} == {("el", "el-GR")}


def test_listen_says_politely_when_the_browser_has_no_voice_for_the_language(page: Page):
    page.add_init_script(SPEECH_STUB.replace("VOICES", json.dumps(["en-US", "de-DE"])))
    page.goto("/el/learn/number-formats")
    page.evaluate("document.querySelector('main').setAttribute('lang', 'yo')")
    page.locator("[data-listen-toggle]").click()
    status = page.locator("[data-listen-status]")
    expect(status).to_have_attribute("role", "status")  # announced politely
    expect(status).to_contain_text("Το πρόγραμμα περιήγησής σας δεν έχει φωνή για τα")  # in the page's language
    assert _spoken(page) == []  # nothing read with a voice of another language
    expect(page.locator("[data-listen-toggle]")).to_have_text("Ακρόαση")


@pytest.mark.parametrize("prefix", PREFIXES)
def test_the_home_page_passes_axe_in_every_language(page: Page, axe_check: Callable[[Page], None], prefix: str):
    page.goto(prefix + "/" if prefix else "/?lang=en")
    expect(page.locator("html")).to_have_attribute("lang", prefix[1:] or "en")
    axe_check(page)


# a page of each feature: the visualiser (a float, a codebook, a block), the comparison, the gallery, the demo, the
# accumulation figure, the quiz, a guide and the glossary
AXE_PAGES = ["/visualise/float16?value=0.1", "/visualise/nf4?bits=0x7", "/visualise/mxfp4", "/compare?value=0.1",
             "/formats", "/train", "/learn/accumulation", "/quiz", "/learn/number-formats", "/learn/glossary"]


@pytest.mark.parametrize("prefix", [p for p in PREFIXES if p])
@pytest.mark.parametrize("path", AXE_PAGES)
def test_every_kind_of_page_passes_axe_in_every_language(page: Page, axe_check: Callable[[Page], None], prefix: str,
                                                         path: str):
    page.goto(prefix + path)
    expect(page.locator("html")).to_have_attribute("lang", prefix[1:])
    axe_check(page)


@pytest.mark.parametrize("url", ["/el/", "/el/visualise/float16?value=0.1", "/el/formats", "/el/learn/quantisation",
                                 "/el/compare?value=0.3952", "/el/visualise/mxfp4", "/el/visualise/nf4", "/el/train",
                                 "/el/quiz", "/el/learn/accumulation", "/el/learn/glossary"])
def test_greek_does_not_scroll_sideways_on_a_phone(browser: Browser, server_url: str, url: str):
    context = browser.new_context(base_url=server_url, viewport={"width": 375, "height": 812})
    page = context.new_page()
    try:
        page.goto(url)
        assert page.evaluate("document.documentElement.scrollWidth") <= 375, url
    finally:
        context.close()
