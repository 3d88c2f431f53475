"""What a training worker process runs (app/services/train_workers.py starts them): it answers the web
process's pulls with the server-sent event frames of one run at a time, computing a little ahead between pulls.

This module imports the standard library and the training core only: it is what each worker process loads.
"""

from __future__ import annotations

import json
import os
import signal
import time
import traceback
from collections.abc import Callable, Generator, Iterator
from multiprocessing.connection import Connection
from typing import Any, cast

from app.training import stream

__all__ = ["READ_AHEAD_SECONDS", "Frames", "frame", "next_frames", "serve"]

# How much work a run does ahead of its next pull: enough that a web process slow to pull (100 clients on two
# cores) leaves the run computing, little enough that a stream nobody reads stops within a fraction of a second.
READ_AHEAD_SECONDS = 0.5

# A batch: (event type, the event's server-sent event frame) per event, and whether the run has no more events
Frames = list[tuple[str, bytes]]


def frame(event: dict[str, Any]) -> bytes:
    """One server-sent event: its type as the event name, the event as JSON (which has no NaN or infinity)."""
    data = json.dumps(event, separators=(",", ":"), allow_nan=False)
    return f"event: {event['type']}\ndata: {data}\n\n".encode()


def serve(connection: Connection, niceness: int) -> None:
    """Answer pulls until the web process closes its end: ("pull", config or None, seconds) trains a new run
    when given a configuration (dropping the one before), and answers with the events computed since the last
    pull, or in about `seconds` when none are; ("end",) drops the run.

    Between pulls the run computes ahead, up to READ_AHEAD_SECONDS of work: a busy web process then costs the
    run no time, and a stream whose client stops reading (so that no pull comes) still stops soon after."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group; the web process stops us
    os.nice(niceness)
    events: Generator[dict[str, Any], None, None] | None = None
    ahead: Frames = []
    ahead_seconds, finished, failure = 0.0, False, None
    while True:
        if events is not None and not finished and ahead_seconds < READ_AHEAD_SECONDS and not connection.poll(0):
            started = time.perf_counter()
            try:
                more, finished = next_frames(events, READ_AHEAD_SECONDS - ahead_seconds, connection.poll)
            except Exception:  # a bug in the core: answered at the next pull, and this process lives on
                events, failure = None, traceback.format_exc()
                continue
            ahead += more
            ahead_seconds += time.perf_counter() - started
            continue
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return
        if message[0] == "end" or message[1] is not None:  # the run is over, or another begins
            if events is not None:
                events.close()  # frees the run before the next
            events, ahead, ahead_seconds, finished, failure = None, [], 0.0, False, None
        if message[0] == "end":
            continue
        _, config, seconds = message
        try:
            if failure is not None:
                connection.send(("failed", failure))
                ahead, failure = [], None
                continue
            if config is not None:
                # stream() is a generator (annotated as an iterator): closing it stops the training
                events = cast(Generator[dict[str, Any], None, None], stream(config))
            assert events is not None or ahead, "a pull before its run"
            if ahead:
                connection.send(("frames", ahead, finished))
                ahead, ahead_seconds = [], 0.0
            else:
                assert events is not None
                batch, finished = next_frames(events, seconds)
                connection.send(("frames", batch, finished))
        except Exception:  # a bug in the core: the web process raises it, and this process lives on
            events, ahead, ahead_seconds, finished = None, [], 0.0, False
            connection.send(("failed", traceback.format_exc()))


def next_frames(events: Iterator[dict[str, Any]], seconds: float,
           interrupted: Callable[[], bool] = lambda: False) -> tuple[Frames, bool]:
    """The events computed in `seconds` (or until `interrupted`); the start event and the first step alone, so
    that they leave at once."""
    deadline = time.perf_counter() + seconds
    batch: Frames = []
    for event in events:
        batch.append((event["type"], frame(event)))
        if (event["type"] != "step" or event["step"] == 1 or time.perf_counter() > deadline
                or interrupted()):
            return batch, event["type"] == "done"
    return batch, True
