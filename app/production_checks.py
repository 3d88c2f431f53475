"""What production refuses to start with: signing keys anyone can know, default passwords, plain http off this
machine. Settings (app/settings.py) asks these when PRECISION_LAB_ENVIRONMENT is production."""

from __future__ import annotations

import ipaddress
from urllib.parse import parse_qs, unquote, urlsplit

from app.quiz import private_key_from_text

# The Ed25519 example keys printed in RFC 8032, section 7.1 (the first is RFC 8037's too): anyone can sign with them.
_PUBLISHED_SEEDS = frozenset(
    bytes.fromhex(seed)
    for seed in (
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
        "f5e5767cf153319517630f226876b86c8160cc583bc013744c6bf255f5cc0ee5",
        "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
    )
)
# Passwords of installers, container images, tutorials and this repository's examples: a scanner tries them first.
_DEFAULT_PASSWORDS = frozenset({
    "", "postgres", "postgresql", "password", "passw0rd", "pass", "p@ss", "changeme", "change_me", "change-me",
    "secret", "precision_lab", "precision-lab", "precisionlab", "admin", "root", "test", "example", "default",
    "123456", "12345678", "qwerty", "letmein", "foobared",
})


def guessable_seed(key_text: str) -> bool:
    """Whether the signing key (PEM or base64 seed) is a published example or too regular to be random.

    Each test passes a random seed but with a probability below 1e-13: fewer than 8 distinct bytes (about 30
    of 32 are), printable ASCII throughout (text typed as a key), one step between neighbours throughout
    (0, 1, 2, …), or a block of at most 16 bytes repeated."""
    seed = private_key_from_text(key_text).private_bytes_raw()
    steps = {(b - a) % 256 for a, b in zip(seed, seed[1:], strict=False)}
    repeats = any(seed == (seed[:period] * (32 // period + 1))[:32] for period in range(1, 17))
    return (seed in _PUBLISHED_SEEDS or len(set(seed)) < 8 or all(32 <= byte < 127 for byte in seed)
            or len(steps) == 1 or repeats)


def _passwords(url: str) -> list[str]:
    """Every password a URL carries: after the user name, and as `password=` in the query (libpq and redis-py
    read both)."""
    parts = urlsplit(url)
    given = [] if parts.password is None else [unquote(parts.password)]
    return given + parse_qs(parts.query, keep_blank_values=True).get("password", [])


def default_password(url: str) -> bool:
    """Whether the URL carries a password that is empty, its user name or a well-known default.

    A URL without a password passes: peer, certificate and .pgpass authentication keep it out of the URL.
    """
    user = unquote(urlsplit(url).username or "").lower()
    return any(p.lower() in _DEFAULT_PASSWORDS or p.lower() == user for p in _passwords(url))


def weak_redis_password(url: str) -> bool:
    """A Redis URL over the network with no password (Redis then lets anyone in) or a default one."""
    return default_password(url) or (not url.startswith("unix://") and not _passwords(url))


def plain_http_off_loopback(origin: str) -> bool:
    """Whether the origin is http:// on a host other than this machine (a production rehearsal may use loopback)."""
    parts = urlsplit(origin)
    if parts.scheme != "http":
        return False
    host = parts.hostname or ""
    if host == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True
