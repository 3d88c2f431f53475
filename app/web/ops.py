"""Operational endpoints: liveness, for load balancers and for the benchmark's baseline."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

router = APIRouter(include_in_schema=False)


@router.get("/healthz", response_class=PlainTextResponse)
def healthz() -> str:
    """The process is up; no work behind it, so it is also the benchmark's trivial endpoint."""
    return "ok"
