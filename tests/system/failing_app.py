"""The app with one route that fails on purpose, for `uvicorn --factory tests.system.failing_app:create`."""

from __future__ import annotations

from fastapi import FastAPI

from app.main import create_app

FAILING_PATH = "/api/fail-on-purpose"


def _fail() -> None:
    raise RuntimeError("a bug, on purpose")


def create() -> FastAPI:
    app = create_app()
    app.add_api_route(FAILING_PATH, _fail)
    return app
