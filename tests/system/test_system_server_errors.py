"""A real server keeps a keep-alive connection open after a 500, as after any other answer."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

from app.quiz.signing import new_seed_text
from app.store.database import migrate
from tests.system.failing_app import FAILING_PATH
from tests.system.system_servers import Server

pytestmark = pytest.mark.timeout(120)


def _response(sock: socket.socket) -> bytes:
    """One whole response with a Content-Length body."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536) or pytest.fail("the server closed the connection", pytrace=False)
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.lower().split(b"\r\n")
    length = next(int(line.split(b":")[1]) for line in lines if line.startswith(b"content-length"))
    while len(body) < length:
        body += sock.recv(65536) or pytest.fail("the server closed the connection mid-body", pytrace=False)
    return head


def test_a_500_leaves_the_connection_open_for_the_next_request(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'precision_lab.db'}"
    migrate(url)
    command = [sys.executable, "-m", "uvicorn", "--factory", "tests.system.failing_app:create", "--host", "127.0.0.1",
               "--port"]
    server = Server(url, new_seed_text(), tmp_path / "uvicorn.log", command=command)
    try:
        server.wait_until_ready()
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(f"GET {FAILING_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            failed = _response(sock)
            assert failed.startswith(b"HTTP/1.1 500") and b"x-request-id" in failed.lower()
            assert b"content-security-policy" in failed.lower() and b"connection: close" not in failed.lower()
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert _response(sock).startswith(b"HTTP/1.1 200")
    finally:
        server.stop()
    assert "a bug, on purpose" in (tmp_path / "uvicorn.log").read_text()  # the traceback is logged
