"""Each language's term base (locales/<code>/terms.csv): one rendering for each technical term, held to every
catalog entry and every translated quiz text. An entry whose English holds a listed term must hold one of that
term's renderings in its translation.

terms.csv has three columns, english, term, note:
- english: the English term, lowercase; matched at word boundaries, case-insensitively, with a plural -s/-es
  allowed; a `*` matches the rest of a word (`accumulat*`: accumulate, accumulated, accumulation), a `|` separates
  spellings of the same term (`quantis*|quantiz*`).
- term: one rendering, matched as a part of the translation (a stem, so that inflected forms count),
  case-insensitively in the language's own casing.
- note: why this rendering. Several rows with the same english are renderings allowed side by side; a second row
  is a deliberate variant and its note says when it is used.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.web.platform.catalogs import LOCALES_DIR
from app.web.platform.languages import PREFIXED
from tests.helpers.translations import bank_pairs, catalog_pairs

CODES = sorted(PREFIXED)
PLACEHOLDER = re.compile(r"%\(\w+\)s")
CODE_SPAN = re.compile(r"<code>.*?</code>", re.S)
TAG = re.compile(r"<[^>]+>")

# The terms every language's base must render (issue 22): those a learner meets on every page.
REQUIRED = ("exponent", "mantissa", "bias", "subnormal", "range", "precision", "accuracy", "rounding", "ties to even",
            "overflow", "underflow", "saturate", "loss scaling", "dynamic", "static", "weights", "scale",
            "master weights", "gradient", "forward pass", "backward pass", "accumulate", "block", "element",
            "quantise", "format", "bit pattern", "tensor core", "stochastic")


@dataclass(frozen=True)
class Term:
    english: str
    pattern: re.Pattern[str]
    renderings: tuple[str, ...]


def fold(text: str, code: str) -> str:
    """Lower case as the language writes it (Turkish I/ı and İ/i), composed."""
    text = unicodedata.normalize("NFC", text)
    if code == "tr":
        text = text.replace("I", "ı").replace("İ", "i")
    return text.lower()


def english_pattern(english: str) -> re.Pattern[str]:
    spellings = []
    for spelling in english.split("|"):
        words = re.escape(spelling.strip()).replace(r"\*", r"\w*")
        tail = "" if spelling.strip().endswith("*") else "(?:s|es)?"
        spellings.append(rf"\b{words}{tail}\b")
    return re.compile("|".join(spellings), re.I)


def terms(code: str) -> list[Term]:
    rows = defaultdict(list)
    with (LOCALES_DIR / code / "terms.csv").open(encoding="utf-8", newline="") as source:
        for row in csv.DictReader(source):
            rows[row["english"].strip()].append(row)
    return [Term(english, english_pattern(english), tuple(fold(row["term"].strip(), code) for row in group))
            for english, group in rows.items()]


def english_words(text: str) -> str:
    """The English a reader reads: no placeholders, no code, no markup."""
    return TAG.sub(" ", CODE_SPAN.sub(" ", PLACEHOLDER.sub(" ", text)))


def missing_terms(code: str, pairs: list[tuple[str, str, str]]) -> list[str]:
    problems = []
    base = terms(code)
    for where, english, translation in pairs:
        words, said = english_words(english), fold(translation, code)
        for term in base:
            if term.pattern.search(words) and not any(rendering in said for rendering in term.renderings):
                problems.append(f"{where}: '{term.english}' wants one of {list(term.renderings)}")
    return problems


@pytest.mark.parametrize("code", CODES)
def test_the_term_base_renders_every_required_term_once(code):
    base = terms(code)
    for required in REQUIRED:
        assert any(term.pattern.fullmatch(required) for term in base), f"{code}: no row for {required!r}"
    owners = defaultdict(set)
    for term in base:
        for rendering in term.renderings:
            owners[rendering].add(term.english)
    shared = {rendering: sorted(english) for rendering, english in owners.items() if len(english) > 1}
    assert not shared, f"{code}: one rendering for two terms: {shared}"


@pytest.mark.parametrize("code", CODES)
def test_every_note_says_why(code):
    with (LOCALES_DIR / code / "terms.csv").open(encoding="utf-8", newline="") as source:
        rows = list(csv.DictReader(source))
    assert rows and all(row["english"].strip() and row["term"].strip() and row["note"].strip() for row in rows)


@pytest.mark.parametrize("code", CODES)
def test_every_catalog_entry_uses_the_term_base(code):
    problems = missing_terms(code, catalog_pairs(code))
    assert not problems, f"{len(problems)} entries:\n" + "\n".join(problems)


@pytest.mark.parametrize("code", CODES)
def test_every_quiz_text_uses_the_term_base(code):
    problems = missing_terms(code, bank_pairs(code))
    assert not problems, f"{len(problems)} texts:\n" + "\n".join(problems)


def test_the_english_patterns_match_as_documented():
    assert english_pattern("exponent").search("two exponents")
    assert not english_pattern("bias").search("unbiased")
    assert english_pattern("accumulat*").search("Accumulation in FP32")
    assert english_pattern("quantis*|quantiz*").search("quantized")
    assert not english_pattern("range").search("arrange")
    assert fold("İŞARET BIT", "tr") == "işaret bıt"


def test_files_are_where_the_docs_say():
    assert all((Path(LOCALES_DIR) / code / "terms.csv").is_file() for code in CODES)
