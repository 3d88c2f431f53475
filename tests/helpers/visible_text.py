"""The text a reader meets on a page, piece by piece, with the language each piece is marked as: every text node
(whitespace collapsed) and the attributes read aloud or shown (aria-label, title, placeholder, alt), outside
scripts, styles and code. The "no English left" tests compare a translated page's pieces with the English page's."""

from __future__ import annotations

import re
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

from tests.helpers.html import VOID

SKIPPED = frozenset({"script", "style", "code", "pre", "kbd", "samp", "template"})
READ_ATTRIBUTES = ("aria-label", "title", "placeholder", "alt")
WORD = re.compile(r"[A-Za-z]{3,}")
ALLOWED_FILE = Path(__file__).resolve().parents[1] / "web" / "i18n_allowed.txt"


Region = Callable[[str, dict[str, str | None]], bool]


class VisibleText(HTMLParser):
    """`pieces`: (text, language) for each piece of text a reader meets, in document order; with `inside`, only
    those within an element it chooses (by tag and attributes: `lambda tag, attrs: tag == "main"`)."""

    def __init__(self, html: str, inside: Region | None = None) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[tuple[str, str]] = []
        self._inside = inside
        self._stack: list[tuple[str, str, bool]] = []  # (tag, language, skipped)
        self.feed(html)
        self.close()

    def _here(self) -> tuple[str, bool]:
        if self._stack:
            return self._stack[-1][1], self._stack[-1][2]
        return "", self._inside is not None  # outside every chosen region: skipped

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        language, skipped = self._here()
        values = dict(attrs)
        language = values.get("lang") or language
        chosen = self._inside is not None and self._inside(tag, values)
        skipped = (skipped and not chosen) or tag in SKIPPED
        if not skipped:
            for name in READ_ATTRIBUTES:
                if values.get(name):
                    self._add(values[name] or "", language)
        if tag not in VOID:
            self._stack.append((tag, language, skipped))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self._stack.pop()

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self._stack) - 1, -1, -1):
            if self._stack[depth][0] == tag:
                del self._stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        language, skipped = self._here()
        if not skipped:
            self._add(data, language)

    def _add(self, text: str, language: str) -> None:
        text = " ".join(text.split())
        if text:
            self.pieces.append((text, language))


LANGUAGE_LINE = re.compile(r"^([a-z]{2}): (.*)$")


def allowed_patterns(code: str) -> list[re.Pattern[str]]:
    """The allow-list for language `code`: one regular expression a line (whole-piece match), `tr: ...` for a line
    that holds in that language only (a word Turkish shares with English), # for comments."""
    patterns = []
    for line in ALLOWED_FILE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        own = LANGUAGE_LINE.match(line)
        if own and own[1] != code:
            continue
        patterns.append(re.compile(own[2] if own else line))
    return patterns


def english_left(translated_html: str, english_html: str, code: str) -> list[str]:
    """The pieces of the translated page, marked as in its language, that are the English page's own words: the
    same text as a piece of the English page, with a word of three Latin letters or more, and not on the
    allow-list (numbers, format names, code, names)."""
    english = {text for text, _ in VisibleText(english_html).pieces}
    allowed = allowed_patterns(code)
    left = []
    for text, language in VisibleText(translated_html).pieces:
        if language.split("-")[0] != code or text not in english or not WORD.search(text):
            continue
        if not any(pattern.fullmatch(text) for pattern in allowed):
            left.append(text)
    return sorted(set(left))
