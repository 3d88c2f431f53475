"""The mixed-precision guide, the hardware page, the memory calculator and the accumulation figure in Turkish, Greek
and Yoruba: no sentence of the English page is left in the content (names, numbers, format ids and the data files'
own English, marked lang="en", aside), `lang` set on the page and its <main>, links kept in the language, numbers in
the language's notation, and the Python-side sentences (the figure's notes, the chart's labels, the core's recipe
and method names) translated where they are shown."""

from __future__ import annotations

import re

import pytest

from tests.helpers.visible_text import VisibleText, english_left

CODES = ("tr", "el", "yo")
PAGES = (
    "/learn/mixed-precision-training",
    "/learn/hardware",
    "/learn/memory",
    "/learn/memory?params=1T&recipe=fp16_dynamic_scaling&optimizer=sgd&devices=1&stage=0",
    "/learn/accumulation",
    "/learn/accumulation?format=float16&distribution=ones&n=10000",
    "/learn/accumulation?format=float64&method=fp32&method=kahan",
    "/embed/learn/accumulation?format=float8_e4m3fn&distribution=lognormal&n=1e5",
)
# What these pages show as the English page does in every language: units, headings that are symbols, the names of
# accelerators, libraries and tools (the data files' names for them)
SAME_EVERYWHERE = re.compile(
    r"TFLOP/s|TOPS|n \(n×n\)|\(GiB\)|MiB|ZeRO|torch( \d[\d.]* \(CUDA\)\.)?|torch\.\w+|numpy|nan|"
    r"(NVIDIA|AMD|Intel|Google)\b[\w() ]*|[a-z\d]*[_\d][a-z\d_]*"  # accelerators as the data names them; recipe ids
)
# Terms a language's catalog keeps as the English writes them, for every page that shows them (the training demo's
# form shares the label)
KEPT = {"yo": {"Optimizer"}}

# One sentence of each page in each language, as the catalogs draft it
SAID = {
    ("/learn/mixed-precision-training", "tr"): "Karışık Kesinlikli Eğitim, bir ağın aritmetiğinin çoğunu",
    ("/learn/mixed-precision-training", "el"): "Η εκπαίδευση μικτής ακρίβειας εκτελεί το μεγαλύτερο μέρος",
    ("/learn/mixed-precision-training", "yo"): "Ìkẹ́kọ̀ọ́ Adalu konge ń ṣe èyí tó pọ̀ jù",
    ("/learn/hardware", "tr"): "Donanım: her format ne kadar hızlı çalışır",
    ("/learn/hardware", "el"): "Υλικό: πόσο γρήγορα τρέχει κάθε μορφή",
    ("/learn/hardware", "yo"): "Ohun èlò: bí ọ̀nà kíkà kọ̀ọ̀kan ṣe ń yára tó",
    ("/learn/memory", "tr"): "Hangi hızlandırıcılara sığar",
    ("/learn/memory", "el"): "Σε ποιους επιταχυντές χωρά",
    ("/learn/memory", "yo"): "Àwọn ẹ̀rọ ìmúyára tí ó bá mu",
    ("/learn/accumulation", "tr"): "Dört yöntem ne yapar",
    ("/learn/accumulation", "el"): "Τι κάνουν οι τέσσερις μέθοδοι",
    ("/learn/accumulation", "yo"): "Ohun tí ọ̀nà mẹ́rin náà ń ṣe",
}
CONTENT = {
    # the guide's own article (its frame, templates/learn/_guide.html, is another page's)
    "/learn/mixed-precision-training": ('<div class="guide-body" data-listen-source>', '<footer class="guide-next"'),
}


def content(path: str, html: str) -> str:
    """The part of the page these templates write: the guide's article, or the whole <main>."""
    start, end = CONTENT.get(path.split("?")[0], ("<main", "</main>"))
    return html[html.index(start):html.index(end)]


def get(client, path: str, code: str | None = None) -> str:
    response = client.get(f"/{code}{path}" if code else path)
    assert response.status_code == 200, path
    return response.text


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize("path", PAGES)
def test_no_english_sentence_is_left(client, path, code):
    english = content(path, get(client, path))
    translated = content(path, get(client, path, code))
    left = [text for text in english_left(translated, english, code)
            if not SAME_EVERYWHERE.fullmatch(text) and text not in KEPT.get(code, ())]
    assert left == []


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize("path", PAGES)
def test_the_page_and_its_content_say_their_language(client, path, code):
    html = get(client, path, code)
    assert f'<html lang="{code}"' in html
    assert re.search(rf'<main id="main" tabindex="-1" lang="{code}">', html)


@pytest.mark.parametrize(("path", "code"), list(SAID))
def test_a_sentence_of_each_page_in_each_language(client, path, code):
    text = " ".join(piece for piece, _ in VisibleText(get(client, path, code)).pieces)
    assert SAID[(path, code)] in text


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize("path", PAGES)
def test_links_stay_in_the_language(client, path, code):
    html = content(path, get(client, path, code))
    for target in re.findall(r'(?:href|action|data-hx-get)="(/[^"]*)"', html):
        if target.startswith(("/static/", "/api/")):
            continue
        assert target.startswith(f"/{code}/"), target
    if path.startswith("/embed/"):
        assert f'action="/{code}/embed/learn/accumulation"' in html


def test_the_data_files_english_is_marked_as_english(client):
    html = get(client, "/learn/hardware", "tr")
    assert '<span lang="en">measured by precision-lab hardware-bench' in html
    assert "<strong>Kim:</strong>" in html
    # the English page is as it was: no lang attribute where everything is English
    assert '<span lang="en">' not in get(client, "/learn/hardware")


def test_numbers_in_the_languages_notation(client):
    turkish = " ".join(p for p, _ in VisibleText(get(client, "/tr/learn/memory?params=7B")).pieces)
    assert "7.000.000.000 parametre" in turkish
    assert "4,25" in turkish  # MXFP4's bits per value, in the table
    english = " ".join(p for p, _ in VisibleText(get(client, "/learn/memory?params=7B")).pieces)
    assert "7,000,000,000 parameters in" in english and "4.25" in english
    yoruba = " ".join(p for p, _ in VisibleText(get(client, "/yo/learn/memory?params=7B")).pieces)
    assert "Pàrámítà 7,000,000,000" in yoruba
    greek_hardware = get(client, "/el/learn/hardware")
    assert re.search(r'data-dense="19.5">19,5', greek_hardware)  # the A100's FP32 peak
    assert re.search(r'data-dense="19.5">19.5', get(client, "/learn/hardware"))


def test_the_accumulation_figures_python_sentences_are_translated(client):
    html = get(client, "/tr/learn/accumulation?format=float16&distribution=ones&n=10000")
    text = " ".join(p for p, _ in VisibleText(html).pieces)
    assert "Aynı formatta biriktirme 2.048. adımdan sonra 2048 değerinde durur" in text  # the stall sentence
    assert "2.048. adımda, 2048 değerinde büyümeyi bıraktı" in text  # the table's note
    assert "Adıma karşı ara toplam (logaritmik ölçek): 10.000 değer, hepsi bir, FP16 (half) formatında" in text
    assert ">10.000</text>" in html  # the step axis's last tick
    assert "2048 değerinde takılır, 2.048. adım" in text  # the stall marker's title
    assert re.search(r'aria-label="FP16 \(half\) formatında 10\.000 değerin \(hepsi bir\) ara toplamları', html)
    greek = " ".join(p for p, _ in VisibleText(get(client, "/el/learn/accumulation?format=float64&method=fp32")).pieces)
    assert "Η συσσώρευση σε FP32 παραλείπεται για το FP64" in greek


def test_the_cores_names_are_translated_where_shown(client):
    memory = get(client, "/tr/learn/memory?recipe=fp16_dynamic_scaling&optimizer=sgd")
    assert '<option value="fp16_dynamic_scaling" selected>FP16, dinamik kayıp ölçekleme</option>' in memory
    assert '<option value="sgd" selected>Momentumlu SGD</option>' in memory
    accumulation = get(client, "/el/learn/accumulation")
    assert "Άθροιση Kahan (με αντιστάθμιση)" in accumulation
    assert "Ομοιόμορφη στο [0, 1)" in accumulation
    # the API stays English
    api = client.get("/tr/api/accumulation?format=float16&n=10").json()
    assert api["methods"][0]["name"] == "Same-format accumulation"
    assert client.get("/tr/api/memory?params=7B").json()["not_included"].startswith("The calculator counts only")


def test_a_core_refusal_is_in_the_pages_language_and_english_in_english(client):
    # the training core's refusal carries its template (app/refusal.py): the page words it in Turkish
    response = client.get("/tr/learn/memory?params=lots")
    assert response.status_code == 422
    assert 'data-error lang="en"' not in response.text and "Cannot read" not in response.text
    english = client.get("/learn/memory?params=lots").text
    assert re.search(r'<p class="error" role="alert" data-error>Cannot read', english)


def test_the_english_pages_are_unchanged(client):
    guide = get(client, "/learn/mixed-precision-training")
    assert "<h2 id=\"what\">What it is</h2>" in guide
    assert "relative rounding error is up to 2<sup>−3</sup> = 12.5%, too coarse" in guide
    memory = " ".join(p for p, _ in VisibleText(get(client, "/learn/memory")).pieces)
    assert "Sharded over 8 accelerators (ZeRO)" in memory
    assert "BF16 with Adam:" in memory
