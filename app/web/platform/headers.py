"""Security headers on every response (pure ASGI, so it costs next to nothing per request).

A document (a page, an embed, an error, an API answer) gets the policy; a static file (a script, a stylesheet, an
image) gets only what a browser applies to one: nosniff (and HSTS over HTTPS). A policy or frame rule on a
subresource does nothing, and its 330 bytes a response were an eighth of a guide's first visit (ten such files)."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.platform.asgi import HttpMiddleware
from app.web.platform.languages import unprefixed

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors {ancestors}"
)

STATIC_PATHS = ("/static/", "/static-generated/")  # files a document loads, never documents themselves


class SecurityHeaders(HttpMiddleware):
    def __init__(self, app: ASGIApp) -> None:
        super().__init__(app)
        self.page_headers = self._headers("'none'")
        self.embed_headers = self._headers("*")
        self.static_headers = [(b"x-content-type-options", b"nosniff")]

    @staticmethod
    def _headers(ancestors: str) -> list[tuple[bytes, bytes]]:
        return [
            (b"content-security-policy", CSP.format(ancestors=ancestors).encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"strict-origin-when-cross-origin"),
        ] + ([] if ancestors == "*" else [(b"x-frame-options", b"DENY")])

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope["path"]
        framed = unprefixed(path).startswith("/embed/")  # /tr/embed/ too
        static = path.startswith(STATIC_PATHS)
        extra = self.static_headers if static else self.embed_headers if framed else self.page_headers
        if scope.get("scheme") == "https":
            extra = extra + [(b"strict-transport-security", b"max-age=31536000; includeSubDomains")]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + extra
            await send(message)

        await self.app(scope, receive, send_with_headers)
