"""The pages' scripts say their sentences through static/js/words.js, and the server finds each one by reading the
scripts (app/web/platform/script_words.py): every marker call is found, every sentence found has its translation in
every catalog, and the plural forms the page carries are the ones its language's rule picks."""

from __future__ import annotations

import io
import re

import pytest
from babel.messages.extract import extract
from babel.messages.pofile import read_po

from app.web.platform.catalogs import catalog_path, translations
from app.web.platform.languages import LANGUAGES, speaking
from app.web.platform.script_words import KEYWORDS, SCRIPTS_DIR, script_ids, script_words

# a marker call with a literal first argument, as a person reads the source
CALL = re.compile(r'\b(?:say|sayN|Phrase|InputError)\(\s*"((?:[^"\\]|\\.)*)"')
SCRIPTS = sorted(path.name for path in SCRIPTS_DIR.glob("*.js"))
OTHER_LANGUAGES = [language.code for language in LANGUAGES if language.code != "en"]


@pytest.mark.parametrize("name", SCRIPTS)
def test_every_sentence_a_script_says_is_found_as_make_messages_finds_it(name: str):
    """Babel's extractor misses a call inside a template literal's ${...}: words.js says not to write one there."""
    source = (SCRIPTS_DIR / name).read_bytes()
    found = [m if isinstance(m, str) else m[0] for _, m, _, _ in extract("javascript", io.BytesIO(source), KEYWORDS)]
    missed = [call for call in CALL.findall(source.decode())
              if not any(message.startswith(call.replace('\\"', '"')) for message in found)]
    assert missed == [], f"{name}: marker calls the extractor does not find (inside ${{...}}?): {missed}"
    assert not [m for m in found if "${" in m], f"{name}: a template literal given as a sentence"


def test_the_visualisers_words_follow_its_imports():
    ids = script_ids("visualiser.js")
    assert "Stored value %(stored)s" in ids and "bit %(index)s, %(role)s, %(value)s" in ids  # its own (state, fill)
    assert "Could not read %(input)s as a number. Accepted: %(accepted)s." in ids  # codec.js's, imported


@pytest.mark.parametrize(("name", "markup"), [
    ("compare.js", ", rounding %(mode)s"),
    ("block_view.js", ("%(count)s of the values is not FP32 number; each was rounded to the nearest FP32 value "
                       "first, and the errors below are against that.",
                       "%(count)s of the values are not FP32 numbers; each was rounded to the nearest FP32 value "
                       "first, and the errors below are against that.")),
])
def test_the_comparisons_and_the_block_views_words_follow_their_imports(name: str, markup: str | tuple[str, str]):
    """Their own sentences are the page's markup (the script fills it); what they import says its own."""
    ids = script_ids(name)
    assert markup not in ids
    assert "Could not read %(input)s as a number. Accepted: %(accepted)s." in ids  # codec.js's, imported
    assert "element %(index)s: |error| = %(error)s" in ids  # blocks.js's


def test_the_training_pages_words_follow_its_imports():
    """The page carries the words of train.js and what it imports: every train_*.js that says something is
    imported by train.js."""
    ids = script_ids("train.js")
    assert "Done: %(steps)s steps." in ids  # its own
    assert "Paused. %(where)s" in ids  # train_player.js's
    assert "%(share)s%% below min subnormal, %(zeros)s zero, %(nonfinite)s inf or NaN" in ids  # train_histogram.js's
    assert "%(name)s: predicted value over the input plane at step %(step)s" in ids  # train_boundary.js's
    page = set(ids)
    for path in SCRIPTS_DIR.glob("train*.js"):
        assert set(script_ids(path.name)) <= page, path.name


@pytest.mark.parametrize("code", OTHER_LANGUAGES)
def test_every_sentence_the_scripts_say_is_translated_in_every_catalog(code: str):
    with catalog_path(code).open("rb") as source:
        catalog = read_po(source, locale=code)
    for name in SCRIPTS:
        for message in script_ids(name):
            entry = catalog.get(message if isinstance(message, str) else message[0])
            assert entry is not None and not entry.fuzzy, (code, name, message)
            forms = entry.string if isinstance(entry.string, tuple) else (entry.string,)
            assert all(forms), (code, name, message)


@pytest.mark.parametrize("code", OTHER_LANGUAGES)
def test_a_plural_has_one_form_for_one_and_one_for_every_other_count(code: str):
    """words.js picks a plural's form by count === 1: every served language's rule must agree."""
    rule = translations(code).plural
    assert len({rule(n) for n in range(0, 1001) if n != 1}) == 1


def test_an_english_page_carries_no_words_and_a_turkish_page_carries_them_translated():
    english, turkish = LANGUAGES[0], next(language for language in LANGUAGES if language.code == "tr")
    with speaking(english):
        assert script_words(["visualiser.js"]) is None
    with speaking(turkish):
        words = script_words(["visualiser.js"], ["max"])
    assert words is not None
    stored = words["sentences"]["Stored value %(stored)s"]
    assert stored != "Stored value %(stored)s" and "%(stored)s" in stored and words["sentences"]["max"] != "max"
