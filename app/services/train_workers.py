"""The training processes of one web process, so that a run and the web requests of its process never wait for
one interpreter lock, and the one deadline that every wait of a run asks.

Each web process (each uvicorn worker) has one TrainWorkers: up to `processes` training processes, each started
when a run first needs it and training one run at a time. A process whose run finished trains the next; one
whose run ended any other way (cancelled, past its deadline, its client gone) is killed, and a new one is
started in its place when next needed.

The processes come from a fork server that has imported the training core and app/services/train_process.py,
never from the web process itself: a fork of a process with threads (the server's thread pool, the test client's
portal) may copy a lock that one of them held, and would copy its listening socket and database connections; a
spawn would import numpy again for every process started or replaced. Their nice value is NICENESS above the
web process's.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.forkserver
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

from app.services import train_process

__all__ = ["NICENESS", "Deadline", "TrainWorkers", "Worker"]

# Added to a training process's nice value. At 10 a web request wins a contended core outright, but on a machine
# the web processes keep busy a run then gets a tenth of a core and misses its time limit; the slots already bound
# the cores training takes, and `make load` measured the visualiser's p99 within 2x of its calm p99 at 0.
NICENESS = 0
_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload([train_process.__name__])


@dataclass
class Deadline:
    """When a run must have ended, by `clock`: waiting for a process, for frames and for the client all ask it."""

    clock: Callable[[], float]
    seconds: float
    at: float = field(init=False)
    ended: bool = False

    def __post_init__(self) -> None:
        self.at = self.clock() + self.seconds

    def left(self) -> float:
        """Seconds until the deadline, 0 or less past it or once ended (one reading of the clock, or none)."""
        return -1.0 if self.ended else self.at - self.clock()

    def end(self) -> None:
        """The run is over before its time: every wait that asks stops waiting."""
        self.ended = True


class Worker:
    """One training process: configurations go in through `configs`, frames come back through `frames`."""

    def __init__(self) -> None:
        their_configs, self.configs = _CONTEXT.Pipe(duplex=False)
        self.frames, their_frames = _CONTEXT.Pipe(duplex=False)  # an OS pipe: its buffer is the run's queue
        self.process = _CONTEXT.Process(target=train_process.serve, args=(their_configs, their_frames, NICENESS),
                                        name="precision-lab-training", daemon=True)
        self.process.start()
        their_configs.close()
        their_frames.close()

    def kill(self) -> None:
        """End the process at once, wherever it is (SIGKILL: it holds nothing that needs a goodbye)."""
        if self.process.exitcode is None:
            self.process.kill()

    def end(self) -> int | None:
        """Kill the process, wait for it and close its pipes; its exit status (1: the core raised)."""
        self.kill()
        self.process.join()
        self.configs.close()
        self.frames.close()
        return self.process.exitcode


class TrainWorkers:
    """The training processes of one web process: at most `processes`, started when first needed."""

    def __init__(self, processes: int) -> None:
        self.processes = processes
        self._idle: list[Worker] = []
        self._started: set[Worker] = set()
        self._changed = threading.Condition()
        self._closed = False
        # Processes left when the owner is dropped unclosed (a test's own TrainRuns) end with it
        weakref.finalize(self, _end_all, self._started)

    @property
    def started(self) -> int:
        """Training processes alive now, idle or training."""
        with self._changed:
            return len(self._started)

    @property
    def idle(self) -> int:
        """Training processes waiting for a run."""
        with self._changed:
            return len(self._idle)

    def pids(self) -> set[int]:
        """The process ids of the training processes alive now."""
        with self._changed:
            return {pid for worker in self._started if (pid := worker.process.pid) is not None}

    def warm(self) -> None:
        """Start the fork server in the background, so that the first run does not wait for it to import the
        training core (about half a second of CPU); once per web process."""
        threading.Thread(target=multiprocessing.forkserver.ensure_running, name="precision-lab-fork-server",
                         daemon=True).start()

    def lease(self, deadline: Deadline) -> Worker | None:
        """An idle process, or a new one while fewer than `processes` run; waiting for one while the deadline
        allows (None past it). Raises EOFError once the pool is closed."""
        with self._changed:
            while not self._idle and len(self._started) >= self.processes and not self._closed:
                left = deadline.left()
                if left <= 0:
                    return None
                self._changed.wait(left)
            if self._closed:
                raise EOFError("the lab is shutting down")
            if self._idle:
                return self._idle.pop()
            worker = Worker()  # a fork of the fork server: milliseconds once the server runs
            self._started.add(worker)
            return worker

    def wake(self) -> None:
        """Wake every lease waiting for a process, to ask its deadline again."""
        with self._changed:
            self._changed.notify_all()

    def give_back(self, worker: Worker) -> None:
        """A process whose run finished: it waits for the next (or ends, once the pool is closed)."""
        with self._changed:
            kept = not self._closed and worker in self._started
            if kept:
                self._idle.append(worker)
                self._changed.notify()
        if not kept:
            worker.end()

    def end(self, worker: Worker, wait: bool = True) -> int | None:
        """Kill a process whose run ended unfinished; the next lease starts a new one. With `wait`, wait for it
        and close its pipes: its exit status (without, a read waiting on its pipe does that)."""
        with self._changed:
            self._started.discard(worker)
            self._changed.notify()
        if not wait:
            worker.kill()
            return None
        return worker.end()

    def close(self) -> None:
        """Kill every process; a run still reading sees its process end, and closes its pipes. Idempotent."""
        with self._changed:
            self._closed = True
            idle, self._idle = self._idle, []
            leased = self._started.difference(idle)
            self._started.clear()
            self._changed.notify_all()
        for worker in leased:
            worker.kill()
            worker.process.join()
        _end_all(idle)


def _end_all(workers: list[Worker] | set[Worker]) -> None:
    for worker in list(workers):
        worker.end()
