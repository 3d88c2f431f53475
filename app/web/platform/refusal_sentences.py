"""A refusal's sentence in the page's language: the core's English template (app/messages.py) looked up in
the current catalog and filled with its parameters, the ones that are words (a Phrase) translated too.

The JSON API keeps str(refusal), the English; pages show refusal_sentence(refusal), and core_text(...) of the
core's other sentences (a format's summary, an encode's note).
"""

from __future__ import annotations

from collections.abc import Mapping

from app.formats import Phrase
from app.web.platform.catalogs import gettext


def refusal_sentence(error: BaseException) -> str:
    """The refusal's sentence in the current language; str(error) for one without a template (or whose
    translation cannot be filled, which tests/unit/test_catalogs.py keeps from happening)."""
    template = getattr(error, "template", None)
    if template is None:
        return str(error)
    try:
        return _filled(template, getattr(error, "params", {}))
    except (KeyError, ValueError, TypeError):
        return str(error)


def core_text(text: str) -> str:
    """A sentence of the formats core as pages show it (a format's summary, an encode's note): a Phrase filled in
    the current language, an N_-marked str looked up; the English where the catalog lacks it."""
    if isinstance(text, Phrase):
        try:
            return _filled(text.template, text.params)
        except (KeyError, ValueError, TypeError):
            return str(text)
    return gettext(text) if text else text


def _filled(template: str, params: Mapping[str, str]) -> str:
    values = {name: _filled(v.template, v.params) if isinstance(v, Phrase) else v for name, v in params.items()}
    return gettext(template) % values
