"""Who may change a quiz attempt: the owner token and the CSRF token.

Pages: the browser's owner token lives in an HttpOnly cookie, and every form that changes state carries a CSRF
token, the HMAC of that owner token under a key derived from the signing key (so it needs no server-side state and
is the same on every instance). The JSON API reads its owner token from the X-Attempt-Token header only, never from
a cookie: a browser never sends that header on its own, so a cross-site request cannot act for anyone and the API
needs no CSRF token.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from typing import Annotated

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi import Header, HTTPException, Request, Response

from app.services.quiz_attempts import TOKEN_HEADER
from app.settings import Settings

OWNER_COOKIE = "quiz_owner"
# Over https the cookie takes the __Host- prefix: browsers then keep it only if it is Secure, for the whole
# site and set by this host itself, so no sibling subdomain or plain-http page can plant one.
HOST_OWNER_COOKIE = "__Host-" + OWNER_COOKIE
_MAX_TOKEN_LENGTH = 100
# Browsers keep a Secure cookie only from a secure context: https, or a loopback host.
_LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1"}

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
