"""The gettext catalogs (locales/<code>/LC_MESSAGES/messages.po), and what templates and routes translate with.

Templates mark strings with `{% trans %}`/`{{ _("...") }}` and plurals with `{% trans count=n %}...{% pluralize %}`
or `ngettext`; Python code of the web layer with `gettext`/`ngettext` from here, and strings made before any request
(module constants) with `N_`, translated where they are shown. All of them speak the current request's language
(app/web/platform/languages.py); `make messages` extracts them (babel.cfg) and updates the catalogs, and the Makefile
compiles each catalog to its .mo for the server. A catalog whose .mo is missing or older than its .po is compiled in
memory instead, so that a checkout that skipped `make` still serves what the catalogs say.
"""

from __future__ import annotations

import datetime
import gettext as stdlib_gettext
import io
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path

from babel.dates import format_date
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal, get_decimal_symbol, get_group_symbol
from babel.support import NullTranslations, Translations
from jinja2 import Environment

from app.messages import N_ as N_  # the one no-op marker, the cores' too: mark where made, gettext where shown
from app.web.platform.languages import ENGLISH_CODE, current_language

LOCALES_DIR = Path(__file__).resolve().parents[3] / "locales"
DOMAIN = "messages"
UNREVIEWED = "Unreviewed"  # how a catalog's Language-Team header starts until a fluent reader has reviewed it


def catalog_path(code: str, suffix: str = ".po") -> Path:
    return LOCALES_DIR / code / "LC_MESSAGES" / f"{DOMAIN}{suffix}"


@cache
def translations(code: str) -> NullTranslations:
    """The compiled catalog of a served language (English: the messages themselves)."""
    if code == ENGLISH_CODE:
        return NullTranslations()
    po, mo = catalog_path(code), catalog_path(code, ".mo")
    if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
        with mo.open("rb") as compiled:
            return Translations(compiled, domain=DOMAIN)
    with po.open("rb") as source:
        catalog = read_po(source, locale=code, domain=DOMAIN)
    compiled_in_memory = io.BytesIO()
    write_mo(compiled_in_memory, catalog)
    compiled_in_memory.seek(0)
    return Translations(compiled_in_memory, domain=DOMAIN)


def _current() -> stdlib_gettext.NullTranslations:
    return translations(current_language().code)


def gettext(message: str) -> str:
    """`message` in the current request's language."""
    return _current().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for `n`, as the current language's plural rule picks it."""
    return _current().ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    return _current().pgettext(context, message)


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    return _current().npgettext(context, singular, plural, n)


@dataclass(frozen=True)
class CatalogInfo:
    """Who translated a catalog and whether a fluent reader has reviewed it, from its header."""

    translator: str
    team: str

    @property
    def reviewed(self) -> bool:
        return not self.team.startswith(UNREVIEWED)


def catalog_info(code: str | None = None) -> CatalogInfo | None:
    """The current (or named) language's catalog header; None for English, which is the source."""
    code = code or current_language().code
    if code == ENGLISH_CODE:
        return None
    info = getattr(translations(code), "_info", {})
    return CatalogInfo(info.get("last-translator", ""), info.get("language-team", ""))


# -- numbers and dates in prose ------------------------------------------------------------------


def prose_decimal(value: float | int | Decimal, digits: int | None = None) -> str:
    """A number in running text in the current language's notation (1.234,5 in Turkish). Never for bit patterns,
    hex or the exact values the lab computes: those keep their canonical notation on every page."""
    pattern = None if digits is None else ("#,##0." + "0" * digits if digits else "#,##0")
    return format_decimal(value, format=pattern, locale=current_language().locale)


def local_digits(text: str) -> str:
    """A number the lab wrote with "," grouping and "." decimals (1,234.5) in the page's language (1.234,5)."""
    locale = current_language().locale
    decimal, group = get_decimal_symbol(locale), get_group_symbol(locale)
    if (decimal, group) == (".", ","):
        return text
    return text.translate({ord(","): group, ord("."): decimal})


def prose_date(value: datetime.date | datetime.datetime, form: str = "long") -> str:
    """A date in the current language (14 Mart 2026, 14 Μαρτίου 2026)."""
    return format_date(value, format=form, locale=current_language().locale)


def install(env: Environment) -> None:
    """Jinja2's i18n extension with the new-style gettext (%(name)s placeholders are checked, output escaped),
    whitespace trimmed in {% trans %} blocks (as babel.cfg extracts them), and the prose number and date filters."""
    env.add_extension("jinja2.ext.i18n")
    env.policies["ext.i18n.trimmed"] = True
    env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext, ngettext, newstyle=True, pgettext=pgettext, npgettext=npgettext)
    env.filters["decimal"] = prose_decimal
    env.filters["date"] = prose_date
    env.globals["catalog_info"] = catalog_info

