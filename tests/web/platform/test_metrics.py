"""GET /metrics, the request id and the access log, through TestClient.

The metrics live once per process and every app of the test run adds to them, so each test compares the
numbers /metrics shows after its requests with those it showed before.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import uuid
from datetime import datetime

import pytest
from fastapi import Request
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from app.main import create_app
from app.services.training_runs import TrainRuns
from app.web.platform.request_log import ACCESS_LOGGER, JsonFormatter
from tests.helpers.quiz import right_answer, start
from tests.helpers.training import SHORT, SHORT_QUERY

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]
VISUALISE = "/visualise/{format_id}"
GENERATED_ID = re.compile(r"[0-9a-f]{32}")


def scrape(client: TestClient) -> Samples:
    """Every sample /metrics shows, parsed as Prometheus text, by name and labels."""
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    return {(sample.name, frozenset(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(response.text) for sample in family.samples}


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def requests_counted(samples: Samples, route: str, status: int, method: str = "GET") -> float:
    return value(samples, "precision_lab_http_requests_total", method=method, route=route, status=str(status))


def test_metrics_is_prometheus_text_with_every_family_and_stays_out_of_the_api_schema(client):
    client.get("/healthz")
    families = {family.name: family.type for family in text_string_to_metric_families(client.get("/metrics").text)}
    assert families["precision_lab_http_requests"] == "counter"
    assert families["precision_lab_http_request_duration_seconds"] == "histogram"
    assert families["precision_lab_training_runs_in_flight"] == "gauge"
    assert families["precision_lab_training_runs_computed"] == "counter"
    assert families["precision_lab_certificates_issued"] == "counter"
    assert "/metrics" not in client.get("/openapi.json").json()["paths"]


def test_metrics_has_no_created_series(client):
    client.get("/healthz")
    text = client.get("/metrics").text
    samples = [s.name for f in text_string_to_metric_families(text) for s in f.samples]
    assert "precision_lab_http_requests_total" in samples
    assert not [name for name in samples if name.endswith("_created")] and "_created" not in text


def test_a_request_is_counted_under_its_route_template_and_status_and_timed(client):
    before = scrape(client)
    assert client.get("/visualise/bfloat16?value=0.1").status_code == 200
    assert client.get("/visualise/float8_e4m3fn?bits=0x7e").status_code == 200
    assert client.get("/visualise/no_such_format").status_code == 404
    after = scrape(client)
    assert requests_counted(after, VISUALISE, 200) - requests_counted(before, VISUALISE, 200) == 2
    assert requests_counted(after, VISUALISE, 404) - requests_counted(before, VISUALISE, 404) == 1
    count = "precision_lab_http_request_duration_seconds_count"
    assert value(after, count, route=VISUALISE) - value(before, count, route=VISUALISE) == 3
    inf_bucket = "precision_lab_http_request_duration_seconds_bucket"
    assert value(after, inf_bucket, route=VISUALISE, le="+Inf") - value(before, inf_bucket, route=VISUALISE,
                                                                       le="+Inf") == 3
    total = "precision_lab_http_request_duration_seconds_sum"
    assert value(after, total, route=VISUALISE) > value(before, total, route=VISUALISE)
    assert not any("bfloat16" in label for _, labels in after for _, label in labels)


def test_hostile_paths_and_methods_add_no_labels_of_their_own(client):
    token = uuid.uuid4().hex
    before = scrape(client)
    assert client.get(f"/{token}/<script>alert(1)</script>").status_code == 404
    assert client.get(f"/static/{token}.css").status_code == 404
    assert client.request(f"X{token[:8].upper()}", "/").status_code == 405
    after = scrape(client)
    assert not any(token in label or token[:8].upper() in label for _, labels in after for _, label in labels)
    assert requests_counted(after, "unmatched", 404) - requests_counted(before, "unmatched", 404) == 1
    assert requests_counted(after, "/static/{path}", 404) - requests_counted(before, "/static/{path}", 404) == 1
    assert requests_counted(after, "/", 405, "OTHER") - requests_counted(before, "/", 405, "OTHER") == 1


def _finish(client: TestClient, attempt_id: str, owner: dict[str, str]) -> dict:
    response = client.post(f"/api/quiz/attempts/{attempt_id}/finish", json={"name": "Ada Lovelace"}, headers=owner)
    assert response.status_code == 200, response.text
    return response.json()


def test_a_certificate_is_counted_once_when_issued_and_not_for_a_fail_or_a_second_finish(client):
    issued = "precision_lab_certificates_issued_total"
    before = value(scrape(client), issued)
    passing, owner, questions = start(client)
    for question in questions:
        body = {"question_id": question["id"], "answer": right_answer(question["id"])}
        assert client.post(f"/api/quiz/attempts/{passing}/answers", json=body, headers=owner).status_code == 200
    first = _finish(client, passing, owner)
    assert first["passed"] and first["certificate_id"]
    assert value(scrape(client), issued) == before + 1
    assert _finish(client, passing, owner) == first
    failing, failing_owner, _ = start(client)
    assert _finish(client, failing, failing_owner)["passed"] is False
    assert value(scrape(client), issued) == before + 1


def test_training_runs_are_counted_and_in_flight_goes_back_down_after_each(client):
    in_flight, computed = "precision_lab_training_runs_in_flight", "precision_lab_training_runs_computed_total"
    before = scrape(client)
    assert client.post("/api/train", json={**SHORT, "seed": 101}).status_code == 200
    streamed = client.get(f"/train/stream?{SHORT_QUERY}&seed=102")
    assert streamed.status_code == 200 and "event: done" in streamed.text
    after = scrape(client)
    assert value(after, computed) - value(before, computed) == 2
    assert value(after, in_flight) == value(before, in_flight)

    runs = TrainRuns(max_concurrent=1)
    runs.acquire()
    try:
        assert value(scrape(client), in_flight) == value(before, in_flight) + 1
    finally:
        runs.release()
    assert value(scrape(client), in_flight) == value(before, in_flight)


@pytest.mark.parametrize("given", ["trace-1", "a.B_9-z", "x" * 64])
def test_a_plain_request_id_is_kept_and_echoed(client, given):
    assert client.get("/healthz", headers={"X-Request-ID": given}).headers["X-Request-ID"] == given


@pytest.mark.parametrize("given", [b"", b"x" * 65, b"has space", b"semi;colon", b"a/b", b"caf\xe9", b"<script>"])
def test_an_unfit_request_id_is_replaced_by_a_fresh_one(client, given):
    echoed = client.get("/healthz", headers={"X-Request-ID": given}).headers["X-Request-ID"]
    assert echoed.encode() != given and GENERATED_ID.fullmatch(echoed)


def test_each_request_without_an_id_gets_its_own(client):
    first, second = (client.get("/healthz").headers["X-Request-ID"] for _ in range(2))
    assert GENERATED_ID.fullmatch(first) and GENERATED_ID.fullmatch(second) and first != second


def test_a_streamed_response_carries_the_id_and_arrives_whole(client):
    with client.stream("GET", f"/train/stream?{SHORT_QUERY}&seed=103", headers={"X-Request-ID": "stream-1"}) as sse:
        assert sse.headers["X-Request-ID"] == "stream-1"
        assert sse.headers["content-type"].startswith("text/event-stream")
        text = "".join(sse.iter_text())
    assert text.startswith("event: start") and text.rstrip().splitlines()[0] == "event: start"
    assert "event: done" in text


def test_each_request_logs_one_json_line_with_its_id(client, caplog):
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    response = client.get("/visualise/bfloat16?value=0.1", headers={"X-Request-ID": "log-1"})
    records = [record for record in caplog.records if record.name == ACCESS_LOGGER]
    assert len(records) == 1
    line = json.loads(JsonFormatter().format(records[0]))
    assert line["request_id"] == response.headers["X-Request-ID"] == "log-1"
    assert line["level"] == "INFO" and line["logger"] == ACCESS_LOGGER and line["pid"] == os.getpid()
    assert line["method"] == "GET" and line["status"] == 200 and line["client"] == "testclient"
    assert line["path"] == "/visualise/bfloat16"  # no query string
    assert line["route"] == VISUALISE
    assert isinstance(line["duration_ms"], float) and line["duration_ms"] >= 0
    assert datetime.fromisoformat(line["time"]).utcoffset() is not None


def test_a_refusal_before_any_route_is_logged_and_counted_too(client, caplog):
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    before = scrape(client)
    assert client.get("/visualise/bfloat16?value=" + "9" * 10_000).status_code == 414
    assert requests_counted(scrape(client), "unmatched", 414) - requests_counted(before, "unmatched", 414) == 1
    [refused] = [record for record in caplog.records if getattr(record, "path", "") == "/visualise/bfloat16"]
    assert refused.status == 414 and refused.route == "unmatched"


def test_a_handler_sees_the_id_and_its_log_lines_carry_it(make_settings):
    app = create_app(make_settings())
    logger = logging.getLogger("precision_lab.test_metrics")

    @app.get("/log-something")
    def log_something(request: Request) -> dict[str, str]:
        logger.warning("something to look into")
        return {"request_id": request.state.request_id}

    written = io.StringIO()
    handler = logging.StreamHandler(written)  # formats as the record is made, as serve's handler does
    handler.setFormatter(JsonFormatter())
    logger.addHandler(handler)
    try:
        with TestClient(app) as client:
            response = client.get("/log-something", headers={"X-Request-ID": "handler-1"})
            logger.warning("outside any request")
    finally:
        logger.removeHandler(handler)
    assert response.json() == {"request_id": "handler-1"}
    inside, outside = (json.loads(line) for line in written.getvalue().splitlines())
    assert inside["message"] == "something to look into" and inside["request_id"] == "handler-1"
    assert "request_id" not in outside
