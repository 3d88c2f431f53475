"""The cores' sentences, made translatable without any core knowing of languages: `N_`, the one no-op marker every
core marks its words with (babel.cfg extracts it from app/**.py; the web layer translates the value where it shows
it), and `Phrase`, words with parameters that stay a str.

A refusal (app/refusal.py) carries an English template marked `N_` and its parameters, already formatted as the
English sentence shows them: str() of the refusal is `template % params`, the API's English. The web layer
(app/web/platform/refusal_sentences.py) looks the template up in the page's language. A parameter that is words
rather than input, code or a number is a Phrase, translated with the sentence.
"""

from __future__ import annotations

from collections.abc import Mapping


def N_(text: str) -> str:  # noqa: N802 (gettext's own name for it)
    """Marks an English sentence for extraction; the core never translates it."""
    return text


class Phrase(str):
    """Words inside a refusal's sentence: an N_-marked template and its parameters; as a str, the English."""

    template: str
    params: dict[str, str]

    def __new__(cls, template: str, params: Mapping[str, str] | None = None) -> Phrase:
        filled = dict(params or {})
        phrase = super().__new__(cls, template % filled)
        phrase.template, phrase.params = template, filled
        return phrase

