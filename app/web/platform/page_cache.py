"""Whole responses of pages that are pure functions of their URL, kept in a bounded LRU.

A shared or embedded view is opened by many people at once; the second one is served from memory.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from fastapi import Request
from fastapi.responses import Response

from app.web.platform.languages import current_language

_Stored = tuple[int, bytes, list[tuple[bytes, bytes]]]


def cached_page(maxsize: int = 1024) -> Callable[[Callable[..., Response]], Callable[..., Response]]:
    """Cache a sync GET route's response by language, path, query string and the htmx headers that pick the block; a
    response marked `Cache-Control: no-store` is served but not kept."""

    def decorate(route: Callable[..., Response]) -> Callable[..., Response]:
        stored: OrderedDict[tuple[str, str, str, str | None, str | None], _Stored] = OrderedDict()
        lock = threading.Lock()

        @functools.wraps(route)
        def serve(request: Request, *args: Any, **kwargs: Any) -> Response:
            headers = request.headers
            key = (
                current_language().code, request.url.path, request.url.query,
                headers.get("HX-Request"), headers.get("HX-History-Restore-Request"),
            )
            with lock:
                hit = stored.get(key)
                if hit is not None:
                    stored.move_to_end(key)
            if hit is not None:
                status, body, raw_headers = hit
                response = Response(content=body, status_code=status)
                response.raw_headers = list(raw_headers)
                return response
            response = route(request, *args, **kwargs)
            if "no-store" in response.headers.get("cache-control", ""):
                return response  # a page that must not repeat (a freshly drawn seed's) is not kept
            with lock:
                stored[key] = (response.status_code, bytes(response.body), list(response.raw_headers))
                while len(stored) > maxsize:
                    stored.popitem(last=False)
            return response

        serve.cache = stored  # type: ignore[attr-defined]
        return serve

    return decorate
