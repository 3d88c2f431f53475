"""The training demo in Turkish, Greek and Yoruba: the page, a finished run, the memory table, the page's words
for its scripts (static/js/words.js, app/web/platform/script_words.py), and the JSON that stays English."""

from __future__ import annotations

import json
import re

import pytest

from app.training import RECIPES, SCENARIOS
from app.web.platform.script_words import SCRIPTS_DIR
from tests.helpers.html import PAGE_BUDGET, Elements, first_visit
from tests.helpers.training import SHORT_QUERY

LANGUAGES = ("tr", "el", "yo")
# A sentence of each page that only a translation says: the heading, a recipe, the memory table
HEADING = {"tr": "Karışık Kesinlikli Eğitim", "el": "Εκπαίδευση μικτής ακρίβειας", "yo": "Ìkẹ́kọ̀ọ́ Adalu konge"}
RECIPE = {"tr": "FP16, kayıp ölçekleme yok", "el": "FP16, χωρίς κλιμάκωση απωλειών",
          "yo": "FP16, láìsí ìgbéléwọ̀n ìpàdánù"}
BILLION = {"tr": "1,5 milyar", "el": "1,5 δισεκατομμύρια", "yo": "1.5 bílíọ̀nù"}
# What a translated page may show as the English one does: names, format ids, code, numbers, file names
SAME = re.compile(r"(?:[A-Z][A-Za-z0-9]*|[a-z]+[0-9_.][\w.]*|tanh|torch\.\w+[\w.]*|--[\w -]+|[\d.,e+\-≈×/%: ]+)")
KEPT = {"ReLU", "tanh", "Adam", "XOR", "SGD", "Space", "Precision Lab"}


def _main(html: str) -> str:
    """The part of the page that is its content: <main>, without scripts and the PyTorch script's code."""
    main = html[html.index("<main"):html.index("</main>")]
    main = re.sub(r"<script\b.*?</script>", "", main, flags=re.S)
    return re.sub(r"<(pre|textarea)\b.*?</\1>", "", main, flags=re.S)  # code: the script, the embed snippet


def _texts(html: str) -> set[str]:
    """Each element's own text and each aria-label, whitespace collapsed, outside passages marked lang="en" within
    <main> (the English page's <main> says lang="en" itself) and outside the share bar (not this page's words)."""
    page = Elements(_main(html))
    english = {i for i, (_, a) in enumerate(page.tags) if a.get("lang") == "en" and i > 0}
    english |= {i for i, (_, a) in enumerate(page.tags) if "share-bar" in a.get("class", "")}  # embed/_share.html's
    texts = set()
    for i, (_, attrs) in enumerate(page.tags):
        if english & {i, *page.parents[i]}:
            continue
        inner = page.inside(i)
        own = page.texts[i]
        for child in inner:
            if page.parents[child][-1] == i:
                own = own.replace(page.texts[child], "\n", 1)
        texts.update(" ".join(t.split()) for t in own.split("\n"))
        texts.update(attrs[name] for name in ("aria-label", "title", "data-title", "data-explanation") if name in attrs)
    return {t for t in texts if t}


def _sentences(texts: set[str]) -> set[str]:
    """The texts that are words a reader reads, not a name, an id, code or a number."""
    return {t for t in texts if t not in KEPT and not SAME.fullmatch(t) and re.search(r"[a-z]{3,}", t)}


def _untranslated(client, path: str, code: str) -> set[str]:
    english = _sentences(_texts(client.get(path).text))
    return english & _texts(client.get(f"/{code}{path}").text)


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_page_says_none_of_the_english_pages_sentences(client, code):
    response = client.get(f"/{code}/train")
    assert response.status_code == 200 and response.headers["content-language"] == code
    assert re.search(rf'<main id="main" tabindex="-1" lang="{code}">', response.text)
    page = Elements(response.text)
    assert page.text_of("data-scenario-title") != SCENARIOS["baseline"].title
    assert HEADING[code] in response.text and RECIPE[code] in response.text
    assert _untranslated(client, "/train", code) == set()


@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_scenarios_lesson_is_translated_in_the_switcher_the_heading_and_the_list(client, code, scenario):
    english = Elements(client.get(f"/train?scenario={scenario}").text)
    page = Elements(client.get(f"/{code}/train?scenario={scenario}").text)
    for attribute in ("data-scenario-title", "data-explanation"):
        assert page.text_of(attribute) and page.text_of(attribute) != english.text_of(attribute)
    (option,) = [a for tag, a in page.tags if tag == "option" and a.get("value") == scenario]
    assert option["data-title"] == page.text_of("data-scenario-title")  # what train.js shows when a run starts
    assert option["data-explanation"] == page.text_of("data-explanation")
    links = page.texts_of("data-scenario-link")
    assert len(links) == len(SCENARIOS) and not set(links) & set(english.texts_of("data-scenario-link"))


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_finished_run_its_charts_and_tables_are_translated(client, code):
    path = f"/train?{SHORT_QUERY}&scenario=tiny_gradients&run=1&params=1.5B"
    response = client.get(f"/{code}{path}")
    assert response.status_code == 200
    assert _untranslated(client, path, code) == set()
    page = Elements(response.text)
    assert BILLION[code] in " ".join(page.texts_of("data-memory"))
    # the numbers of the final table keep their exact values
    english = Elements(client.get(path).text)
    assert page.having("data-final-loss") == english.having("data-final-loss")


def test_a_gigabyte_count_in_the_thousands_is_grouped_as_the_language_writes_it(client):
    english = Elements(client.get("/train?params=7T").text).texts_of("data-gigabytes")
    turkish = Elements(client.get("/tr/train?params=7T").text).texts_of("data-gigabytes")
    assert "112,000 GB" in english and "112.000 GB" in turkish


# a sentence the training scripts say (words.js's say with a literal id), as a person reads the source
SAID = re.compile(r'\bsay\(\s*"((?:[^"\\]|\\.)*)"')
SLOT = re.compile(r"%\(\w+\)s|%%")


def _said_by_the_training_scripts() -> set[str]:
    return {m for path in SCRIPTS_DIR.glob("train*.js") for m in SAID.findall(path.read_text())}


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_pages_words_for_its_scripts_are_in_its_language(client, code):
    # an English page carries none: each sentence, and each recipe's name as the run's events give it, says itself
    assert _words(client.get("/train").text) is None
    words = _words(client.get(f"/{code}/train").text)
    said, names = _said_by_the_training_scripts(), {r.name for r in RECIPES.values()}
    assert len(said) > 30 and "Paused. %(where)s" in said and "Choose a recipe above to get its script." in said
    assert words["sentences"].keys() == said | names and words["plurals"] == {}
    for sentence in said:
        translated = words["sentences"][sentence]
        assert translated != sentence, sentence
        assert sorted(SLOT.findall(translated)) == sorted(SLOT.findall(sentence))
    assert words["sentences"][RECIPES["fp16_no_scaling"].name] == RECIPE[code]


WHOLE_NUMBER = {"tr": "Adımlar bir tam sayı olmalıdır", "el": "Το πεδίο Βήματα πρέπει να είναι ακέραιος",
                "yo": "Àwọn ìgbésẹ̀ gbọ́dọ̀ jẹ́ odidi nọ́ńbà"}


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_refusal_of_the_form_and_of_the_core_is_in_the_pages_language(client, code):
    response = client.get(f"/{code}/train?steps=lots&run=1")
    assert response.status_code == 422
    page = Elements(response.text)
    (error,) = page.having("data-error")
    assert "lang" not in error and page.text_of("data-error").startswith(WHOLE_NUMBER[code])
    assert client.get("/train?steps=lots&run=1").text.count("Steps must be a whole number, not &#39;lots&#39;.") == 1
    refused = client.get(f"/{code}/train?steps=99999999&run=1")  # past the core's limit: its template, translated
    assert refused.status_code == 422
    (error,) = Elements(refused.text).having("data-error")
    english = Elements(client.get("/train?steps=99999999&run=1").text).text_of("data-error")
    assert "lang" not in error and Elements(refused.text).text_of("data-error") != english


def test_the_json_under_a_language_prefix_stays_english(client):
    body = client.get(f"/tr/train/script.json?{SHORT_QUERY}&recipe=fp16_no_scaling").json()
    assert body["name"] == "FP16, no loss scaling"
    start = client.get(f"/tr/train/stream?{SHORT_QUERY}").text.split("\n\n")[0]
    event = json.loads(start.split("data: ", 1)[1])
    assert event["scenario"]["title"] == SCENARIOS["baseline"].title


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_translated_page_and_its_words_stay_within_the_first_visits_budget(client, code):
    html = client.get(f"/{code}/train").text
    assert len(html.encode()) + sum(len(body) for body in first_visit(html, client).values()) <= PAGE_BUDGET


def _words(html: str) -> dict:
    (block,) = re.findall(r"<script type=\"application/json\" data-train-words>(.*?)</script>", html, re.S)
    return json.loads(block)
