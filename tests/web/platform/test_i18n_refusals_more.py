"""The refusals of app/training, app/learn, the training service and the visualiser's inputs, made translatable:
str() keeps today's English sentence (the JSON API's), a /tr/ page shows it in Turkish, the API stays English."""

from __future__ import annotations

from collections.abc import Callable
from html import unescape

import pytest
from fastapi.testclient import TestClient
from markupsafe import escape

from app.formats import SUMMATION_METHODS, Phrase
from app.learn.accumulation import ACCUMULATION_DISTRIBUTIONS, accumulate, parse_count, parse_methods, parse_seed
from app.refusal import Refusal
from app.services.training_runs import TrainRuns, _every_slot_taken, _too_slow, _worker_lost
from app.training import memory_calc
from app.training.config import TrainConfig
from app.training.runner import _collapse
from app.web.platform.languages import ENGLISH_CODE, LANGUAGES, speaking
from app.web.platform.refusal_sentences import refusal_sentence
from app.web.visualise import inputs
from tests.helpers.html import HX


def _refused(call: Callable[[], object]) -> Refusal:
    with pytest.raises(Refusal) as caught:
        call()
    return caught.value


# each converted refusal and the English sentence it said before it had a template, byte for byte
OLD_ENGLISH: list[tuple[Callable[[], object], str]] = [
    (lambda: memory_calc.parse_param_count("lots"),
     "Cannot read 'lots' as a number of parameters; write it as 7B, 70B, 1.5T, 350M, 7e9 or 7000000000."),
    (lambda: memory_calc.parse_param_count("1e20"),
     "The number of parameters must be from 1 to 10^15 (a thousand trillion); '1e20' is outside that."),
    (lambda: memory_calc.parse_devices("0"),
     "The number of accelerators must be a whole number from 1 to 1,000,000; '0' is not."),
    (lambda: memory_calc.parse_zero_stage("4"), "The ZeRO stage must be one of 0, 1, 2, 3; '4' is not."),
    (lambda: memory_calc.zero_per_device(memory_calc.recipe_named("fp32"), "sgd", 10, 1, 9),
     "The ZeRO stage must be one of 0, 1, 2, 3."),
    (lambda: memory_calc.recipe_named("nope"),
     "Unknown recipe 'nope'; choose one of: " + ", ".join(memory_calc.RECIPES) + "."),
    (lambda: memory_calc.optimizer_named("nope"),
     "Unknown optimizer 'nope'; choose one of: " + ", ".join(memory_calc.OPTIMIZERS) + "."),
    (lambda: memory_calc.weight_format_named("nope"),
     "Unknown weight format 'nope'; choose the id of any format in GET /api/formats but float8_e8m0fnu (which has "
     "no zero or sign), such as bfloat16, float8_e4m3fn, int4, nf4 or mxfp4."),
    (lambda: parse_count("0"),
     "n must be a whole number of values from 1 to 1,000,000, such as 10000 or 1e6; '0' is not."),
    (lambda: parse_seed("-1"), "The seed must be a whole number from 0 to 4,294,967,295; '-1' is not."),
    (lambda: parse_methods(["nope"]),
     "'nope' is not a summation method; choose from " + ", ".join(SUMMATION_METHODS) + "."),
    (lambda: accumulate("bfloat16", "nope", 10, 0),
     "'nope' is not a distribution here; choose from " + ", ".join(ACCUMULATION_DISTRIBUTIONS) + "."),
    (lambda: accumulate("bfloat16", "uniform", 0, 0),
     "n runs from 1 to 1,000,000 and the seed from 0 to 4,294,967,295."),
    (lambda: TrainConfig(steps=5000).resolved(), "steps must be at most 2000 (got 5000)."),
    (lambda: TrainConfig(steps=0).resolved(), "steps must be at least 1 (got 0)."),
    (lambda: TrainConfig(recipes=()).resolved(), "Choose at least one recipe."),
    (lambda: TrainConfig(recipes=("fp32", "fp32")).resolved(), "Each recipe may be chosen only once."),
    (lambda: inputs.scalar_format("mxfp4"),
     "mxfp4 is a block format: its values share a scale, so quantise a whole vector with POST /api/blocks/quantize "
     "(or see the format table at /formats)."),
    (lambda: inputs.seed_value("x"), "The seed must be a whole number from 0 to 9223372036854775807."),
    (lambda: inputs.block_count(100, "mxfp4", 32, 2),
     "100 values in blocks of 32 make 4 blocks; at most 2 are quantised at once, so use a block size of at least 50 "
     "or fewer values."),
    (lambda: inputs.custom_layout("x", "3"), "exponent_bits must be a whole number, such as 5; 'x' is not one."),
]
SERVICE_ENGLISH = [
    (_every_slot_taken(4), "The lab is already training 4 runs, its limit at once; try again in 2 seconds."),
    (_too_slow(60.0),
     "The lab is too busy to finish this run within its limit of 60 seconds, so it was stopped; "
     "try again in a minute."),
    (_worker_lost(), "The lab's training process stopped before this run finished; try again in a minute."),
]
COLLAPSE_ENGLISH = (
    "The run diverged: every step from step 3 on had inf or NaN gradients, so the dynamic loss scale halved at each "
    "of them and reached 0 at step 9, where torch.amp.GradScaler's would stay. No later step can update the weights.")


@pytest.mark.parametrize(("call", "english"), OLD_ENGLISH)
def test_each_refusal_keeps_its_english_and_has_a_translation(call: Callable[[], object], english: str) -> None:
    error = _refused(call)
    assert str(error) == english and error.template is not None
    for language in LANGUAGES:
        if language.code == ENGLISH_CODE:
            continue
        with speaking(language):
            translated = refusal_sentence(error)
        assert translated != english, (language.code, english)
        for value in error.params.values():  # the input and numbers as they were; words (a Phrase) translated
            assert value in translated or isinstance(value, Phrase)


def test_the_training_service_and_the_diverged_sentence_keep_their_english() -> None:
    for error, english in SERVICE_ENGLISH:
        assert str(error) == english and error.template is not None
        with speaking(LANGUAGES[1]):
            assert refusal_sentence(error) != english
    assert _collapse(3, 9) == COLLAPSE_ENGLISH


def _error_of(html: str) -> str:
    return html.split("data-error", 1)[1].split(">", 1)[1].split("</p>", 1)[0]


def test_the_memory_page_shows_its_refusal_in_turkish_and_the_api_in_english(client: TestClient) -> None:
    page = client.get("/tr/learn/memory", params={"params": "lots"}, headers=HX)
    assert page.status_code == 422
    shown = unescape(_error_of(page.text))
    assert shown.startswith("'lots' bir parametre sayısı olarak okunamıyor")
    assert 'data-error lang="en"' not in page.text
    api = client.get("/api/memory", params={"params": "lots"})
    assert api.status_code == 422 and api.json()["detail"].startswith("Cannot read 'lots' as a number of parameters")
    english = client.get("/learn/memory", params={"params": "lots"}, headers=HX)
    assert unescape(_error_of(english.text)).startswith("Cannot read 'lots'") and 'lang="en"' not in english.text


def test_the_accumulation_page_shows_its_refusal_in_greek(client: TestClient) -> None:
    page = client.get("/el/learn/accumulation", params={"n": "0"}, headers=HX)
    assert page.status_code == 422
    assert unescape(_error_of(page.text)).startswith("Το n πρέπει να είναι ακέραιο πλήθος τιμών")
    assert 'data-error lang="en"' not in page.text


def test_the_train_page_shows_a_limit_in_turkish(client: TestClient) -> None:
    page = client.get("/tr/train", params={"steps": "5000", "run": "1"})
    assert page.status_code == 422
    assert "steps en fazla 2000 olmalıdır (5000 verildi)." in unescape(page.text)
    assert 'data-error lang="en"' not in page.text
    english = client.get("/train", params={"steps": "5000", "run": "1"})
    assert "steps must be at most 2000 (got 5000)." in unescape(english.text)


def test_the_visualiser_shows_its_refusal_in_yoruba(client: TestClient) -> None:
    page = client.get("/yo/visualise/custom", params={"exponent_bits": "x", "mantissa_bits": "3"})
    assert page.status_code == 422
    assert "exponent_bits gbọ́dọ̀ jẹ́ odidi nọ́ńbà, bí i 5; 'x' kì í ṣe bẹ́ẹ̀." in unescape(page.text)


COLLAPSING_QUERY = "recipe=fp16_no_master&lr=1.0&optimizer=sgd&width=256&depth=6&batch=128&steps=250&seed=5"


@pytest.mark.slow  # 3.5 s: trains a 250-step run of a 256-wide, 6-deep network until it diverges
def test_a_finished_run_says_it_diverged_in_turkish_and_the_stream_stays_english(client):
    client.app.state.train_runs = TrainRuns(max_seconds=3600, workers=client.app.state.train_workers)
    english = client.get(f"/train?{COLLAPSING_QUERY}&run=1").text
    detail = english.split("data-diverged", 1)[1].split("</strong>: ", 1)[1].split("</li>", 1)[0]
    assert unescape(detail).startswith("The run diverged: every step from step ")
    turkish = client.get(f"/tr/train?{COLLAPSING_QUERY}&run=1").text
    row = turkish.split("data-diverged", 1)[1].split("</ul>", 1)[0]
    assert "Çalıştırma ıraksadı:" in unescape(row) and 'lang="en"' not in row
    assert str(escape(unescape(detail))) not in row
