"""Every refusal is a 4xx with a sentence: JSON under /api, a page elsewhere."""

from __future__ import annotations

from collections.abc import Callable
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
from app.web.platform.catalogs import N_, gettext
from app.web.platform.languages import ENGLISH_CODE, current_language, localised
from app.web.platform.refusal_sentences import refusal_sentence
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


def respond_error(request: Request, status: int, message: str, page_message: str | None = None) -> Response:
    """JSON with `message` (English, the API's contract), or the error page in the page's language: `page_message`
    where the caller has one, else `message` translated where the catalogs have it (a sentence marked N_), else
    as it is, marked English on the page."""
    if _wants_json(request):
        return JSONResponse({"detail": message}, status_code=status)
    shown = gettext(message) if page_message is None else page_message
    language = current_language().code if page_message is not None or shown != message else ENGLISH_CODE
    context = {"status": status, "message": shown, "message_language": language}
    return render(request, "error.html", context, status_code=status)


def _english(message: str) -> str:
    return message


def _validation_sentence(errors: list[dict[str, Any]], say: Callable[[str], str] = _english) -> str:
    """One sentence per error (three at most), in English, or in the page's language with say=gettext."""
    sentences = []
    for error in errors[:3]:
        loc = [str(part) for part in error.get("loc", ()) if part not in ("body", "query", "path")]
        where = ".".join(loc) or say(N_("The request body"))
        message = str(error.get("msg", "is invalid"))
        if error.get("type") == "missing":
            sentences.append(say(N_("%(where)s is required.")) % {"where": where} if loc
                             else say(N_("The request needs a JSON body.")))
        elif error.get("type") == "string_too_short" and (error.get("ctx") or {}).get("min_length") == 1:
            sentences.append(say(N_("%(where)s is empty; it needs at least one character.")) % {"where": where})
        elif error.get("type") == "json_invalid":
            sentences.append(say(N_("The request body is not valid JSON.")))
        else:
            sentences.append(f"{where}: {message[0].lower() + message[1:]}.")  # pydantic's words, in English
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


REFUSED = N_("The request was refused.")

# What is not a Refusal but is still refused, not failed: (status, sentence, Retry-After seconds or None).
UNAVAILABLE = N_("The database is not available or not migrated yet; try again in a minute.")
FIXED_ANSWERS: dict[type[Exception], tuple[int, str, int | None]] = {
    # a stored attempt names a question the bank no longer has
    UnknownQuestion: (409, N_("The question bank was edited since this attempt began and one of its questions is "
                              "gone; start a new attempt at /quiz."), None),
    OperationalError: (503, UNAVAILABLE, 60),
    # raised by the Redis rate-limit storage (app/services/rate_counters.py); the database one raises OperationalError
    StorageError: (503, N_("The rate-limit counters are not reachable just now; try again in a minute."), 60),
}


def _http_error(request: Request, exc: HTTPException) -> Response:
    # A route's own sentence is kept; the framework's bare status phrases are replaced by one.
    own = isinstance(exc.detail, str) and exc.detail != HTTPStatus(exc.status_code).phrase
    message = exc.detail if own else None
    page_message = None
    if exc.status_code == 404 and message is None and (without := _without_trailing_slash(request)):
        return RedirectResponse(without, status_code=307)
    if exc.status_code == 404 and message is None:
        path = request.url.path[:80]
        message = f"There is no page at {path}; the home page at / links to everything."
        page_message = gettext("There is no page at %(path)s; the home page at %(home)s links to everything.") % {
            "path": localised(path), "home": localised("/")}
    elif exc.status_code == 405 and message is None:
        message = f"{request.method} is not allowed here."
        page_message = gettext("%(method)s is not allowed here.") % {"method": request.method}
    response = respond_error(request, exc.status_code, message or REFUSED, page_message)
    for name, value in (exc.headers or {}).items():
        response.headers[name] = value
    return response


async def _refused(request: Request, exc: Exception) -> Response:
    """The one handler: a Refusal with its own status and sentence, a fixed answer, or a framework refusal."""
    if isinstance(exc, Refusal):
        sentence = refusal_sentence(exc)  # the page's language where the catalogs have it; the JSON keeps English
        response = respond_error(request, exc.status, str(exc), sentence if sentence != str(exc) else None)
        if exc.retry_after is not None:
            response.headers["Retry-After"] = str(exc.retry_after)
        return response
    if isinstance(exc, RequestValidationError):
        errors = list(exc.errors())
        return respond_error(request, 422, _validation_sentence(errors), _validation_sentence(errors, gettext))
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
