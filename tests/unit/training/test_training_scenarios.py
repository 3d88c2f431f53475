"""Each scenario's lesson, from real runs of the training core; the numbers in the comments are measured."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import pytest

from app.formats import Real, encode, get_format
from app.training import RECIPES, SCENARIOS, TrainConfig, run
from app.training.recipes import Recipe

ALL_RECIPES = tuple(RECIPES)


def _has_fp32s_range(recipe: Recipe) -> bool:
    """Every format a step of the recipe rounds to has FP32's eight exponent bits."""
    formats = (recipe.compute, recipe.gradient, recipe.output, recipe.weights)
    return all(get_format(f).exponent_bits >= get_format("float32").exponent_bits for f in formats)


def _updates_fp32_weights(recipe: Recipe) -> bool:
    """The optimizer's updates land on FP32 numbers: an FP32 master copy, or weights stored in FP32."""
    return recipe.master_weights or recipe.weights == "float32"


WIDE_RANGE = [r.id for r in RECIPES.values() if _has_fp32s_range(r)]
SCALED_OR_WIDE = [r.id for r in RECIPES.values() if r.loss_scaling != "none" or _has_fp32s_range(r)]
FP32_UPDATES = [r.id for r in RECIPES.values() if _updates_fp32_weights(r)]


@cache
def _run(scenario: str) -> dict:
    return run(TrainConfig(scenario=scenario, recipes=ALL_RECIPES))["recipes"]


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


@pytest.mark.parametrize("scenario", SCENARIOS.values(), ids=lambda s: s.id)
def test_every_scenario_has_a_short_explanation(scenario):
    sentences = scenario.explanation.count(". ") + 1
    assert 2 <= sentences <= 5, scenario.id
    assert scenario.recipes and set(scenario.recipes) <= set(RECIPES)


def test_tiny_gradients_names_the_threshold_below_which_fp16_rounds_to_zero():
    fp16 = get_format("float16")
    half_tiny = fp16.min_subnormal / 2
    assert encode(fp16, Real.of(half_tiny)).encoding.value.is_zero
    assert not encode(fp16, Real.of(half_tiny * Fraction(1001, 1000))).encoding.value.is_zero  # rounds up, to 2^-24
    exponent = fp16.emin - fp16.mantissa_bits - 1
    assert f"up to half of it, 2^{exponent}, round to zero" in SCENARIOS["tiny_gradients"].explanation


def test_baseline_every_recipe_reaches_about_the_same_loss():
    recipes = _run("baseline")
    fp32 = recipes["fp32"]["final_loss"]  # 0.084, from 0.747
    for recipe_id, result in recipes.items():
        # measured: 0.064 (fp8) to 0.095 (fp16_no_master); accuracy 0.977 to 0.984
        assert abs(result["final_loss"] - fp32) < 0.03, recipe_id
        assert result["final_accuracy"] > 0.95, recipe_id
        assert max(result["underflow_fraction"]) < 0.01, recipe_id
    assert recipes["fp32"]["loss"][0] > 0.7


def test_tiny_gradients_fp16_without_scaling_flushes_most_gradients_and_stalls():
    recipes = _run("tiny_gradients")
    fp16 = recipes["fp16_no_scaling"]
    # measured: mean share 0.851, never below 0.818
    assert _mean(fp16["underflow_fraction"]) > 0.75
    assert min(fp16["underflow_fraction"]) > 0.7
    assert set(recipes["fp32"]["underflow_fraction"]) == {0.0}
    # measured: 0.691 (chance is ln 2 = 0.693) against FP32's 0.119
    assert fp16["final_loss"] - recipes["fp32"]["final_loss"] > 0.4
    assert fp16["final_accuracy"] < 0.7


def _share_below_range(result: dict) -> float:
    """Of the non-zero gradients of the last histogram, the share below the format's smallest number."""
    histogram, bottom = result["histograms"][-1], result["gradient_range"]["min_subnormal_log2"]
    below = sum(c for e, c in zip(histogram["exponents"], histogram["counts"], strict=True) if e < bottom)
    return below / sum(histogram["counts"])


def test_tiny_gradients_histogram_shows_where_the_gradients_lie():
    recipes = _run("tiny_gradients")
    # measured: 0.96 of FP16's unscaled gradients lie below 2^-24, none once scaled by the dynamic scaler
    assert _share_below_range(recipes["fp16_no_scaling"]) > 0.9
    assert _share_below_range(recipes["fp16_dynamic_scaling"]) < 0.01
    assert _share_below_range(recipes["bf16"]) == 0.0
    assert recipes["fp16_no_scaling"]["gradient_range"] == {
        "format": "float16", "min_subnormal_log2": -24, "min_normal_log2": -14,
        "max_log2": recipes["fp16_no_scaling"]["gradient_range"]["max_log2"]}


@pytest.mark.parametrize("recipe_id", SCALED_OR_WIDE)
def test_tiny_gradients_loss_scaling_or_a_wide_range_recovers(recipe_id):
    recipes = _run("tiny_gradients")
    result = recipes[recipe_id]
    # measured final losses: static 0.113, dynamic 0.115, bf16 0.119, tf32 0.118, fp16_no_master 0.115,
    # bf16_no_master 0.132; fp32 0.119
    assert abs(result["final_loss"] - recipes["fp32"]["final_loss"]) < 0.03
    assert _mean(result["underflow_fraction"]) < 0.01
    assert result["skipped_steps"] == []


def test_tiny_gradients_fp8_per_tensor_scales_keep_gradients_in_range():
    fp8 = _run("tiny_gradients")["fp8_hybrid_delayed"]
    # measured: mean underflow share 0.003 and final loss 0.169, where unscaled FP16 flushes 85%
    assert _mean(fp8["underflow_fraction"]) < 0.05
    assert fp8["final_loss"] < 0.3


def test_small_updates_weights_without_a_master_copy_stall():
    recipes = _run("small_updates")

    def progress(recipe_id: str) -> float:
        result = recipes[recipe_id]
        return result["loss"][0] - result["final_loss"]

    # measured progress from 1.161: fp32 0.335, fp16 with master 0.333 to 0.335, bf16 with master 0.334,
    # fp8 0.322, fp16_no_master 0.109, bf16_no_master 0.028
    assert "fp32" in FP32_UPDATES
    for master in FP32_UPDATES:
        assert progress(master) > 0.3, master
    assert progress("bf16_no_master") < 0.1 * progress("fp32")
    assert progress("fp16_no_master") < 0.4 * progress("fp32")
    # the updates that reach 16-bit weights are a fraction of those the masters receive
    last = slice(-100, None)
    fp32_ratio = _mean(recipes["fp32"]["update_ratio"][last])
    assert _mean(recipes["bf16_no_master"]["update_ratio"][last]) < 0.2 * fp32_ratio  # measured 0.07
    assert _mean(recipes["fp16_no_master"]["update_ratio"][last]) < 0.7 * fp32_ratio  # measured 0.52


def test_large_activations_fp16_overflows_and_the_dynamic_scaler_backs_off():
    recipes = _run("large_activations")
    dynamic = recipes["fp16_dynamic_scaling"]
    scales = dynamic["loss_scale"]
    # measured: skipped steps 1-6, 109, 167, 187; scale 65536 down to 1024 by step 7, 4096 at the end
    assert len(dynamic["skipped_steps"]) >= 5
    assert dynamic["skipped_steps"][:6] == [1, 2, 3, 4, 5, 6]
    assert scales[0] == 2.0**16 and min(scales) <= 2.0**11 and scales[-1] < scales[0]
    for step in dynamic["skipped_steps"]:
        assert dynamic["nonfinite_count"][step - 1] > 0
        if step < len(scales):
            assert scales[step] == scales[step - 1] / 2  # backoff factor 0.5
    # growth after 50 clean steps (the scenario's growth interval)
    assert any(b == 2 * a for a, b in zip(scales, scales[1:], strict=False))
    assert "fp32" in WIDE_RANGE
    for recipe_id in WIDE_RANGE:  # fp32, tf32, bf16, bf16_no_master
        assert sum(recipes[recipe_id]["nonfinite_count"]) == 0, recipe_id
        assert recipes[recipe_id]["skipped_steps"] == [], recipe_id
    # after backing off, the dynamic scaler trains as well as FP32 (measured 0.181 against 0.189)
    assert abs(dynamic["final_loss"] - recipes["fp32"]["final_loss"]) < 0.1
