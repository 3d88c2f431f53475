"""The core's budgets of work and memory reach a person as a 422 with the core's sentence, on every route."""

from __future__ import annotations

import pytest

from app.training import RECIPES, SCENARIOS
from tests.helpers.html import Elements
from tests.helpers.refusals import is_sentence

ALL = list(RECIPES)
# every setting at its largest: within each limit, hours of work together
CORNER_BODY = {"recipes": ALL, "steps": 2000, "width": 256, "depth": 6, "batch_size": 1024}
CORNER_QUERY = "&".join([*(f"recipe={r}" for r in ALL), "steps=2000", "width=256", "depth=6", "batch=1024"])
# one step is quick, but tanh's gradients of every recipe at once need more memory than a run may take
MEMORY_QUERY = "&".join([*(f"recipe={r}" for r in ALL), "steps=1", "width=256", "depth=6", "batch=1024",
                         "activation=tanh"])
WORK_SENTENCE = "lower the steps, batch size, width, depth or the number of recipes"


def test_the_api_refuses_a_run_over_the_work_budget_with_the_cores_sentence(client):
    response = client.post("/api/train", json=CORNER_BODY)
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert is_sentence(detail) and "times the work the lab allows" in detail and WORK_SENTENCE in detail


def test_the_api_refuses_a_run_over_the_memory_budget(client):
    response = client.post("/api/train", json={**CORNER_BODY, "steps": 1, "activation": "tanh"})
    assert response.status_code == 422
    assert is_sentence(response.json()["detail"]) and "MiB of memory" in response.json()["detail"]


@pytest.mark.parametrize(("query", "phrase"), [(CORNER_QUERY, WORK_SENTENCE), (MEMORY_QUERY, "MiB of memory")])
def test_the_page_shows_the_sentence_in_its_form_and_keeps_what_was_typed(client, query, phrase):
    response = client.get(f"/train?{query}&run=1")
    assert response.status_code == 422
    page = Elements(response.text)
    assert phrase in page.text_of("data-error")
    steps = next(attrs for tag, attrs in page.tags if tag == "input" and attrs.get("name") == "steps")
    assert steps["value"] == ("2000" if query == CORNER_QUERY else "1")


@pytest.mark.parametrize("query", [CORNER_QUERY, MEMORY_QUERY])
def test_the_stream_refuses_before_it_trains(client, query):
    response = client.get(f"/train/stream?{query}")
    assert response.status_code == 422 and "too large" in response.json()["detail"]
    assert client.app.state.train_runs.computed == 0


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_page_offers_no_default_that_it_refuses(client, scenario):
    for query in (f"scenario={scenario}", f"scenario={scenario}&" + "&".join(f"recipe={r}" for r in ALL)):
        response = client.get(f"/train?{query}")
        assert response.status_code == 200, query
        assert not Elements(response.text).having("data-error")
