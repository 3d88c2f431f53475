"""The gettext catalogs (locales/): complete, well formed, up to date with the marked strings, honest about who
translated them, and faithful to what must not change (placeholders, markup, format names, each script's letters)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from app.web.platform.catalogs import LOCALES_DIR, UNREVIEWED, catalog_info, catalog_path, translations
from app.web.platform.languages import PREFIXED

ROOT = LOCALES_DIR.parent
CODES = sorted(PREFIXED)
FORMAT_NAME = re.compile(r"\b(?:FP\d+|BF16|TF32|NF4|INT\d|MX[A-Z]*\d+|NVFP4|E\dM\d)\b")
TAG = re.compile(r"</?[a-z]+(?:\s[^>]*)?>")
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def catalog(code: str) -> Catalog:
    with catalog_path(code).open("rb") as source:
        return read_po(source, locale=code)


def template() -> Catalog:
    with (LOCALES_DIR / "messages.pot").open("rb") as source:
        return read_po(source)


def forms(message) -> list[str]:
    return list(message.string) if isinstance(message.string, tuple | list) else [message.string]


def test_a_catalog_for_every_served_language():
    assert sorted(path.parent.parent.name for path in LOCALES_DIR.glob("*/LC_MESSAGES/messages.po")) == CODES


@pytest.mark.parametrize("code", CODES)
def test_every_message_is_translated_and_none_is_fuzzy(code):
    messages = [m for m in catalog(code) if m.id]
    assert messages
    for message in messages:
        assert not message.fuzzy, message.id
        assert all(form.strip() for form in forms(message)), message.id


# Translations that are the English as it stands: terms the language borrows (NaN, ULP, MSE, API), a name, and
# sentences made only of slots and such terms. Anything else the same as its English id is a message left
# untranslated (Yoruba's "%(hex)s (binary %(binary)s)" was, and showed as English on some quiz draws only).
SAME_AS_ENGLISH = {
    "tr": {"Spiral", "NaN", "FP32 absmax", "normal", "bit %(index)s, %(role)s, %(value)s", "ULP", "Absmax", "MSE",
           "Format", "Site", "API", "Epsilon", "Autocast"},
    "el": {"NaN", "FP32 absmax", "bit %(index)s, %(role)s, %(value)s", "ULP", "Absmax", "MSE", "API", "Autocast",
           "MX (Microscaling)", "BF16 (brain float)"},
    "yo": {"NaN", "FP32 absmax", "× tensor %(t)s", "mantissa", "subnormal", "bit %(index)s, %(role)s, %(value)s",
           "ULP", "Absmax", "MSE", "API", "Epsilon", ", bias %(bias)s", "Autocast", "MX (Microscaling)",
           "BF16 (brain float)"},
}


@pytest.mark.parametrize("code", CODES)
def test_a_translation_the_same_as_its_english_is_a_term_on_the_list(code):
    words = re.compile(r"[A-Za-z]{3}")
    same = {message.id for message in catalog(code) if isinstance(message.id, str) and message.id
            and message.string == message.id and words.search(PLACEHOLDER.sub("", message.id))}
    assert same <= SAME_AS_ENGLISH[code], sorted(same - SAME_AS_ENGLISH[code])


@pytest.mark.parametrize("code", CODES)
def test_babels_checkers_pass(code):
    """Placeholders as in the English, the language's number of plural forms (babel.messages.checkers)."""
    problems = [(message.id, [str(error) for error in errors]) for message, errors in catalog(code).check()]
    assert problems == []


@pytest.mark.parametrize("code", CODES)
def test_placeholders_markup_and_format_names_are_kept(code):
    for message in catalog(code):
        if not message.id:
            continue
        singular = message.id if isinstance(message.id, str) else message.id[0]
        source = singular if isinstance(message.id, str) else " ".join(message.id)
        for form in forms(message):
            assert set(PLACEHOLDER.findall(form)) == set(PLACEHOLDER.findall(source)), message.id
            assert sorted(TAG.findall(form)) == sorted(TAG.findall(singular)), message.id  # the same links, alike
            assert set(FORMAT_NAME.findall(source)) <= set(FORMAT_NAME.findall(form)), message.id


@pytest.mark.parametrize("code", CODES)
def test_the_catalogs_hold_exactly_the_templates_messages(code):
    assert {m.id for m in catalog(code) if m.id} == {m.id for m in template() if m.id}


def test_the_template_is_up_to_date_with_the_marked_strings():
    """Every string marked in the templates and the Python code is in locales/messages.pot (`make messages`)."""
    with (ROOT / "babel.cfg").open() as config:
        method_map, options_map = parse_mapping_cfg(config)
    marked = {message for _, _, message, _, _ in extract_from_dir(ROOT, method_map, options_map)}
    marked_ids = {m if isinstance(m, str) else tuple(m) for m in marked}
    assert marked_ids == {m.id for m in template() if m.id}


@pytest.mark.parametrize("code", CODES)
def test_the_header_says_who_translated_it_and_that_no_fluent_reader_has_reviewed_it_yet(code):
    po = catalog(code)
    assert po.last_translator and "machine" in po.last_translator.lower()
    assert po.language_team.startswith(UNREVIEWED)
    assert "Review status:" in po.header_comment and "Translated by:" in po.header_comment
    info = catalog_info(code)
    assert info is not None and not info.reviewed and info.translator == po.last_translator


@pytest.mark.parametrize(("code", "letters"), [
    ("tr", "ıİşğçöü"),  # dotless and dotted i
    ("el", "άέήίόύώ"),  # the accents (tonos)
    ("yo", "ẹọṣ\u0300\u0301"),  # under-dots, and the tone marks (grave and acute, precomposed or combining)
])
def test_each_script_keeps_its_own_letters(code, letters):
    text = "".join("".join(forms(m)) for m in catalog(code) if m.id)
    decomposed = unicodedata.normalize("NFD", text)
    missing = [ch for ch in letters if ch not in text and ch not in decomposed]
    assert not missing, missing


@pytest.mark.parametrize("code", CODES)
def test_the_server_reads_the_catalog(code):
    """Whether from the Makefile's .mo or compiled in memory from the .po, the server says what the catalog says."""
    for message in catalog(code):
        if message.id and isinstance(message.id, str):
            said = (translations(code).pgettext(message.context, message.id) if message.context
                    else translations(code).gettext(message.id))
            assert said == message.string, message.id


def test_no_compiled_catalog_is_committed():
    ignored = (ROOT / ".gitignore").read_text()
    assert "locales/*/LC_MESSAGES/*.mo" in ignored
    assert not list(Path(ROOT / "locales").glob("*.mo"))
