"""Every refusal is a 4xx with a sentence: JSON under /api, a page elsewhere."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException

from app.formats import InputError, NotScalarError, UnknownFormatError
from app.web.rendering import render


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api") or request.url.path == "/oembed"


def respond_error(request: Request, status: int, message: str) -> Response:
    if _wants_json(request):
        return JSONResponse({"detail": message}, status_code=status)
    return render(request, "error.html", {"status": status, "message": message}, status_code=status)


def _validation_sentence(errors: list[dict[str, Any]]) -> str:
    sentences = []
    for error in errors[:3]:
        loc = [str(part) for part in error.get("loc", ()) if part not in ("body", "query", "path")]
        where = ".".join(loc) or "the request"
        message = str(error.get("msg", "is invalid"))
        if error.get("type") == "missing":
            sentences.append(f"{where} is required.")
        elif error.get("type") == "json_invalid":
            sentences.append("The request body is not valid JSON.")
        else:
            sentences.append(f"{where}: {message[0].lower() + message[1:]}.")
    return " ".join(sentences)


def install(app: FastAPI) -> None:
    async def input_error(request: Request, exc: Exception) -> Response:
        return respond_error(request, 422, str(exc))

    async def unknown_format(request: Request, exc: Exception) -> Response:
        return respond_error(request, 404, str(exc))

    async def invalid_request(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return respond_error(request, 422, _validation_sentence(list(exc.errors())))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        message = exc.detail if isinstance(exc.detail, str) and exc.status_code != 404 else None
        if exc.status_code == 404:
            message = f"There is no page at {request.url.path[:80]}; the home page at / links to everything."
        elif exc.status_code == 405:
            message = f"{request.method} is not allowed here."
        response = respond_error(request, exc.status_code, message or "The request was refused.")
        for name, value in (exc.headers or {}).items():
            response.headers[name] = value
        return response

    app.add_exception_handler(InputError, input_error)
    app.add_exception_handler(NotScalarError, input_error)
    app.add_exception_handler(UnknownFormatError, unknown_format)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(HTTPException, http_error)
