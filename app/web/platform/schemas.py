"""What every JSON route shares in /openapi.json: the refusal body and its `responses=` entries; readiness."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class RefusalBody(BaseModel):
    """A refusal (4xx): one sentence a person can act on, as app/web/platform/errors.py sends it (ERROR_SCHEMA)."""

    detail: str = Field(min_length=1, description="a sentence a person can act on")


def refused(description: str) -> dict[str, Any]:
    """One refusal a route declares in `responses=`: when it happens, and its {"detail": "<sentence>"} body."""
    return {"model": RefusalBody, "description": description}


UNREADABLE_BODY = refused("A request body that cannot be parsed: not UTF-8 text, or nested too deeply")


class Readiness(BaseModel):
    """Whether this instance can serve traffic (GET /readyz)."""

    status: Literal["ready", "unavailable"] = Field(description="ready (200) or unavailable (503)")
    detail: str | None = Field(None, description="when unavailable: why, and what to do; absent when ready")
