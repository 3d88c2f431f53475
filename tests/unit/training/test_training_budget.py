"""The work and memory budgets of a training run: no setting within LIMITS, alone or combined, runs unbounded.

The estimates are checked against what real runs do, counted by wrapping the functions that do the work
(never by timing them), and against tracemalloc's peak.
"""

from __future__ import annotations

import json
import tracemalloc
from collections import Counter
from dataclasses import fields, replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import app.training.fp8
import app.training.gradient_stats
import app.training.precision
import app.training.runner
from app.formats.vector import round_to_format
from app.training import DATASETS, DEFAULT_CONFIG, LIMITS, RECIPES, SCENARIOS, ConfigError, ResolvedConfig, TrainConfig
from app.training.budget import (
    MEMORY_BUDGET,
    WORK_BUDGET,
    grid_counts,
    grid_work_units,
    peak_bytes,
    run_counts,
    work_units,
)
from app.training.gather import gather
from app.training.model import ACTIVATIONS
from app.training.optim import OPTIMIZERS
from app.training.precision import Arithmetic
from app.training.runner import run, stream

ALL_RECIPES = tuple(RECIPES)
CORNER = TrainConfig(recipes=ALL_RECIPES, steps=2000, width=256, depth=6, batch_size=1024)


def _whole(name: str) -> st.SearchStrategy[int]:
    low, high = LIMITS[name]
    return st.integers(int(low), int(high))


configs = st.builds(
    TrainConfig,
    scenario=st.sampled_from(list(SCENARIOS)),
    recipes=st.none() | st.lists(st.sampled_from(ALL_RECIPES), min_size=1, unique=True).map(tuple),
    dataset=st.none() | st.sampled_from(list(DATASETS)),
    optimizer=st.none() | st.sampled_from(list(OPTIMIZERS)),
    activation=st.none() | st.sampled_from(list(ACTIVATIONS)),
    steps=st.none() | _whole("steps"),
    width=st.none() | _whole("width"),
    depth=st.none() | _whole("depth"),
    batch_size=st.none() | _whole("batch_size"),
)


def _unchecked(config: TrainConfig) -> ResolvedConfig:
    """The configuration as resolved() fills it, without its checks, to estimate a refused one too."""
    scenario = SCENARIOS[config.scenario]
    chosen = {f.name: getattr(config, f.name) for f in fields(config)}
    filled = {name: getattr(scenario, name) if value is None else value for name, value in chosen.items()}
    return ResolvedConfig(**filled | {"recipes": tuple(filled["recipes"])},
                          loss_weight=scenario.loss_weight, input_scale=scenario.input_scale)


def _is_sentence(message: str) -> bool:
    return message[:1].isupper() and message.endswith(".") and 20 < len(message) < 300


# -- every combination --------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(configs)
def test_a_configuration_is_refused_with_a_sentence_exactly_when_it_is_over_a_budget(config):
    estimate = _unchecked(config)
    over = work_units(estimate) > WORK_BUDGET or peak_bytes(estimate) > MEMORY_BUDGET
    try:
        resolved = config.resolved()
    except ConfigError as error:
        assert over and _is_sentence(str(error)) and "too large" in str(error)
    else:
        assert not over and resolved == estimate


_GROWABLE = ("steps", "width", "depth", "batch_size")


@settings(max_examples=300, deadline=None)
@given(configs, st.sampled_from((*_GROWABLE, "recipes")), st.data())
def test_more_of_any_setting_never_lowers_an_estimate(config, setting, data):
    smaller = _unchecked(config)
    if setting == "recipes":
        missing = [r for r in ALL_RECIPES if r not in smaller.recipes]
        if not missing:
            return
        larger = replace(smaller, recipes=(*smaller.recipes, data.draw(st.sampled_from(missing))))
    else:
        value = getattr(smaller, setting)
        larger = replace(smaller, **{setting: data.draw(st.integers(value, int(LIMITS[setting][1])))})
    assert work_units(larger) >= work_units(smaller)
    assert peak_bytes(larger) >= peak_bytes(smaller)


def test_the_largest_setting_of_everything_at_once_is_refused_with_what_to_lower():
    with pytest.raises(ConfigError, match="too large") as refused:
        CORNER.resolved()
    message = str(refused.value)
    assert _is_sentence(message)
    assert "lower the steps, batch size, width, depth or the number of recipes" in message
    assert work_units(_unchecked(CORNER)) > 50 * WORK_BUDGET  # hours of one core, not seconds


def test_a_run_that_fits_in_time_but_not_in_memory_is_refused_for_its_memory():
    config = TrainConfig(recipes=ALL_RECIPES, steps=1, width=256, depth=6, batch_size=1024, activation="tanh")
    assert work_units(_unchecked(config)) <= WORK_BUDGET and peak_bytes(_unchecked(config)) > MEMORY_BUDGET
    with pytest.raises(ConfigError, match="MiB of memory"):
        config.resolved()


@pytest.mark.parametrize("setting", _GROWABLE)
def test_each_largest_setting_alone_runs_with_every_recipe(setting):
    TrainConfig(recipes=ALL_RECIPES, **{setting: int(LIMITS[setting][1])}).resolved()


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_scenario_is_well_within_the_budgets_with_its_recipes_and_with_all(scenario):
    own = TrainConfig(scenario=scenario).resolved()
    assert work_units(own) < WORK_BUDGET / 4 and peak_bytes(own) < MEMORY_BUDGET / 4
    every = TrainConfig(scenario=scenario, recipes=ALL_RECIPES).resolved()
    assert work_units(every) < WORK_BUDGET / 2


def test_the_train_pages_default_is_accepted():
    assert work_units(DEFAULT_CONFIG.resolved()) < WORK_BUDGET / 4


# -- the estimate counts what a run does ----------------------------------------------------------


class _Tally:
    """The operations a real run performs, counted by wrapping the functions that perform them."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.multiply_adds = 0
        self.rounded: Counter[str] = Counter()
        self.roundings = 0
        self.histogram_elements = 0
        matmul, histogram = Arithmetic.matmul, app.training.gradient_stats.exponent_histogram

        def counted_round(x: np.ndarray, spec, **options) -> np.ndarray:
            self.rounded[spec.id] += np.asarray(x).size
            self.roundings += 1
            return round_to_format(x, spec, **options)

        def counted_matmul(arith: Arithmetic, a, b, **options) -> np.ndarray:
            rows, inner = a.values.shape
            self.multiply_adds += rows * inner * b.values.shape[1]
            return matmul(arith, a, b, **options)

        def counted_histogram(values: np.ndarray) -> dict[str, object]:
            self.histogram_elements += values.size
            return histogram(values)

        monkeypatch.setattr(app.training.precision, "round_to_format", counted_round)
        monkeypatch.setattr(app.training.fp8, "round_to_format", counted_round)
        monkeypatch.setattr(Arithmetic, "matmul", counted_matmul)
        monkeypatch.setattr(app.training.gradient_stats, "exponent_histogram", counted_histogram)


@pytest.mark.parametrize("recipe_id", ALL_RECIPES)
@pytest.mark.parametrize(("activation", "dataset"), [("relu", "spiral"), ("tanh", "blobs"), ("tanh", "wave")])
def test_the_counts_are_exactly_what_a_real_run_does(monkeypatch, recipe_id, activation, dataset):
    config = TrainConfig(recipes=(recipe_id,), steps=45, width=7, depth=3, batch_size=11, activation=activation,
                         dataset=dataset, learning_rate=0.05)
    tally = _Tally(monkeypatch)
    outcome = run(config)
    counts = run_counts(config.resolved(), recipe_id)
    expected, roundings = Counter(counts.rounded), counts.roundings
    recipe = RECIPES[recipe_id]
    if not recipe.master_weights:  # a skipped step's update is not rounded back to the weights
        skipped = len(outcome["recipes"][recipe_id]["skipped_steps"])
        expected[recipe.weights] -= skipped * outcome["n_params"]
        roundings -= skipped
    assert tally.multiply_adds == counts.multiply_adds
    assert tally.rounded == +expected
    assert tally.roundings == roundings
    assert tally.histogram_elements == counts.histogram_elements


# -- memory -------------------------------------------------------------------------------------


def test_the_peak_memory_of_a_large_run_and_its_record_stays_under_its_estimate():
    config = TrainConfig(recipes=ALL_RECIPES, steps=3, width=128, depth=4, batch_size=512, activation="tanh")
    bound = peak_bytes(config.resolved())
    tracemalloc.start()
    try:
        recorded = [json.dumps(event, allow_nan=False).encode() for event in stream(config)]
        gather(json.loads(frame) for frame in recorded)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert bound / 3 < peak < bound <= MEMORY_BUDGET


# -- the decision grids of the snapshots --------------------------------------------------------------


@pytest.mark.parametrize("recipe_id", ["fp32", "fp16_dynamic_scaling", "bf16_no_master", "fp8_hybrid_delayed"])
@pytest.mark.parametrize("dataset", ["blobs", "wave"])
def test_the_grids_counts_are_exactly_what_their_predictions_do(monkeypatch, recipe_id, dataset):
    config = TrainConfig(recipes=(recipe_id,), steps=45, width=7, depth=3, batch_size=11, dataset=dataset,
                         activation="tanh")
    tally = _Tally(monkeypatch)
    calls: list[tuple[int, Counter[str], int]] = []
    grid_values = app.training.runner._grid_values

    def counted(*args):
        before = (tally.multiply_adds, Counter(tally.rounded), tally.roundings)
        values = grid_values(*args)
        calls.append((tally.multiply_adds - before[0], tally.rounded - before[1], tally.roundings - before[2]))
        return values

    monkeypatch.setattr(app.training.runner, "_grid_values", counted)
    run(config)
    snapshots = calls[:-1]  # the last call draws the final boundary, which the budget counts with the run's end
    counts = grid_counts(config.resolved(), recipe_id)
    assert counts.grids == len(snapshots) == 20
    assert counts.multiply_adds == sum(c[0] for c in snapshots)
    assert counts.rounded == sum((c[1] for c in snapshots), Counter())
    assert counts.roundings == sum(c[2] for c in snapshots)


def _largest_steps(config: TrainConfig) -> int:
    low, high = 1, int(LIMITS["steps"][1])
    while low < high:
        middle = (low + high + 1) // 2
        try:
            replace(config, steps=middle).resolved()
        except ConfigError:
            high = middle - 1
        else:
            low = middle
    return low


def test_a_run_that_its_grids_take_over_the_budget_is_refused_and_one_step_fewer_is_not():
    # a wide, deep model on small batches: a snapshot's grid of 576 predictions costs as much as a few steps
    shape = TrainConfig(recipes=ALL_RECIPES, width=256, depth=6, batch_size=16)
    largest = _largest_steps(shape)
    within, over = _unchecked(replace(shape, steps=largest)), _unchecked(replace(shape, steps=largest + 1))
    assert work_units(within) <= WORK_BUDGET < work_units(over)
    with pytest.raises(ConfigError, match="too large"):
        replace(shape, steps=largest + 1).resolved()
    assert work_units(over) - grid_work_units(over) < WORK_BUDGET  # without its grids it would have fit
    assert grid_work_units(within) > work_units(within) / 10


def test_the_grids_cost_a_default_run_little():
    default = DEFAULT_CONFIG.resolved()
    assert 0 < grid_work_units(default) < work_units(default) / 10


def test_the_peak_memory_of_a_regressions_grids_stays_under_its_estimate():
    # a regression's grids hold floats, in the frames and in the gathered result; 20 snapshots of every recipe
    config = TrainConfig(recipes=ALL_RECIPES, dataset="wave", steps=40, width=8, batch_size=8)
    bound = peak_bytes(config.resolved())
    tracemalloc.start()
    try:
        recorded = [json.dumps(event, allow_nan=False).encode() for event in stream(config)]
        result = gather(json.loads(frame) for frame in recorded)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(result["recipes"]["fp32"]["decision_grids"]) == 20
    assert peak < bound <= MEMORY_BUDGET
