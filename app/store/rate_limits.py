"""Rate-limit counters in the app's database, as a `limits` storage for the library's moving-window strategy
(which the app uses) and its fixed-window one (where the row's expiry is the end of the key's window).

Every worker and instance on one database shares them. One row per limit key (limit, kind, client) holds the times
of its recent hits, newest first, as limits' MemoryStorage and RedisStorage keep them in a list. A hit first upserts
the key's row, which takes the lock that serialises hits on that key (the row's lock on PostgreSQL, the database's
write lock on SQLite) before the row is read, so racing requests can never get past a limit together. A row whose
newest hit has left the window counts for nothing; whichever request comes along once a cleanup interval has passed
deletes such rows.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable

from limits.storage import MovingWindowSupport, Storage
from sqlalchemy import Connection, Engine, delete, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import OperationalError, SQLAlchemyError

from app.store.models import Base

_COUNTERS = Base.metadata.tables["rate_limit_counters"]
_MAX_KEY_LENGTH = 255  # the key column's width
# Seconds between deletions of expired rows by one process: the table holds the live rows and at most about one
# interval's worth of dead ones, and the DELETE costs nothing per request.
CLEANUP_INTERVAL_SECONDS = 60.0


def _row_key(key: str) -> str:
    """The key as stored: itself, or a digest when a client address (from a proxy header) makes it too long."""
    if len(key) <= _MAX_KEY_LENGTH:
        return key
    return "sha256/" + hashlib.sha256(key.encode("utf-8")).hexdigest()


class DatabaseCounters(Storage, MovingWindowSupport):
    """Moving-window (and fixed-window) storage in the rate_limit_counters table.

    `clock` gives the time in seconds since the epoch; tests pass their own to move time on without sleeping.
    """

    def __init__(self, engine: Engine, clock: Callable[[], float] = time.time) -> None:
        super().__init__()
        self._engine = engine
        self._clock = clock
        self._next_cleanup = float("-inf")

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return OperationalError

    def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        """Record amount hits now when fewer than limit - amount + 1 hits fall in the last expiry seconds."""
        if amount > limit:
            return False
        now = self._clock()
        self._delete_expired(now)
        row = _row_key(key)
        with self._engine.begin() as connection:
            self._lock(connection, row, now)
            hits = connection.execute(select(_COUNTERS.c.hits).where(_COUNTERS.c.key == row)).scalar_one()
            recent = _in_window(hits, now, expiry)
            if len(recent) + amount > limit:
                return False
            connection.execute(
                update(_COUNTERS).where(_COUNTERS.c.key == row)
                .values(hits=[now] * amount + recent, expires_at=now + expiry)
            )
        return True

    def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        """(time of the oldest hit in the window, hits in the window); (now, 0) when there are none."""
        now = self._clock()
        with self._engine.connect() as connection:
            hits = connection.execute(
                select(_COUNTERS.c.hits).where(_COUNTERS.c.key == _row_key(key))
            ).scalar_one_or_none()
        recent = _in_window(hits or [], now, expiry)
        return (recent[-1], len(recent)) if recent else (now, 0)

    def check(self) -> bool:
        """Whether the database answers."""
        try:
            with self._engine.connect() as connection:
                connection.execute(text("SELECT 1"))
        except SQLAlchemyError:
            return False
        return True

    def reset(self) -> int | None:
        with self._engine.begin() as connection:
            return connection.execute(delete(_COUNTERS)).rowcount

    def clear(self, key: str) -> None:
        with self._engine.begin() as connection:
            connection.execute(delete(_COUNTERS).where(_COUNTERS.c.key == _row_key(key)))

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        """Fixed window: count amount hits in the key's window (a new one of expiry seconds once it has ended)."""
        now = self._clock()
        self._delete_expired(now)
        row = _row_key(key)
        with self._engine.begin() as connection:
            self._lock(connection, row, now)
            hits, ends = connection.execute(
                select(_COUNTERS.c.hits, _COUNTERS.c.expires_at).where(_COUNTERS.c.key == row)
            ).one()
            if ends <= now:
                hits, ends = [], now + expiry
            hits = [now] * amount + hits
            connection.execute(update(_COUNTERS).where(_COUNTERS.c.key == row).values(hits=hits, expires_at=ends))
        return len(hits)

    def get(self, key: str) -> int:
        """Fixed window: the hits counted in the key's window, 0 once it has ended."""
        found = self._window(key)
        return len(found[0]) if found else 0

    def get_expiry(self, key: str) -> float:
        """Fixed window: when the key's window ends (now, when it has none)."""
        found = self._window(key)
        return found[1] if found else self._clock()

    def _window(self, key: str) -> tuple[list[float], float] | None:
        now = self._clock()
        with self._engine.connect() as connection:
            found = connection.execute(
                select(_COUNTERS.c.hits, _COUNTERS.c.expires_at).where(_COUNTERS.c.key == _row_key(key))
            ).one_or_none()
        if found is None or found[1] <= now:
            return None
        return list(found[0]), float(found[1])

    def _lock(self, connection: Connection, row: str, now: float) -> None:
        """Create the key's row if it is new, and hold its lock until the transaction ends.

        The statement writes even when the row exists (DO NOTHING would take no row lock on PostgreSQL), and it
        comes before any read, so SQLite's busy timeout applies instead of a failed upgrade from reader to writer.
        """
        insert = postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert
        statement = insert(_COUNTERS).values(key=row, hits=[], expires_at=now)
        connection.execute(statement.on_conflict_do_update(
            index_elements=[_COUNTERS.c.key], set_={"expires_at": _COUNTERS.c.expires_at},
        ))

    def _delete_expired(self, now: float) -> None:
        if now < self._next_cleanup:
            return
        self._next_cleanup = now + CLEANUP_INTERVAL_SECONDS
        # Rows another request holds are skipped rather than waited for (PostgreSQL; SQLite has one writer anyway),
        # so two instances cleaning up at once cannot deadlock.
        expired = select(_COUNTERS.c.key).where(_COUNTERS.c.expires_at <= now).with_for_update(skip_locked=True)
        with self._engine.begin() as connection:
            connection.execute(delete(_COUNTERS).where(_COUNTERS.c.key.in_(expired)))


def _in_window(hits: list[float], now: float, expiry: int) -> list[float]:
    """The hits (newest first) of the last expiry seconds; a hit leaves exactly expiry seconds after it was made,
    the moment Retry-After names."""
    return [hit for hit in hits if hit > now - expiry]
