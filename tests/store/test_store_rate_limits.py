"""Rate-limit counters in the database (SQLite and PostgreSQL), driven through limits' moving-window strategy.

The clock is the test's own, so windows pass without sleeping and nothing depends on how fast the machine is.
"""

from __future__ import annotations

import threading

import pytest
from limits import parse
from limits.strategies import FixedWindowRateLimiter, MovingWindowRateLimiter
from sqlalchemy import Engine, func, select

from app.store.models import RateLimitCounter
from app.store.rate_limits import CLEANUP_INTERVAL_SECONDS, DatabaseCounters

START = 1_800_000_000.0  # seconds since the epoch; any fixed time serves


class Clock:
    """A clock that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def limiter(engine: Engine, clock: Clock) -> MovingWindowRateLimiter:
    return MovingWindowRateLimiter(DatabaseCounters(engine, clock))


def _rows(engine: Engine) -> dict[str, list[float]]:
    with engine.connect() as connection:
        return {key: hits for key, hits in connection.execute(select(RateLimitCounter.key, RateLimitCounter.hits))}


def test_the_limit_allows_its_amount_then_refuses(limiter: MovingWindowRateLimiter) -> None:
    three = parse("3/minute")
    assert [limiter.hit(three, "train", "203.0.113.7") for _ in range(5)] == [True, True, True, False, False]
    assert limiter.hit(three, "train", "203.0.113.8"), "another client has its own count"
    assert limiter.hit(three, "verify", "203.0.113.7"), "another kind has its own count"


def test_refused_hits_are_not_recorded(engine: Engine, limiter: MovingWindowRateLimiter) -> None:
    two = parse("2/minute")
    for _ in range(10):
        limiter.hit(two, "attempts", "198.51.100.1")
    assert [len(hits) for hits in _rows(engine).values()] == [2]
    assert limiter.get_window_stats(two, "attempts", "198.51.100.1").remaining == 0


def test_each_hit_leaves_the_window_one_period_after_it_was_made(
    limiter: MovingWindowRateLimiter, clock: Clock
) -> None:
    two = parse("2/minute")
    assert limiter.hit(two, "train", "c")
    clock.now += 40
    assert limiter.hit(two, "train", "c")
    clock.now += 19.5  # 59.5 s after the first hit: both are still in the window
    assert not limiter.hit(two, "train", "c")
    assert limiter.get_window_stats(two, "train", "c").reset_time == START + 60
    clock.now = START + 60  # the first hit has left
    assert limiter.hit(two, "train", "c")
    assert not limiter.hit(two, "train", "c")
    clock.now = START + 40 + 60 + 60  # every hit has left
    assert limiter.hit(two, "train", "c") and limiter.hit(two, "train", "c")


def test_two_storages_on_one_database_share_the_count(engine: Engine, clock: Clock) -> None:
    """Two instances of the app, each with its own storage object, count against one limit."""
    first = MovingWindowRateLimiter(DatabaseCounters(engine, clock))
    second = MovingWindowRateLimiter(DatabaseCounters(engine, clock))
    four = parse("4/minute")
    hits = [limiter.hit(four, "verify", "client") for limiter in (first, second) * 3]
    assert hits == [True, True, True, True, False, False]


def test_racing_threads_never_get_past_the_limit(engine: Engine, clock: Clock) -> None:
    """Eight threads, each with its own storage (as workers have), hit one key 40 times in all; 25 get through."""
    limit = parse("25/minute")
    allowed: list[bool] = []
    lock = threading.Lock()
    barrier = threading.Barrier(8)

    def worker() -> None:
        limiter = MovingWindowRateLimiter(DatabaseCounters(engine, clock))
        barrier.wait()
        for _ in range(5):
            result = limiter.hit(limit, "train", "one client")
            with lock:
                allowed.append(result)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(allowed) == 40
    assert allowed.count(True) == 25
    assert [len(hits) for hits in _rows(engine).values()] == [25]


def test_expired_rows_are_deleted_and_live_ones_kept(engine: Engine, clock: Clock) -> None:
    limiter = MovingWindowRateLimiter(DatabaseCounters(engine, clock))
    minute = parse("5/minute")
    for client in ("gone-1", "gone-2", "gone-3"):
        limiter.hit(minute, "verify", client)
    clock.now += 30
    limiter.hit(minute, "verify", "still-here")  # its hit stays in the window until START + 90
    clock.now = START + CLEANUP_INTERVAL_SECONDS + 15
    limiter.hit(minute, "verify", "new")
    assert sorted(key.split("/")[2] for key in _rows(engine)) == ["new", "still-here"]


def test_a_table_of_many_clients_shrinks_back(engine: Engine, clock: Clock) -> None:
    """A burst from many addresses leaves no rows behind once their windows and a cleanup interval have passed."""
    limiter = MovingWindowRateLimiter(DatabaseCounters(engine, clock))
    minute = parse("5/minute")
    for number in range(200):
        limiter.hit(minute, "attempts", f"192.0.2.{number}")
    assert len(_rows(engine)) == 200
    clock.now += max(60, CLEANUP_INTERVAL_SECONDS) + 1
    limiter.hit(minute, "attempts", "192.0.2.1")
    with engine.connect() as connection:
        assert connection.execute(select(func.count()).select_from(RateLimitCounter)).scalar_one() == 1


def test_a_key_too_long_for_the_column_is_stored_by_its_digest(
    engine: Engine, limiter: MovingWindowRateLimiter
) -> None:
    """A client address from a proxy header can be any length; it must count, not fail."""
    one = parse("1/minute")
    client = "x" * 1000
    assert limiter.hit(one, "train", client)
    assert not limiter.hit(one, "train", client)
    assert limiter.hit(one, "train", client + "y"), "a different long address has its own count"
    assert all(len(key) <= 255 for key in _rows(engine))


def test_clear_and_reset_forget_hits(engine: Engine, limiter: MovingWindowRateLimiter) -> None:
    one = parse("1/minute")
    limiter.hit(one, "train", "a")
    limiter.hit(one, "train", "b")
    limiter.clear(one, "train", "a")
    assert limiter.hit(one, "train", "a") and not limiter.hit(one, "train", "b")
    assert limiter.storage.reset() == 2
    assert _rows(engine) == {}


def test_check_says_whether_the_database_answers(engine: Engine) -> None:
    assert DatabaseCounters(engine).check() is True


def test_the_fixed_window_strategy_counts_in_windows_that_start_afresh(engine: Engine, clock: Clock) -> None:
    """The other strategy limits offers runs on the same table: a window of 60 s from its first hit."""
    fixed = FixedWindowRateLimiter(DatabaseCounters(engine, clock))
    three = parse("3/minute")
    assert [fixed.hit(three, "verify", "192.0.2.4") for _ in range(4)] == [True, True, True, False]
    stats = fixed.get_window_stats(three, "verify", "192.0.2.4")
    assert (stats.remaining, stats.reset_time) == (0, START + 60)
    clock.now = START + 59.5
    assert not fixed.hit(three, "verify", "192.0.2.4")
    clock.now = START + 60
    assert fixed.get_window_stats(three, "verify", "192.0.2.4") == (START + 60, 3)
    assert [fixed.hit(three, "verify", "192.0.2.4") for _ in range(4)] == [True, True, True, False]
    assert fixed.get_window_stats(three, "verify", "192.0.2.4").reset_time == START + 120
