"""The guides' index, the glossary, the guide frame, the format table, the API page and the error page in Turkish,
Greek and Yoruba: no interface sentence of the English page is left, the content says its language, links keep it,
and what stays English (the cores' format words, the API's own descriptions, a core refusal) says so."""

from __future__ import annotations

import re

import pytest
from babel.numbers import format_decimal

from app.web.learn.guides import GUIDES
from tests.helpers.html import HX, Elements
from tests.helpers.visible_text import VisibleText

CODES = ["tr", "el", "yo"]
PAGES = ["/learn", "/learn/glossary", "/formats", "/docs", "/learn/no-such-page"]
WORD = re.compile(r"(?<!\w)[^\W\d_]{2,}(?!\w)")  # a word of letters only: not FP16, not bfloat16
# Names that are the same in every language: the lab's, the formats', the tools' and the API's own words.
NAMES = {"Precision", "Lab", "API", "JSON", "GET", "POST", "Autocast", "amax", "bfloat16", "NormalFloat", "FNUZ",
         "ZeRO", "TF32", "NaN", "quad", "double", "single", "half", "brain", "float", "OCP", "IEEE", "style", "MX",
         "scale", "B11"}

# One sentence of each page in each language, as the catalogs draft it.
SAID = {
    ("tr", "/learn"): "Laboratuvarda bir yol: önce sayıların nasıl saklandığını",
    ("el", "/learn"): "Μια διαδρομή μέσα στο εργαστήριο",
    ("yo", "/learn"): "Ọ̀nà kan láti inú ilé-ìwádìí yìí",
    ("tr", "/learn/glossary"): "Kayıp ölçekleme (loss scaling)",
    ("el", "/learn/glossary"): "Κλιμάκωση απωλειών (loss scaling)",
    ("yo", "/learn/glossary"): "Adalu konge (mixed precision)",
    ("tr", "/formats"): "Laboratuvarın bildiği her format",
    ("el", "/formats"): "Κάθε μορφή που γνωρίζει το εργαστήριο",
    ("yo", "/formats"): "Gbogbo ọ̀nà kíkà tí ilé-ìwádìí yìí mọ̀",
    ("tr", "/docs"): "Her yanıt JSON'dır.",
    ("el", "/docs"): "Κάθε απάντηση είναι JSON.",
    ("yo", "/docs"): "Gbogbo ìdáhùn jẹ́ JSON.",
    ("tr", "/learn/no-such-page"): "adresinde bir sayfa yok",
    ("el", "/learn/no-such-page"): "Δεν υπάρχει σελίδα στο",
    ("yo", "/learn/no-such-page"): "Kò sí ojú-ewé kankan ní",
}


def sentences(runs: list[tuple[str, str | None]]) -> set[str]:
    """The runs of English interface text: at least two words that are not names."""
    return {text for text, _ in runs if len([w for w in WORD.findall(text) if w not in NAMES]) >= 2
            and not text.startswith("/")}  # a path (the API's examples) is no sentence


def shown_in(runs: list[tuple[str, str | None]], code: str) -> str:
    """The text a reader of `code` reads as that language (passages marked lang="en" left out)."""
    return " ".join(text for text, lang in runs if lang == code)


def english_left(client, path: str, code: str, inside=lambda tag, attrs: tag == "main") -> set[str]:
    """The English page's sentences still read on the page in `code`: a short one (a heading, a link, a column
    head) where a run is exactly it, a longer one anywhere in the text. A term's English name in brackets after
    its translated one, as the glossary writes it, is no leftover."""
    english = VisibleText(client.get(path).text, inside).pieces
    shown = VisibleText(client.get(f"/{code}{path}").text, inside).pieces
    runs = [(text, lang) for text, lang in shown if lang == code]
    translated, exact = shown_in(runs, code), {text for text, _ in runs}
    return {sentence for sentence in sentences(english)
            if sentence in exact or (len(WORD.findall(sentence)) > 3 and sentence in translated)}


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize("path", PAGES)
def test_no_english_interface_sentence_is_left_and_the_page_says_its_language(client, path, code):
    response = client.get(f"/{code}{path}")
    assert response.status_code == (404 if "no-such" in path else 200)
    page = Elements(response.text)
    assert [a["lang"] for tag, a in page.tags if tag == "main"] == [code]
    assert english_left(client, path, code) == set()
    assert SAID[code, path] in " ".join(response.text.split())


def site_links(page: Elements, within: int) -> list[str]:
    """The links to pages of the site inside the element at `within` (the API and its examples are not pages)."""
    links = [page.tags[i][1] for i in page.inside(within) if page.tags[i][0] == "a"]
    return [a["href"] for a in links if a.get("href", "").startswith("/") and "data-example" not in a
            and a["href"] != "/openapi.json"]


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize("path", PAGES)
def test_the_pages_links_keep_the_language(client, path, code):
    page = Elements(client.get(f"/{code}{path}").text)
    main = next(i for i, (tag, _) in enumerate(page.tags) if tag == "main")
    site = site_links(page, main)
    assert (site or path == "/docs") and all(href.startswith(f"/{code}/") for href in site), site  # /docs: anchors


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize("guide", GUIDES.values(), ids=lambda guide: guide.slug)
def test_the_guide_frame_is_translated_around_any_guide(client, guide, code):
    """The frame's header (crumbs, title, summary, reading time, words) and what to read next."""
    def frame(tag, attrs):
        return "guide-header" in attrs.get("class", "") or "guide-next" in attrs.get("class", "")

    assert english_left(client, guide.url, code, frame) == set()
    page = Elements(client.get(f"/{code}{guide.url}").text)
    frames = [i for i, (tag, a) in enumerate(page.tags) if tag in ("header", "footer") and frame(tag, a)]
    assert [page.tags[i][1]["lang"] for i in frames] == [code, code]
    links = [href for i in frames for href in site_links(page, i)]
    assert len(links) >= 4 and all(href.startswith(f"/{code}/") for href in links), links
    meta = page.text_of("data-reading-time")
    assert str(guide.minutes) in meta and "min read" not in meta
    assert format_decimal(guide.words, locale=code) in " ".join(client.get(f"/{code}{guide.url}").text.split())


def test_the_english_frame_counts_words_with_grouping_and_reads_in_minutes(client):
    guide = GUIDES["mixed-precision-training"]
    page = Elements(client.get(guide.url).text)
    assert page.texts_of("data-reading-time") == [f"{guide.minutes} min read"]
    assert f"{guide.words:,} words" in " ".join(client.get(guide.url).text.split())


def test_the_turkish_glossary_names_each_term_and_keeps_the_english_one(client):
    """As the Turkish source's own glossary does: Karışık Kesinlikli Eğitim (Mixed-Precision Training)."""
    page = Elements(client.get("/tr/learn/glossary").text)
    names = [page.texts[i] for i, (tag, attrs) in enumerate(page.tags) if tag == "a" and "term-anchor" in
             attrs.get("class", "")]
    assert "Kayıp ölçekleme (loss scaling)" in names and "Karışık kesinlik (mixed precision)" in names
    assert len(names) == len(Elements(client.get("/learn/glossary").text).having("data-term"))


MXFP8_SUMMARY = {"tr": "OCP MX: 32 E4M3 öğesi ikinin kuvveti olan tek bir ölçeği paylaşır.",
                 "el": "OCP MX: 32 στοιχεία E4M3 μοιράζονται μία κλίμακα που είναι δύναμη του δύο.",
                 "yo": "OCP MX: èròjà E4M3 32 ń pín ìwọ̀n agbára méjì kan."}


@pytest.mark.parametrize("code", CODES)
def test_what_the_cores_and_the_api_say_stays_english_and_says_so(client, code):
    formats = Elements(client.get(f"/{code}/formats").text)
    # a format's summary is the page's language (tests/web/formats/test_i18n_summaries.py), no passage left English
    summaries = [a.get("lang") for i, (tag, a) in enumerate(formats.tags) if tag == "p"
                 and MXFP8_SUMMARY[code] in formats.texts[i]]
    assert summaries == [None]
    assert not any("OCP MX: 32 E4M3 elements share one power-of-two scale." in text for text in formats.texts)
    docs = Elements(client.get(f"/{code}/docs").text)
    described = [a.get("lang") for i, (tag, a) in enumerate(docs.tags) if tag == "p"
                 and "Every format: fields and exact constants." in docs.texts[i]]
    assert described == ["en"]
    # the core's refusal, which has a template (app/refusal.py), in the page's language; the API's stays English
    refused = Elements(client.get(f"/{code}/visualise/nosuch", params={"value": "1"}).text)
    assert "lang" not in refused.having("data-error")[0] and "nosuch" in refused.text_of("data-error")
    english = client.get("/api/formats/nosuch/encode", params={"value": "1"}).json()["detail"]
    assert refused.text_of("data-error") != english
    assert attrs_lang(refused, "main") == code


def attrs_lang(page: Elements, tag: str) -> str:
    return next(a["lang"] for t, a in page.tags if t == tag)


@pytest.mark.parametrize("code", CODES)
def test_the_web_layers_refusals_are_translated_on_pages_and_english_in_the_api(client, code):
    page = Elements(client.post(f"/{code}/learn").text)
    sentence = page.text_of("data-error")
    assert "POST" in sentence and sentence != "POST is not allowed here."
    assert "lang" not in page.having("data-error")[0]
    missing = Elements(client.get(f"/{code}/learn/nowhere").text)
    assert f"/{code}/learn/nowhere" in missing.text_of("data-error")
    assert client.get(f"/{code}/api/nowhere").json() == {
        "detail": "There is no page at /api/nowhere; the home page at / links to everything."}
    assert client.get("/learn/nowhere").status_code == 404
    assert Elements(client.get("/learn/nowhere").text).text_of("data-error") == (
        "There is no page at /learn/nowhere; the home page at / links to everything.")


@pytest.mark.parametrize("code", CODES)
def test_the_quantisation_guides_refusal_and_scaling_words_come_from_the_web_layer_translated(client, code):
    refused = Elements(client.get(f"/{code}/learn/quantisation", params={"distribution": "x"}, headers=HX).text)
    sentence = refused.text_of("data-error")
    assert "heavy_tailed" in sentence and "1e-6" in sentence and not sentence.startswith("Choose")
    english = client.get("/learn/quantisation", params={"distribution": "x"}, headers=HX).text
    assert Elements(english).text_of("data-error").startswith("Choose a distribution (normal, heavy_tailed")
