"""Real app processes for the system tests: uvicorn on a free loopback port, started, waited for and stopped.

Every wait is bounded; a server that dies or does not answer in time fails the test with its log.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from httpx import Client

from app.quiz.signing import new_seed_text
from app.store.database import migrate
from tests.helpers.net import free_port
from tests.processes import STOP_SECONDS, stop

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SERVER_START_SECONDS = 30.0
REQUEST_SECONDS = 10.0
# High enough that a test's own requests never meet a rate limit; the limits are tested elsewhere.
UNLIMITED = "100000/minute"


class Server:
    """One app process on 127.0.0.1 (`uvicorn app.main:app` unless `command` says otherwise; it gets the port
    appended), its base URL and its log file. `env` adds or overrides environment variables (None removes one)."""

    def __init__(self, database_url: str, signing_key: str, log: Path, *, env: dict[str, str | None] | None = None,
                 command: list[str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        environment = {
            **os.environ,
            "PRECISION_LAB_ENVIRONMENT": "test",
            "PRECISION_LAB_DATABASE_URL": database_url,
            "PRECISION_LAB_SIGNING_KEY": signing_key,
            "PRECISION_LAB_PUBLIC_BASE_URL": self.url,
            "PRECISION_LAB_RATE_LIMIT_ATTEMPTS": UNLIMITED,
            "PRECISION_LAB_RATE_LIMIT_VERIFY": UNLIMITED,
            "PRECISION_LAB_RATE_LIMIT_TRAIN": UNLIMITED,
            "PRECISION_LAB_RATE_LIMIT_PASSES": UNLIMITED,
        }
        environment.pop("DATABASE_URL", None)  # PRECISION_LAB_DATABASE_URL alone names the database
        for name in ("REDIS_URL", "PRECISION_LAB_REDIS_URL"):  # counters in that database unless `env` names a Redis
            environment.pop(name, None)
        for name, value in (env or {}).items():
            if value is None:
                environment.pop(name, None)
            else:
                environment[name] = value
        command = [*(command or [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port"]),
                   str(self.port)]
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                command, cwd=PROJECT_ROOT, env=environment, stdout=out, stderr=subprocess.STDOUT
            )

    def wait_until_ready(self) -> None:
        """Return once /readyz answers 200 (the database is reachable and migrated); fail after 30 s."""
        deadline = time.monotonic() + SERVER_START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"the server exited with code {self.process.returncode} before it was ready:\n"
                            f"{self.log.read_text()}", pytrace=False)
            try:
                if httpx.get(self.url + "/readyz", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        pytest.fail(f"the server at {self.url} was not ready within {SERVER_START_SECONDS:.0f} s:\n"
                    f"{self.log.read_text()}", pytrace=False)

    def stop(self) -> None:
        """Terminate the process, killing it when it does not end in time; nothing when it has ended already."""
        stop(self.process)


@contextmanager
def two_instances(database_url: str, logs: Path,
                  env: dict[str, str] | None = None) -> Iterator[tuple[Client, Client]]:
    """Instances A and B: two app processes on one migrated database with one signing key, and a client of each.

    They are one site, behind one load balancer: one public origin, which their links and key URLs are built on."""
    migrate(database_url)
    key = new_seed_text()
    servers: list[Server] = []
    shared: dict[str, str | None] = {"PRECISION_LAB_PUBLIC_BASE_URL": "https://lab.example", **(env or {})}
    try:
        for name in ("a", "b"):
            servers.append(Server(database_url, key, logs / f"uvicorn-{name}.log", env=shared))
        for server in servers:
            server.wait_until_ready()
        with (Client(base_url=servers[0].url, timeout=REQUEST_SECONDS) as a,
              Client(base_url=servers[1].url, timeout=REQUEST_SECONDS) as b):
            yield a, b
    finally:
        for server in servers:
            server.stop()


# -- `precision-lab serve --workers N`: uvicorn's workers under one parent -------------------------------------


def serve(tmp_path: Path, workers: int, env: dict[str, str | None] | None = None) -> Server:
    """`precision-lab serve --workers N` on a fresh migrated SQLite database, ready; stopped if it never is."""
    url = f"sqlite:///{tmp_path / 'precision_lab.db'}"
    migrate(url)
    command = [sys.executable, "-m", "app.cli", "serve", "--workers", str(workers), "--host", "127.0.0.1", "--port"]
    server = Server(url, new_seed_text(), tmp_path / "serve.log", env=env, command=command)
    try:
        server.wait_until_ready()
    except BaseException:
        server.stop()
        raise
    return server


def access_lines(log: Path, request_id_prefix: str) -> list[dict]:
    """The JSON access lines of the requests whose X-Request-ID starts with the prefix; each names its worker."""
    lines = (json.loads(line) for line in log.read_text().splitlines() if line.startswith("{"))
    return [line for line in lines if line["logger"] == "precision_lab.access"
            and line.get("request_id", "").startswith(request_id_prefix)]


def send_until_both_workers_answered(server: Server, send: Callable[[int], None], *, request_id_prefix: str,
                                     batch: int, max_batches: int, threads: int,
                                     status: int | None = None) -> tuple[int, set[int]]:
    """Call send(number) for batches of `batch` numbers at once (each request on a connection of its own, so that
    either worker may accept it) until the access lines show two workers answered, with `status` when one is
    given, or `max_batches` were sent: how many requests were sent, and the pids of the workers that answered."""
    sent = 0
    answered: set[int] = set()
    with ThreadPoolExecutor(threads) as pool:
        for _ in range(max_batches):
            list(pool.map(send, range(sent, sent + batch)))
            sent += batch
            answered = {line["pid"] for line in access_lines(server.log, request_id_prefix)
                        if status is None or line["status"] == status}
            if len(answered) == 2:
                break
    return sent, answered


def stop_cleanly(server: Server, workers: int) -> None:
    """SIGTERM: every worker shuts its app down; one worker exits by the signal, as uvicorn does, a parent with 0."""
    server.process.terminate()
    assert server.process.wait(timeout=STOP_SECONDS * 3) in (0, -signal.SIGTERM), server.log.read_text()
    assert server.log.read_text().count('"message": "Application shutdown complete."') == workers
