"""The per-run deadline (train_max_seconds): a run that takes too long is stopped, not cached, gives its slot
back, and the person gets a sentence: 503 from the API and the page, an `error` event from the live stream.

Time is a clock the test moves (one second per reading) or a deadline of 0 s, never the wall clock's speed.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.services.train_workers import TrainWorkers
from app.services.training_runs import RunsBusy, TrainRuns
from app.training import TrainConfig
from tests.helpers.html import Elements
from tests.helpers.refusals import is_sentence
from tests.helpers.training import SHORT, SHORT_QUERY, frames

CONFIG = TrainConfig(steps=12, width=8, batch_size=16)


@pytest.fixture
def workers() -> Iterator[TrainWorkers]:
    """A training process of the test's own, stopped afterwards."""
    pool = TrainWorkers(1)
    yield pool
    pool.close()


@pytest.fixture
def ticking(workers: TrainWorkers) -> TrainRuns:
    """Runs whose clock advances one second at every reading, with a deadline of 5 s: a run gets 4 events."""
    seconds = itertools.count()
    return TrainRuns(max_seconds=5, clock=lambda: float(next(seconds)), workers=workers)


@pytest.fixture
def impatient(make_settings):
    """A client of an app whose runs may take 0 seconds: every run that must be trained is stopped."""
    with TestClient(create_app(make_settings(train_max_seconds=0))) as client:
        yield client


def test_a_recorded_run_past_the_deadline_is_refused_and_not_cached(ticking):
    runs = ticking
    with pytest.raises(RunsBusy, match="within its limit of 5 seconds") as refused:
        runs.record(CONFIG)
    assert is_sentence(str(refused.value)) and refused.value.retry_after > 0
    assert runs.running == 0 and runs.cached(CONFIG) is None


def test_a_live_run_past_the_deadline_stops_training_and_ends_with_an_error_event(ticking):
    runs = ticking
    live = runs.live(CONFIG)
    sent = b""
    while not live.finished:
        sent += live.pull()
    live.close()
    events = frames(sent.decode())
    assert [e["type"] for e in events] == ["start", "step", "step", "step", "error"]
    assert "5 seconds" in events[-1]["detail"] and is_sentence(events[-1]["detail"])
    assert runs.running == 0 and runs.cached(CONFIG) is None


def test_a_run_within_the_deadline_is_whole_and_cached(workers):
    runs = TrainRuns(max_seconds=10**6, clock=itertools.count().__next__, workers=workers)
    recorded = runs.record(CONFIG)
    assert json.loads(recorded[-1].split(b"\ndata: ", 1)[1])["type"] == "done"
    assert runs.cached(CONFIG) == recorded


def test_the_api_answers_503_with_a_sentence(impatient):
    response = impatient.post("/api/train", json=SHORT)
    assert response.status_code == 503 and int(response.headers["retry-after"]) > 0
    detail = response.json()["detail"]
    assert "within its limit of 0 seconds" in detail and is_sentence(detail)
    assert impatient.app.state.train_runs.running == 0


def test_the_page_without_javascript_shows_the_sentence(impatient):
    response = impatient.get(f"/train?{SHORT_QUERY}&run=1")
    assert response.status_code == 503
    assert "within its limit of 0 seconds" in Elements(response.text).text_of("data-error")


def test_the_stream_sends_an_error_event_and_caches_nothing(impatient):
    with impatient.stream("GET", f"/train/stream?{SHORT_QUERY}") as response:
        assert response.status_code == 200
        events = frames(response.read().decode())
    assert [e["type"] for e in events] == ["error"]
    assert is_sentence(events[0]["detail"])
    runs = impatient.app.state.train_runs
    assert runs.running == 0 and runs.cached(CONFIG) is None



def test_a_live_run_stopped_at_its_deadline_while_its_client_waited_ends_with_the_error_event(workers):
    runs = TrainRuns(max_seconds=60, workers=workers)
    live = runs.live(CONFIG)
    assert 59 < live.seconds_left() <= 60
    first = frames(live.pull().decode())
    live.close()  # what the stream does when the deadline passes during a write
    assert runs.running == 0
    last = frames(live.pull().decode())
    assert first[0]["type"] == "start" and [e["type"] for e in last] == ["error"] and live.finished
    assert "60 seconds" in last[0]["detail"]
