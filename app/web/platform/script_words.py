"""The words a page's scripts write, in the page's language: for static/js/words.js to say.

The scripts write their sentences in English as gettext ids (say, sayN, new Phrase, new InputError in
static/js/words.js and codec.js). Which ids each page's entry module and the modules it imports say is found when
`make` bundles the scripts (app/web/platform/script_words_build.py, with Babel's JavaScript extractor and
babel.cfg's keywords, as `make messages` finds them) and written to static/bundle/.words.json, which the server
reads once; it never reads a script. The page's JSON then carries each id's translation; an English page carries
none: the ids are its words. A page may leave out what its script never says, by the top-level functions that say
it (`unsaid`, as "codec.js:encodeFloat"): a function the page's script never runs, or whose sentences it never shows.

The file is judged by the bundles' stamp (app/web/platform/bundles.py), and says so once in the log when it is not
fresh. Missing (a server started without `make`), the scripts say their sentences in English, as a page's script
says any id its page does not carry; older than a source module, it is used as it is: each id it lists is still
translated from the catalogs, and only a sentence written since it was built is said in English.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from app.web.platform.bundles import BUNDLE_DIR, SOURCE_DIR, sources_newer_than_bundles
from app.web.platform.catalogs import translations
from app.web.platform.languages import ENGLISH_CODE, current_language

STATIC_DIR = Path(__file__).resolve().parents[3] / "static"
SCRIPTS_DIR = STATIC_DIR / SOURCE_DIR
WORDS_FILE = ".words.json"  # in static/bundle/ beside the bundles; a dot file, as the stamp, outside the static digest

Id = str | tuple[str, str]  # a sentence, or a plural's singular and plural
Said = list[tuple[Id, str]]  # the ids an entry's modules say, in order, each with where ("codec.js:encodeFloat")

log = logging.getLogger(__name__)


def load_words(static_dir: Path) -> dict[str, Said] | None:
    """What static_dir/bundle/.words.json says each entry module's script says; None without the file."""
    path = static_dir / BUNDLE_DIR / WORDS_FILE
    if not path.is_file():
        log.warning("No %s (run `make setup`): the pages' scripts say their sentences in English.", path)
        return None
    newer = sources_newer_than_bundles(static_dir)
    if newer != []:
        log.warning("%s is older than %s (run `make setup`): a sentence written since is said in English.",
                    path, ", ".join(newer or ["its bundles' stamp"]))
    return {entry: [(message if isinstance(message, str) else (message[0], message[1]), where)
                    for message, where in said]
            for entry, said in json.loads(path.read_text(encoding="utf-8")).items()}


@cache
def _built() -> dict[str, Said] | None:
    return load_words(STATIC_DIR)


@cache
def script_ids(name: str, unsaid: frozenset[str] = frozenset()) -> tuple[Id, ...]:
    """The ids that the entry module static/js/`name` and the modules it imports say, in the order they are met;
    with `unsaid` ("module.js:function"), not those said only inside those top-level functions."""
    built = _built()
    if built is None:
        return ()
    if name not in built:
        raise ValueError(f"{name} is not an entry module the Makefile bundles (BUNDLE_ENTRIES)")
    return ids_said(built[name], unsaid, name)


def ids_said(said: Said, unsaid: frozenset[str] = frozenset(), entry: str = "") -> tuple[Id, ...]:
    """The ids of `said`, each once where first met, but those said only inside the functions `unsaid` names;
    a name of `unsaid` that leaves nothing out (mistyped, or a function that says nothing) is refused."""
    if idle := unsaid - {where for _, where in said}:
        raise ValueError(f"{entry}: no top-level function {sorted(idle)} says anything its page could say")
    return tuple(dict.fromkeys(message for message, where in said if where not in unsaid))


def script_words(scripts: Iterable[str], extra: Iterable[str] = (),
                 unsaid: Iterable[str] = ()) -> dict[str, Any] | None:
    """For a page's JSON: each id its scripts say (but those said only in the top-level functions `unsaid` names,
    "module.js:function"), and each of `extra` (words the script takes from the page's data, such as a mark's
    label), in the current language: {"sentences": {id: text}, "plurals": {id: [one, other]}}; None on an English
    page. Worked out once per language and set of words, not on every page."""
    code = current_language().code
    return None if code == ENGLISH_CODE else _words(code, tuple(scripts), tuple(extra), frozenset(unsaid))


@cache
def _words(code: str, scripts: tuple[str, ...], extra: tuple[str, ...],
           unsaid: frozenset[str] = frozenset()) -> dict[str, Any]:
    """script_words in the language `code`."""
    catalog = translations(code)
    sentences: dict[str, str] = {}
    plurals: dict[str, list[str]] = {}
    for name in scripts:
        for message in script_ids(name, unsaid):
            if isinstance(message, str):
                sentences[message] = catalog.gettext(message)
            else:  # every served language's rule gives one form for 1 and one for every other count
                singular, plural = message
                plurals[singular] = [catalog.ngettext(singular, plural, 1), catalog.ngettext(singular, plural, 2)]
    for message in extra:
        sentences[message] = catalog.gettext(message)
    return {"sentences": sentences, "plurals": plurals}
