"""The per-run deadline (train_max_seconds), one per run, which every wait of the run asks: a run that takes too
long is stopped wherever it is, not cached, gives its slot back, and the person gets a sentence: 503 from the
API and the page, an `error` event from the live stream. The stall limit (train_send_timeout): a client that
takes nothing for that long loses its run.

Time is a clock the test moves (one second per reading, or set by the test) or a deadline of 0 s, never the
wall clock's speed.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.services.train_workers import TrainWorkers
from app.services.training_runs import Run, RunsBusy, TrainRuns
from app.training import TrainConfig
from app.web.train.pages import EventStream
from tests.helpers.html import Elements
from tests.helpers.refusals import is_sentence
from tests.helpers.training import SHORT, SHORT_QUERY, frames

T = TypeVar("T")
CONFIG = TrainConfig(steps=12, width=8, batch_size=16)
LONG = TrainConfig(steps=2000, width=8, batch_size=16)  # seconds of work, never finished here


@pytest.fixture
def workers() -> Iterator[TrainWorkers]:
    """A training process of the test's own, stopped afterwards."""
    pool = TrainWorkers(1)
    yield pool
    pool.close()


@pytest.fixture
def ticking(workers: TrainWorkers) -> TrainRuns:
    """Runs whose clock advances 1000 s at every reading (one per frame read), with a deadline of 5000 s: a run
    gets 4 events. What each wait has left is then 1000 s or more of real time, which no frame takes."""
    seconds = itertools.count(step=1000)
    return TrainRuns(max_seconds=5000, clock=lambda: float(next(seconds)), workers=workers)


@pytest.fixture
def impatient(make_settings):
    """A client of an app whose runs may take 0 seconds: every run that must be trained is stopped."""
    with TestClient(create_app(make_settings(train_max_seconds=0))) as client:
        yield client


def test_a_recorded_run_past_the_deadline_is_refused_and_not_cached(ticking):
    runs = ticking
    with pytest.raises(RunsBusy, match="within its limit of 5000 seconds") as refused:
        runs.record(CONFIG)
    assert is_sentence(str(refused.value)) and refused.value.retry_after > 0
    assert runs.running == 0 and runs.cached(CONFIG) is None


def run_apart(coroutine: Coroutine[Any, Any, T]) -> T:
    """asyncio.run in a thread of its own: in a whole-suite run, the browser tests' Playwright keeps an event loop
    running in the main thread for the rest of the session, and asyncio.run refuses to start beside one."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


def streamed(run: Run) -> bytes:
    """What a live stream sends of the run, read as the server reads it."""
    async def read() -> bytes:
        return b"".join([chunk async for chunk in run.frames()])
    return run_apart(read())


def test_a_live_run_past_the_deadline_stops_training_and_ends_with_an_error_event(ticking):
    runs = ticking
    events = frames(streamed(runs.start(CONFIG)).decode())
    assert [e["type"] for e in events] == ["start", "step", "step", "step", "error"]
    assert "5000 seconds" in events[-1]["detail"] and is_sentence(events[-1]["detail"])
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



def test_a_run_stopped_at_its_deadline_while_its_client_waited_ends_with_the_error_event(workers):
    runs = TrainRuns(max_seconds=60, workers=workers)
    run = runs.start(CONFIG)
    assert 59 < run.deadline.left() <= 60
    first = frames(b"".join(run.read()).decode())
    run.cancel()  # what the stream does when the deadline passes during a write
    assert runs.running == 0 and workers.started == 0
    last = frames(streamed(run).decode())
    assert first[0]["type"] == "start" and [e["type"] for e in last] == ["error"] and run.over
    assert "60 seconds" in last[0]["detail"]


def test_one_deadline_ends_a_run_that_waits_for_a_process(workers):
    now = [0.0]
    runs = TrainRuns(max_seconds=60, clock=lambda: now[0], workers=workers)  # two slots, one process
    holding = runs.start(CONFIG)
    holding.read()
    waiting = runs.start(CONFIG)
    now[0] = 60.0
    with pytest.raises(RunsBusy, match="within its limit of 60 seconds"):
        waiting.read()
    assert runs.running == 1 and workers.started == 1  # the other run and its process are untouched
    holding.cancel()


# -- the stall limit: a client that takes nothing --------------------------------------------------------


def _serve_to_a_stalled_client(run: Run, until: Callable[[asyncio.Future], bool]) -> list[dict]:
    """Serve the run's stream to a client that takes the response's start, then nothing, until `until`; what
    was sent."""
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)
        if message["type"] == "http.response.body":
            await asyncio.Event().wait()  # its socket's buffers are full: this write never ends

    async def receive() -> dict:
        await asyncio.Event().wait()  # nor does it go away
        return {}

    async def serve() -> None:
        scope = {"type": "http", "asgi": {"spec_version": "2.4"}}
        response = asyncio.ensure_future(EventStream(run.frames(), run)(scope, receive, send))
        while not until(response):
            await asyncio.sleep(0.01)
        response.cancel()

    run_apart(serve())
    return sent


def test_a_client_that_takes_nothing_for_the_stall_limit_loses_its_run(workers):
    runs = TrainRuns(max_seconds=3600, send_timeout=0.05, workers=workers)
    run = runs.start(LONG)
    sent = _serve_to_a_stalled_client(run, until=lambda response: response.done())  # the stream ended by itself
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]  # unfinished
    assert run.over and runs.running == 0 and workers.started == 0 and runs.cached(LONG) is None


def test_a_stalled_clients_run_ends_at_its_deadline_though_the_stall_limit_is_far(workers):
    runs = TrainRuns(max_seconds=0.5, send_timeout=3600, workers=workers)
    run = runs.start(LONG)
    sent = _serve_to_a_stalled_client(run, until=lambda response: run.over)  # its write waits an hour meanwhile
    assert sent[0]["type"] == "http.response.start"
    assert run.over and runs.running == 0 and workers.started == 0
