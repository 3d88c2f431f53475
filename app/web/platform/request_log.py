"""One log line and the metrics of every request, under a request id (pure ASGI, like security.py).

The id is the client's X-Request-ID when it is a plain token (a proxy in front may set one), else a fresh one.
It is echoed in the response's X-Request-ID, kept in request.state.request_id for handlers, and added to every
log record made while the request is handled, so an error's traceback carries it too.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, Literal

from starlette.types import Message, Receive, Scope, Send

from app.web.platform.asgi import HttpMiddleware
from app.web.platform.metrics import UNMATCHED_ROUTE, observe_request

ACCESS_LOGGER = "precision_lab.access"
REQUEST_ID_HEADER = b"x-request-id"
_SANE_REQUEST_ID = re.compile(rb"[A-Za-z0-9._-]{1,64}")
_PATH_CHARACTERS = 200  # enough for every real page; a hostile path is cut, never logged whole
# Fields of the access line, beside the time, level, logger, message, pid and request_id every line has.
_ACCESS_FIELDS = ("method", "path", "route", "status", "duration_ms", "client")

_access_log = logging.getLogger(ACCESS_LOGGER)
current_request_id: ContextVar[str | None] = ContextVar("current_request_id", default=None)


def _request_id(scope: Scope) -> str:
    for name, value in scope["headers"]:
        if name == REQUEST_ID_HEADER and _SANE_REQUEST_ID.fullmatch(value):
            return value.decode()
    return uuid.uuid4().hex


def _route(scope: Scope, root_path: str) -> str:
    """The matched route's template (`/visualise/{format_id}`, `/static/{path}`), never the raw path."""
    template = getattr(scope.get("route"), "path_format", None)
    if isinstance(template, str):
        return template
    # A mount (the static files) sets no route; it shows in the root path it extends by its own prefix.
    mounted_at = scope.get("root_path", "")
    if len(mounted_at) > len(root_path) and mounted_at.startswith(root_path):
        return mounted_at[len(root_path):] + "/{path}"
    return UNMATCHED_ROUTE


class RequestLog(HttpMiddleware):
    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        root_path = scope.get("root_path", "")
        request_id = _request_id(scope)
        scope.setdefault("state", {})["request_id"] = request_id
        # Not reset afterwards: the server runs each request in a task of its own, with its own copy of the
        # context, and its log of an exception that escapes the app comes after this call returns.
        current_request_id.set(request_id)
        status = 500  # what the client gets when the app fails before it starts a response

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), (REQUEST_ID_HEADER, request_id.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            route = _route(scope, root_path)
            observe_request(scope["method"], route, status, seconds)
            _log_access(scope, request_id, route, status, seconds)


def _log_access(scope: Scope, request_id: str, route: str, status: int, seconds: float) -> None:
    if not _access_log.isEnabledFor(logging.INFO):
        return
    path = scope["path"][:_PATH_CHARACTERS]
    client = scope.get("client")
    fields = {
        "request_id": request_id, "method": scope["method"][:16], "path": path, "route": route, "status": status,
        "duration_ms": round(seconds * 1000, 2), "client": client[0] if client else None,
    }
    _access_log.info("%s %s %d %.1f ms", fields["method"], path, status, fields["duration_ms"], extra=fields)


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC), level, logger, message, pid, and request_id and the access fields
    where the line belongs to a request."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process,
        }
        request_id = getattr(record, "request_id", None) or current_request_id.get()
        if request_id is not None:
            line["request_id"] = request_id
        line.update((name, getattr(record, name)) for name in _ACCESS_FIELDS if hasattr(record, name))
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """A line for a person at a terminal: time, level, request id (or -), logger, message."""

    def format(self, record: logging.LogRecord) -> str:
        record.request_label = getattr(record, "request_id", None) or current_request_id.get() or "-"
        return super().format(record)


def log_config(log_format: Literal["json", "text"]) -> dict[str, Any]:
    """The logging configuration `precision-lab serve` gives uvicorn: everything to stdout, one format.

    uvicorn's own access log stays off; the access lines of RequestLog replace it.
    """
    formatters = {
        "json": {"()": f"{__name__}.JsonFormatter"},
        "text": {"()": f"{__name__}.TextFormatter",
                 "fmt": "%(asctime)s %(levelname)s [%(request_label)s] %(name)s: %(message)s"},
    }
    handler = {"class": "logging.StreamHandler", "formatter": log_format, "stream": "ext://sys.stdout"}
    logger = {"handlers": ["stdout"], "level": "INFO", "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {log_format: formatters[log_format]},
        "handlers": {"stdout": handler},
        "loggers": {"uvicorn": logger, "precision_lab": logger},
        "root": {"handlers": ["stdout"], "level": "WARNING"},
    }
