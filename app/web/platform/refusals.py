"""A refusal's sentence in the page's language: the core's English template (app/formats/messages.py) looked up in
the current catalog and filled with its parameters, the ones that are words (a Phrase) translated too.

The JSON API keeps str(refusal), the English; pages show refusal_sentence(refusal).
"""

from __future__ import annotations

from collections.abc import Mapping

from app.formats import Phrase
from app.web.platform.translations import gettext


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


def _filled(template: str, params: Mapping[str, str]) -> str:
    values = {name: _filled(v.template, v.params) if isinstance(v, Phrase) else v for name, v in params.items()}
    return gettext(template) % values
