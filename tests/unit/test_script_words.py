"""The pages' scripts say their sentences through static/js/words.js, and `make` finds each one when it bundles the
scripts (app/web/platform/script_words_build.py, into static/bundle/.words.json, which the server reads:
app/web/platform/script_words.py): every marker call is found, the build finds for every entry in every language
exactly what reading its sources finds, every sentence found has its translation in every catalog, and the plural
forms the page carries are the ones its language's rule picks."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import subprocess
from pathlib import Path

import pytest
from babel.messages.extract import extract
from babel.messages.pofile import read_po

from app.web.platform.bundles import STAMP
from app.web.platform.catalogs import catalog_path, translations
from app.web.platform.languages import LANGUAGES, speaking
from app.web.platform.script_words import SCRIPTS_DIR, WORDS_FILE, Id, ids_said, load_words, script_ids, script_words
from app.web.platform.script_words_build import ROOT, build, said_in, script_extractor

# a marker call with a literal first argument, as a person reads the source
CALL = re.compile(r'\b(?:say|sayN|Phrase|InputError)\(\s*"((?:[^"\\]|\\.)*)"')
# `import … from "./x.js"` and a module imported for its effect alone, `import "./x.js"`
IMPORT = re.compile(r'\b(?:from|import)\s+"\./([\w-]+\.js)"')
SCRIPTS = sorted(path.name for path in SCRIPTS_DIR.glob("*.js"))
OTHER_LANGUAGES = [language.code for language in LANGUAGES if language.code != "en"]
ENTRIES = re.search(r"^BUNDLE_ENTRIES := (.*)$", (ROOT / "Makefile").read_text(), re.M)[1].split()  # type: ignore[index]
ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"


def extracted(source: bytes) -> list[Id]:
    """The ids Babel's JavaScript extractor finds in a source with babel.cfg's keywords for the scripts."""
    method, keywords = script_extractor()
    return [m if isinstance(m, str) else (m[0], m[1]) for _, m, _, _ in extract(method, io.BytesIO(source), keywords)]


def read_from_sources(entry: str) -> tuple[Id, ...]:
    """What the server found before the build did: the ids of `entry` and of the modules it imports (./x.js, read
    from the sources, breadth first), each once where first met."""
    seen: list[str] = []
    pending = [entry]
    while pending:
        module = pending.pop(0)
        if module not in seen:
            seen.append(module)
            pending += IMPORT.findall((SCRIPTS_DIR / module).read_text(encoding="utf-8"))
    return tuple(dict.fromkeys(m for module in seen for m in extracted((SCRIPTS_DIR / module).read_bytes())))


@pytest.mark.parametrize("name", SCRIPTS)
def test_every_sentence_a_script_says_is_found_as_make_messages_finds_it(name: str):
    """Babel's extractor misses a call inside a template literal's ${...}: words.js says not to write one there."""
    source = (SCRIPTS_DIR / name).read_bytes()
    found = [m if isinstance(m, str) else m[0] for m in extracted(source)]
    missed = [call for call in CALL.findall(source.decode())
              if not any(message.startswith(call.replace('\\"', '"')) for message in found)]
    assert missed == [], f"{name}: marker calls the extractor does not find (inside ${{...}}?): {missed}"
    assert not [m for m in found if "${" in m], f"{name}: a template literal given as a sentence"


def test_the_scripts_keywords_are_babel_cfgs():
    assert script_extractor() == ("javascript", {"say": (1,), "sayN": (1, 2), "Phrase": (1,), "InputError": (1,)})


@pytest.mark.parametrize("code", [language.code for language in LANGUAGES])
@pytest.mark.parametrize("entry", ENTRIES)
def test_the_build_finds_for_every_entry_what_its_sources_say(entry: str, code: str):
    """In every language each page carries exactly the words, in the same order, that reading its sources and
    following their imports finds: the bundle step misses none and adds none."""
    assert script_ids(entry) == read_from_sources(entry)
    with speaking(next(language for language in LANGUAGES if language.code == code)):
        words = script_words([entry], ["max"])
    if code == "en":
        assert words is None
        return
    catalog = translations(code)
    ids = read_from_sources(entry)
    assert words == {
        "sentences": {**{m: catalog.gettext(m) for m in ids if isinstance(m, str)}, "max": catalog.gettext("max")},
        "plurals": {m[0]: [catalog.ngettext(*m, 1), catalog.ngettext(*m, 2)] for m in ids if isinstance(m, tuple)}}
    assert list(words["sentences"]) == [*[m for m in ids if isinstance(m, str) and m != "max"], "max"]


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
    for path in SCRIPTS_DIR.glob("train*.js"):
        assert set(extracted(path.read_bytes())) <= set(ids), path.name


@pytest.mark.parametrize("code", OTHER_LANGUAGES)
def test_every_sentence_the_scripts_say_is_translated_in_every_catalog(code: str):
    with catalog_path(code).open("rb") as source:
        catalog = read_po(source, locale=code)
    for name in SCRIPTS:
        for message in extracted((SCRIPTS_DIR / name).read_bytes()):
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
    with pytest.raises(ValueError, match="not an entry module"):
        script_ids("words.js")


# -- the builder, on modules of its own: esbuild's metafile, then script_words_build -----------------------------


def bundle(static: Path, sources: dict[str, str], entries: list[str]) -> dict[str, list]:
    """Build static/bundle as the Makefile does, from `sources` written into static/js; the words it finds."""
    (static / "js").mkdir(parents=True)
    for name, text in sources.items():
        (static / "js" / name).write_text(text)
    subprocess.run([ESBUILD, *[f"js/{e}" for e in entries], "--bundle", "--format=esm", "--log-level=warning",
                    "--outdir=bundle", "--metafile=bundle/.meta.json"], cwd=static, check=True)
    words = build(json.loads((static / "bundle" / ".meta.json").read_text()), static)
    (static / "bundle" / WORDS_FILE).write_text(json.dumps(words))
    (static / "bundle" / STAMP).touch()
    return words


PAGE = {"page.js": 'import { two } from "./more.js";\nimport { say, sayN } from "./words.js";\n\n'
                   '/** says one */\nfunction one() {\n  return say("One");\n}\n\n'
                   'document.addEventListener("click", () => say("Top", { one, two }));\n'
                   'export const three = () => sayN("Three",\n  "Threes", 3);\n',
        "more.js": 'import { say } from "./words.js";\n\n'
                   'export function two() {\n  say("Two");\n  return say("One");\n}\n',
        "words.js": "export const say = (id) => id;\nexport const sayN = (one, other) => other;\n"}


def test_the_build_finds_each_id_where_it_is_said_and_leaves_out_what_only_unsaid_functions_say(tmp_path: Path):
    words = bundle(tmp_path, PAGE, ["page.js"])
    said = [(m if isinstance(m, str) else tuple(m), where) for m, where in words["page.js"]]
    assert said == [("One", "page.js:one"), ("Top", "page.js"), (("Three", "Threes"), "page.js:three"),
                    ("Two", "more.js:two"), ("One", "more.js:two")]
    assert ids_said(said) == ("One", "Top", ("Three", "Threes"), "Two")
    assert ids_said(said, frozenset({"page.js:one"})) == ("Top", ("Three", "Threes"), "Two", "One")  # two says it
    assert ids_said(said, frozenset({"page.js:one", "more.js:two", "page.js:three"})) == ("Top",)
    with pytest.raises(ValueError, match="says anything"):
        ids_said(said, frozenset({"page.js:four"}), "page.js")
    assert said_in(b'say("x");\n', "x.js") == [("x", "x.js")]


def test_the_server_reads_fresh_words_quietly(tmp_path: Path, caplog):
    bundle(tmp_path, PAGE, ["page.js"])
    with caplog.at_level(logging.WARNING):
        words = load_words(tmp_path)
    assert words is not None and [m for m, _ in words["page.js"]][:2] == ["One", "Top"]
    assert ("Three", "Threes") in [m for m, _ in words["page.js"]]  # a plural, read back as its pair
    assert not caplog.records


def test_without_the_file_the_scripts_speak_english_and_the_log_says_so(tmp_path: Path, caplog):
    bundle(tmp_path, PAGE, ["page.js"])
    (tmp_path / "bundle" / WORDS_FILE).unlink()
    with caplog.at_level(logging.WARNING):
        assert load_words(tmp_path) is None
    assert "make setup" in caplog.text and "English" in caplog.text


def test_words_older_than_a_source_are_used_and_the_log_says_so(tmp_path: Path, caplog):
    bundle(tmp_path, PAGE, ["page.js"])
    os.utime(tmp_path / "bundle" / STAMP, (1_000, 1_000))
    with caplog.at_level(logging.WARNING):
        words = load_words(tmp_path)
    assert words is not None and "page.js" in words
    assert "older than" in caplog.text and "more.js, page.js, words.js" in caplog.text
