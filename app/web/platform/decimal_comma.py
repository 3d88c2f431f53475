"""A number typed on a page in a language that writes a decimal comma (Turkish, Greek: 0,1), read as the formats
core reads numbers (0.1). The core (app/formats/parse.py) knows one notation; the web layer turns the other into it
before calling the core, here and nowhere else; static/js/decimal_comma.js does the same for the pages' script.

The rule: only a plain decimal with exactly one comma and no point (0,1 · -2,5 · ,5 · 1,5e-3) is changed, and only
in a language whose decimal symbol is a comma. Everything else is left as typed, for the core to read or refuse
with its sentence: 1.234,5 (grouping is not read), 0x1,8p-3, 1,2,3.

A list of values (the block visualiser's box) is not a number: its commas separate values. In a comma language a
list that holds a semicolon or a new line is split on those instead, each item read as a number above, and handed
to the core with the core's separators (`typed_list`); any other list is left as typed (docs/translating.md).
"""

from __future__ import annotations

import re

from app.web.platform.languages import Language, current_language

_COMMA_DECIMAL = re.compile(r"\s*[+\-\u2212]?(?:[0-9]+,[0-9]*|,[0-9]+)(?:[eE][+\-\u2212]?[0-9]+)?\s*", re.ASCII)


_LIST_MODE = re.compile(r"[;\n]")  # what makes a list's commas decimal commas
_LIST_SEPARATORS = re.compile(r"[;\s]+")


def typed_list(text: str, language: Language | None = None) -> str:
    """A list of values typed in `language` (the current one), in the notation the core splits: where the language
    writes a decimal comma and the list holds a `;` or a new line, its items (split on those and on spaces) are
    read with `typed_number` and joined by ", "; else `text` as typed."""
    language = language or current_language()
    if not language.decimal_comma or not _LIST_MODE.search(text):
        return text
    return ", ".join(typed_number(item, language) for item in _LIST_SEPARATORS.split(text) if item)


def typed_number(text: str, language: Language | None = None) -> str:
    """`text` with its decimal comma made a point where `language` (the current one) writes a comma; else as is."""
    if (language or current_language()).decimal_comma and _COMMA_DECIMAL.fullmatch(text):
        return text.replace(",", ".")
    return text
