"""The decision grids a run reports as it trains, through TestClient: on the event stream at each histogram's
step, in POST /api/train's result with their steps, and the same again when the run is served from the cache."""

from __future__ import annotations

from app.services.training_runs import TrainRuns
from tests.helpers.training import frames

# 45 steps: 20 snapshots that cannot all be the same number of steps apart
QUERY = "steps=45&width=8&batch=16&seed=5&recipe=fp32&recipe=bf16"
BODY = {"steps": 45, "width": 8, "batch_size": 16, "seed": 5, "recipes": ["fp32", "bf16"]}


def _stream(client) -> list[dict]:
    response = client.get(f"/train/stream?{QUERY}")
    assert response.status_code == 200
    return frames(response.text)


def test_the_stream_and_the_api_carry_each_grid_with_its_step_live_and_from_the_cache(client):
    runs = client.app.state.train_runs = TrainRuns(max_concurrent=2, workers=client.app.state.train_workers)
    live = _stream(client)
    steps = [e for e in live if e["type"] == "step"]
    snapshots = [e for e in steps if "decision_grids" in e]
    assert [e["step"] for e in snapshots] == [e["step"] for e in steps if "histograms" in e]
    assert len(snapshots) == 20 and snapshots[-1]["step"] == 45
    done = live[-1]
    for recipe_id in ("fp32", "bf16"):
        assert snapshots[-1]["decision_grids"][recipe_id] == done["recipes"][recipe_id]["decision_grid"]["values"]
    assert snapshots[0]["decision_grids"]["fp32"] != snapshots[-1]["decision_grids"]["fp32"]  # training moved it

    result = client.post("/api/train", json=BODY).json()
    assert runs.computed == 1  # the API answered from the cache the stream filled
    for recipe_id, record in result["recipes"].items():
        assert record["decision_grids"] == [{"step": e["step"], "values": e["decision_grids"][recipe_id]}
                                            for e in snapshots]
    assert _stream(client) == live  # replayed from the cache, grids and all
    assert runs.computed == 1


def test_the_api_documents_the_grids(client):
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    grids = schemas["RecipeRun"]["properties"]["decision_grids"]
    assert grids["items"]["$ref"].endswith("/GridSnapshot") and grids["description"]
    assert set(schemas["GridSnapshot"]["properties"]) == {"step", "values"}
