"""Training runs in training processes: the same frames as a run in this process, real processes started, kept
for the next run, replaced and stopped, the pipe that bounds what a run computes ahead, and the setting that
sizes the pool.

Every process here is real (a fork of the fork server); nothing of the pool is replaced by a stand-in. Time is a
clock the test sets, never the wall clock's speed.
"""

from __future__ import annotations

import fcntl
import os
import signal
import termios
from array import array
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from app.main import create_app
from app.services.train_workers import NICENESS, TrainWorkers
from app.services.training_runs import Run, RunsBusy, TrainRuns, frame, result
from app.settings import Settings
from app.training import RECIPES, SCENARIOS, TrainConfig, stream
from app.training.gather import gather
from tests.helpers.refusals import is_sentence
from tests.helpers.training import SHORT, SHORT_QUERY, frames

SHORT_RUN = TrainConfig(steps=12, width=8, batch_size=16, seed=3)
NEXT_RUN = TrainConfig(steps=12, width=8, batch_size=16, seed=4)
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


def streamed(run: Run) -> bytes:
    """Every frame of a run, read as a live stream reads them: whatever has come, each time."""
    sent = b""
    while not run.over:
        sent += b"".join(run.read())
    return sent


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
    assert streamed(TrainRuns(workers=workers).start(config)) == b"".join(in_this_process(config))


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


def test_a_finished_runs_process_trains_the_next_run(workers):
    runs = TrainRuns(max_concurrent=1, workers=workers)
    assert runs.record(SHORT_RUN) == in_this_process(SHORT_RUN)
    (pid,) = workers.pids()
    assert workers.idle == 1 and runs.running == 0
    assert runs.record(NEXT_RUN) == in_this_process(NEXT_RUN)
    assert workers.pids() == {pid}


def test_cancelling_a_run_is_one_call_that_frees_its_slot_and_ends_its_process(workers):
    runs = TrainRuns(max_concurrent=1, workers=workers)
    run = runs.start(LONG)
    assert frames(b"".join(run.read()).decode())[0]["type"] == "start"
    (pid,) = workers.pids()
    run.cancel()  # its client went away: the run is over wherever it was
    assert run.over and run.read() == [] and runs.running == 0 and runs.cached(LONG) is None
    assert workers.pids() == set() and gone(pid)  # not left computing
    run.cancel()  # idempotent: the slot is not given back twice
    assert runs.running == 0
    assert runs.record(SHORT_RUN) == in_this_process(SHORT_RUN)
    assert workers.started == 1 and pid not in workers.pids()


def test_cancelling_a_run_that_waits_for_a_process_stops_its_wait(workers):
    runs = TrainRuns(max_concurrent=2, workers=workers)  # two slots, one process
    first, second = runs.start(LONG), runs.start(SHORT_RUN)
    first.read()
    with ThreadPoolExecutor(1) as thread:
        waiting = thread.submit(second.read)  # waits for the process the first run holds, until its deadline
        second.cancel()
        assert waiting.result() == []  # it stopped waiting, though the deadline is a minute away
    assert runs.running == 1 and workers.started == 1
    first.cancel()
    assert runs.running == 0


def queued_bytes(run: Run) -> int:
    """What the run's process has written into its pipe and nobody has read yet."""
    assert run._worker is not None
    count = array("i", [0])
    fcntl.ioctl(run._worker.frames.fileno(), termios.FIONREAD, count)
    return count[0]


def blocked_writing(pid: int) -> bool:
    """Whether the process sleeps in a write to a full pipe (Linux: its wait channel)."""
    return Path(f"/proc/{pid}/wchan").read_text().endswith("pipe_write")


@pytest.mark.skipif(not Path("/proc/self/wchan").exists(), reason="reads the wait channel in /proc")
def test_a_full_queue_stops_the_process_and_the_run_goes_on_when_it_is_read(workers):
    runs = TrainRuns(max_concurrent=1, workers=workers)
    run = runs.start(LONG)
    got = run.read()  # the start event; then nobody reads, as a client that stops reading
    (pid,) = workers.pids()
    while not blocked_writing(pid):  # it computes until the pipe is full, and waits there
        assert not gone(pid)
    assert queued_bytes(run) > 32 * 1024  # the queue: a pipe's buffer (64 KiB on Linux), not the whole run
    # read again, the run goes on from where it waited, to the last frame
    while not run.over:
        got += run.read()
    assert tuple(got) == in_this_process(LONG)
    assert workers.idle == 1


def test_a_run_past_its_deadline_while_its_process_computes_has_the_process_replaced(workers):
    now = [0.0]
    runs = TrainRuns(max_concurrent=1, max_seconds=60, clock=lambda: now[0], workers=workers)
    run = runs.start(LONG)
    run.read()
    (pid,) = workers.pids()
    now[0] = 60.0  # the deadline, wherever the run is
    with pytest.raises(RunsBusy, match="within its limit of 60 seconds"):
        run.read()
    assert run.over and runs.running == 0 and workers.started == 0 and gone(pid)
    assert runs.record(SHORT_RUN) == in_this_process(SHORT_RUN)
    assert workers.started == 1


def test_a_run_whose_process_is_killed_ends_with_a_sentence_and_the_next_gets_a_new_process(workers):
    runs = TrainRuns(max_concurrent=1, workers=workers)
    run = runs.start(LONG)
    run.read()
    (killed,) = workers.pids()
    os.kill(killed, signal.SIGKILL)
    with pytest.raises(RunsBusy) as lost:
        while True:  # what it wrote before it was killed, then the end
            run.read()
    assert "stopped before this run finished" in str(lost.value) and is_sentence(str(lost.value))
    assert run.over and runs.running == 0 and runs.cached(LONG) is None
    assert runs.record(SHORT_RUN) == in_this_process(SHORT_RUN)
    assert killed not in workers.pids() and workers.started == 1


def test_closing_the_pool_ends_its_processes(workers):
    runs = TrainRuns(max_concurrent=1, workers=workers)
    runs.record(SHORT_RUN)
    run = runs.start(LONG)
    run.read()  # one process training, mid-run
    (pid,) = workers.pids()
    workers.close()
    assert workers.pids() == set() and gone(pid)
    with pytest.raises(RunsBusy, match="stopped before this run finished"):
        while True:
            run.read()
    assert runs.running == 0


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
