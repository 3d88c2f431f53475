"""Training runs in worker processes: the same frames as a run in this process, real processes started, given
back, replaced and stopped, and the setting that sizes them.

Every process here is real (a fork of the fork server); nothing of the pool is replaced by a stand-in. The one
deadline is of 0 seconds, which no run can meet.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from app.main import create_app
from app.services.train_workers import NICENESS, TrainWorkers, WorkerTimeout, frame
from app.services.training_runs import TrainRuns, result
from app.settings import Settings
from app.training import RECIPES, SCENARIOS, TrainConfig, stream
from app.training.gather import gather
from tests.helpers.refusals import is_sentence
from tests.helpers.training import SHORT, SHORT_QUERY, frames

SHORT_RUN = TrainConfig(steps=12, width=8, batch_size=16, seed=3)
# Short runs of each kind of event and arithmetic: every scenario's (FP16 scaling and its skipped steps, a
# regression), and every recipe (FP8's delayed scaling, no master copy) with tanh and SGD
CONFIGS = {
    **{scenario: TrainConfig(scenario=scenario, steps=20, width=8, batch_size=16) for scenario in SCENARIOS},
    "every recipe, tanh, sgd": TrainConfig(recipes=tuple(RECIPES), activation="tanh", optimizer="sgd", steps=25,
                                           width=16, batch_size=32, seed=9),
}
LONG = TrainConfig(steps=2000, width=8, batch_size=16)  # seconds of work, never finished here


def in_this_process(config: TrainConfig) -> tuple[bytes, ...]:
    return tuple(frame(event) for event in stream(config))


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.fixture
def workers() -> Iterator[TrainWorkers]:
    pool = TrainWorkers(1)
    yield pool
    pool.close()


@pytest.mark.parametrize("config", CONFIGS.values(), ids=list(CONFIGS))
def test_a_run_in_a_worker_process_records_the_frames_of_the_same_run_in_this_process(workers, config):
    runs = TrainRuns(workers=workers)
    assert runs.record(config) == in_this_process(config)
    live = TrainRuns(workers=workers).live(config)
    sent = b""
    while not live.finished:
        sent += live.pull()
    live.close()
    assert sent == b"".join(in_this_process(config))


def test_the_stream_the_api_and_the_page_give_what_a_run_in_this_process_gives(client):
    config = TrainConfig(steps=12, width=8, batch_size=16, seed=21)
    expected = in_this_process(config)
    streamed = client.get(f"/train/stream?{SHORT_QUERY}&seed=21")
    assert streamed.content == b"".join(expected)
    client.app.state.train_runs = TrainRuns(workers=client.app.state.train_workers)  # trained again, not cached
    answered = client.post("/api/train", json={**SHORT, "seed": 21})
    assert answered.json() == result(expected) == gather(stream(config))
    assert client.app.state.train_runs.computed == 1


def test_runs_are_trained_in_other_processes_at_the_pools_priority(client):
    assert client.app.state.train_workers.pids() == set()  # none before a run needs one
    assert client.post("/api/train", json=SHORT).status_code == 200
    (pid,) = client.app.state.train_workers.pids()
    assert pid != os.getpid()
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, ours + NICENESS)


def test_with_fewer_processes_than_slots_runs_wait_for_a_free_process(workers):
    runs = TrainRuns(max_concurrent=3, workers=workers)
    configs = [TrainConfig(steps=30, width=8, batch_size=16, seed=seed) for seed in range(3)]
    with ThreadPoolExecutor(3) as threads:
        recorded = list(threads.map(runs.record, configs))
    assert recorded == [in_this_process(config) for config in configs]
    assert workers.started == 1 and runs.running == 0


def test_a_given_up_run_gives_its_process_back_to_the_next_run(workers):
    runs = TrainRuns(max_concurrent=1, workers=workers)
    live = runs.live(LONG)
    assert frames(live.pull().decode())[0]["type"] == "start"
    (pid,) = workers.pids()
    live.close()  # its client went away
    assert runs.running == 0 and workers.idle == 1
    assert runs.record(SHORT_RUN) == in_this_process(SHORT_RUN)
    assert workers.pids() == {pid}


def test_a_run_out_of_time_while_its_process_computes_has_the_process_replaced(workers):
    run = workers.run(LONG, 0)  # no time at all: the process cannot have answered
    with pytest.raises(WorkerTimeout):
        run.pull(1.0)
    assert workers.started == 0 and run.exhausted
    runs = TrainRuns(max_concurrent=1, workers=workers)
    assert runs.record(SHORT_RUN) == in_this_process(SHORT_RUN)
    assert workers.started == 1


def test_a_run_whose_process_is_killed_ends_with_a_sentence_and_the_next_gets_a_new_process(workers):
    runs = TrainRuns(max_concurrent=1, workers=workers)
    live = runs.live(LONG)
    live.pull()
    (killed,) = workers.pids()
    os.kill(killed, signal.SIGKILL)
    events = frames(live.pull().decode())
    live.close()
    assert [e["type"] for e in events] == ["error"] and is_sentence(events[0]["detail"])
    assert live.finished and runs.running == 0 and runs.cached(LONG) is None
    assert runs.record(SHORT_RUN) == in_this_process(SHORT_RUN)
    assert killed not in workers.pids() and workers.started == 1


def test_closing_the_pool_ends_its_processes(workers):
    runs = TrainRuns(max_concurrent=1, workers=workers)
    runs.record(SHORT_RUN)
    live = runs.live(LONG)
    live.pull()  # one process training, mid-run
    (pid,) = workers.pids()
    workers.close()
    assert workers.pids() == set() and gone(pid)
    events = frames(live.pull().decode())
    assert [e["type"] for e in events] == ["error"]
    live.close()


def test_the_apps_processes_end_with_its_lifespan(make_settings):
    with TestClient(create_app(make_settings(train_max_concurrent_runs=3))) as client:
        with ThreadPoolExecutor(3) as threads:
            answers = list(threads.map(lambda seed: client.post("/api/train", json={**SHORT, "seed": seed}), range(3)))
        assert [a.status_code for a in answers] == [200] * 3
        pids = client.app.state.train_workers.pids()
        assert 1 <= len(pids) <= 3
    assert all(gone(pid) for pid in pids)


# -- the setting --------------------------------------------------------------------------------


def test_the_pool_has_one_process_per_slot_unless_told(make_settings):
    with TestClient(create_app(make_settings(train_max_concurrent_runs=3))) as client:
        assert client.app.state.train_workers.processes == 3
    with TestClient(create_app(make_settings(train_max_concurrent_runs=3, train_processes=1))) as client:
        assert client.app.state.train_workers.processes == 1


@pytest.mark.parametrize(("processes", "phrase"), [
    (0, "PRECISION_LAB_TRAIN_PROCESSES must be from 1 to 64"),
    (65, "PRECISION_LAB_TRAIN_PROCESSES must be from 1 to 64"),
    (3, "is more than PRECISION_LAB_TRAIN_MAX_CONCURRENT_RUNS (2)"),
])
def test_a_process_count_the_pool_cannot_use_is_refused_with_a_sentence(processes, phrase):
    with pytest.raises(ValidationError, match=phrase.replace("(", r"\(").replace(")", r"\)")):
        Settings(train_processes=processes, train_max_concurrent_runs=2)
