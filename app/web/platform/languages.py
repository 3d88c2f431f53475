"""The languages the site speaks, and the first path segment that says which one a page is in.

English is unprefixed (/visualise/float16); every other served language puts its code first (/tr/visualise/float16,
/tr/ for the home page, /tr/embed/... for a framed page). app/web/platform/language_prefix.py strips that segment
before the routes see the path and makes its language the current one (`current_language`) for the rest of the
request, so that every route serves every language and every link the site builds can keep it (`localised`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cached_property

from babel import Locale, negotiate_locale
from babel.localedata import locale_identifiers
from babel.numbers import get_decimal_symbol


@dataclass(frozen=True)
class Language:
    """One language the site is served in: its ISO 639-1 code, which is also its URL prefix and its `lang`."""

    code: str

    @property
    def prefix(self) -> str:
        """What its URLs start with: nothing for English, /tr for Turkish."""
        return "" if self.code == ENGLISH_CODE else f"/{self.code}"

    @cached_property
    def locale(self) -> Locale:
        return Locale.parse(self.code)

    @cached_property
    def name(self) -> str:
        """Its name in itself, from Babel's locale data (Türkçe, Ελληνικά, Èdè Yorùbá), as the switcher shows it."""
        name = self.locale.display_name or self.code
        return name[:1].upper() + name[1:] if self.code == ENGLISH_CODE else name

    @cached_property
    def english_name(self) -> str:
        return self.locale.get_display_name("en") or self.code

    @cached_property
    def decimal_comma(self) -> bool:
        """Whether its numbers are written with a decimal comma (0,1), per Babel's locale data."""
        return get_decimal_symbol(self.locale) == ","


ENGLISH_CODE = "en"
ENGLISH = Language(ENGLISH_CODE)
# The order of the language switcher; English first, as the pages are written in it.
LANGUAGES = (ENGLISH, Language("tr"), Language("el"), Language("yo"))
SERVED = {language.code: language for language in LANGUAGES}
PREFIXED = {language.code: language for language in LANGUAGES if language.prefix}

# What "looks like a language" in a URL's first segment: the two-letter (ISO 639-1) language codes of Babel's CLDR
# data. Such a segment that is not served is refused with the list of the served ones, never taken for a page; no
# route of the site may start with one (tests/web/platform/test_languages.py walks app.routes to prove it).
LANGUAGE_CODES = frozenset(code for code in locale_identifiers() if len(code) == 2 and code.isalpha())

_current: ContextVar[Language] = ContextVar("language", default=ENGLISH)


def current_language() -> Language:
    """The language of the request being served (English outside any request)."""
    return _current.get()


@contextmanager
def speaking(language: Language) -> Iterator[None]:
    """Make `language` the current one inside the block: the middleware does it for each request."""
    token = _current.set(language)
    try:
        yield
    finally:
        _current.reset(token)


def localised(path: str, language: Language | None = None) -> str:
    """The path of a page of this site (/visualise/float16, or / for the home page) in `language` (the current
    one by default): /tr/visualise/float16, /tr/. A path that is not the site's own (//host, a full URL) is kept."""
    language = language or current_language()
    if not language.prefix or not path.startswith("/") or path.startswith("//"):
        return path
    return language.prefix + path


def unprefixed(path: str) -> str:
    """The path as the routes see it: without a served language's prefix (/tr/embed/compare → /embed/compare)."""
    first, slash, rest = path[1:].partition("/")
    return "/" + rest if slash and first in PREFIXED else path


def served_sentence() -> str:
    """The sentence that names the languages served, for a refused language prefix."""
    others = ", ".join(f"/{lang.code}/ ({lang.english_name})" for lang in LANGUAGES if lang.prefix)
    return f"English is served unprefixed, at /, and the other languages at {others}."


# -- Accept-Language ---------------------------------------------------------------------------

_MAX_HEADER = 1000  # characters read of the header; a real one is far shorter
_MAX_RANGES = 30  # language ranges weighed; the rest are ignored
_RANGE = re.compile(r"([A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*|\*)", re.ASCII)
_QUALITY = re.compile(r"q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)", re.ASCII | re.IGNORECASE)


def preferred_ranges(header: str | None) -> list[str]:
    """The language ranges of an Accept-Language header (RFC 9110), most wanted first, lower-cased; every part
    that is not well formed is skipped, so no header can fail: a malformed one simply says nothing."""
    weighed: list[tuple[float, int, str]] = []
    for index, item in enumerate((header or "")[:_MAX_HEADER].split(",")[:_MAX_RANGES]):
        tag, *params = (part.strip() for part in item.split(";"))
        if not _RANGE.fullmatch(tag):
            continue
        quality = 1.0
        for param in params:
            match = _QUALITY.fullmatch(param.replace(" ", ""))
            if match:
                quality = float(match[1])
            elif param.lower().startswith("q"):
                quality = -1.0  # a malformed weight: the range is not counted
        if quality > 0:
            weighed.append((-quality, index, tag.lower()))
    return [tag for _, _, tag in sorted(weighed)]


def negotiated(header: str | None) -> Language:
    """The served language an Accept-Language header prefers (tr-TR counts as tr), English where it names none."""
    found = negotiate_locale(preferred_ranges(header), list(SERVED), sep="-", aliases={})
    return SERVED.get((found or ENGLISH_CODE).lower(), ENGLISH)


# -- the language switcher -------------------------------------------------------------------------

CHOICE_QUERY = "lang"  # /?lang=en: a home page chosen with the switcher, remembered (language_prefix.py)


@dataclass(frozen=True)
class SwitchLink:
    """One entry of the language switcher: the same page, in the same state, in `language`."""

    language: Language
    href: str
    current: bool


def switch_links(path: str, query: str) -> list[SwitchLink]:
    """The switcher of the page at `path` (unprefixed, as the routes see it) with `query`: that path and query
    under each language's prefix. A home page is reached through /?lang=<code>, which remembers the choice, so
    that / does not send someone who chose English back to the language of their browser.
    static/js/languages.js repeats this for addresses that script changes (tests/browser/test_languages_live.py)."""
    here = current_language()
    links = []
    for language in LANGUAGES:
        href = f"/?{CHOICE_QUERY}={language.code}" if path == "/" else localised(path, language) + (
            f"?{query}" if query else "")
        links.append(SwitchLink(language, href, language == here))
    return links
