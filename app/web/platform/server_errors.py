"""A failure inside the app becomes an ordinary 500 response (pure ASGI, inside the security headers and the
request log, so it carries their headers and its request id): a sentence, the traceback in the log, and the
connection kept open. Starlette's own handler sits outside every middleware and re-raises, so its 500 had no
security headers and no request id, and the server then closed the connection."""

from __future__ import annotations

import logging

from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.types import Message, Receive, Scope, Send

from app.web.platform.asgi import HttpMiddleware
from app.web.platform.refusal_handlers import respond_error

_log = logging.getLogger("precision_lab.errors")


def _sentence(request_id: str | None) -> str:
    quoted = f" (request id {request_id})" if request_id else ""
    return f"Something went wrong on our side{quoted}; it has been logged. Please try again later."


class ServerErrors(HttpMiddleware):
    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def watched_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched_send)
        except Exception:
            request_id = scope.get("state", {}).get("request_id")
            _log.exception("Unhandled error in %s %s", scope["method"], scope["path"][:200],
                           extra={"request_id": request_id})
            if started:
                raise  # half a response is out: the server can only close the connection
            sentence = _sentence(request_id)
            try:
                response = respond_error(Request(scope), 500, sentence)
            except Exception:  # the error page itself fails to render: the sentence alone, as text
                _log.exception("The error page failed too")
                response = PlainTextResponse(sentence, status_code=500)
            await response(scope, receive, send)
