"""The number formats and quantisation guides in Turkish, Greek and Yoruba: the whole article translated (no English
sentence of the English page left in it), `lang` set on the page and its <main>, the links kept in the language,
and the live quantisation table's labels translated where they are shown."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from tests.helpers.html import HX, Elements

GUIDES = ("/learn/number-formats", "/learn/quantisation")
CODES = ("tr", "el", "yo")
# Words that make a run of text an English sentence rather than a name, a format id or a number
ENGLISH_WORDS = frozenset({"the", "a", "an", "and", "or", "of", "in", "on", "to", "is", "are", "with", "from", "for",
                           "by", "as", "at", "its", "it", "that", "which", "than", "not", "no", "only", "each"})
# Runs a translation may keep as the English has them: terms of the trade (Yoruba keeps a few, the catalog says so)
# and words that are spelled alike (Turkish "Format")
TERMS = frozenset({"Format", "Epsilon", "epsilon", "amax", "bias", "1 − bias", "exponent", "mantissa", "subnormal"})

# A sentence of each guide in each language, as the catalog says it
SENTENCES = {
    ("/learn/number-formats", "tr"): "65520 ve üzeri her şey sonsuza yuvarlanır",
    ("/learn/number-formats", "el"): "οτιδήποτε από 65520 και πάνω στρογγυλοποιείται στο άπειρο",
    ("/learn/number-formats", "yo"): "ohunkóhun láti 65520 sókè ń yípo sí àìlópin",
    ("/learn/quantisation", "tr"): "bir model FP16'da 14 GB, INT8'de 7 GB, INT4'te 3,5 GB yer kaplar",
    ("/learn/quantisation", "el"): "14 GB σε FP16, 7 GB σε INT8 και 3,5 GB σε INT4",
    ("/learn/quantisation", "yo"): "ń gba 14 GB ní FP16, 7 GB ní INT8 àti 3.5 GB ní INT4",
}


class ArticleText(HTMLParser):
    """The runs of text a reader reads in a guide's article (the div the Listen button reads), without code and
    without the rows of the tables, whose cells are names and numbers the lab computes."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.runs: list[str] = []
        self._depth = 0  # inside the article: the number of open <div>s since it opened
        self._skipping = 0
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._depth:
            self._depth += tag == "div"
            self._skipping += tag in ("code", "tbody")
        elif tag == "div" and any(name == "data-listen-source" for name, _ in attrs):
            self._depth = 1

    def handle_endtag(self, tag: str) -> None:
        if self._depth:
            self._depth -= tag == "div"
            self._skipping -= tag in ("code", "tbody")

    def handle_data(self, data: str) -> None:
        text = " ".join(data.split())
        if self._depth and not self._skipping and text:
            self.runs.append(text)

    @property
    def text(self) -> str:
        return " ".join(self.runs)


def english_sentences(runs: list[str]) -> list[str]:
    """The runs that are English prose: three words or more, one of them a common English word."""
    return [run for run in runs if len(run.split()) >= 3 and ENGLISH_WORDS & set(re.findall(r"[a-z]+", run))]


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize("guide", GUIDES)
def test_the_guide_reads_in_the_language_with_no_english_sentence_left(client, guide, code):
    english = ArticleText(client.get(guide).text)
    response = client.get(f"/{code}{guide}")
    assert response.status_code == 200
    translated = ArticleText(response.text)
    sentences = english_sentences(english.runs)
    assert len(sentences) > 40 if guide.endswith("number-formats") else len(sentences) > 25
    left = [sentence for sentence in sentences if sentence in translated.text]
    assert left == []
    labels = {run for run in set(english.runs) & set(translated.runs) if re.search("[a-z]{2,}", run)}  # headings too
    assert labels <= TERMS
    assert SENTENCES[guide, code] in " ".join(response.text.split())


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize("guide", GUIDES)
def test_the_page_and_its_main_say_the_language(client, guide, code):
    page = Elements(client.get(f"/{code}{guide}").text)
    [html] = [attrs for tag, attrs in page.tags if tag == "html"]
    [main] = [attrs for tag, attrs in page.tags if tag == "main"]
    assert html["lang"] == code and main["lang"] == code
    [toc] = [attrs for tag, attrs in page.tags if tag == "nav" and "toc" in attrs.get("class", "")]
    assert toc["aria-label"] != "In this guide"
    english = Elements(client.get(guide).text)
    assert [attrs for tag, attrs in english.tags if tag == "main"][0]["lang"] == "en"


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize("guide", GUIDES)
def test_every_link_in_the_article_stays_in_the_language_and_resolves(client, guide, code):
    html = client.get(f"/{code}{guide}").text
    start = html.index("data-listen-source")
    article = Elements(html[start:html.index('<footer class="guide-next"', start)])
    hrefs = {attrs["href"] for tag, attrs in article.tags if tag == "a" and attrs.get("href", "").startswith("/")}
    assert hrefs
    for href in hrefs:
        assert href.startswith(f"/{code}/"), href
        assert client.get(href.partition("#")[0]).status_code == 200, href


def test_the_range_table_names_and_links_are_in_the_language(client):
    page = Elements(client.get("/tr/learn/number-formats").text)
    rows = {attrs["data-format"] for tag, attrs in page.tags if tag == "tr" and "data-format" in attrs}
    assert {"float64", "float16", "float4_e2m1fn"} <= rows
    hrefs = {attrs["href"] for tag, attrs in page.tags if tag == "a"}
    assert "/tr/visualise/float64?value=1" in hrefs and "/visualise/float64?value=1" not in hrefs
    text = " ".join(client.get("/tr/learn/number-formats").text.split())
    assert "FP16 (yarım kesinlik)" in text and "FP64 (çift kesinlik)" in text and "FP16 (half)" not in text
    assert "FP16 (half)" in client.get("/learn/number-formats").text  # the English page keeps the core's names


@pytest.mark.parametrize(("code", "caption", "option"), [
    ("tr", "aykırı değerli normal, standart sapma 1000", "Aykırı değerli normal"),
    ("el", "κανονική με ακραίες τιμές, τυπική απόκλιση 1000", "Κανονική με ακραίες τιμές"),
    ("yo", "déédéé pẹ̀lú àwọn iye àjèjì, ìyapa boṣewa 1000", "Déédéé pẹ̀lú àwọn iye àjèjì"),
])
def test_the_live_table_speaks_the_language_in_the_page_and_in_its_fragment(client, code, caption, option):
    url = f"/{code}/learn/quantisation?distribution=outliers&scale=1000"
    page = Elements(client.get(url).text)
    [form] = [attrs for tag, attrs in page.tags if tag == "form" and "data-hx-get" in attrs]
    assert form["action"] == f"/{code}/learn/quantisation#live"
    assert form["data-hx-get"] == f"/{code}/learn/quantisation"  # htmx asks in the page's language
    [chosen] = [i for i, (tag, attrs) in enumerate(page.tags) if tag == "option" and "selected" in attrs][:1]
    assert " ".join(page.texts[chosen].split()) == option
    fragment = client.get(url, headers=HX)
    assert fragment.status_code == 200 and "<html" not in fragment.text
    [shown] = Elements(fragment.text).texts_of("data-sample-error")[:1]
    assert caption in shown
    assert "Student's" not in shown and "Mean squared error" not in shown
    assert "Error on" not in shown and "standard deviation" not in shown


def test_the_english_caption_names_the_distribution_as_before(client):
    text = " ".join(client.get("/learn/quantisation?distribution=heavy_tailed&scale=1", headers=HX).text.split())
    assert "Error on 4096 values, heavy-tailed (Student's t), standard deviation 1" in text
    text = " ".join(client.get("/learn/quantisation?distribution=outliers&scale=1000", headers=HX).text.split())
    assert "Error on 4096 values, normal with outliers, standard deviation 1000" in text
