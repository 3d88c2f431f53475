"""`precision-lab serve --workers 2` trains in processes of each worker's own, and leaves none behind.

Each server process (uvicorn worker) that trains a run has a fork server, and training processes forked from it
at the pool's priority (NICENESS above its own); when the server stops on SIGTERM, every one of them ends with
it. Processes are found through /proc, so this runs on Linux.
"""

from __future__ import annotations

import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest

from app.services.train_workers import NICENESS
from tests.processes import STOP_SECONDS
from tests.system.system_servers import REQUEST_SECONDS, Server, send_until_both_workers_answered, serve, stop_cleanly

pytestmark = [pytest.mark.timeout(180),
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process tree in /proc")]

RUN = {"steps": 5, "width": 8, "batch_size": 16}
BATCH = 16  # runs sent at once, each on a connection of its own so that either worker may accept it
MAX_BATCHES = 10


def _stat(pid: int) -> list[str]:
    """The fields of /proc/<pid>/stat after the command name: state first, then the parent's pid."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def _descendants(root: int) -> dict[int, int]:
    """Every process below `root`, each with its parent's pid."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int(_stat(int(entry.name))[1])
            except (FileNotFoundError, ProcessLookupError):
                continue
    below: dict[int, int] = {}
    frontier = {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier}
        below |= {pid: parents[pid] for pid in frontier}
    return below


def _nice(pid: int) -> int:
    return int(_stat(pid)[16])


def _alive(pid: int) -> bool:
    try:
        return _stat(pid)[0] != "Z"
    except FileNotFoundError:
        return False


def _train(server: Server, request_id: str, seed: int) -> None:
    response = httpx.post(f"{server.url}/api/train", json={**RUN, "seed": seed}, headers={"X-Request-ID": request_id},
                          timeout=REQUEST_SECONDS * 3)
    assert response.status_code in (200, 503), response.text  # 503: both slots of that worker taken


def test_each_worker_trains_in_processes_of_its_own_that_end_with_the_server(tmp_path: Path) -> None:
    server = serve(tmp_path, workers=2)
    prefix = uuid.uuid4().hex[:12]
    try:
        _, trained = send_until_both_workers_answered(
            server, lambda n: _train(server, f"{prefix}-{n}", n), request_id_prefix=prefix, batch=BATCH,
            max_batches=MAX_BATCHES, threads=BATCH, status=200)
        assert len(trained) == 2, "one worker trained every run"
        below = _descendants(server.process.pid)
        for worker in trained:
            helpers = [pid for pid, parent in below.items() if parent == worker]  # the fork server (and tracker)
            training = [pid for pid, parent in below.items() if parent in helpers]
            assert 1 <= len(training) <= 2, (worker, below)  # at most one per slot
            assert all(_nice(pid) == min(19, _nice(worker) + NICENESS) for pid in training)
    finally:
        stop_cleanly(server, workers=2)
    deadline = time.monotonic() + STOP_SECONDS
    while any(map(_alive, below)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in below if _alive(pid)], "processes outlived the server"
    assert "Traceback" not in server.log.read_text()
