"""Every refusal is a 4xx with a sentence: JSON under /api, a page elsewhere."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from limits.errors import StorageError
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException
from starlette.routing import Match

from app.quiz import UnknownQuestion
from app.refusal import Refusal
from app.web.platform.rendering import render


def _wants_json(request: Request) -> bool:
    path = request.url.path
    # The training stream is read by script (static/js/train.js), which shows the refusal's sentence.
    return (path.startswith(("/api", "/credentials/")) or path in ("/oembed", "/train/stream")
            or path.endswith((".json", ".jwt")))


def _without_trailing_slash(request: Request) -> str | None:
    """/quiz for /quiz/ where /quiz is a page, as a path (with the query), never an absolute URL: the request's
    Host header, which anyone may set, must not choose where a redirect goes (the framework's own did)."""
    path = request.url.path
    if len(path) < 2 or not path.endswith("/") or path.startswith("//"):
        return None
    scope = {**request.scope, "path": path.rstrip("/") or "/"}
    if not any(route.matches(scope)[0] != Match.NONE for route in request.app.router.routes):
        return None
    query = request.url.query
    return scope["path"] + (f"?{query}" if query else "")


def respond_error(request: Request, status: int, message: str) -> Response:
    if _wants_json(request):
        return JSONResponse({"detail": message}, status_code=status)
    return render(request, "error.html", {"status": status, "message": message}, status_code=status)


def _validation_sentence(errors: list[dict[str, Any]]) -> str:
    sentences = []
    for error in errors[:3]:
        loc = [str(part) for part in error.get("loc", ()) if part not in ("body", "query", "path")]
        where = ".".join(loc) or "The request body"
        message = str(error.get("msg", "is invalid"))
        if error.get("type") == "missing":
            sentences.append(f"{where} is required." if loc else "The request needs a JSON body.")
        elif error.get("type") == "string_too_short" and (error.get("ctx") or {}).get("min_length") == 1:
            sentences.append(f"{where} is empty; it needs at least one character.")
        elif error.get("type") == "json_invalid":
            sentences.append("The request body is not valid JSON.")
        else:
            sentences.append(f"{where}: {message[0].lower() + message[1:]}.")
    return " ".join(sentences)


# What every refusal carries (DESIGN.md section 3): one sentence, not FastAPI's list of validation errors.
ERROR_SCHEMA: dict[str, Any] = {
    "title": "Refusal",
    "type": "object",
    "properties": {"detail": {"type": "string", "minLength": 1, "description": "a sentence a person can act on"}},
    "required": ["detail"],
}


def _document_refusals(app: FastAPI) -> None:
    """Make /openapi.json declare the 422 body these handlers send instead of FastAPI's list of errors."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        schema = build()
        schemas = schema.get("components", {}).get("schemas", {})
        if "HTTPValidationError" in schemas:
            schemas["HTTPValidationError"] = ERROR_SCHEMA
            schemas.pop("ValidationError", None)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


# What is not a Refusal but is still refused, not failed: (status, sentence, Retry-After seconds or None).
UNAVAILABLE = "The database is not available or not migrated yet; try again in a minute."
FIXED_ANSWERS: dict[type[Exception], tuple[int, str, int | None]] = {
    # a stored attempt names a question the bank no longer has
    UnknownQuestion: (409, "The question bank was edited since this attempt began and one of its questions is "
                           "gone; start a new attempt at /quiz.", None),
    OperationalError: (503, UNAVAILABLE, 60),
    # raised by the Redis rate-limit storage (app/services/rate_counters.py); the database one raises OperationalError
    StorageError: (503, "The rate-limit counters are not reachable just now; try again in a minute.", 60),
}


def _http_error(request: Request, exc: HTTPException) -> Response:
    # A route's own sentence is kept; the framework's bare status phrases are replaced by one.
    own = isinstance(exc.detail, str) and exc.detail != HTTPStatus(exc.status_code).phrase
    message = exc.detail if own else None
    if exc.status_code == 404 and message is None and (without := _without_trailing_slash(request)):
        return RedirectResponse(without, status_code=307)
    if exc.status_code == 404 and message is None:
        message = f"There is no page at {request.url.path[:80]}; the home page at / links to everything."
    elif exc.status_code == 405 and message is None:
        message = f"{request.method} is not allowed here."
    response = respond_error(request, exc.status_code, message or "The request was refused.")
    for name, value in (exc.headers or {}).items():
        response.headers[name] = value
    return response


async def _refused(request: Request, exc: Exception) -> Response:
    """The one handler: a Refusal with its own status and sentence, a fixed answer, or a framework refusal."""
    if isinstance(exc, Refusal):
        response = respond_error(request, exc.status, str(exc))
        if exc.retry_after is not None:
            response.headers["Retry-After"] = str(exc.retry_after)
        return response
    if isinstance(exc, RequestValidationError):
        return respond_error(request, 422, _validation_sentence(list(exc.errors())))
    if isinstance(exc, HTTPException):
        return _http_error(request, exc)
    status, sentence, retry_after = next(answer for kind, answer in FIXED_ANSWERS.items() if isinstance(exc, kind))
    response = respond_error(request, status, sentence)
    if retry_after is not None:
        response.headers["Retry-After"] = str(retry_after)
    return response


def install(app: FastAPI) -> None:
    _document_refusals(app)
    for kind in (*FIXED_ANSWERS, Refusal, RequestValidationError, HTTPException):
        app.add_exception_handler(kind, _refused)
