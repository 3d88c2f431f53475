"""The core's sentences as message templates, so that the web layer can show them in the page's language without
the core importing it: a template marked with the no-op `N_` (app/messages.py, re-exported here) and its
parameters. In English a message is its template filled in (str(message)); the web layer translates the template
and fills in the same parameters (app/web/quiz/localised.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from app.messages import N_

__all__ = ["N_", "Message", "fill"]


@dataclass(frozen=True)
class Message:
    """A template (`%(name)s` placeholders) and its parameters: text, numbers, messages, or tuples of messages
    (shown joined by "; ")."""

    template: str
    params: Mapping[str, object] = field(default_factory=dict)

    def __str__(self) -> str:
        return fill(self.template, self.params, str)


def fill(template: str, params: Mapping[str, object], show: Callable[[Message], str]) -> str:
    """The template with its parameters, each message among them shown by `show` (str, or a translation)."""
    def one(value: object) -> object:
        if isinstance(value, Message):
            return show(value)
        if isinstance(value, tuple):
            return "; ".join(str(one(item)) for item in value)
        return value
    return template % {name: one(value) for name, value in params.items()} if params else template
