"""A throwaway Redis server on a free loopback port, for the tests of rate limits counted in Redis.

Without redis-server on the PATH a Redis case skips, unless CI is set, where it fails, since .ci/run installs it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.net import free_port
from tests.processes import stop

START_SECONDS = 10.0


def redis_server_url(directory: Path) -> Iterator[str]:
    """Yield the redis:// URL of a fresh server that keeps nothing on disk; stop it afterwards."""
    executable = shutil.which("redis-server")
    if executable is None:
        reason = "redis-server is not installed, so there is no Redis to count rate limits in"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; in CI .ci/run installs it, so these tests never skip there.")
        pytest.skip(reason)
    port = free_port()
    log = directory / "redis.log"
    command = [executable, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
               "--dir", str(directory)]
    with log.open("wb") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_until_answering(port, server, log)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop(server)


def _wait_until_answering(port: int, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"redis-server exited with code {server.returncode}:\n{log.read_text()}", pytrace=False)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    return
        except OSError:
            pass
        time.sleep(0.05)
    pytest.fail(f"redis-server did not answer within {START_SECONDS:.0f} s:\n{log.read_text()}", pytrace=False)
