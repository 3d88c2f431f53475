"""Refusal: what every layer raises for a request it will not carry out, with the sentence a person can act on
and the HTTP status that says what kind of refusal it is.

The cores' input, configuration, answer and lookup errors, and the store's, are Refusals; the web layer answers
every one the same way (app/web/platform/errors.py), so no route maps exceptions to statuses on its own. It is a
ValueError, so that a pydantic validator raising one refuses the field it checks.

A refusal may carry its sentence as a `template` (English, marked N_, with %(name)s placeholders) and `params`
(already formatted as the English shows them): str() is then `template % params`, and a page can show the
sentence in its own language (app/web/platform/refusals.py) while the API keeps the English.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType


class Refusal(ValueError):
    """A request refused; str() is the sentence, `status` the HTTP status (422 unless a subclass says)."""

    status = 422
    retry_after: int | None = None  # seconds, sent as Retry-After, when waiting is what the person can do
    template: str | None = None  # the sentence's N_-marked English template, when it has one
    params: Mapping[str, str] = MappingProxyType({})

    def __init__(self, *args: object, template: str | None = None, params: Mapping[str, str] | None = None) -> None:
        if template is not None:
            self.template, self.params = template, dict(params or {})
            args = (template % self.params,)
        super().__init__(*args)


class NotFound(Refusal, LookupError):
    """Something asked for by name or id that is not there."""

    status = 404


class Conflict(Refusal):
    """A request at odds with what is stored: it was done already, or can no longer be done."""

    status = 409
