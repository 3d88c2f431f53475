"""Operational endpoints: liveness and readiness, for load balancers and for the benchmark's baseline."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from sqlalchemy import Engine, text
from sqlalchemy.exc import SQLAlchemyError

from app.store import migrations

router = APIRouter(include_in_schema=False)


@router.get("/healthz", response_class=PlainTextResponse)
def healthz() -> str:
    """The process is up; no work behind it, so it is also the benchmark's trivial endpoint."""
    return "ok"


@lru_cache(maxsize=1)
def _head_revisions() -> frozenset[str]:
    """The newest revision(s) this code's migrations define; they change only with a deploy."""
    return frozenset(ScriptDirectory(str(Path(migrations.__file__).parent)).get_heads())


def _unready_reason(engine: Engine) -> str | None:
    """Why the database cannot serve this code yet, or None when it can."""
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
            current = frozenset(MigrationContext.configure(connection).get_current_heads())
    except SQLAlchemyError as error:
        return f"The database does not answer ({type(error).__name__}); check DATABASE_URL and that it is running."
    if current != _head_revisions():
        found = ", ".join(sorted(current)) or "none"
        wanted = ", ".join(sorted(_head_revisions()))
        return f"The database schema is at revision {found}, not {wanted}; run `precision-lab migrate`."
    return None


@router.get("/readyz")
def readyz(request: Request) -> JSONResponse:
    """Ready for traffic: the database answers and its schema is at the newest migration."""
    reason = _unready_reason(request.app.state.engine)
    headers = {"Cache-Control": "no-store"}
    if reason is not None:
        return JSONResponse({"status": "unavailable", "detail": reason}, status_code=503, headers=headers)
    return JSONResponse({"status": "ready"}, headers=headers)
