"""Where the rate-limit counters live: Redis when the settings name one, else the app's database."""

from __future__ import annotations

from limits.storage import RedisStorage, Storage
from sqlalchemy import Engine

from app.settings import Settings
from app.store.rate_limits import DatabaseCounters

# A Redis server that does not answer fails the request (503) after this long, not the operating system's minutes.
REDIS_TIMEOUT_SECONDS = 5


def counter_storage(settings: Settings, engine: Engine) -> Storage:
    """Where the rate-limit counters live: Redis when redis_url is set, else the database behind engine."""
    if settings.redis_url is None:
        return DatabaseCounters(engine)
    # Wrapped errors let app/web/platform/refusal_handlers.py answer a Redis failure with 503 without knowing about
    # Redis.
    return RedisStorage(
        settings.redis_url.get_secret_value(), wrap_exceptions=True,
        socket_connect_timeout=REDIS_TIMEOUT_SECONDS, socket_timeout=REDIS_TIMEOUT_SECONDS,
    )
