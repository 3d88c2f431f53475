"""Training runs computed in worker processes, so that a run and the web requests of its process never wait
for one interpreter lock.

Each web process (each uvicorn worker) has one TrainWorkers: up to `processes` worker processes, started when
a run first needs one and each training one run at a time. A run leases a process and pulls its events a batch
at a time, each batch the frames of one server-sent event per event: the worker computes only while a pull
waits for it, so a stream whose client stops reading stops its training too, and a run that is given up gives
its process back at once. A run past its time whose process does not answer is stopped for certain: the
process is terminated and a fresh one started in its place when next needed.

The processes come from a fork server that has imported this module and the training core, never from the
web process itself: a fork of a process with threads (the server's thread pool, the test client's portal)
may copy a lock that one of them held, and would copy its listening socket and database connections; a
spawn would import numpy again for every process started or replaced. Their nice value is NICENESS above the
web process's.

The worker process's side is app/services/train_process.py.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.forkserver
import threading
import time
import weakref

from app.services import train_process
from app.services.train_process import Frames, frame
from app.training import TrainConfig

__all__ = ["NICENESS", "Frames", "TrainWorkers", "WorkerLost", "WorkerRun", "WorkerTimeout", "frame"]

# Added to a worker process's nice value. At 10 a web request wins a contended core outright, but on a machine
# the web processes keep busy a run then gets a tenth of a core and misses its time limit; the slots already bound
# the cores training takes, and `make load` measured the visualiser's p99 within 2x of its calm p99 at 0.
NICENESS = 0
STOP_SECONDS = 5.0  # how long closing waits for a worker process to end before it is killed
_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload([train_process.__name__])


class WorkerTimeout(Exception):
    """The run's time ran out while it waited for a worker process or for a batch."""


class WorkerLost(Exception):
    """The worker process training the run ended (killed, out of memory) before it answered."""


class WorkerFailed(RuntimeError):
    """The training core raised in the worker process: a bug, with the worker's traceback as its message."""


# -- the web process's side ----------------------------------------------------------------------


class _Worker:
    """One worker process and the web process's end of its pipe."""

    def __init__(self) -> None:
        self.connection, theirs = _CONTEXT.Pipe()
        self.process = _CONTEXT.Process(target=train_process.serve, args=(theirs, NICENESS),
                                        name="precision-lab-training", daemon=True)
        self.process.start()
        theirs.close()

    def stop(self, seconds: float = STOP_SECONDS) -> None:
        """End the process: its pipe closed, it returns; one that is computing is terminated."""
        self.connection.close()
        self.process.join(timeout=0)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout=seconds)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


class TrainWorkers:
    """The worker processes of one web process: at most `processes`, started when first needed."""

    def __init__(self, processes: int) -> None:
        self.processes = processes
        self._idle: list[_Worker] = []
        self._started: set[_Worker] = set()
        self._changed = threading.Condition()
        self._closed = False
        # Processes left when the owner is dropped unclosed (a test's own TrainRuns) end with it
        weakref.finalize(self, _stop_all, self._started)

    @property
    def started(self) -> int:
        """Worker processes alive now, idle or training."""
        with self._changed:
            return len(self._started)

    @property
    def idle(self) -> int:
        """Worker processes alive and waiting for a run."""
        with self._changed:
            return len(self._idle)

    def pids(self) -> set[int]:
        """The process ids of the worker processes alive now."""
        with self._changed:
            return {pid for worker in self._started if (pid := worker.process.pid) is not None}

    def warm(self) -> None:
        """Start the fork server in the background, so that the first run does not wait for it to import the
        training core (about half a second of CPU); once per web process."""
        threading.Thread(target=multiprocessing.forkserver.ensure_running, name="precision-lab-fork-server",
                         daemon=True).start()

    def run(self, config: TrainConfig, seconds: float) -> WorkerRun:
        """A run of `config` that may take `seconds` in all (waiting for a free process included)."""
        return WorkerRun(self, config, time.monotonic() + seconds)

    def lease(self, deadline: float) -> _Worker:
        """An idle process, or a new one while fewer than `processes` run; waits for one until `deadline`
        (time.monotonic) and raises WorkerTimeout past it."""
        with self._changed:
            while not self._idle and len(self._started) >= self.processes:
                if self._closed:
                    raise WorkerLost("the lab is shutting down")
                if not self._changed.wait(deadline - time.monotonic()):
                    raise WorkerTimeout
            if self._closed:
                raise WorkerLost("the lab is shutting down")
            if self._idle:
                return self._idle.pop()
            worker = _Worker()  # a fork of the fork server: milliseconds once the server runs
            self._started.add(worker)
            return worker

    def give_back(self, worker: _Worker) -> None:
        """A process whose run is over, idle again (its run dropped)."""
        with self._changed:
            kept = not self._closed and worker in self._started
            if kept:
                try:
                    worker.connection.send(("end",))  # a few bytes to a process that waits to read: never blocks
                except OSError:  # it ended meanwhile
                    kept = False
                    self._started.discard(worker)
                else:
                    self._idle.append(worker)
                self._changed.notify()
        if not kept:
            worker.stop()

    def replace(self, worker: _Worker) -> None:
        """Stop a process that did not answer in time or ended; the next lease starts a new one."""
        with self._changed:
            self._started.discard(worker)
            self._changed.notify()
        worker.stop(seconds=0)

    def close(self) -> None:
        """Stop every process; runs still pulling get WorkerLost. Idempotent."""
        with self._changed:
            self._closed = True
            self._idle.clear()
            self._changed.notify_all()
        _stop_all(self._started)


def _stop_all(workers: set[_Worker]) -> None:
    while workers:
        try:
            workers.pop().stop()
        except KeyError:  # another thread took the last one
            return


class WorkerRun:
    """One run in a leased worker process, pulled a batch at a time from one thread at a time.

    `stop()` may come from another thread (the event loop, when the client goes away) while a pull waits: the
    process then goes back to the pool when that pull has its answer.
    """

    def __init__(self, workers: TrainWorkers, config: TrainConfig, deadline: float) -> None:
        self._workers, self._config, self._deadline = workers, config, deadline
        self._worker: _Worker | None = None
        self._started = False
        self._guard = threading.Lock()
        self._pulling = False
        self.stopped = False
        self.exhausted = False

    def pull(self, seconds: float) -> Frames:
        """The next events computed in about `seconds` (none once stopped or exhausted).

        Raises WorkerTimeout past the run's deadline (a process that is computing then is replaced),
        WorkerLost when the process ends, WorkerFailed when the core raised.
        """
        with self._guard:
            if self.stopped or self.exhausted:
                return []
            self._pulling = True
        try:
            return self._pull(seconds)
        finally:
            with self._guard:
                self._pulling = False
                stopped = self.stopped
            if stopped or self.exhausted:
                self._give_back()

    def _pull(self, seconds: float) -> Frames:
        if self._worker is None:
            self._worker = self._workers.lease(self._deadline)
            if self.stopped:  # given up while it waited for the process: the process goes back untouched
                return []
        worker = self._worker
        try:
            worker.connection.send(("pull", None if self._started else self._config, seconds))
            self._started = True
            if not worker.connection.poll(max(0.0, self._deadline - time.monotonic())):
                raise WorkerTimeout
            answer = worker.connection.recv()
        except WorkerTimeout:
            self._drop(worker)
            raise
        except (EOFError, OSError) as lost:
            self._drop(worker)
            raise WorkerLost(str(lost)) from None
        if answer[0] == "failed":
            self.exhausted = True
            raise WorkerFailed(answer[1])
        _, batch, self.exhausted = answer
        return batch

    def _drop(self, worker: _Worker) -> None:
        self._worker, self.exhausted = None, True
        self._workers.replace(worker)

    def stop(self) -> None:
        """Give the process back (now, or when the pull in progress returns); idempotent."""
        with self._guard:
            self.stopped = True
            if self._pulling:
                return
        self._give_back()

    def _give_back(self) -> None:
        with self._guard:
            worker, self._worker = self._worker, None
        if worker is not None:
            self._workers.give_back(worker)
