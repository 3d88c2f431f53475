"""`precision-lab serve --workers 2` as a real process: both workers serve, /metrics adds up what each counted.

The JSON access lines on the server's stdout name the worker (pid) of each request; /metrics, answered by
whichever worker takes it, must count every request of both. Then the server stops on SIGTERM with status 0.
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest
from prometheus_client.mmap_dict import MmapedDict, mmap_key
from prometheus_client.parser import text_string_to_metric_families

from tests.system.system_servers import (
    REQUEST_SECONDS,
    Server,
    access_lines,
    send_until_both_workers_answered,
    serve,
    stop_cleanly,
)

pytestmark = pytest.mark.timeout(180)

ROUTE = "/visualise/{format_id}"
BATCH = 60  # requests sent at once, each on a connection of its own so that either worker may accept it
MAX_BATCHES = 10  # the kernel hands connections to the workers as they ask; ten batches to one alone is not luck
CLIENT_THREADS = 8
METRICS_WAIT_SECONDS = 10.0  # a worker counts a request just after its last byte is sent


def _visualise(server: Server, request_id: str) -> None:
    response = httpx.get(f"{server.url}/visualise/bfloat16?value=0.1", headers={"X-Request-ID": request_id},
                         timeout=REQUEST_SECONDS)
    assert response.status_code == 200 and response.headers["X-Request-ID"] == request_id


def _sample(server: Server, name: str, **labels: str) -> float | None:
    text = httpx.get(f"{server.url}/metrics", timeout=REQUEST_SECONDS).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return sample.value
    return None


def _counted(server: Server) -> float:
    return _sample(server, "precision_lab_http_requests_total", method="GET", route=ROUTE, status="200") or 0.0


def _write_metric_file(path: Path, metric: str, name: str, labels: dict[str, str], value: float) -> None:
    """A file as prometheus_client's multiprocess mode leaves it: what a process of another run, or one that
    died, counted."""
    written = MmapedDict(str(path))
    written.write_value(mmap_key(metric, name, list(labels), list(labels.values()), "left behind"), value, 0.0)
    written.close()


def _counted_when_settled(server: Server, expected: int) -> float:
    deadline = time.monotonic() + METRICS_WAIT_SECONDS
    while (counted := _counted(server)) < expected and time.monotonic() < deadline:
        time.sleep(0.1)
    return counted


@pytest.fixture
def no_metrics_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server starts without PROMETHEUS_MULTIPROC_DIR, as a deployment that does not set it."""
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)


def test_two_workers_serve_and_metrics_count_the_requests_of_both(tmp_path: Path, no_metrics_dir: None):
    server = serve(tmp_path, workers=2)
    prefix = uuid.uuid4().hex[:12]
    try:
        sent, _ = send_until_both_workers_answered(
            server, lambda number: _visualise(server, f"{prefix}-{number}"), request_id_prefix=prefix,
            batch=BATCH, max_batches=MAX_BATCHES, threads=CLIENT_THREADS)
        assert _counted_when_settled(server, sent) == sent
    finally:
        stop_cleanly(server, workers=2)
    lines = access_lines(server.log, prefix)
    assert sorted(line["request_id"] for line in lines) == sorted(f"{prefix}-{n}" for n in range(sent))
    assert len({line["pid"] for line in lines}) == 2, "one worker served every request"
    assert server.process.pid not in {line["pid"] for line in lines}  # the parent only supervises
    assert {(line["route"], line["status"], line["path"]) for line in lines} == {(ROUTE, 200, "/visualise/bfloat16")}


def test_a_given_metrics_directory_is_emptied_and_a_dead_workers_runs_in_flight_are_dropped(tmp_path: Path):
    directory = tmp_path / "metrics"
    directory.mkdir()
    requests = "precision_lab_http_requests"
    _write_metric_file(directory / "counter_999999.db", requests, f"{requests}_total",
                       {"method": "GET", "route": ROUTE, "status": "200"}, 1000.0)
    server = serve(tmp_path, workers=1, env={"PROMETHEUS_MULTIPROC_DIR": str(directory)})
    try:
        _visualise(server, "after-restart")
        assert _counted_when_settled(server, 1) == 1

        # A worker killed while it trained leaves its gauge file behind; its pid is gone.
        gone = subprocess.Popen([sys.executable, "-c", "pass"])
        gone.wait()
        in_flight = "precision_lab_training_runs_in_flight"
        left = directory / f"gauge_livesum_{gone.pid}.db"
        _write_metric_file(left, in_flight, in_flight, {}, 1.0)
        assert _sample(server, in_flight) == 0.0
        assert not left.exists()
    finally:
        stop_cleanly(server, workers=1)


def test_links_follow_the_port_serve_listens_on_when_no_public_url_is_set(tmp_path: Path) -> None:
    server = serve(tmp_path, 1, env={"PRECISION_LAB_PUBLIC_BASE_URL": None})
    try:
        page = f"{server.url}/visualise/float16?value=0.1"
        answer = httpx.get(f"{server.url}/oembed", params={"url": page, "format": "json"}, timeout=REQUEST_SECONDS)
        assert answer.status_code == 200, answer.text
        assert answer.json()["provider_url"] == server.url + "/"
        assert f'src="{server.url}/embed/visualise/float16' in answer.json()["html"]
        assert f"{server.url}/oembed?url=" in httpx.get(page, timeout=REQUEST_SECONDS).text  # the Embed button's
    finally:
        server.stop()
