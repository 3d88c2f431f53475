"""The counters the services keep for Prometheus: training runs and certificates (GET /metrics serves them,
app/web/platform/metrics.py, with the requests' own)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

TRAINING_IN_FLIGHT = Gauge(
    "precision_lab_training_runs_in_flight", "Training runs being computed now.", multiprocess_mode="livesum",
)
TRAINING_COMPUTED = Counter(
    "precision_lab_training_runs_computed", "Training runs computed (runs served from the cache are not counted).",
)
CERTIFICATES_ISSUED = Counter("precision_lab_certificates_issued", "Certificates issued to passed quiz attempts.")
