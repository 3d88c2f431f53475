"""Pages revalidate: each HTML answer to a GET carries an ETag of its body and `Cache-Control: no-cache` (unless it says
otherwise), and a request whose If-None-Match holds that ETag gets 304 with no body (pure ASGI)."""

from __future__ import annotations

import hashlib

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import Message, Receive, Scope, Send

from app.web.platform.asgi import HttpMiddleware


class PageETags(HttpMiddleware):
    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        asked = Headers(scope=scope).get("if-none-match", "")
        start: Message | None = None
        body: list[bytes] = []

        async def buffered_send(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                headers = Headers(raw=message.get("headers", []))
                cacheable = (message["status"] == 200 and headers.get("content-type", "").startswith("text/html")
                             and "no-store" not in headers.get("cache-control", ""))
                if not cacheable:
                    await send(message)
                    return
                start = message
                return
            if start is None:  # passed through
                await send(message)
                return
            body.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            content = b"".join(body)
            etag = f'W/"{hashlib.sha256(content).hexdigest()[:20]}"'
            headers = MutableHeaders(raw=list(start.get("headers", [])))
            headers["etag"] = etag
            headers.setdefault("cache-control", "no-cache")
            if etag in [tag.strip() for tag in asked.split(",")]:
                del headers["content-length"]
                await send({"type": "http.response.start", "status": 304, "headers": headers.raw})
                await send({"type": "http.response.body", "body": b""})
                return
            await send({**start, "headers": headers.raw})
            await send({"type": "http.response.body", "body": content})

        await self.app(scope, receive, buffered_send)
