"""What a training process runs (app/services/train_workers.py starts them): each configuration it is sent,
trained, its server-sent event frames written into the frames pipe as they come.

The pipe is the run's bounded queue: when its buffer is full (the web process stopped reading), the write
waits, and so does the training. This module imports the standard library and the training core only: it is
what each training process loads.
"""

from __future__ import annotations

import json
import os
import signal
from multiprocessing.connection import Connection
from typing import Any

from app.training import TrainConfig, stream

__all__ = ["frame", "serve"]


def frame(event: dict[str, Any]) -> bytes:
    """One server-sent event: its type as the event name, the event as JSON (which has no NaN or infinity)."""
    data = json.dumps(event, separators=(",", ":"), allow_nan=False)
    return f"event: {event['type']}\ndata: {data}\n\n".encode()


def serve(configs: Connection, frames: Connection, niceness: int) -> None:
    """Train every configuration received on `configs`, one after another, until the web process closes it.

    A bug in the core ends the process with its traceback on stderr and exit status 1."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group; the web process stops us
    os.nice(niceness)
    while True:
        try:
            config: TrainConfig = configs.recv()
        except EOFError:
            return
        for event in stream(config):
            frames.send_bytes(frame(event))
