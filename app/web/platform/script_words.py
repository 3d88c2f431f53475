"""The words a page's scripts write, in the page's language: for static/js/words.js to say.

The scripts write their sentences in English as gettext ids (say, sayN, new Phrase, new InputError in
static/js/words.js and codec.js). Which ids a script uses is read from its source and the sources it imports, with
Babel's own JavaScript extractor, the one `make messages` runs (babel.cfg), so that no list of them is kept by
hand; the page's JSON then carries each id's translation. An English page carries none: the ids are its words.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from babel.messages.extract import extract

from app.web.platform.languages import ENGLISH_CODE, current_language
from app.web.platform.translations import translations

SCRIPTS_DIR = Path(__file__).resolve().parents[3] / "static" / "js"
# the script's marker calls and what each one's arguments are, as babel.cfg gives them to `make messages`
KEYWORDS: dict[str, Any] = {"say": (1,), "sayN": (1, 2), "Phrase": (1,), "InputError": (1,)}
_IMPORT = re.compile(r'\bfrom\s+"\./([\w-]+\.js)"')

Id = str | tuple[str, str]  # a sentence, or a plural's singular and plural


@cache
def script_ids(name: str) -> tuple[Id, ...]:
    """The ids that static/js/`name` and the modules it imports (./x.js) say, in the order they are met."""
    seen: dict[Id, None] = {}
    pending, visited = [name], set()
    while pending:
        current = pending.pop(0)
        if current in visited:
            continue
        visited.add(current)
        source = (SCRIPTS_DIR / current).read_bytes()
        for _line, message, _comments, _context in extract("javascript", io.BytesIO(source), KEYWORDS):
            seen[message if isinstance(message, str) else (message[0], message[1])] = None
        pending += _IMPORT.findall(source.decode())
    return tuple(seen)


def script_words(scripts: Iterable[str], extra: Iterable[str] = ()) -> dict[str, Any] | None:
    """For a page's JSON: each id its scripts say, and each of `extra` (words the script takes from the page's data,
    such as a mark's label), in the current language: {"sentences": {id: text}, "plurals": {id: [one, other]}};
    None on an English page. Worked out once per language and set of words, not on every page."""
    code = current_language().code
    return None if code == ENGLISH_CODE else _words(code, tuple(scripts), tuple(extra))


@cache
def _words(code: str, scripts: tuple[str, ...], extra: tuple[str, ...]) -> dict[str, Any]:
    """script_words in the language `code`."""
    catalog = translations(code)
    sentences: dict[str, str] = {}
    plurals: dict[str, list[str]] = {}
    for name in scripts:
        for message in script_ids(name):
            if isinstance(message, str):
                sentences[message] = catalog.gettext(message)
            else:  # every served language's rule gives one form for 1 and one for every other count
                singular, plural = message
                plurals[singular] = [catalog.ngettext(singular, plural, 1), catalog.ngettext(singular, plural, 2)]
    for message in extra:
        sentences[message] = catalog.gettext(message)
    return {"sentences": sentences, "plurals": plurals}
