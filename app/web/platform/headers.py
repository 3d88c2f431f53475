"""Security headers on every response (pure ASGI, so it costs next to nothing per request)."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.platform.asgi import HttpMiddleware
from app.web.platform.languages import unprefixed

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors {ancestors}"
)


class SecurityHeaders(HttpMiddleware):
    def __init__(self, app: ASGIApp) -> None:
        super().__init__(app)
        self.page_headers = self._headers("'none'")
        self.embed_headers = self._headers("*")

    @staticmethod
    def _headers(ancestors: str) -> list[tuple[bytes, bytes]]:
        return [
            (b"content-security-policy", CSP.format(ancestors=ancestors).encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"strict-origin-when-cross-origin"),
        ] + ([] if ancestors == "*" else [(b"x-frame-options", b"DENY")])

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        framed = unprefixed(scope["path"]).startswith("/embed/")  # /tr/embed/ too
        extra = self.embed_headers if framed else self.page_headers
        if scope.get("scheme") == "https":
            extra = extra + [(b"strict-transport-security", b"max-age=31536000; includeSubDomains")]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + extra
            await send(message)

        await self.app(scope, receive, send_with_headers)
