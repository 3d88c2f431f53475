"""Operational endpoints: liveness and readiness, for load balancers and for the benchmark's baseline."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse

from app.services.database import unready_reason
from app.web.platform.schemas import ReadinessAnswer

router = APIRouter(include_in_schema=False)


@router.get("/healthz", response_class=PlainTextResponse)
def healthz() -> str:
    """The process is up; no work behind it, so it is also the benchmark's trivial endpoint."""
    return "ok"


@router.get("/readyz", response_model=ReadinessAnswer, responses={503: {
    "model": ReadinessAnswer, "description": "The database does not answer or is not at the newest migration"}})
def readyz(request: Request) -> JSONResponse:
    """Ready for traffic: the database answers and its schema is at the newest migration."""
    reason = unready_reason(request.app.state.engine)
    headers = {"Cache-Control": "no-store"}
    if reason is not None:
        return JSONResponse({"status": "unavailable", "detail": reason}, status_code=503, headers=headers)
    return JSONResponse({"status": "ready"}, headers=headers)
