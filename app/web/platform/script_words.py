"""The words a page's scripts write, in the page's language: for static/js/words.js to say.

The scripts write their sentences in English as gettext ids (say, sayN, new Phrase, new InputError in
static/js/words.js and codec.js). Which ids a script uses is read from its source and the sources it imports, with
Babel's own JavaScript extractor, the one `make messages` runs (babel.cfg), so that no list of them is kept by
hand; the page's JSON then carries each id's translation. An English page carries none: the ids are its words.
A page may leave out what its script never says, by the top-level functions that say it (`unsaid`, as
"codec.js:encodeFloat"): a function the page's script never runs, or whose sentences it never shows.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from babel.messages.extract import extract

from app.web.platform.catalogs import translations
from app.web.platform.languages import ENGLISH_CODE, current_language

SCRIPTS_DIR = Path(__file__).resolve().parents[3] / "static" / "js"
# the script's marker calls and what each one's arguments are, as babel.cfg gives them to `make messages`
KEYWORDS: dict[str, Any] = {"say": (1,), "sayN": (1, 2), "Phrase": (1,), "InputError": (1,)}
# `import … from "./x.js"` and a module imported for its effect alone, `import "./x.js"`
_IMPORT = re.compile(r'\b(?:from|import)\s+"\./([\w-]+\.js)"')
# A line at the margin that begins a top-level statement, and the name it declares, if any; a line that is indented,
# blank, a comment or the close of a bracket (`}`, `)`, `]`) continues the statement before it.
_STATEMENT = re.compile(r"[^\s/})\]]")
_DECLARES = re.compile(r"(?:export\s+)?(?:async\s+)?(?:function\*?\s*|class\s+|(?:const|let|var)\s+)([\w$]+)")

Id = str | tuple[str, str]  # a sentence, or a plural's singular and plural


@cache
def script_ids(name: str, unsaid: frozenset[str] = frozenset()) -> tuple[Id, ...]:
    """The ids that static/js/`name` and the modules it imports (./x.js) say, in the order they are met; with
    `unsaid` ("module.js:function"), not those said only inside those top-level functions."""
    seen: dict[Id, None] = {}
    pending, visited = [name], set()
    while pending:
        current = pending.pop(0)
        if current in visited:
            continue
        visited.add(current)
        source = (SCRIPTS_DIR / current).read_bytes()
        statements = top_level(source.decode())
        left_out = {entry.split(":", 1)[1] for entry in unsaid if entry.split(":", 1)[0] == current}
        if missing := left_out - {declared for _, declared in statements}:
            raise ValueError(f"{current} declares no {sorted(missing)} at its top level")
        for line, message, _comments, _context in extract("javascript", io.BytesIO(source), KEYWORDS):
            if left_out and _declared_at(statements, line) in left_out:
                continue
            seen[message if isinstance(message, str) else (message[0], message[1])] = None
        pending += _IMPORT.findall(source.decode())
    return tuple(seen)


def top_level(source: str) -> list[tuple[int, str | None]]:
    """Where each top-level statement of a module begins (its line, from 1) and what it declares (a function's,
    class's or constant's name; None for a statement that declares nothing)."""
    return [(number, declares[1] if (declares := _DECLARES.match(line)) else None)
            for number, line in enumerate(source.splitlines(), 1) if _STATEMENT.match(line)]


def _declared_at(statements: list[tuple[int, str | None]], line: int) -> str | None:
    """The name the top-level statement holding `line` declares."""
    return next((declared for start, declared in reversed(statements) if start <= line), None)


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
