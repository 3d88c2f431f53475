"""A no-op marker for the core's sentences that pages show (scenario lessons, recipe names and summaries).

The core never imports the web layer: `N_` only marks a string for extraction (babel.cfg reads app/**.py), and the
web layer translates the value where it shows it (`gettext(value)`, `{{ _(value) }}` in a template).
"""

from __future__ import annotations


def N_(message: str) -> str:  # noqa: N802 (gettext's own name for it)
    return message
