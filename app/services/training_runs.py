"""Training runs the site computes: a few at once, each configuration once, each in a training process.

A run is one training process writing its server-sent event frames (start, one per step, done) into a pipe,
which is its bounded queue: what nobody has read yet waits there, at most the pipe's buffer (64 KiB on Linux),
and then the process waits at its next frame, so a client that stops reading stops its run. One Deadline per
run is asked by every wait (for a process, for frames, for the client), and `Run.cancel` ends a run wherever it
is. A bounded LRU cache keyed by the resolved configuration keeps the last runs' frames, so the same
configuration streams again, answers the JSON API or renders the page without training again; the frames are
the same bytes as those of the same run computed here.
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
from app.services.train_process import frame
from app.services.train_workers import Deadline, TrainWorkers, Worker
from app.training import ResolvedConfig, TrainConfig, gather

__all__ = ["Run", "RunsBusy", "TrainRuns", "frame", "replay", "result"]

# Defaults of the settings train_max_concurrent_runs, train_cache_runs, train_max_seconds and train_send_timeout.
MAX_CONCURRENT_RUNS = 2
CACHE_RUNS = 64
CACHE_BYTES = 64 * 2**20
MAX_SECONDS = 60.0
SEND_TIMEOUT = 10.0
RETRY_AFTER_SECONDS = 2  # a default run takes about a second
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


def _worker_lost() -> RunsBusy:
    return RunsBusy(template=N_("The lab's training process stopped before this run finished; try again in a minute."))


def result(recorded: Recorded) -> dict[str, Any]:
    """The POST /api/train result of a recorded run."""
    return gather(json.loads(f.split(b"\ndata: ", 1)[1]) for f in recorded)


class TrainRuns:
    """The slots and the cache of one app; `computed` counts the runs trained (cache misses).

    Runs are trained by `workers` (its own, of one process per slot, when not given). A run must end within
    max_seconds by `clock`, and a live run's client must take each write within send_timeout (its stall limit).
    """

    def __init__(self, max_concurrent: int = MAX_CONCURRENT_RUNS, cache_runs: int = CACHE_RUNS,
                 cache_bytes: int = CACHE_BYTES, max_seconds: float = MAX_SECONDS,
                 clock: Callable[[], float] = time.monotonic, send_timeout: float = SEND_TIMEOUT,
                 workers: TrainWorkers | None = None) -> None:
        self.max_concurrent = max_concurrent
        self.max_seconds, self.clock, self.send_timeout = max_seconds, clock, send_timeout
        self.cache_runs, self.cache_bytes = cache_runs, cache_bytes
        self.workers = workers or TrainWorkers(max_concurrent)
        # Threads of their own for the live runs' reads, one per slot: in the server's shared thread pool a read
        # would queue behind every page being rendered, and the run's process would wait on a full pipe
        self.readers = ThreadPoolExecutor(max_concurrent, thread_name_prefix="precision-lab-train")
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

    def start(self, config: TrainConfig) -> Run:
        """A run of `config`, holding a slot until it ends (raises RunsBusy when every slot is taken); its
        deadline starts now."""
        self.acquire()
        return Run(self, config)

    def record(self, config: TrainConfig) -> Recorded:
        """The run, from the cache or trained now while the calling thread waits (raises RunsBusy when no slot
        is free, past the deadline, or when its process is lost)."""
        recorded = self.cached(config)
        if recorded is None:
            run = self.start(config)
            try:
                while not run.over:
                    run.read()
            finally:
                run.cancel()
            recorded = tuple(run.recorded)
        return recorded


class Run:
    """One run: its slot, its training process and the pipe that process writes into, and its deadline.

    `read` is called from one thread at a time; `cancel`, from any thread, ends the run wherever it is: its
    deadline ended (a wait for a process returns), its process killed (a read waiting on the pipe sees it end),
    its slot given back. A run that read its `done` frame is cached, and its process trains the next run.
    """

    def __init__(self, runs: TrainRuns, config: TrainConfig) -> None:
        self._runs, self._config = runs, config
        self.deadline = Deadline(runs.clock, runs.max_seconds)
        self.send_timeout = runs.send_timeout  # the stall limit: how long a write may wait for the client
        self.recorded: list[bytes] = []
        self.over = False  # finished or cancelled: no more frames
        self._worker: Worker | None = None
        self._reading = False
        self._lock = threading.Lock()

    def read(self) -> list[bytes]:
        """The frames written since the last read, waiting for the first while the deadline allows ([] once
        the run is over). Past the deadline, or when its process ends, the run is cancelled and RunsBusy raised
        (RuntimeError when the process ended because the training core raised: a bug)."""
        with self._lock:
            if self.over:
                return []
            self._reading = True
        try:
            return self._read()
        except (EOFError, OSError):  # its process ended: killed by `cancel`, or by itself
            if self.over:
                return []
            self.cancel()
            raise _worker_lost() from None
        except RunsBusy:
            self.cancel()
            raise
        finally:
            with self._lock:
                self._reading = False
                worker, self._worker = (self._worker, None) if self.over else (None, self._worker)
            if worker is not None and self._runs.workers.end(worker) == 1:
                raise RuntimeError("The training core raised in its process; its traceback is in the server's log.")

    def _read(self) -> list[bytes]:
        worker = self._worker
        if worker is None:
            worker = self._runs.workers.lease(self.deadline)
            with self._lock:
                self._worker = worker
                if self.over:  # cancelled while it waited for a process
                    return []
            if worker is None:
                raise _too_slow(self._runs.max_seconds)
            worker.configs.send(self._config)
        pipe, first = worker.frames, len(self.recorded)
        while len(self.recorded) == first or pipe.poll(0):  # waits for one frame, then takes those already there
            left = self.deadline.left()
            if left <= 0 or not pipe.poll(left):
                raise _too_slow(self._runs.max_seconds)
            self.recorded.append(pipe.recv_bytes())
            if self.recorded[-1].startswith(b"event: done\n"):
                self._finish()
                break
        return self.recorded[first:]

    def _finish(self) -> None:
        with self._lock:
            if self.over:  # cancelled meanwhile: `read` ends the process
                return
            self.over, worker, self._worker = True, self._worker, None
        assert worker is not None
        self._runs.workers.give_back(worker)
        self._runs.store(self._config, tuple(self.recorded))
        self._runs.release()

    def cancel(self) -> None:
        """End the run now, wherever it is, and free its slot and its process; idempotent, from any thread."""
        with self._lock:
            if self.over:
                return
            self.over, reading, worker = True, self._reading, self._worker
            if not reading:
                self._worker = None
        self.deadline.end()
        if worker is None:
            self._runs.workers.wake()  # a read waiting for a process stops waiting
        else:  # a read waiting on its pipe sees the process end, and waits for it
            self._runs.workers.end(worker, wait=not reading)
        self._runs.release()

    async def frames(self) -> AsyncIterator[bytes]:
        """The run's frames as they come, read in the runs' own threads. A run refused on the way (past its
        deadline, its process lost) ends with an `error` event whose `detail` is a sentence."""
        loop = asyncio.get_running_loop()
        while True:
            try:
                got = await loop.run_in_executor(self._runs.readers, self.read)
            except RunsBusy as refused:
                got = [frame({"type": "error", "detail": str(refused)})]
            # cancelled: its stream cancelled it at the deadline while a write waited (else nobody reads now)
            yield b"".join(got or [frame({"type": "error", "detail": str(_too_slow(self._runs.max_seconds))})])
            if self.over:
                return


async def replay(recorded: Recorded) -> AsyncIterator[bytes]:
    """A cached run's frames, sent as fast as the connection takes them."""
    for start in range(0, len(recorded), REPLAY_FRAMES):
        yield b"".join(recorded[start:start + REPLAY_FRAMES])
