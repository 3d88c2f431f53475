"""Training runs the web layer computes: a few at once, each configuration once.

A run is recorded as its server-sent events (start, one per step, done), each the bytes of one SSE frame.
A bounded LRU cache keyed by the resolved configuration keeps the last runs, so the same configuration
streams again, answers the JSON API or renders the page without training again.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from contextlib import closing, contextmanager
from typing import Annotated, Any, cast

from fastapi import Depends, Request
from starlette.concurrency import run_in_threadpool

from app.training import ResolvedConfig, TrainConfig, stream
from app.training.gather import gather
from app.web.metrics import TRAINING_COMPUTED, TRAINING_IN_FLIGHT

# Defaults of the settings train_max_concurrent_runs, train_cache_runs and train_max_seconds. Runs share one process's
# interpreter lock, so two at once already keep a core busy: more only queue inside the process.
MAX_CONCURRENT_RUNS = 2
CACHE_RUNS = 64
CACHE_BYTES = 64 * 2**20
MAX_SECONDS = 60.0
SEND_TIMEOUT = 10.0
RETRY_AFTER_SECONDS = 2  # a default run takes about a second
PULL_SECONDS = 0.03  # a live stream sends what it computed in this long, about 30 updates a second
REPLAY_FRAMES = 100  # frames per write when a cached run is sent again

Recorded = tuple[bytes, ...]
Event = dict[str, Any]


class RunsBusy(Exception):
    """The lab cannot train the run now; the message is a sentence for the person waiting."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}


def _every_slot_taken(limit: int) -> RunsBusy:
    return RunsBusy(f"The lab is already training {limit} runs, its limit at once; "
                    f"try again in {RETRY_AFTER_SECONDS} seconds.")


def _too_slow(max_seconds: float) -> RunsBusy:
    return RunsBusy(f"The lab is too busy to finish this run within its limit of {max_seconds:g} seconds, "
                    "so it was stopped; try again in a minute.")


def frame(event: dict[str, Any]) -> bytes:
    """One server-sent event: its type as the event name, the event as JSON (which has no NaN or infinity)."""
    data = json.dumps(event, separators=(",", ":"), allow_nan=False)
    return f"event: {event['type']}\ndata: {data}\n\n".encode()


def result(recorded: Recorded) -> dict[str, Any]:
    """The POST /api/train result of a recorded run."""
    return gather(json.loads(f.split(b"\ndata: ", 1)[1]) for f in recorded)


class TrainRuns:
    """The slots and the cache of one app; `computed` counts the runs trained (cache misses).

    A run that takes longer than max_seconds by `clock` is stopped and not cached.
    """

    def __init__(self, max_concurrent: int = MAX_CONCURRENT_RUNS, cache_runs: int = CACHE_RUNS,
                 cache_bytes: int = CACHE_BYTES, max_seconds: float = MAX_SECONDS,
                 clock: Callable[[], float] = time.monotonic, send_timeout: float = SEND_TIMEOUT) -> None:
        self.max_concurrent = max_concurrent
        self.max_seconds, self._clock, self.send_timeout = max_seconds, clock, send_timeout
        self.cache_runs, self.cache_bytes = cache_runs, cache_bytes
        self.running = 0
        self.computed = 0
        self._lock = threading.Lock()
        self._cache: OrderedDict[ResolvedConfig, Recorded] = OrderedDict()
        self._cached_bytes = 0

    def acquire(self) -> None:
        """Take a slot, or raise RunsBusy."""
        with self._lock:
            if self.running >= self.max_concurrent:
                raise _every_slot_taken(self.max_concurrent)
            self.running += 1
            self.computed += 1
        TRAINING_IN_FLIGHT.inc()
        TRAINING_COMPUTED.inc()

    def release(self) -> None:
        with self._lock:
            self.running -= 1
        TRAINING_IN_FLIGHT.dec()

    @contextmanager
    def slot(self) -> Iterator[None]:
        self.acquire()
        try:
            yield
        finally:
            self.release()

    def cached(self, config: TrainConfig) -> Recorded | None:
        key = config.resolved()
        with self._lock:
            recorded = self._cache.get(key)
            if recorded is not None:
                self._cache.move_to_end(key)
            return recorded

    def store(self, config: TrainConfig, recorded: Recorded) -> None:
        size = sum(map(len, recorded))
        if size > self.cache_bytes:
            return
        with self._lock:
            key = config.resolved()
            if key in self._cache:
                return
            self._cache[key] = recorded
            self._cached_bytes += size
            while len(self._cache) > self.cache_runs or self._cached_bytes > self.cache_bytes:
                _, evicted = self._cache.popitem(last=False)
                self._cached_bytes -= sum(map(len, evicted))

    def deadline(self) -> float:
        """When a run that starts now must have finished, by `clock`."""
        return self._clock() + self.max_seconds

    def seconds_until(self, deadline: float) -> float:
        return deadline - self._clock()

    def timed(self, events: Iterator[Event], deadline: float | None = None) -> Generator[Event, None, None]:
        """The events of a run, until its deadline (max_seconds from now unless given): then it is stopped and
        RunsBusy raised."""
        deadline = self.deadline() if deadline is None else deadline
        # stream() is a generator (annotated as an iterator): closing it stops the training
        with closing(cast(Generator[Event, None, None], events)):
            for event in events:
                if self._clock() >= deadline:
                    raise _too_slow(self.max_seconds)
                yield event

    def record(self, config: TrainConfig) -> Recorded:
        """The run, from the cache or trained now in the calling thread (raises RunsBusy when no slot is free
        or the run takes too long)."""
        recorded = self.cached(config)
        if recorded is None:
            with self.slot():
                recorded = tuple(map(frame, self.timed(stream(config))))
            self.store(config, recorded)
        return recorded

    def live(self, config: TrainConfig) -> LiveRun:
        """A run to stream as it trains, holding a slot until it is closed (raises RunsBusy)."""
        self.acquire()
        return LiveRun(self, config)


class LiveRun:
    """One streamed run: trains in worker threads a few steps at a time; cached when it completes."""

    def __init__(self, runs: TrainRuns, config: TrainConfig) -> None:
        self._runs, self._config = runs, config
        self._deadline = runs.deadline()
        self._events = runs.timed(stream(config), self._deadline)
        self._recorded: list[bytes] = []
        self.finished = False
        self._closed = False

    def pull(self) -> bytes:
        """The frames computed in PULL_SECONDS; the start event and the first step alone, so they leave at once.

        A run past the deadline ends with an `error` event whose `detail` is a sentence.
        """
        if self._closed:  # stopped at its deadline while a write waited for the client
            self.finished = True
            return frame({"type": "error", "detail": str(_too_slow(self._runs.max_seconds))})
        deadline = time.perf_counter() + PULL_SECONDS
        first = len(self._recorded)
        try:
            for event in self._events:
                self._recorded.append(frame(event))
                if event["type"] == "done":
                    self.finished = True
                    self._runs.store(self._config, tuple(self._recorded))
                if event["type"] != "step" or event["step"] == 1 or time.perf_counter() > deadline:
                    break
            else:
                self.finished = True
        except RunsBusy as too_slow:
            self.finished = True
            self._recorded.append(frame({"type": "error", "detail": str(too_slow)}))
        return b"".join(self._recorded[first:])

    def seconds_left(self) -> float:
        """Until the run's deadline (negative past it)."""
        return self._runs.seconds_until(self._deadline)

    async def frames(self) -> AsyncIterator[bytes]:
        while not self.finished:
            yield await run_in_threadpool(self.pull)

    def close(self) -> None:
        """Stop training (the client went away, or the run is done) and give the slot back; idempotent."""
        if not self._closed:
            self._closed = True
            self._events.close()
            self._runs.release()


async def replay(recorded: Recorded) -> AsyncIterator[bytes]:
    """A cached run's frames, sent as fast as the connection takes them."""
    for start in range(0, len(recorded), REPLAY_FRAMES):
        yield b"".join(recorded[start:start + REPLAY_FRAMES])


_creating = threading.Lock()


def train_runs(request: Request) -> TrainRuns:
    """The app's TrainRuns, made on first use; a test may put its own in app.state.train_runs first."""
    state = request.app.state
    with _creating:
        if not hasattr(state, "train_runs"):
            settings = state.settings
            state.train_runs = TrainRuns(settings.train_max_concurrent_runs, settings.train_cache_runs,
                                         max_seconds=settings.train_max_seconds,
                                         send_timeout=settings.train_send_timeout)
    runs: TrainRuns = state.train_runs
    return runs


RunsDep = Annotated[TrainRuns, Depends(train_runs)]
