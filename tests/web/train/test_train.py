"""The training demo through TestClient: the page (with and without htmx, with JavaScript off), the event
stream, POST /api/train, every limit and hostile input, the cap on runs at once, and the cache."""

from __future__ import annotations

import json
import re
from contextlib import ExitStack

import pytest
from fastapi.testclient import TestClient
from markupsafe import escape

from app.main import create_app
from app.services.training_runs import TrainRuns
from app.training import RECIPES, SCENARIOS, TrainConfig, bytes_per_param, run
from tests.helpers.html import HX, PAGE_BUDGET, Elements, first_visit
from tests.helpers.refusals import is_sentence
from tests.helpers.training import SHORT, SHORT_QUERY, frames


@pytest.fixture
def runs(client) -> TrainRuns:
    """The app's slots and cache, fresh, so that a test can count what was computed."""
    client.app.state.train_runs = TrainRuns(max_concurrent=2, workers=client.app.state.train_workers)
    return client.app.state.train_runs


# -- the page -----------------------------------------------------------------------------------


def test_a_browser_gets_the_whole_page_with_a_labelled_control_for_every_setting(client):
    response = client.get("/train")
    assert response.status_code == 200
    assert "<html" in response.text and "HX-Request" in response.headers["vary"]
    page = Elements(response.text)
    labels = {attrs["for"] for tag, attrs in page.tags if tag == "label" and "for" in attrs}
    named = [attrs for tag, attrs in page.tags if tag in ("input", "select") and "name" in attrs]
    assert {a["name"] for a in named} >= {"scenario", "recipe", "dataset", "optimizer", "activation", "steps", "lr",
                                          "width", "depth", "batch", "seed", "loss_scale", "growth_interval", "params"}
    assert all(a["id"] in labels for a in named)
    assert [a["value"] for a in named if a["name"] == "recipe"] == list(RECIPES)
    (scenarios,) = [at for at, (tag, a) in enumerate(page.tags) if tag == "select" and a.get("name") == "scenario"]
    assert [page.tags[at][1]["value"] for at in page.inside(scenarios)] == list(SCENARIOS)
    assert [a["data-scenario-link"] for a in page.having("data-scenario-link")] == list(SCENARIOS)
    actions = {a["data-action"] for _, a in page.tags if "data-action" in a}
    assert actions == {"start", "stop", "reset"}


@pytest.mark.parametrize("scenario", SCENARIOS.values(), ids=lambda s: s.id)
def test_each_scenarios_page_explains_it_and_fills_the_form_with_its_settings(client, scenario):
    page = Elements(client.get(f"/train?scenario={scenario.id}").text)
    assert page.text_of("data-scenario-title") == scenario.title
    assert page.text_of("data-explanation") == " ".join(scenario.explanation.split())
    inputs = {a["name"]: a for tag, a in page.tags if tag == "input" and a.get("type") != "checkbox"}
    assert [inputs[name]["value"] for name in ("steps", "width", "depth", "batch")] == [
        str(scenario.steps), str(scenario.width), str(scenario.depth), str(scenario.batch_size)]
    checked = [a["value"] for tag, a in page.tags if a.get("name") == "recipe" and "checked" in a]
    assert checked == [r for r in RECIPES if r in scenario.recipes]
    selected = [a["value"] for tag, a in page.tags if tag == "option" and "selected" in a and a["value"] in SCENARIOS]
    assert selected == [scenario.id]
    assert [a["data-scenario-link"] for a in page.having("data-scenario-link") if "aria-current" in a] == [scenario.id]


def test_htmx_gets_only_the_results_fragment(client):
    response = client.get(f"/train?{SHORT_QUERY}&run=1", headers=HX)
    assert response.status_code == 200
    assert "<html" not in response.text and "<form" not in response.text
    assert 'id="train-final"' in response.text and 'id="train-memory"' in response.text


def test_the_form_shows_the_configuration_of_the_url(client):
    page = Elements(client.get("/train?scenario=tiny_gradients&steps=50&lr=0.02&recipe=fp32&recipe=bf16").text)
    inputs = {a["name"]: a for tag, a in page.tags if tag == "input" and a.get("type") != "checkbox"}
    assert inputs["steps"]["value"] == "50" and inputs["lr"]["value"] == "0.02"
    assert inputs["loss_scale"]["value"] == "65536"  # the scenario's, for what the URL leaves out
    checked = {a["value"] for tag, a in page.tags if a.get("name") == "recipe" and "checked" in a}
    assert checked == {"fp32", "bf16"}
    assert "Tiny gradients" in page.text_of("data-scenario-title")


def test_the_first_visit_stays_within_the_page_budget(client):
    page = client.get("/train").text
    assets = first_visit(page, client)  # what the page links and names, and what its modules import
    # train.js and what it imports, in its bundle or as the source modules followed from it
    assert any(a.endswith("/bundle/train.js") for a in assets) or any(a.endswith("/js/train_charts.js") for a in assets)
    assert len(page.encode()) + sum(len(body) for body in assets.values()) < PAGE_BUDGET


def test_without_javascript_a_run_renders_svg_charts_and_the_final_table(client):
    response = client.get(f"/train?scenario=large_activations&{SHORT_QUERY}&run=1")
    assert response.status_code == 200
    page = Elements(response.text)
    charts = {a["data-chart-svg"] for a in page.having("data-chart-svg")}
    assert charts == {"loss", "loss-scale", "underflow"}
    recipes = TrainConfig(scenario="large_activations").resolved().recipes
    lines = [a for tag, a in page.tags if tag == "path" and "series" in a.get("class", "")]
    assert sorted(a["data-recipe"] for a in lines) == sorted(recipes * 3)
    assert all(re.fullmatch(r"(M-?\d+,-?\d+l[-\d, ]+)+", a["d"]) for a in lines)
    result = client.post("/api/train", json={"scenario": "large_activations", **SHORT}).json()
    for recipe_id in recipes:
        row = next(a for tag, a in page.tags if tag == "td" and "data-final-loss" in a and
                   a["data-final-loss"] == repr(result["recipes"][recipe_id]["final_loss"]))
        assert row


def test_the_memory_table_totals_the_typed_model_size(client):
    page = client.get("/train?recipe=fp32&recipe=bf16_no_master&params=7B").text
    rows = re.findall(r'<tr data-recipe="(\w+)">.*?data-gigabytes>([^<]+)<', page, re.S)
    assert rows == [("fp32", "112 GB"), ("bf16_no_master", "84 GB")]
    assert "7 billion" in page


@pytest.mark.parametrize(("query", "phrase"), [
    ("steps=2001", "steps must be at most 2000"),
    ("width=257", "width must be at most 256"),
    ("depth=7", "depth must be at most 6"),
    ("batch=1025", "batch_size must be at most 1024"),
    ("recipe=fp64", "Unknown recipe 'fp64'"),
    ("scenario=huge", "Unknown scenario 'huge'"),
    ("steps=-5", "steps must be at least 1"),
    ("steps=1000000000", "at most 2000"),
    ("steps=1e3", "Steps must be a whole number"),
    ("width=0", "width must be at least 2"),
    ("batch=100000", "at most 1024"),
    ("lr=abc", "Learning rate must be a number"),
    ("lr=nan", "Learning rate must be a number"),
    ("width=١٢٣", "Hidden width must be a whole number"),  # Arabic-Indic digits, which int() would read
    ("steps=１０", "Steps must be a whole number"),  # fullwidth digits
    ("steps=1_0", "Steps must be a whole number"),
    ("lr=０.１", "Learning rate must be a number"),
    ("lr=1e999", "learning_rate must be a finite number"),
    ("recipe=", "at least one recipe"),
    ("recipe=fp32&recipe=fp32", "only once"),
    ("steps=" + "9" * 1000, "too long"),
    ("recipe=" + "x" * 1000, "too long"),
    ("seed=-1", "seed must be at least 0"),
    ("params=abc", "model size"),
    ("params=1e30", "model size"),
    ("params=1.5", "model size"),
    ("steps=2000&width=256&depth=6&batch=1024", "too large"),
])
def test_a_page_outside_the_limits_says_why(client, query, phrase):
    response = client.get(f"/train?{query}&run=1")
    assert response.status_code == 422
    message = Elements(response.text).text_of("data-error")
    assert phrase in message and is_sentence(message)


# -- POST /api/train ----------------------------------------------------------------------------


def test_the_api_returns_every_step_of_every_recipe(client):
    response = client.post("/api/train", json={"scenario": "tiny_gradients", "recipes": list(RECIPES), **SHORT,
                                                "seed": 3})
    assert response.status_code == 200
    result = response.json()
    assert result["config"]["steps"] == 12 and result["config"]["seed"] == 3
    assert list(result["recipes"]) == list(RECIPES)
    for recipe_id, record in result["recipes"].items():
        for series in ("loss", "underflow_fraction", "nonfinite_count", "loss_scale"):
            assert len(record[series]) == 12
        assert isinstance(record["final_loss"], float) and isinstance(record["skipped_steps"], list)
        assert record["bytes_per_param"] == bytes_per_param(RECIPES[recipe_id], "adam")
    assert result["recipes"]["fp32"]["bytes_per_param"]["total"] == 16
    assert result["recipes"]["fp16_no_scaling"]["bytes_per_param"]["total"] == 16
    assert result["recipes"]["fp16_no_scaling"]["underflow_fraction"][0] > 0.2  # tiny gradients flushed


def test_the_same_configuration_gives_the_same_numbers_bit_for_bit(client):
    body = {"scenario": "large_activations", **SHORT, "seed": 11}
    first = client.post("/api/train", json=body)
    # computed again, not served from the cache
    client.app.state.train_runs = TrainRuns(workers=client.app.state.train_workers)
    second = client.post("/api/train", json=body)
    assert client.app.state.train_runs.computed == 1
    assert first.content == second.content
    config = TrainConfig(scenario="large_activations", steps=12, width=8, batch_size=16, seed=11)
    assert first.json() == json.loads(json.dumps(run(config)))


@pytest.mark.parametrize(("field", "value", "phrase"), [
    ("steps", 2001, "steps must be at most 2000"),
    ("width", 257, "width must be at most 256"),
    ("depth", 7, "depth must be at most 6"),
    ("batch_size", 1025, "batch_size must be at most 1024"),
])
def test_each_limit_is_a_422_that_names_it(client, field, value, phrase):
    response = client.post("/api/train", json={field: value})
    assert response.status_code == 422
    assert phrase in response.json()["detail"]


HOSTILE_BODIES = [
    {"recipes": ["fp64"]}, {"scenario": "huge"}, {"steps": -5}, {"steps": 10**9}, {"steps": 10**40}, {"width": 0},
    {"batch_size": 10**6}, {"learning_rate": "abc"}, {"recipes": []}, {"recipes": ["fp32", "fp32"]},
    {"recipes": "fp32"}, {"recipes": list(RECIPES) * 2}, {"scenario": "x" * 1000}, {"recipes": ["x" * 1000]},
    {"dataset": "x" * 1000}, {"steps": 1.5}, {"steps": "ten"}, {"steps": None, "unknown": 1}, {"seed": -1},
    {"seed": 2**70}, {"static_loss_scale": 1e300}, {"growth_interval": 0}, {"optimizer": "lamb"},
    {"activation": "gelu"}, [], "train", 3,
    {"recipes": list(RECIPES), "steps": 2000, "width": 256, "depth": 6, "batch_size": 1024},
]
RAW_BODIES = [b'{"learning_rate": NaN}', b'{"learning_rate": Infinity}', b'{"steps": ', b"\xff\xfe", b""]


@pytest.mark.parametrize("body", HOSTILE_BODIES, ids=lambda b: json.dumps(b)[:40])
def test_hostile_bodies_get_a_4xx_sentence(client, body):
    response = client.post("/api/train", json=body)
    assert 400 <= response.status_code < 500
    assert is_sentence(response.json()["detail"])


@pytest.mark.parametrize("raw", RAW_BODIES, ids=repr)
def test_broken_json_gets_a_4xx_sentence(client, raw):
    response = client.post("/api/train", content=raw, headers={"content-type": "application/json"})
    assert 400 <= response.status_code < 500
    assert is_sentence(response.json()["detail"])


def test_the_request_model_is_documented(client):
    schema = client.get("/openapi.json").json()["components"]["schemas"]["TrainRequest"]["properties"]
    assert "2000" in schema["steps"]["description"] and "fp8_hybrid_delayed" in schema["recipes"]["description"]


# -- a few runs at once, each configuration once ---------------------------------------------------


def test_beyond_the_cap_a_run_is_refused_with_retry_after(client, runs):
    with ExitStack() as held:
        for _ in range(runs.max_concurrent):
            held.enter_context(runs.slot())
        refusals = [client.post("/api/train", json=SHORT), client.get(f"/train?{SHORT_QUERY}&run=1"),
                    client.get(f"/train/stream?{SHORT_QUERY}")]
        for response in refusals:
            assert response.status_code == 503
            assert int(response.headers["retry-after"]) > 0
        assert "2 runs" in refusals[0].json()["detail"] and is_sentence(refusals[0].json()["detail"])
        assert "2 runs" in Elements(refusals[1].text).text_of("data-error")
    assert client.post("/api/train", json=SHORT).status_code == 200


def test_a_cached_run_is_served_while_every_slot_is_taken(client, runs):
    client.post("/api/train", json=SHORT)
    with runs.slot(), runs.slot():
        assert client.post("/api/train", json=SHORT).status_code == 200


def test_an_identical_configuration_is_computed_once(client, runs):
    first = client.post("/api/train", json=SHORT)
    # the same resolved configuration, spelled out: the scenario's recipes and defaults
    spelled = {**SHORT, "scenario": "baseline", "seed": 0, "recipes": list(TrainConfig().resolved().recipes)}
    second = client.post("/api/train", json=spelled)
    page = client.get(f"/train?{SHORT_QUERY}&run=1")
    streamed = client.get(f"/train/stream?{SHORT_QUERY}")
    assert runs.computed == 1
    assert first.content == second.content and page.status_code == streamed.status_code == 200
    assert [e["type"] for e in frames(streamed.text)][-1] == "done"
    client.post("/api/train", json={**SHORT, "seed": 1})
    assert runs.computed == 2


def test_the_cache_keeps_the_most_recent_runs(client):
    runs = TrainRuns(cache_runs=2, workers=client.app.state.train_workers)
    configs = [TrainConfig(steps=2, width=4, batch_size=4, seed=seed) for seed in range(3)]
    for config in configs[:2]:
        runs.record(config)
    runs.record(configs[0])  # now the most recent
    runs.record(configs[2])  # pushes out the least recent, seed 1
    assert runs.computed == 3
    assert [runs.cached(c) is not None for c in configs] == [True, False, True]


# -- the event stream ---------------------------------------------------------------------------


def test_the_stream_sends_start_each_step_in_order_and_done(client, runs):
    with client.stream("GET", f"/train/stream?{SHORT_QUERY}&recipe=fp32&recipe=bf16") as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        events = frames(response.read().decode())
    assert [e["type"] for e in events] == ["start"] + ["step"] * 12 + ["done"]
    assert [e["step"] for e in events[1:-1]] == list(range(1, 13))
    assert set(events[0]["recipes"]) == set(events[-1]["recipes"]) == {"fp32", "bf16"}
    assert events[0]["scenario"]["explanation"]
    api = client.post("/api/train", json={**SHORT, "recipes": ["fp32", "bf16"]}).json()
    assert runs.computed == 1  # the stream filled the cache
    assert [e["recipes"]["bf16"]["loss"] for e in events[1:-1]] == api["recipes"]["bf16"]["loss"]


# The configuration a held-out attack found (inside every limit): its loss scale backs off to 0 at step 171
COLLAPSING = {"recipes": ["fp16_no_master"], "learning_rate": 1.0, "optimizer": "sgd", "width": 256, "depth": 6,
              "batch_size": 128, "steps": 250, "seed": 5}
COLLAPSING_QUERY = "recipe=fp16_no_master&lr=1.0&optimizer=sgd&width=256&depth=6&batch=128&steps=250&seed=5"


@pytest.mark.slow  # trains a 250-step run of a 256-wide, 6-deep network until it diverges
def test_a_run_whose_loss_scale_collapses_says_it_diverged_on_the_stream_the_page_and_the_api(client):
    # a large run: no time limit, so that a busy machine cannot cut it short (the limit has tests of its own)
    client.app.state.train_runs = runs = TrainRuns(max_seconds=3600, workers=client.app.state.train_workers)
    with client.stream("GET", f"/train/stream?{COLLAPSING_QUERY}") as response:
        assert response.status_code == 200
        events = frames(response.read().decode())
    assert events[-1]["type"] == "done"  # not a cut stream
    diverged = [e for e in events if e["type"] == "diverged"]
    assert len(diverged) == 1 and diverged[0]["recipe"] == "fp16_no_master"
    assert is_sentence(diverged[0]["detail"]) and "loss scale" in diverged[0]["detail"]
    api = client.post("/api/train", json=COLLAPSING)
    assert api.status_code == 200 and runs.computed == 1
    recipe = api.json()["recipes"]["fp16_no_master"]
    assert recipe["diverged"] == {"step": diverged[0]["step"], "detail": diverged[0]["detail"]}
    assert recipe["loss_scale"][-1] == 0
    page = client.get(f"/train?{COLLAPSING_QUERY}&run=1")
    assert page.status_code == 200
    assert "data-diverged" in page.text and str(escape(diverged[0]["detail"])) in page.text


def test_the_stream_stops_training_when_its_client_goes_away(make_settings):
    # one slot and one training process: the next run gets both only when the stopped run gave them back
    with TestClient(create_app(make_settings(train_max_concurrent_runs=1))) as client:
        workers = client.app.state.train_workers
        with client.stream("GET", "/train/stream?steps=2000&width=8&batch=16") as response:
            lines = response.iter_lines()
            assert next(lines) == "event: start"
            (trained_it,) = workers.pids()
        runs = client.app.state.train_runs
        assert runs.running == 0 and runs.cached(TrainConfig(steps=2000, width=8, batch_size=16)) is None
        assert trained_it not in workers.pids()  # ended, not left computing
        finished = client.post("/api/train", json=SHORT)
        assert finished.status_code == 200 and finished.json()["config"]["steps"] == 12
        assert workers.idle == 1 and trained_it not in workers.pids()


@pytest.mark.parametrize("query", ["steps=2001", "recipe=fp64", "lr=abc", "steps=" + "1" * 100])
def test_a_refused_stream_answers_json_with_a_sentence(client, query):
    response = client.get(f"/train/stream?{query}")
    assert response.status_code == 422
    assert is_sentence(response.json()["detail"])
