"""Training runs the site computes: a few at once, each configuration once, in worker processes.

A run is recorded as its server-sent events (start, one per step, done), each the bytes of one SSE frame.
A bounded LRU cache keyed by the resolved configuration keeps the last runs, so the same configuration
streams again, answers the JSON API or renders the page without training again. The runs themselves are
computed by the app's TrainWorkers (app/services/train_workers.py), whose frames are the same bytes as those of
the same run computed here.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from app.messages import N_
from app.refusal import Refusal
from app.services.metrics import TRAINING_COMPUTED, TRAINING_IN_FLIGHT
from app.services.train_workers import TrainWorkers, WorkerLost, WorkerRun, WorkerTimeout, frame
from app.training import ResolvedConfig, TrainConfig, gather

__all__ = ["LiveRun", "RunsBusy", "TrainRuns", "frame", "replay", "result"]

# Defaults of the settings train_max_concurrent_runs, train_cache_runs and train_max_seconds.
MAX_CONCURRENT_RUNS = 2
CACHE_RUNS = 64
CACHE_BYTES = 64 * 2**20
MAX_SECONDS = 60.0
SEND_TIMEOUT = 10.0
RETRY_AFTER_SECONDS = 2  # a default run takes about a second
PULL_SECONDS = 0.03  # a live stream sends what it computed in this long, about 30 updates a second
RECORD_PULL_SECONDS = 0.25  # a run recorded whole comes back in batches this long: its deadline is checked between
REPLAY_FRAMES = 100  # frames per write when a cached run is sent again

Recorded = tuple[bytes, ...]


class RunsBusy(Refusal):
    """The lab cannot train the run now; the message is a sentence for the person waiting."""

    status = 503
    retry_after = RETRY_AFTER_SECONDS


def _every_slot_taken(limit: int) -> RunsBusy:
    return RunsBusy(template=N_("The lab is already training %(limit)s runs, its limit at once; "
                               "try again in %(seconds)s seconds."),
                    params={"limit": str(limit), "seconds": str(RETRY_AFTER_SECONDS)})


def _too_slow(max_seconds: float) -> RunsBusy:
    return RunsBusy(template=N_("The lab is too busy to finish this run within its limit of %(seconds)s seconds, "
                               "so it was stopped; try again in a minute."), params={"seconds": f"{max_seconds:g}"})


def result(recorded: Recorded) -> dict[str, Any]:
    """The POST /api/train result of a recorded run."""
    return gather(json.loads(f.split(b"\ndata: ", 1)[1]) for f in recorded)


def _worker_lost() -> RunsBusy:
    return RunsBusy(template=N_("The lab's training process stopped before this run finished; try again in a minute."))


class TrainRuns:
    """The slots and the cache of one app; `computed` counts the runs trained (cache misses).

    Runs are computed by `workers` (its own, of one process per slot, when not given). A run that takes longer
    than max_seconds by `clock` is stopped and not cached.
    """

    def __init__(self, max_concurrent: int = MAX_CONCURRENT_RUNS, cache_runs: int = CACHE_RUNS,
                 cache_bytes: int = CACHE_BYTES, max_seconds: float = MAX_SECONDS,
                 clock: Callable[[], float] = time.monotonic, send_timeout: float = SEND_TIMEOUT,
                 workers: TrainWorkers | None = None) -> None:
        self.max_concurrent = max_concurrent
        self.max_seconds, self._clock, self.send_timeout = max_seconds, clock, send_timeout
        self.cache_runs, self.cache_bytes = cache_runs, cache_bytes
        self.workers = workers or TrainWorkers(max_concurrent)
        # Threads of their own for the live runs' pulls, one per slot: in the server's shared thread pool a pull
        # would queue behind every page being rendered, and the run's process would wait idle
        self.pulling = ThreadPoolExecutor(max_concurrent, thread_name_prefix="precision-lab-train")
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

    def start(self, config: TrainConfig) -> WorkerRun:
        """The run in a worker process: it may take max_seconds of real time there, waiting for one included."""
        return self.workers.run(config, self.max_seconds)

    def pull(self, run: WorkerRun, seconds: float, deadline: float, into: list[bytes]) -> None:
        """Add the run's next batch to `into`, each frame read before its deadline by `clock`; past it, the run is
        stopped and RunsBusy raised, as it is when the worker process does not answer in time or ends."""
        try:
            batch = run.pull(seconds)
        except WorkerTimeout:
            raise _too_slow(self.max_seconds) from None
        except WorkerLost:
            raise _worker_lost() from None
        for _, data in batch:
            if self._clock() >= deadline:
                run.stop()
                raise _too_slow(self.max_seconds)
            into.append(data)

    def record(self, config: TrainConfig) -> Recorded:
        """The run, from the cache or trained now while the calling thread waits (raises RunsBusy when no slot
        is free or the run takes too long)."""
        recorded = self.cached(config)
        if recorded is None:
            with self.slot():
                recorded = self._trained(config)
            self.store(config, recorded)
        return recorded

    def _trained(self, config: TrainConfig) -> Recorded:
        deadline = self.deadline()
        run = self.start(config)
        frames: list[bytes] = []
        try:
            while not run.exhausted:
                self.pull(run, RECORD_PULL_SECONDS, deadline, frames)
        finally:
            run.stop()
        return tuple(frames)

    def live(self, config: TrainConfig) -> LiveRun:
        """A run to stream as it trains, holding a slot until it is closed (raises RunsBusy)."""
        self.acquire()
        return LiveRun(self, config)


class LiveRun:
    """One streamed run: its batches pulled from its worker process in threads; cached when it completes."""

    def __init__(self, runs: TrainRuns, config: TrainConfig) -> None:
        self._runs, self._config = runs, config
        self._deadline = runs.deadline()
        self._run = runs.start(config)
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
        first = len(self._recorded)
        try:
            self._runs.pull(self._run, PULL_SECONDS, self._deadline, self._recorded)
        except RunsBusy as too_slow:
            self.finished = True
            self._recorded.append(frame({"type": "error", "detail": str(too_slow)}))
        else:
            if self._run.exhausted:
                self.finished = True
                self._runs.store(self._config, tuple(self._recorded))
        return b"".join(self._recorded[first:])

    def seconds_left(self) -> float:
        """Until the run's deadline (negative past it)."""
        return self._runs.seconds_until(self._deadline)

    async def frames(self) -> AsyncIterator[bytes]:
        while not self.finished:
            yield await asyncio.get_running_loop().run_in_executor(self._runs.pulling, self.pull)

    def close(self) -> None:
        """Stop training (the client went away, or the run is done) and give the slot back; idempotent."""
        if not self._closed:
            self._closed = True
            self._run.stop()
            self._runs.release()


async def replay(recorded: Recorded) -> AsyncIterator[bytes]:
    """A cached run's frames, sent as fast as the connection takes them."""
    for start in range(0, len(recorded), REPLAY_FRAMES):
        yield b"".join(recorded[start:start + REPLAY_FRAMES])
