"""How often one client may start quiz attempts, look certificates up or train.

Rate limits count requests per client IP over a moving window (limits' exact strategy: the hits of the last period).
The counters live where every worker and instance sees them (app/services/rate_counters.py): in Redis when REDIS_URL
is set, otherwise in the app's database, so `--workers 4` or two machines on one database allow a limit once, not
once each. A store that does not answer gives 503 with a sentence (app/web/platform/refusal_handlers.py), never a
pass and never a 500.
"""

from __future__ import annotations

import ipaddress
import math
import time
from typing import Literal

from fastapi import Request
from limits import RateLimitItem, parse_many
from limits.storage import Storage
from limits.strategies import MovingWindowRateLimiter

from app.refusal import Refusal
from app.settings import Settings

Kind = Literal["attempts", "verify", "train", "passes", "sums"]
_REFUSED: dict[Kind, str] = {
    "attempts": "Too many quiz attempts were started from your address",
    "verify": "Too many certificate lookups came from your address",
    "train": "Training runs were started too often from your address",
    "passes": "Certificates were earned too often from your address today, so this passed attempt stays open "
              "until you can finish it",
    "sums": "Sums were asked for too often from your address",
}
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


class TooOften(Refusal):
    """A request over a rate limit: 429, and how long to wait."""

    status = 429

    def __init__(self, sentence: str, retry_after: int) -> None:
        super().__init__(sentence)
        self.retry_after = retry_after


class RateLimits:
    """Moving-window limits per client IP, counted in a storage that every instance shares."""

    def __init__(self, settings: Settings, storage: Storage) -> None:
        self._limiter = MovingWindowRateLimiter(storage)
        self._ipv6_prefix = settings.rate_limit_ipv6_prefix
        self._limits: dict[Kind, list[RateLimitItem]] = {
            "attempts": parse_many(settings.rate_limit_attempts),
            "verify": parse_many(settings.rate_limit_verify),
            "train": parse_many(settings.rate_limit_train),
            "passes": parse_many(settings.rate_limit_passes),
            "sums": parse_many(settings.rate_limit_sums),
        }

    def check(self, request: Request, kind: Kind) -> None:
        """Count one request of this kind; 429 with Retry-After and a sentence when it is over a limit."""
        client = client_key(request.client.host if request.client else None, self._ipv6_prefix)
        for limit in self._limits[kind]:
            if not self._limiter.hit(limit, kind, client):
                reset_at = self._limiter.get_window_stats(limit, kind, client).reset_time
                seconds = max(1, math.ceil(reset_at - time.time()))
                raise TooOften(f"{_REFUSED[kind]}; please try again in {wait_in_words(seconds)}.", seconds)


def wait_in_words(seconds: int) -> str:
    """A wait as a person reads it: 42 seconds, 15 minutes, 9 hours (rounded up)."""
    if seconds <= 120:
        return f"{seconds} second{'' if seconds == 1 else 's'}"
    if seconds < 7200:
        return f"{math.ceil(seconds / 60)} minutes"
    return f"{math.ceil(seconds / 3600)} hours"


def count_request(request: Request, kind: Kind) -> None:
    """Count the request against the `kind` limit of the app's RateLimits: the one way every route counts, as a
    dependency (app.deps.rate_limited) or, where only some requests count, in its body."""
    request.app.state.rate_limits.check(request, kind)
