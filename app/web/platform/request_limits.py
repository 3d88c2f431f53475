"""Request size limits: an over-long query string gets 414, an over-large body 413 (pure ASGI, like security.py)."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.platform.asgi import HttpMiddleware
from app.web.platform.refusal_handlers import respond_error


class _BodyTooLarge(HTTPException):
    """Raised while a streamed body is read; the app's HTTPException handler turns it into the 413 sentence."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, _body_sentence(limit))


def _body_sentence(limit: int) -> str:
    return f"The request body is larger than this site accepts ({limit:,} bytes); send less data in one request."


def _declared_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class RequestLimits(HttpMiddleware):
    def __init__(self, app: ASGIApp, *, max_body_bytes: int, max_query_bytes: int) -> None:
        super().__init__(app)
        self.max_body_bytes = max_body_bytes
        self.max_query_bytes = max_query_bytes

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if len(scope.get("query_string", b"")) > self.max_query_bytes:
            message = (
                f"The query string is longer than this site accepts ({self.max_query_bytes:,} bytes); "
                "shorten the address or send the data in a request body."
            )
            await respond_error(Request(scope), 414, message)(scope, receive, send)
            return
        declared = _declared_length(scope)
        if declared is not None and declared > self.max_body_bytes:
            await respond_error(Request(scope), 413, _body_sentence(self.max_body_bytes))(scope, receive, send)
            return
        await self._counting_body(scope, receive, send)

    async def _counting_body(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on, refusing a body (chunked, or longer than it said) once it outgrows the limit."""
        received = 0
        response_started = False

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    raise _BodyTooLarge(self.max_body_bytes)
            return message

        async def watched_send(message: Message) -> None:
            nonlocal response_started
            if message["type"] == "http.response.start":
                response_started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, watched_send)
        except _BodyTooLarge as refusal:
            # Only reached when something read the body outside the routes' exception handlers.
            if response_started:
                raise
            await respond_error(Request(scope), 413, str(refusal.detail))(scope, receive, send)
