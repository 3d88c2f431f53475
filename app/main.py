"""create_app(settings) and `app`: wiring only."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from app.settings import Settings, get_settings
from app.web import api, compare, docs_page, errors, formats_page, home, ops, train, visualise
from app.web.rendering import ROOT
from app.web.security import SecurityHeaders


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    app = FastAPI(
        title="Precision Lab",
        description="Exact encodings of number formats, from FP64 to FP4 and the block-scaled MX formats.",
        version="0.1.0",
        debug=settings.debug,
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    errors.install(app)
    for module in (home, visualise, compare, formats_page, docs_page, train, api, ops):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=ROOT / "static"), name="static")
    app.add_middleware(SecurityHeaders)
    return app


app = create_app()
