"""Prometheus metrics and GET /metrics: requests, latency, training runs, certificates issued.

The metrics live once per process in prometheus_client's default registry (apps made in one process share them).
With several worker processes, `precision-lab serve` sets PROMETHEUS_MULTIPROC_DIR before any starts: each
process then writes its values to files there, and /metrics adds up the files of every process.
"""

from __future__ import annotations

import os
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

router = APIRouter(include_in_schema=False)

# Prometheus takes a counter's start from its resets; a `_created` series per label set only doubles the scrape.
disable_created_metrics()

# The label of a request that matched no route: its raw path would let anyone mint new series.
UNMATCHED_ROUTE = "unmatched"
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# Pages answer in milliseconds; a live training stream stays open for seconds, up to about a minute.
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

REQUESTS = Counter(
    "precision_lab_http_requests", "HTTP requests answered, by method, route template and status.",
    ["method", "route", "status"],
)
LATENCY = Histogram(
    "precision_lab_http_request_duration_seconds",
    "Time from a request's arrival to the end of its response body, by route template.",
    ["route"], buckets=_LATENCY_BUCKETS,
)
def observe_request(method: str, route: str, status: int, seconds: float) -> None:
    """Count one answered request; a method outside HTTP's usual ones is counted as OTHER."""
    REQUESTS.labels(method if method in _METHODS else "OTHER", route, str(status)).inc()
    LATENCY.labels(route).observe(seconds)


def _registry() -> CollectorRegistry:
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory is None:
        return REGISTRY
    _forget_dead_processes(directory)
    registry = CollectorRegistry()
    MultiProcessCollector(registry, directory)
    return registry


def _forget_dead_processes(directory: str) -> None:
    """Drop the in-flight gauges of workers that died (uvicorn replaces a killed worker but tells no one).

    Their counters stay: what a dead worker counted did happen.
    """
    for path in Path(directory).glob("gauge_live*_*.db"):
        pid = path.stem.rsplit("_", 1)[1]
        if pid.isdigit() and not _alive(int(pid)):
            mark_process_dead(int(pid), directory)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, and someone else's
        return True
    return True


@router.get("/metrics")
def metrics() -> Response:
    """Every metric in Prometheus's text format, added up over this server's worker processes."""
    return Response(generate_latest(_registry()), media_type=CONTENT_TYPE_LATEST,
                    headers={"Cache-Control": "no-store"})
