"""Refusal: what every layer raises for a request it will not carry out, with the sentence a person can act on
and the HTTP status that says what kind of refusal it is.

The cores' input, configuration, answer and lookup errors, and the store's, are Refusals; the web layer answers
every one the same way (app/web/platform/errors.py), so no route maps exceptions to statuses on its own. It is a
ValueError, so that a pydantic validator raising one refuses the field it checks.
"""

from __future__ import annotations


class Refusal(ValueError):
    """A request refused; str() is the sentence, `status` the HTTP status (422 unless a subclass says)."""

    status = 422
    retry_after: int | None = None  # seconds, sent as Retry-After, when waiting is what the person can do


class NotFound(Refusal, LookupError):
    """Something asked for by name or id that is not there."""

    status = 404


class Conflict(Refusal):
    """A request at odds with what is stored: it was done already, or can no longer be done."""

    status = 409
