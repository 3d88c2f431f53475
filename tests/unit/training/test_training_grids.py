"""The decision grids a run reports as it trains: at each histogram snapshot, the model after that step.

They are drawn by the page at the step it shows; the last one is the trained model's, the final boundary.
"""

from __future__ import annotations

import json

import pytest

import app.training.runner
from app.training import RECIPES, TrainConfig, gather, run, stream
from app.training.run_shape import GRID_POINTS, HISTOGRAM_SNAPSHOTS

# 45 steps: not a multiple of the snapshots, so they cannot all be the same number of steps apart
CLASSIFY = TrainConfig(recipes=tuple(RECIPES), steps=45, width=8, batch_size=16, seed=3, learning_rate=0.05)
REGRESS = TrainConfig(recipes=("fp32", "bf16", "fp16_no_scaling"), dataset="wave", steps=45, width=8,
                      batch_size=16, seed=3, learning_rate=0.05)


def _steps(events: list[dict]) -> list[dict]:
    return [e for e in events if e["type"] == "step"]


@pytest.mark.parametrize("config", [CLASSIFY, REGRESS], ids=["classification", "regression"])
def test_grids_come_with_the_histograms_evenly_spread_and_the_last_is_the_final_boundary(config):
    events = list(stream(config))
    steps, done = _steps(events), events[-1]
    with_grids = [e["step"] for e in steps if "decision_grids" in e]
    assert with_grids == [e["step"] for e in steps if "histograms" in e]
    assert len(with_grids) == HISTOGRAM_SNAPSHOTS and with_grids[-1] == config.steps
    gaps = {b - a for a, b in zip([0, *with_grids], with_grids, strict=False)}
    assert max(gaps) - min(gaps) == 1  # as evenly as whole steps allow
    last = next(e for e in reversed(steps) if "decision_grids" in e)
    for recipe_id in config.recipes:
        final = done["recipes"][recipe_id]["decision_grid"]
        assert last["decision_grids"][recipe_id] == final["values"]
        for event in steps:
            values = event.get("decision_grids", {}).get(recipe_id)
            if values is not None:
                assert len(values) == GRID_POINTS and {len(row) for row in values} == {GRID_POINTS}


def test_a_short_run_has_a_grid_at_every_step():
    events = list(stream(TrainConfig(recipes=("fp32",), steps=7, width=4, batch_size=8)))
    assert [e["step"] for e in _steps(events) if "decision_grids" in e] == list(range(1, 8))


def test_the_boundary_moves_as_the_model_trains():
    result = run(TrainConfig(recipes=("fp32",), dataset="circles", steps=60, width=16, learning_rate=0.03, seed=1))
    grids = [g["values"] for g in result["recipes"]["fp32"]["decision_grids"]]
    assert len({json.dumps(g) for g in grids}) > 2  # not one picture drawn twenty times
    assert grids[0] != grids[-1]


def test_predicting_the_grids_changes_no_number_of_the_run(monkeypatch):
    # FP8's delayed scaling keeps amax histories: a prediction that recorded into them would change later steps
    with_grids = list(stream(CLASSIFY))
    monkeypatch.setattr(app.training.runner, "_grid_values", lambda trainer, points, data: [])
    without = list(stream(CLASSIFY))
    for event in (*with_grids, *without):  # the grids themselves left out, every other number kept
        event.pop("decision_grids", None)
        for final in event["recipes"].values() if event["type"] == "done" else ():
            final["decision_grid"].pop("values")
    assert json.dumps(with_grids, allow_nan=False) == json.dumps(without, allow_nan=False)


def test_the_result_keeps_each_grid_with_its_step():
    events = list(stream(REGRESS))
    result = gather(json.loads(json.dumps(event, allow_nan=False)) for event in events)
    snapshots = [e for e in _steps(events) if "decision_grids" in e]
    for recipe_id, recipe in result["recipes"].items():
        assert recipe["decision_grids"] == [{"step": e["step"], "values": e["decision_grids"][recipe_id]}
                                            for e in snapshots]
        assert recipe["decision_grids"][-1]["values"] == recipe["decision_grid"]["values"]
        assert all(isinstance(v, float) or v is None for g in recipe["decision_grids"] for row in g["values"]
                   for v in row)
