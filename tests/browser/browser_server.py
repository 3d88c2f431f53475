"""The app served by uvicorn in a subprocess on a free loopback port, for the browser tests.

Every wait is bounded: a server that exits or does not answer in time fails the test with its log.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from app.quiz.signing import new_seed_text
from tests.processes import stop

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SERVER_START_SECONDS = 30.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until_answering(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(
                f"the server exited with code {server.returncode} before answering:\n{log.read_text()}",
                pytrace=False,
            )
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return  # it answered; the tests judge the answer
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.1)
    pytest.fail(
        f"the server did not answer {url} within {SERVER_START_SECONDS:.0f} s:\n{log.read_text()}",
        pytrace=False,
    )


@contextmanager
def serve_app(tmp_path_factory: pytest.TempPathFactory, database_url: str, **settings: str) -> Iterator[str]:
    """Serve the app with uvicorn in a subprocess on a free port; yield its base URL, e.g. http://127.0.0.1:41234.

    `settings` are extra PRECISION_LAB_* environment variables, by their names without the prefix.
    """
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path_factory.mktemp("server") / "uvicorn.log"
    # A fresh database and signing key, so that nothing is written to the working directory.
    env = {
        **os.environ,
        "PRECISION_LAB_ENVIRONMENT": "test",
        "PRECISION_LAB_DATABASE_URL": database_url,
        "PRECISION_LAB_SIGNING_KEY": new_seed_text(),
        "PRECISION_LAB_PUBLIC_BASE_URL": url,
        # Every browser test shares one client address.
        "PRECISION_LAB_RATE_LIMIT_TRAIN": "100000/minute",
        "PRECISION_LAB_RATE_LIMIT_SUMS": "100000/minute",  # the dot-product test fetches the server's page per case
        **{f"PRECISION_LAB_{name.upper()}": value for name, value in settings.items()},
    }
    command = [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as out:
        server = subprocess.Popen(command, cwd=PROJECT_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_until_answering(url + "/", server, log)
        yield url
    finally:
        stop(server)
