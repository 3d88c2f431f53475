"""Clients that stream a run and then read nothing: real sockets with a small receive buffer, on a real server.

Each such client fills its socket's buffers and then blocks the server's writes. Its run must give its training
slot back once a write has waited train_send_timeout, or at the run's deadline (train_max_seconds), while its
socket is still open, so that other people can train; before, two of them held both slots of a worker for as
long as their sockets stayed open. The training process a run holds goes back with its slot, so the next run
gets one and finishes, with as many processes as slots or fewer.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.quiz.signing import new_seed_text
from app.store.database import migrate
from tests.system.system_servers import REQUEST_SECONDS, Server

pytestmark = pytest.mark.timeout(180)

# Either bound frees a stalled run's slot: a write that waits the send timeout, or the run's deadline
BOUNDS = {
    "send timeout": {"PRECISION_LAB_TRAIN_SEND_TIMEOUT": "1"},
    "deadline": {"PRECISION_LAB_TRAIN_SEND_TIMEOUT": "600", "PRECISION_LAB_TRAIN_MAX_SECONDS": "3"},
    # the second stalled run waits for the training process the first holds until its slot goes back
    "send timeout, one process": {"PRECISION_LAB_TRAIN_SEND_TIMEOUT": "1", "PRECISION_LAB_TRAIN_PROCESSES": "1"},
}
# Long enough to compute for several seconds and to send megabytes: every recipe, 2000 steps of a tiny network
STALLING_QUERY = ("steps=2000&width=8&batch=16&recipe=fp32&recipe=tf32&recipe=fp16_no_scaling&recipe=bf16"
                  "&recipe=fp16_static_scaling&recipe=fp16_dynamic_scaling&recipe=fp16_no_master&recipe=bf16_no_master")
WAIT_SECONDS = 60.0  # the bound on each wait below; each ends as soon as what it waits for happens


@contextmanager
def stalled_stream(port: int) -> Iterator[socket.socket]:
    """A connection that asks for a live run and then reads nothing, with a receive buffer of 1 KiB."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    try:
        sock.connect(("127.0.0.1", port))
        sock.sendall(f"GET /train/stream?{STALLING_QUERY} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        yield sock
    finally:
        sock.close()


def in_flight(client: httpx.Client) -> float:
    families = text_string_to_metric_families(client.get("/metrics").text)
    return next(s.value for f in families for s in f.samples if s.name == "precision_lab_training_runs_in_flight")


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen within {WAIT_SECONDS:.0f} s", pytrace=False)
        time.sleep(0.1)


@pytest.mark.parametrize("bound", BOUNDS)
def test_clients_that_stop_reading_give_their_training_slots_back(tmp_path: Path, bound: str) -> None:
    url = f"sqlite:///{tmp_path / 'precision_lab.db'}"
    migrate(url)
    server = Server(url, new_seed_text(), tmp_path / "uvicorn.log",
                    env={**BOUNDS[bound], "PRECISION_LAB_TRAIN_MAX_CONCURRENT_RUNS": "2"})
    try:
        server.wait_until_ready()
        with httpx.Client(base_url=server.url, timeout=REQUEST_SECONDS) as client, ExitStack() as streams:
            sockets = [streams.enter_context(stalled_stream(server.port)) for _ in range(2)]
            wait_for(lambda: in_flight(client) == 2, "both stalled streams taking a slot")
            wait_for(lambda: in_flight(client) == 0, "both stalled runs giving their slots back")
            seed = iter(range(1000))
            wait_for(lambda: client.post("/api/train", json={"steps": 5, "width": 8, "batch_size": 16,
                                                             "seed": next(seed)}).status_code == 200,
                     "a new run being trained")
            # only now do the stalled clients close: the server let their runs go on its own
            assert all(sock.fileno() >= 0 for sock in sockets)
    finally:
        server.stop()
    log = (tmp_path / "uvicorn.log").read_text()
    assert "Traceback" not in log
