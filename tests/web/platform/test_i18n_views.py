"""The visualiser, the block visualiser, the comparison and the Embed dialog in Turkish, Greek and Yoruba: the
server's page is the whole view there (the instant scripts run on English pages only), so every sentence of the
interface is the page's language; what stays English (a format's name, a refusal the catalogs lack yet) says
lang="en". The English pages keep their exact sentences, which the scripts' markup is held to."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

LANGUAGES = ["tr", "el", "yo"]
PAGES = [
    "/visualise/float16?value=0.1",
    "/visualise/float16?bits=0x7e00",
    "/visualise/float16?value=0.1&rounding=stochastic&seed=3",
    "/visualise/int8?value=-123",
    "/visualise/nf4?value=0.5",
    "/visualise/float8_e4m3fnuz?bits=0x80",
    "/visualise/custom?exponent_bits=4&mantissa_bits=3&value=0.1",
    "/compare?value=0.1",
    "/compare?value=70000&rounding=toward_zero&overflow=saturate",
    "/visualise/mxfp4?preset=outlier",
    "/visualise/nvfp4",
    "/visualise/nf4?preset=normal",
    "/visualise/mxint8?preset=nan",
    "/visualise/mxfp8_e4m3?values=0.1,0.2",
    "/embed/visualise/float16?value=0.1",
]
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
SKIPPED = {"script", "style", "head", "textarea", "code", "svg"}  # data, code and the typed box; svg: numbers


class Visible(HTMLParser):
    """The text of <main> outside the passages marked lang="en", scripts, code and the typed box."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[bool] = []  # whether each open element is skipped
        self.in_main = False
        self.chunks: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "main":
            self.in_main = True
        if tag in VOID:
            return
        named = dict(attrs)
        skipped = (tag in SKIPPED or (tag != "main" and named.get("lang") == "en") or "hidden" in named
                   or "visually-hidden" in (named.get("class") or "").split())
        self.stack.append(skipped or bool(self.stack and self.stack[-1]))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if tag == "main":
            self.in_main = False
        if self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if self.in_main and not (self.stack and self.stack[-1]):
            self.chunks.append(data)


def visible(html: str) -> str:
    parser = Visible()
    parser.feed(html)
    return " ".join(" ".join(parser.chunks).split())


# Words a page in another language may share with the English one: format names and ids, notation, units.
ALLOWED = re.compile(r"^(?:[A-Z0-9_]+|[a-z0-9_]+_[a-z0-9_]+|[a-z]{1,3}|ULP|MSE|NaN|NF4|QLoRA|OCP|MX|Absmax|absmax|"
                     r"bit|bits|emax|emax\+1|binade|codebook|Embed|Lab|Precision|inf|nan|oEmbed|tensor|normal|"
                     r"subnormal|format|Format|max|blok)$")


def english_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[A-Za-z][A-Za-z'+_]*[A-Za-z0-9]|[A-Za-z]", text) if not ALLOWED.match(w)}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("url", PAGES)
def test_no_english_interface_sentence_is_left(client, url, language):
    english = visible(client.get(url).text)
    response = client.get(f"/{language}{url}")
    assert response.status_code == 200
    assert f'<main id="main" tabindex="-1" lang="{language}">' in response.text
    shown = visible(response.text)
    # every run of three English words of the English page that is still on the translated page
    words = re.findall(r"\S+", english)
    runs = {" ".join(words[i:i + 3]) for i in range(len(words) - 2)}
    left = [run for run in runs if run in shown and len(english_words(run)) >= 2]
    assert not left, left[:10]


@pytest.mark.parametrize(("language", "url", "sentence"), [
    ("tr", "/visualise/float16?value=0.1", "Yuvarlama hatası"),
    ("tr", "/visualise/float16?value=0.1", "Komşular"),
    ("el", "/visualise/float16?value=0.1", "Σφάλμα στρογγυλοποίησης"),
    ("yo", "/visualise/float16?value=0.1", "Àwọn aládùúgbò"),
    ("tr", "/compare?value=0.1", "Bir değer, her formatta"),
    ("el", "/compare?value=0.1", "Μία τιμή σε κάθε μορφή"),
    ("yo", "/compare?value=0.1", "Iye kan ní gbogbo ọ̀nà kíkà"),
    ("tr", "/visualise/mxfp4?preset=outlier", "Tek bir aykırı değer bloğuna ne yapar"),
    ("el", "/visualise/nvfp4", "Οι ίδιες τιμές σε κάθε μορφή μπλοκ"),
    ("yo", "/visualise/nf4?preset=normal", "Àwọn iye búlọ́ọ̀kù náà"),
    ("el", "/embed/visualise/float16?value=0.1", "Απόκρυψη στο πλαίσιο"),
])
def test_a_translated_sentence_is_shown(client, language, url, sentence):
    assert sentence in client.get(f"/{language}{url}").text


@pytest.mark.parametrize("language", LANGUAGES)
def test_what_stays_english_says_so(client, language):
    html = client.get(f"/{language}/visualise/float16?value=0.1").text
    # the format's summary is translated (tests/web/formats/test_i18n_summaries.py); the pill's name, a format's,
    # is English
    assert re.search(r'<p class="lead" data-hide-group="intro">', html)
    assert re.search(r'<a href="[^"]+" data-hx-get="[^"]+" data-format="float32" title="[^"]+"><span lang="en">FP32 '
                     r'\(single\)</span></a>', html)


def test_the_classes_are_words_of_the_page(client):
    assert '<dd data-class>alt normal</dd>' in client.get("/tr/visualise/float16?bits=0x0001").text
    assert '<dd data-class>άπειρο</dd>' in client.get("/el/visualise/float16?bits=0x7c00").text
    assert '<dd data-class>normal</dd>' in client.get("/visualise/float16?value=0.1").text


@pytest.mark.parametrize(("url", "stored"), [
    ("/tr/visualise/float16?value=0,1", "0.0999755859375"),
    ("/el/compare?value=0,1", "0.0999755859375"),
])
def test_a_decimal_comma_is_read(client, url, stored):
    response = client.get(url)
    assert response.status_code == 200
    assert stored in response.text
    assert 'role="alert"' not in response.text


def test_the_embed_form_stays_in_the_language(client):
    html = client.get("/tr/embed/visualise/float16?value=0.1").text
    assert 'action="/tr/embed/visualise/float16" method="get" data-embed-hide' in html
    assert 'action="/embed/visualise/float16" method="get" data-embed-hide' in client.get(
        "/embed/visualise/float16?value=0.1").text


@pytest.mark.parametrize(("url", "sentence"), [
    ("/visualise/float16?value=0.1", "Click, tap, or press Space or Enter on a bit to flip it; arrow keys move between "
                                     "bits."),
    ("/visualise/float16?value=0.1", "|value| sits 52% of the way along the log scale from the smallest positive"),
    ("/compare?value=0.1", "Error is stored − input; “≈” marks a rounded number (the exact one is in its tooltip)."),
    ("/compare?value=0.1", "The same number stored in each format, side by side: what FP8 keeps of it next to FP16, "
                           "BF16\n  and FP32"),
    ("/visualise/mxfp4?preset=outlier", "Put one value twenty times larger than the rest into a block and its scale "
                                        "grows about twenty times with it.\n    The zero threshold"),
    ("/visualise/mxfp4?preset=floor", ">near the scale&#39;s floor</a>"),
    ("/visualise/mxfp4?preset=outlier", "nonzero values flushed to zero, MSE"),
])
def test_english_pages_keep_their_sentences(client, url, sentence):
    assert sentence in client.get(url).text
