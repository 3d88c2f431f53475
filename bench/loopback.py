"""A real server on a free loopback port, and a small keep-alive HTTP client that counts responses."""

from __future__ import annotations

import asyncio
import itertools
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def server(workers: int = 1) -> Iterator[str]:
    """Start `uvicorn app.main:app` on a free port; yield its base URL; stop it."""
    port = free_port()
    env = os.environ | {"PRECISION_LAB_ENVIRONMENT": "test"}
    cmd = [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port", str(port),
           "--workers", str(workers), "--log-level", "warning", "--no-access-log"]
    proc = subprocess.Popen(cmd, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1).read()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def _connection(
    port: int, requests: Iterator[bytes], until: float, latencies: list[float], statuses: dict
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while time.perf_counter() < until:
            start = time.perf_counter()
            writer.write(next(requests))
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            await reader.readexactly(length)
            latencies.append(time.perf_counter() - start)
            statuses[status] = statuses.get(status, 0) + 1
    finally:
        writer.close()


def hammer(
    base: str, path: str | list[str], seconds: float, connections: int, headers: dict[str, str] | None = None
) -> dict:
    """Keep `connections` keep-alive connections busy on GET path for `seconds`; count and time responses.

    Given a list of paths, the connections take them in turn, so no path is asked for twice in a row.
    """
    port = int(base.rsplit(":", 1)[1])
    extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    paths = [path] if isinstance(path, str) else path
    requests = itertools.cycle([f"GET {p} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode() for p in paths])
    latencies: list[float] = []
    statuses: dict[int, int] = {}

    async def run() -> None:
        until = time.perf_counter() + seconds
        await asyncio.gather(*(_connection(port, requests, until, latencies, statuses) for _ in range(connections)))

    started = time.perf_counter()
    asyncio.run(run())
    elapsed = time.perf_counter() - started
    latencies.sort()
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else 0.0  # noqa: E731
    return {"rps": len(latencies) / elapsed, "p50_ms": pick(0.5), "p99_ms": pick(0.99), "statuses": statuses}
