"""A real server on a free loopback port, and a small keep-alive HTTP client that counts responses."""

from __future__ import annotations

import asyncio
import itertools
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from app.quiz import new_seed_text
from app.store.database import migrate
from tests.helpers.net import free_port


@contextmanager
def server(workers: int = 1, env: Mapping[str, str] | None = None) -> Iterator[str]:
    """Start `uvicorn app.main:app` on a free port; yield its base URL; stop it.

    The server has a fresh migrated SQLite database and a fresh signing key of its own (never the checkout's),
    and `env` added to its environment.
    """
    with tempfile.TemporaryDirectory() as scratch:
        database_url = f"sqlite:///{Path(scratch) / 'bench.db'}"
        migrate(database_url)
        fresh = {"PRECISION_LAB_ENVIRONMENT": "test", "PRECISION_LAB_DATABASE_URL": database_url,
                 "PRECISION_LAB_SIGNING_KEY": new_seed_text()}
        with _uvicorn(workers, os.environ | fresh | dict(env or {})) as base:
            DATABASES[base] = database_url
            try:
                yield base
            finally:
                DATABASES.pop(base, None)


@contextmanager
def _uvicorn(workers: int, environment: Mapping[str, str]) -> Iterator[str]:
    port = free_port()
    cmd = [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port", str(port),
           "--workers", str(workers), "--log-level", "warning", "--no-access-log"]
    proc = subprocess.Popen(cmd, env=environment)
    base = f"http://127.0.0.1:{port}"
    _PIDS[base] = proc.pid
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
        _PIDS.pop(base, None)
        proc.terminate()
        proc.wait(timeout=10)


_PIDS: dict[str, int] = {}
DATABASES: dict[str, str] = {}  # base URL → the URL of that server's database, which a benchmark may read


def cpu_seconds(base: str) -> float:
    """User and system CPU time the server at `base` has used so far (one worker: the process itself)."""
    fields = Path(f"/proc/{_PIDS[base]}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime and stime, in clock ticks


class Response(NamedTuple):
    status: int
    headers: dict[str, str]  # names in lower case
    body: bytes


class Client:
    """One keep-alive HTTP/1.1 connection to a loopback port; it reconnects when the server closed the last one.

    Reads bodies by Content-Length or chunked, so it also reads a whole server-sent event stream.
    """

    def __init__(self, port: int) -> None:
        self.port = port
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def request(self, method: str, path: str, headers: Mapping[str, str] | None = None,
                      body: bytes = b"") -> Response:
        if self._streams is None:
            self._streams = await asyncio.open_connection("127.0.0.1", self.port)
        reader, writer = self._streams
        lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"] + [f"{k}: {v}" for k, v in (headers or {}).items()]
        if body or method != "GET":
            lines.append(f"Content-Length: {len(body)}")
        try:
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
            response = await _read_response(reader)
        except BaseException:
            self.close()  # a half-read response leaves the connection unusable
            raise
        if response.headers.get("connection", "").lower() == "close":
            self.close()
        return response

    def close(self) -> None:
        if self._streams is not None:
            self._streams[1].close()
            self._streams = None


async def _read_response(reader: asyncio.StreamReader) -> Response:
    head = await reader.readuntil(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in header_lines:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        chunks = []
        while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
            chunks.append((await reader.readexactly(size + 2))[:-2])
        while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers, if any, up to the blank line
            pass
        body = b"".join(chunks)
    else:
        body = await reader.readexactly(int(headers.get("content-length", 0)))
    return Response(int(status_line.split(" ", 2)[1]), headers, body)


async def _connection(
    port: int, requests: Iterator[bytes], until: float, latencies: list[float], statuses: dict
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while time.perf_counter() < until:
            start = time.perf_counter()
            writer.write(next(requests))
            response = await _read_response(reader)
            latencies.append(time.perf_counter() - start)
            statuses[response.status] = statuses.get(response.status, 0) + 1
    finally:
        writer.close()


def percentile(sorted_seconds: list[float], q: float) -> float:
    """The q-quantile (0..1) of ascending latencies in seconds, in milliseconds; 0 for none."""
    if not sorted_seconds:
        return 0.0
    return sorted_seconds[min(len(sorted_seconds) - 1, int(q * len(sorted_seconds)))] * 1000


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
    return {"rps": len(latencies) / elapsed, "p50_ms": percentile(latencies, 0.5),
            "p99_ms": percentile(latencies, 0.99), "statuses": statuses}
