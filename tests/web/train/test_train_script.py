"""Take it home: GET /train/script.py and /train/script.json, their refusals, and the /train page's section."""

from __future__ import annotations

import ast
from html import unescape
from urllib.parse import parse_qsl, urlsplit

import pytest

from app.training import RECIPES, TrainConfig, pytorch_script
from tests.helpers.html import Elements
from tests.helpers.refusals import is_sentence

QUERY = "scenario=tiny_gradients&steps=40&lr=0.002&seed=7&recipe=fp16_static_scaling"


def test_the_download_is_the_script_of_the_querys_settings_as_an_attachment(client):
    response = client.get(f"/train/script.py?{QUERY}")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/x-python")
    assert response.headers["content-disposition"] == 'attachment; filename="precision_lab_fp16_static_scaling.py"'
    config = TrainConfig(scenario="tiny_gradients", steps=40, learning_rate=0.002, seed=7)
    expected = pytorch_script(config, "fp16_static_scaling", page=f"/train?{QUERY}")
    assert response.text == expected
    ast.parse(response.text)
    assert "STEPS = 40" in response.text and "SEED = 7" in response.text and "LEARNING_RATE = 0.002" in response.text


def test_the_json_variant_carries_the_same_script_and_its_link(client):
    body = client.get(f"/train/script.json?{QUERY}").json()
    assert body["script"] == client.get(f"/train/script.py?{QUERY}").text
    assert body["recipe"] == "fp16_static_scaling" and body["name"] == RECIPES["fp16_static_scaling"].name
    assert body["filename"] == "precision_lab_fp16_static_scaling.py"
    assert client.get(body["href"]).text == body["script"]


def test_what_does_not_change_the_run_does_not_change_the_script(client):
    plain = client.get(f"/train/script.py?{QUERY}").text
    assert client.get(f"/train/script.py?{QUERY}&params=7B&run=1&dataset=").text == plain


@pytest.mark.parametrize(("query", "says"), [
    ("scenario=baseline", "Name the recipe"),
    ("recipe=fp32&recipe=bf16", "one recipe"),
    ("recipe=fp12", "Unknown recipe"),
    ("recipe=fp32&steps=999999", "steps must be at most"),
    ("recipe=fp32&steps=ten", "whole number"),
    ("recipe=fp32&scenario=nope", "Unknown scenario"),
    ("recipe=fp32&batch=1024&width=256&depth=6&steps=2000", "too large"),
    ("recipe=" + "x" * 200, "too long"),
])
def test_bad_input_is_refused_with_a_4xx_and_a_sentence(client, query, says):
    refused = client.get(f"/train/script.json?{query}")
    assert 400 <= refused.status_code < 500
    assert is_sentence(refused.json()["detail"]) and says in refused.json()["detail"]
    page = client.get(f"/train/script.py?{query}")
    assert page.status_code == refused.status_code
    assert page.headers["content-type"].startswith("text/html") and "content-disposition" not in page.headers
    assert says in unescape(page.text)


def test_the_page_offers_one_script_per_chosen_recipe_and_shows_the_first(client):
    page_query = "scenario=small_updates&steps=120&seed=3&recipe=bf16&recipe=fp16_no_master&params=7B"
    page = Elements(client.get(f"/train?{page_query}").text)
    links = page.having("data-script-link")
    assert [a["data-script-link"] for a in links] == ["bf16", "fp16_no_master"]
    for attrs in links:
        href = urlsplit(attrs["href"])
        assert href.path == "/train/script.py"
        params = parse_qsl(href.query)
        assert ("recipe", attrs["data-script-link"]) in params and ("steps", "120") in params
        assert ("seed", "3") in params and not any(name == "params" for name, _ in params)
        assert attrs["download"] == f"precision_lab_{attrs['data-script-link']}.py"
        assert client.get(attrs["href"]).status_code == 200
    shown = page.text_of("data-script-code")
    first = client.get(links[0]["href"]).text
    assert " ".join(first.split()) == shown  # the <details> holds the first recipe's whole script
    assert page.text_of("data-script-name") == RECIPES["bf16"].name


def test_the_page_with_refused_settings_offers_no_script_and_says_why(client):
    page = Elements(client.get("/train?steps=0").text)
    assert [attrs for attrs in page.having("data-script-links") if "hidden" in attrs]
    assert not page.having("data-script-link")
    assert "Fix the settings above" in page.text_of("data-script-message")


def test_the_embedded_page_offers_the_scripts_too(client):
    page = Elements(client.get("/embed/train?recipe=fp32").text)
    (link,) = page.having("data-script-link")
    assert link["href"].startswith("/embed/train/script.py?")  # a frame's links stay in the frame
    assert client.get(link["href"]).text == client.get(link["href"].removeprefix("/embed")).text
