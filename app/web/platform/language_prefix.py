"""The language prefix of a URL, read once for every route (pure ASGI).

/tr/visualise/float16 reaches the route of /visualise/float16 with Turkish current (app/web/platform/languages.py),
so no route is written twice. On the way back, the site's own redirects (Location, and htmx's HX-* address headers)
keep the prefix, and every HTML page says its language (Content-Language). Around it:

- /tr (no slash) goes to /tr/, the Turkish home page; /en/... goes to the unprefixed English address.
- /de/... (a two-letter language code not served) is refused: 404 with the sentence naming the languages served.
- / alone, in English, chooses for a first visit: a language remembered from the switcher (/?lang=tr sets it), else
  the Accept-Language header's; 303 to /tr/ where that is Turkish. Both vary the answer: `Vary: Accept-Language,
  Cookie`. The switcher's links to a home page go through /?lang=<code>, so that choosing English on /tr/ sticks.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import Request
from starlette.types import Message, Receive, Scope, Send

from app.web.platform.asgi import HttpMiddleware
from app.web.platform.languages import (
    CHOICE_QUERY,
    ENGLISH,
    ENGLISH_CODE,
    LANGUAGE_CODES,
    PREFIXED,
    SERVED,
    Language,
    negotiated,
    served_sentence,
    speaking,
)
from app.web.platform.refusal_handlers import respond_error

CHOICE_COOKIE = "lang"  # the language chosen with the switcher on a home page; what / opens next time
CHOICE_DAYS = 365
# The response headers that carry an address of this site to the browser, kept in the request's language
_ADDRESS_HEADERS = (b"location", b"hx-push-url", b"hx-replace-url", b"hx-redirect", b"hx-location")


class LanguagePrefixes(HttpMiddleware):
    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope["path"]
        first, slash, rest = path[1:].partition("/")
        language = PREFIXED.get(first)
        if language is not None and not slash:
            await _redirect(scope, receive, send, f"/{first}/", 308)
        elif language is not None:
            scope["path"] = "/" + rest
            raw = scope.get("raw_path")
            if isinstance(raw, bytes) and raw.startswith(language.prefix.encode() + b"/"):
                scope["raw_path"] = raw[len(language.prefix):]
            with speaking(language):
                await self.app(scope, receive, _in_language(send, language))
        elif first == ENGLISH_CODE and (slash or not rest):
            await _redirect(scope, receive, send, "/" + rest, 308)
        elif first in LANGUAGE_CODES:
            refusal = respond_error(Request(scope), 404, f"The site is not served in /{first}/. {served_sentence()}")
            await refusal(scope, receive, _in_language(send, ENGLISH))
        elif path == "/" and scope["method"] in ("GET", "HEAD"):
            await self._home(scope, receive, send)
        else:
            await self.app(scope, receive, _in_language(send, ENGLISH))

    async def _home(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The unprefixed home page: English, or a redirect to the home page of the language chosen."""
        headers = Headers(scope=scope)
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        asked = next((value for name, value in query if name == CHOICE_QUERY), None)
        remembered = Request(scope).cookies.get(CHOICE_COOKIE)
        if headers.get("hx-request") == "true":  # a fragment of the page in front of the person: English
            language = ENGLISH
        else:
            language = SERVED.get(asked or "") or SERVED.get(remembered or "") or negotiated(
                headers.get("accept-language"))
        remember = asked in SERVED and asked != remembered
        kept = urlencode([(name, value) for name, value in query if name != CHOICE_QUERY])

        async def send_home(message: Message) -> None:
            if message["type"] == "http.response.start":
                response_headers = MutableHeaders(scope=message)
                response_headers.add_vary_header("Accept-Language")
                response_headers.add_vary_header("Cookie")
                if remember:
                    response_headers.append("set-cookie", _choice_cookie(language))
            await send(message)

        if language.prefix:
            await _redirect(scope, receive, send_home, f"{language.prefix}/", 303, kept)
        else:
            await self.app(scope, receive, _in_language(send_home, ENGLISH))


def _choice_cookie(language: Language) -> str:
    return f"{CHOICE_COOKIE}={language.code}; Max-Age={CHOICE_DAYS * 86_400}; Path=/; SameSite=Lax"


async def _redirect(scope: Scope, receive: Receive, send: Send, path: str, status: int,
                    query: str | None = None) -> None:
    """To `path` on this site (a path, never an absolute URL: the Host header must not choose), with `query`, by
    default the request's own."""
    query = scope.get("query_string", b"").decode("latin-1") if query is None else query
    location = f"{path}?{query}" if query else path
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"location", location.encode("latin-1")), (b"content-length", b"0")]})
    await send({"type": "http.response.body", "body": b""})


def _in_language(send: Send, language: Language) -> Send:
    """`send`, with the page's language said (Content-Language on HTML) and the site's addresses kept in it."""

    async def send_in_language(message: Message) -> None:
        if message["type"] == "http.response.start":
            raw = list(message.get("headers", []))
            if language.prefix:
                raw = [(name, _kept(value, language) if name.lower() in _ADDRESS_HEADERS else value)
                       for name, value in raw]
            headers = MutableHeaders(raw=raw)
            if headers.get("content-type", "").startswith("text/html"):
                headers["content-language"] = language.code
            message["headers"] = headers.raw
        await send(message)

    return send_in_language


def _kept(address: bytes, language: Language) -> bytes:
    """A path of this site in `language` (/quiz/attempts/3 → /tr/quiz/attempts/3); anything else as it is."""
    prefix = language.prefix.encode()
    if not address.startswith(b"/") or address.startswith(b"//"):
        return address
    if address == prefix or address.startswith(prefix + b"/") or address.startswith(prefix + b"?"):
        return address
    return prefix + address
