"""The runner: configuration limits, the event stream, the result, determinism, memory per parameter."""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import app.training
from app.formats import get_format
from app.formats.vector import round_to_format
from app.training import (
    DEFAULT_CONFIG,
    LIMITS,
    MLP,
    RECIPES,
    SCENARIOS,
    ConfigError,
    TrainConfig,
    bytes_per_param,
    make_dataset,
    memory_for_model,
    run,
    stream,
)
from app.training.data import DATASETS
from app.training.trainer import RecipeTrainer

SMALL = TrainConfig(recipes=tuple(RECIPES), steps=12, width=8, batch_size=16, seed=7)


@pytest.mark.parametrize(("change", "message"), [
    ({"steps": 2001}, "steps must be at most 2000 (got 2001)"),
    ({"steps": 0}, "steps must be at least 1"),
    ({"width": 257}, "width must be at most 256"),
    ({"width": 1}, "width must be at least 2"),
    ({"depth": 7}, "depth must be at most 6"),
    ({"depth": 0}, "depth must be at least 1"),
    ({"batch_size": 1025}, "batch_size must be at most 1024"),
    ({"learning_rate": 2.0}, "learning_rate must be at most 1"),
    ({"learning_rate": float("nan")}, "learning_rate must be a finite number"),
    ({"growth_interval": 10_001}, "growth_interval must be at most 10000"),
    ({"static_loss_scale": 2.0**30}, "static_loss_scale must be at most 1.67772e+07"),
    ({"seed": -1}, "seed must be at least 0"),
    ({"steps": 1.5}, "steps must be a whole number"),
    ({"recipes": ()}, "at least one recipe"),
    ({"recipes": ("fp32", "fp32")}, "only once"),
    ({"recipes": ("fp64",)}, "Unknown recipe 'fp64'"),
    ({"scenario": "huge"}, "Unknown scenario 'huge'"),
    ({"dataset": "moons"}, "Unknown dataset 'moons'"),
    ({"optimizer": "lamb"}, "Unknown optimizer 'lamb'"),
    ({"activation": "gelu"}, "Unknown activation 'gelu'"),
])
def test_limits_raise_with_a_message_naming_them(change, message):
    config = TrainConfig(**change)
    with pytest.raises(ConfigError, match=re.escape(message)):
        config.resolved()
    with pytest.raises(ValueError):  # before any work: the web layer turns it into a 4xx
        stream(config)


def test_limits_allow_every_recipe_with_each_maximum_alone():
    assert LIMITS["steps"][1] == 2000
    config = TrainConfig(recipes=tuple(RECIPES), steps=2000, width=2, depth=1, batch_size=1).resolved()
    assert config.recipes == tuple(RECIPES)


def test_a_scenario_fills_what_was_left_open():
    config = TrainConfig(scenario="small_updates", steps=5).resolved()
    scenario = SCENARIOS["small_updates"]
    assert config.steps == 5 and config.learning_rate == scenario.learning_rate
    assert config.recipes == scenario.recipes and config.dataset == scenario.dataset
    assert DEFAULT_CONFIG.resolved().recipes == ("fp32", "fp16_no_scaling", "fp16_dynamic_scaling", "bf16")


def test_the_stream_yields_start_steps_and_done_and_can_stop_early():
    events = list(stream(SMALL))
    assert [e["type"] for e in events] == ["start"] + ["step"] * 12 + ["done"]
    assert [e["step"] for e in events[1:-1]] == list(range(1, 13))
    assert set(events[1]["recipes"]) == set(RECIPES)
    assert set(events[1]["recipes"]["fp32"]) == {"loss", "accuracy", "underflow_fraction", "nonfinite_count",
                                                  "loss_scale", "skipped", "update_ratio"}
    assert "histograms" in events[-2]
    early = stream(SMALL)
    next(early), next(early)
    early.close()  # a client that goes away stops the run


# SGD at the largest learning rate on a deep, narrow FP16 network: the loss turns NaN within 20 steps, and the
# dynamic scaler then halves its scale at every step, 2^16 down to 0 in 166 halvings
DIVERGING = TrainConfig(recipes=("fp32", "fp16_dynamic_scaling"), optimizer="sgd", learning_rate=1.0, width=64,
                        depth=4, batch_size=32, steps=220, seed=0)


def test_a_collapsed_loss_scale_is_a_diverged_event_and_the_run_goes_on_to_done():
    events = list(stream(DIVERGING))
    assert [e["type"] for e in events][-1] == "done"
    diverged = [(i, e) for i, e in enumerate(events) if e["type"] == "diverged"]
    assert len(diverged) == 1
    index, event = diverged[0]
    assert event["recipe"] == "fp16_dynamic_scaling" and events[index - 1]["step"] == event["step"]
    later = [e["recipes"]["fp16_dynamic_scaling"] for e in events[index + 1:] if e["type"] == "step"]
    assert later and all(v["loss_scale"] == 0 and v["skipped"] for v in later)
    since = int(re.search(r"from step (\d+) on", event["detail"])[1])  # type: ignore[index]
    steps = [e for e in events if e["type"] == "step"]
    assert all(s["recipes"]["fp16_dynamic_scaling"]["skipped"] for s in steps[since - 1:event["step"]])
    assert since == 1 or not steps[since - 2]["recipes"]["fp16_dynamic_scaling"]["skipped"]
    assert f"reached 0 at step {event['step']}" in event["detail"]
    result = run(DIVERGING)["recipes"]
    assert result["fp16_dynamic_scaling"]["diverged"] == {"step": event["step"], "detail": event["detail"]}
    assert result["fp32"]["diverged"] is None
    json.dumps(result, allow_nan=False)


def test_the_result_has_the_api_shape_and_is_json_safe():
    result = run(SMALL)
    assert result["config"]["steps"] == 12 and result["config"]["recipes"] == list(RECIPES)
    for recipe_id, recipe in result["recipes"].items():
        for key in ("loss", "accuracy", "underflow_fraction", "nonfinite_count", "loss_scale",
                    "update_ratio"):
            assert len(recipe[key]) == 12, (recipe_id, key)
        assert isinstance(recipe["final_loss"], float) and isinstance(recipe["skipped_steps"], list)
        assert recipe["bytes_per_param"] == bytes_per_param(RECIPES[recipe_id], "adam")
        assert recipe["histograms"][-1]["step"] == 12
        assert recipe["gradient_range"]["format"] == RECIPES[recipe_id].output
        grid = recipe["decision_grid"]
        assert len(grid["x"]) == len(grid["y"]) == len(grid["values"]) == len(grid["values"][0]) == 24
        classes = set(range(DATASETS[result["config"]["dataset"]].n_classes))
        assert {value for row in grid["values"] for value in row} <= classes
    json.dumps(result, allow_nan=False)


def test_non_finite_numbers_travel_as_null():
    # a learning rate of 1 with FP16 and no scaling on unnormalised inputs blows the weights up
    result = run(TrainConfig(scenario="large_activations", recipes=("fp16_no_scaling",), steps=40,
                             learning_rate=1.0, optimizer="sgd"))
    recipe = result["recipes"]["fp16_no_scaling"]
    assert None in recipe["loss"] and recipe["final_loss"] is None
    json.dumps(result, allow_nan=False)


def test_the_same_configuration_and_seed_give_the_same_numbers_bit_for_bit():
    first, second = run(SMALL), run(SMALL)
    assert json.dumps(first, allow_nan=False) == json.dumps(second, allow_nan=False)
    other = run(TrainConfig(recipes=tuple(RECIPES), steps=12, width=8, batch_size=16, seed=8))
    assert other["recipes"]["fp32"]["loss"] != first["recipes"]["fp32"]["loss"]


def test_every_recipe_starts_from_the_same_weights_and_data():
    result = run(TrainConfig(recipes=tuple(RECIPES), steps=1))
    losses = [r["loss"][0] for r in result["recipes"].values()]
    assert len(losses) == len(RECIPES)
    assert max(losses) - min(losses) < 0.01  # only rounding tells them apart (measured: 0.0017, FP8's)


@pytest.mark.parametrize("recipe", [r for r in RECIPES.values() if not r.master_weights], ids=lambda r: r.id)
def test_weights_without_a_master_copy_stay_in_their_format(recipe):
    data = make_dataset("spiral", 0)
    mlp = MLP(2, 8, 2, 2)
    trainer = RecipeTrainer(recipe, mlp, mlp.init_params(0), task="classification", optimizer="adam",
                            learning_rate=0.01, loss_weight=1.0, static_loss_scale=1.0, growth_interval=5)
    before = trainer.params.copy()
    for _ in range(5):
        trainer.step(data.x_train[:32], data.y_train[:32])
    assert not np.array_equal(trainer.params, before)  # trained: the updates reached the weights
    np.testing.assert_array_equal(round_to_format(trainer.params, get_format(recipe.weights)), trainer.params)


def test_memory_per_parameter():
    def total(recipe_id: str, optimizer: str = "adam") -> int:
        return bytes_per_param(RECIPES[recipe_id], optimizer)["total"]

    assert bytes_per_param(RECIPES["fp32"], "adam") == {"weights": 4, "weight_copies": 0, "master_weights": 0,
                                                       "gradients": 4, "optimizer_states": 8, "total": 16}
    assert bytes_per_param(RECIPES["bf16"], "adam") == {"weights": 2, "weight_copies": 0, "master_weights": 4,
                                                       "gradients": 2, "optimizer_states": 8, "total": 16}
    for mixed in ("tf32", "fp16_no_scaling", "fp16_static_scaling", "fp16_dynamic_scaling"):
        assert total(mixed) == 16
    assert total("fp16_no_master") == total("bf16_no_master") == 12
    # Transformer Engine keeps BF16 parameters and adds FP8 copies: BF16 2, FP8 copies 1, FP32 master 4, BF16
    # gradients 2, Adam 8; more than FP32's 16, so the memory row never suggests a saving FP8 does not give
    fp8 = bytes_per_param(RECIPES["fp8_hybrid_delayed"], "adam")
    assert (fp8["weights"], fp8["weight_copies"]) == (2, 1) and total("fp8_hybrid_delayed") == 17 > total("fp32")
    assert total("fp32", "sgd") == 12 and total("bf16", "sgd") == 12 and total("bf16_no_master", "sgd") == 8
    seven_billion = memory_for_model(RECIPES["fp16_dynamic_scaling"], "adam", 7 * 10**9)
    assert seven_billion["total"] == 112.0 and seven_billion["master_weights"] == 28.0


def test_the_training_core_imports_only_numpy_ml_dtypes_the_standard_library_and_formats():
    """The optional torch backend (torch_*.py, extra [torch]) may import torch; nothing else may. Of the app,
    only the formats core and the two leaf modules of words (app/refusal.py and app/messages.py, which import nothing
    of the app)."""
    for leaf in ("refusal.py", "messages.py"):
        tree = ast.parse((Path(app.__file__).parent / leaf).read_text())
        imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        standard = sys.stdlib_module_names | {"__future__"}
        assert all(name.split(".")[0] in standard for name in imported), (leaf, imported)
    for path in Path(app.training.__file__).parent.glob("*.py"):
        allowed = {"numpy", "ml_dtypes", "app"} | ({"torch"} if path.name.startswith("torch_") else set())
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in allowed or top in sys.stdlib_module_names, (path.name, name)
                if top == "app":
                    leaf = name in {"app.refusal", "app.messages"}
                    assert leaf or name.startswith(("app.formats", "app.training")), (path.name, name)
