"""The training demo over HTTP on loopback: time to the first streamed events, and the wall time of the
default four-recipe comparison through POST /api/train (trained, then from the cache)."""

from __future__ import annotations

import http.client
import json
import statistics
import time
from urllib.parse import urlsplit

from bench.loopback import server

REPEATS = 5
FIRST_EVENT_GOAL_MS = 200
COMPARISON_GOAL_S = 1.5


def _first_events(base: str, seed: int) -> tuple[float, float]:
    """Milliseconds from the request to the start event and to the first step event of a fresh run."""
    parts = urlsplit(base)
    while True:  # the runs this bench closed a moment ago may still hold the server's slots: 503, try again
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        started = time.perf_counter()
        connection.request("GET", f"/train/stream?seed={seed}")
        response = connection.getresponse()
        if response.status != 503:
            break
        connection.close()
        time.sleep(0.2)
    start_ms = step_ms = 0.0
    while not step_ms:
        line = response.readline()
        if not line:
            raise RuntimeError("the stream ended before its first step")
        if line.startswith(b"event: start"):
            start_ms = (time.perf_counter() - started) * 1000
        elif line.startswith(b"event: step"):
            step_ms = (time.perf_counter() - started) * 1000
    connection.close()  # the server notices and stops training
    return start_ms, step_ms


def _post_seconds(base: str, seed: int) -> float:
    parts = urlsplit(base)
    body = json.dumps({"seed": seed})
    while True:  # wait out a 503 as a client should (Retry-After), then time the run itself
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        started = time.perf_counter()
        connection.request("POST", "/api/train", body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        elapsed = time.perf_counter() - started
        connection.close()
        if response.status != 503:
            break
        time.sleep(0.2)
    if response.status != 200:
        raise RuntimeError(f"POST /api/train answered {response.status}")
    return elapsed


def main() -> None:
    with server() as base:
        _post_seconds(base, seed=999)  # warm up: imports, first allocations
        firsts = [_first_events(base, seed=100 + i) for i in range(REPEATS)]
        trained = [_post_seconds(base, seed=200 + i) for i in range(REPEATS)]
        cached = [_post_seconds(base, seed=200) for _ in range(REPEATS)]
    start_ms = statistics.median(f[0] for f in firsts)
    step_ms = statistics.median(f[1] for f in firsts)
    rows = [
        ("first streamed event (start), ms", f"{start_ms:.1f}", FIRST_EVENT_GOAL_MS),
        ("first streamed step event, ms", f"{step_ms:.1f}", FIRST_EVENT_GOAL_MS),
        ("POST /api/train, four recipes, trained, s", f"{statistics.median(trained):.3f}", COMPARISON_GOAL_S),
        ("POST /api/train, the same again (cache), s", f"{statistics.median(cached):.3f}", ""),
    ]
    print(f"one uvicorn worker on loopback, median of {REPEATS} runs of the default configuration "
          "(baseline: 4 recipes, 300 steps)")
    print(f"{'measure':46} {'median':>10} {'goal':>10}")
    for label, value, goal in rows:
        print(f"{label:46} {value:>10} {goal:>10}")
