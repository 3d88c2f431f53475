"""Real app processes for the system tests: uvicorn on a free loopback port, started, waited for and stopped.

Every wait is bounded; a server that dies or does not answer in time fails the test with its log.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from httpx import Client

from app.quiz.signing import new_seed_text
from app.store.database import migrate
from tests.processes import stop

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SERVER_START_SECONDS = 30.0
REQUEST_SECONDS = 10.0
# High enough that a test's own requests never meet a rate limit; the limits are tested elsewhere.
UNLIMITED = "100000/minute"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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
