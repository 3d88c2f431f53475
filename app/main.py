"""create_app(settings) and `app`: wiring only."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.middleware.gzip import GZipMiddleware

from app.quiz import load_bank
from app.services.rate_counters import counter_storage
from app.services.train_workers import TrainWorkers
from app.services.training_runs import TrainRuns
from app.settings import Settings, get_settings
from app.store.database import create_database_engine, migrate
from app.web.arithmetic import api as arithmetic_api
from app.web.arithmetic import pages as arithmetic_pages
from app.web.compare import pages as compare_pages
from app.web.dot import api as dot_api
from app.web.dot import pages as dot_pages
from app.web.embed import pages as embed_pages
from app.web.formats import pages as format_pages
from app.web.home import pages as home_pages
from app.web.learn import accumulation, api_docs, hardware_page, memory_calculator
from app.web.learn import pages as learn_pages
from app.web.platform import health, metrics, refusal_handlers, schemas
from app.web.platform.headers import SecurityHeaders
from app.web.platform.language_prefix import LanguagePrefixes
from app.web.platform.page_etags import PageETags
from app.web.platform.rate_limiting import RateLimits
from app.web.platform.rendering import STATIC_DIR, STATIC_VERSION
from app.web.platform.request_limits import RequestLimits
from app.web.platform.request_log import RequestLog
from app.web.platform.server_errors import ServerErrors
from app.web.platform.static_files import IMMUTABLE, REVALIDATE, CachedStaticFiles
from app.web.quiz import api as quiz_api
from app.web.quiz import certificates
from app.web.quiz import pages as quiz_pages
from app.web.train import api as train_api
from app.web.train import pages as train_pages
from app.web.train import recipe_styles
from app.web.train import script as train_script
from app.web.visualise import api as formats_api
from app.web.visualise import pages as visualiser_pages

# Every router of the site, each included here and nowhere else.
ROUTERS = (
    home_pages, visualiser_pages, compare_pages, arithmetic_pages, arithmetic_api, format_pages, formats_api, api_docs,
    train_pages, train_api, train_script, recipe_styles, learn_pages, memory_calculator, accumulation, hardware_page,
    embed_pages, quiz_pages, quiz_api, certificates, dot_pages, dot_api, health, metrics,
)


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Read the question bank (a broken file stops the start with its file and line), the key and the database;
    open the rate-limit counters; make the training processes' pool (its fork server starts now, in the background;
    each process when a run first needs one) and the runs' scheduler and cache."""
    settings: Settings = app.state.settings
    app.state.quiz_bank = load_bank()
    app.state.signing_key = settings.load_signing_key()
    # every key a stored signature may be checked against: the current one first
    app.state.verification_keys = [app.state.signing_key.public_key(), *settings.load_previous_public_keys()]
    if settings.environment == "development":
        migrate(settings.database_url)  # a bare `uvicorn app.main:app` on a new database; production migrates apart
    app.state.engine = create_database_engine(settings.database_url)
    app.state.rate_limits = RateLimits(settings, counter_storage(settings, app.state.engine))
    app.state.train_workers = TrainWorkers(settings.train_processes or settings.train_max_concurrent_runs)
    app.state.train_workers.warm()
    app.state.train_runs = TrainRuns(settings.train_max_concurrent_runs, settings.train_cache_runs,
                                     max_seconds=settings.train_max_seconds, send_timeout=settings.train_send_timeout,
                                     workers=app.state.train_workers)
    try:
        yield
    finally:
        app.state.train_workers.close()
        app.state.engine.dispose()


GZIP_MINIMUM_BYTES = 512  # below a packet's worth, compressing saves nothing


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    app = FastAPI(
        title="Precision Lab",
        description="Exact encodings of number formats, from FP64 to FP4 and the block-scaled MX formats.",
        version="0.1.0",
        debug=settings.debug,
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
        redirect_slashes=False,  # app/web/platform/refusal_handlers.py redirects to a path, never to the request's Host
    )
    app.state.settings = settings
    refusal_handlers.install(app)
    schemas.document_stated_numbers(app)
    for module in ROUTERS:
        app.include_router(module.router)
    app.mount(f"/static/{STATIC_VERSION}", CachedStaticFiles(STATIC_DIR, IMMUTABLE), name="static-versioned")
    app.mount("/static", CachedStaticFiles(STATIC_DIR, REVALIDATE), name="static")
    app.add_middleware(ServerErrors)  # innermost of ours: its 500 passes through the ones below
    app.add_middleware(PageETags)  # inside the compression: the tag is of the page itself
    # Text compressed for clients that ask (never the event stream, which Starlette leaves alone: it must flow)
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MINIMUM_BYTES, compresslevel=6)
    app.add_middleware(RequestLimits, max_body_bytes=settings.max_body_bytes, max_query_bytes=settings.max_query_bytes)
    # /tr/... reaches the routes as /... in Turkish; its own redirects and refusals get the headers below too
    app.add_middleware(LanguagePrefixes)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(RequestLog)  # outermost: it times, counts and logs the refusals of the others too
    return app


app = create_app()
