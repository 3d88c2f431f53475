"""Who may change a quiz attempt, and how often one client may start attempts, look certificates up or train.

Pages: the browser's owner token lives in an HttpOnly cookie, and every form that changes state carries a CSRF
token, the HMAC of that owner token under a key derived from the signing key (so it needs no server-side state and
is the same on every instance). The JSON API reads its owner token from the X-Attempt-Token header only, never from
a cookie: a browser never sends that header on its own, so a cross-site request cannot act for anyone and the API
needs no CSRF token.

Rate limits count requests per client IP over a moving window (limits' exact strategy: the hits of the last period).
The counters live where every worker and instance sees them: in Redis when REDIS_URL is set, otherwise in the app's
database (app/store/rate_limits.py), so `--workers 4` or two machines on one database allow a limit once, not once
each. A store that does not answer gives 503 with a sentence (app/web/errors.py), never a pass and never a 500.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import math
import secrets
import time
from typing import Annotated

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi import Depends, Header, HTTPException, Request, Response, params
from limits import RateLimitItem, parse_many
from limits.storage import RedisStorage, Storage
from limits.strategies import MovingWindowRateLimiter
from sqlalchemy import Engine

from app.settings import Settings
from app.store.rate_limits import DatabaseCounters

OWNER_COOKIE = "quiz_owner"
# Over https the cookie takes the __Host- prefix: browsers then keep it only if it is Secure, for the whole
# site and set by this host itself, so no sibling subdomain or plain-http page can plant one.
HOST_OWNER_COOKIE = "__Host-" + OWNER_COOKIE
TOKEN_HEADER = "X-Attempt-Token"
_MAX_TOKEN_LENGTH = 100
# Browsers keep a Secure cookie only from a secure context: https, or a loopback host.
_LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1"}
_REFUSED = {
    "attempts": "Too many quiz attempts were started from your address",
    "verify": "Too many certificate lookups came from your address",
    "train": "Training runs were started too often from your address",
    "passes": "Certificates were earned too often from your address today, so this passed attempt stays open "
              "until you can finish it",
}
# A Redis server that does not answer fails the request (503) after this long, not the operating system's minutes.
_REDIS_TIMEOUT_SECONDS = 5


def new_owner_token() -> str:
    """A fresh owner token: 256 random bits, url-safe."""
    return secrets.token_urlsafe(32)


def owner_cookie_name(request: Request) -> str:
    return HOST_OWNER_COOKIE if request.url.scheme == "https" else OWNER_COOKIE


def signed_owner(key: Ed25519PrivateKey, token: str) -> str:
    """The cookie value of an owner token: the token and a MAC of it, so that only tokens this site made count."""
    return f"{token}.{_mac(b'precision-lab owner', key, token)}"


def owner_cookie(request: Request, key: Ed25519PrivateKey) -> str | None:
    """The owner token of the browser's cookie, if the site made it (its MAC checks); None for any other, so a
    token planted in someone's browser (session fixation) is never adopted."""
    value = request.cookies.get(owner_cookie_name(request))
    if not value or len(value) > 2 * _MAX_TOKEN_LENGTH or "." not in value:
        return None
    token, _, mac = value.rpartition(".")
    expected = _mac(b"precision-lab owner", key, token)
    return token if token and hmac.compare_digest(mac.encode("ascii", "replace"), expected.encode("ascii")) else None


def set_owner_cookie(response: Response, request: Request, token: str, settings: Settings,
                     key: Ed25519PrivateKey) -> None:
    """Give the browser its owner token, signed.

    SameSite=None lets the cookie work inside a teacher's iframe too; it needs Secure, which browsers accept only
    from https or a loopback host, so over plain http to other hosts it falls back to SameSite=Lax.
    """
    secure = request.url.scheme == "https" or request.url.hostname in _LOOPBACK_HOSTS
    response.set_cookie(
        owner_cookie_name(request), signed_owner(key, token), max_age=settings.attempt_cookie_days * 86_400,
        path="/", httponly=True, secure=secure, samesite="none" if secure else "lax",
    )


def _mac(purpose: bytes, key: Ed25519PrivateKey, text: str) -> str:
    """An HMAC of text under a key derived from the signing key for one purpose, url-safe base64."""
    mac_key = hashlib.sha256(purpose + b"\x00" + key.private_bytes_raw()).digest()
    digest = hmac.new(mac_key, text.encode("utf-8"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def csrf_token_for(key: Ed25519PrivateKey, owner_token: str) -> str:
    """The CSRF token of forms posted with this owner token."""
    return _mac(b"precision-lab csrf", key, owner_token)


def check_csrf(request: Request, key: Ed25519PrivateKey, form_token: str) -> str:
    """The owner token of a form post whose CSRF token matches its cookie; 403 with a sentence otherwise."""
    owner = owner_cookie(request, key)
    if owner is None:
        raise HTTPException(403, "Your browser did not send the quiz cookie, which this form needs: allow cookies "
                                 "for this site, reload the page and try again.")
    if not hmac.compare_digest(form_token.encode("utf-8"), csrf_token_for(key, owner).encode("ascii")):
        raise HTTPException(403, "The form's security token is missing or out of date; reload the page and try again.")
    return owner


def api_owner_token(token: Annotated[str, Header(
    alias=TOKEN_HEADER, description="The attempt_token that POST /api/quiz/attempts answered with.",
)] = "") -> str:
    return token


ApiTokenDep = Annotated[str, Depends(api_owner_token)]


def counter_storage(settings: Settings, engine: Engine) -> Storage:
    """Where the rate-limit counters live: Redis when redis_url is set, else the database behind engine."""
    if settings.redis_url is None:
        return DatabaseCounters(engine)
    # Wrapped errors let app/web/errors.py answer a Redis failure with 503 without knowing about Redis.
    return RedisStorage(
        settings.redis_url.get_secret_value(), wrap_exceptions=True,
        socket_connect_timeout=_REDIS_TIMEOUT_SECONDS, socket_timeout=_REDIS_TIMEOUT_SECONDS,
    )


def client_key(host: str | None, ipv6_prefix: int) -> str:
    """Who a request counts against: an IPv4 address, the network of an IPv6 address (its first ipv6_prefix
    bits; an IPv4-mapped IPv6 address counts as its IPv4 address), or the host as given when it is no address."""
    if host is None:
        return "unknown"
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])  # a scope (fe80::1%eth0) is no part of who it is
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    if isinstance(address, ipaddress.IPv4Address):
        return str(address)
    return str(ipaddress.IPv6Network((address, ipv6_prefix), strict=False))


class RateLimits:
    """Moving-window limits per client IP, counted in a storage that every instance shares."""

    def __init__(self, settings: Settings, storage: Storage) -> None:
        self._limiter = MovingWindowRateLimiter(storage)
        self._ipv6_prefix = settings.rate_limit_ipv6_prefix
        self._limits: dict[str, list[RateLimitItem]] = {
            "attempts": parse_many(settings.rate_limit_attempts),
            "verify": parse_many(settings.rate_limit_verify),
            "train": parse_many(settings.rate_limit_train),
            "passes": parse_many(settings.rate_limit_passes),
        }

    def check(self, request: Request, kind: str) -> None:
        """Count one request of this kind; 429 with Retry-After and a sentence when it is over a limit."""
        client = client_key(request.client.host if request.client else None, self._ipv6_prefix)
        for limit in self._limits[kind]:
            if not self._limiter.hit(limit, kind, client):
                reset_at = self._limiter.get_window_stats(limit, kind, client).reset_time
                seconds = max(1, math.ceil(reset_at - time.time()))
                raise HTTPException(429, f"{_REFUSED[kind]}; please try again in {wait_in_words(seconds)}.",
                                    headers={"Retry-After": str(seconds)})


def wait_in_words(seconds: int) -> str:
    """A wait as a person reads it: 42 seconds, 15 minutes, 9 hours (rounded up)."""
    if seconds <= 120:
        return f"{seconds} second{'' if seconds == 1 else 's'}"
    if seconds < 7200:
        return f"{math.ceil(seconds / 60)} minutes"
    return f"{math.ceil(seconds / 3600)} hours"


def rate_limited(kind: str) -> params.Depends:
    """A route dependency that counts the request against the `kind` limit."""

    def check(request: Request) -> None:
        request.app.state.rate_limits.check(request, kind)

    dependency: params.Depends = Depends(check)
    return dependency
