"""The loss scalers against torch.amp.GradScaler's documented semantics, on scripted gradient sequences."""

from __future__ import annotations

import numpy as np
import pytest

from app.training.scaler import DynamicLossScaler, NoLossScaler, StaticLossScaler, make_scaler

FINITE = np.array([1.0, -2.0, 0.0], dtype=np.float32)
INF = np.array([1.0, np.inf, 0.0], dtype=np.float32)
NAN = np.array([np.nan, 1.0, 0.0], dtype=np.float32)


def _drive(scaler, sequence):
    """Scales used and steps skipped (1-based) over a sequence of gradients, as a training loop uses them."""
    scales, skipped = [], []
    for step, grads in enumerate(sequence, 1):
        scales.append(float(scaler.scale))
        _, found_inf = scaler.unscale(grads)
        if found_inf and scaler.skips_non_finite:
            skipped.append(step)
        scaler.update(found_inf)
    return scales, skipped


def test_defaults_are_gradscalers():
    scaler = DynamicLossScaler()
    assert scaler.scale == 2.0**16
    assert (scaler.growth_factor, scaler.backoff_factor, scaler.growth_interval) == (2.0, 0.5, 2000)


def test_dynamic_scaler_follows_gradscaler_on_a_scripted_sequence():
    sequence = [FINITE, FINITE, FINITE, INF, FINITE, FINITE, NAN, INF, FINITE, FINITE, FINITE, FINITE]
    scales, skipped = _drive(DynamicLossScaler(growth_interval=3), sequence)
    # growth after three clean steps; each inf/NaN step skipped, the scale halved, the clean-step count reset
    assert scales == [65536, 65536, 65536, 131072, 65536, 65536, 65536, 32768, 16384, 16384, 16384, 32768]
    assert skipped == [4, 7, 8]


def test_growth_interval_counts_consecutive_clean_steps_only():
    scaler = DynamicLossScaler(init_scale=1.0, growth_interval=2)
    scales, _ = _drive(scaler, [FINITE, INF, FINITE, FINITE, FINITE, FINITE])
    assert scales == [1.0, 1.0, 0.5, 0.5, 1.0, 1.0]
    assert scaler.growth_tracker == 0 and scaler.scale == 2.0


def test_the_scale_does_not_grow_past_fp32():
    scaler = DynamicLossScaler(init_scale=2.0**127, growth_interval=1)
    _drive(scaler, [FINITE, FINITE])
    assert scaler.scale == 2.0**127


def test_unscale_multiplies_by_the_fp32_reciprocal():
    scaler = StaticLossScaler(3.0)
    unscaled, found_inf = scaler.unscale(np.array([3.0, 6.0], dtype=np.float32))
    inv = np.float32(1.0 / 3.0)
    assert not found_inf and unscaled.dtype == np.float32
    np.testing.assert_array_equal(unscaled, np.array([3.0, 6.0], dtype=np.float32) * inv)


def test_static_scaler_skips_non_finite_steps_and_keeps_its_scale():
    scales, skipped = _drive(StaticLossScaler(1024.0), [FINITE, INF, FINITE, NAN])
    assert scales == [1024.0] * 4
    assert skipped == [2, 4]


def test_without_a_scaler_no_step_is_skipped():
    scales, skipped = _drive(NoLossScaler(), [FINITE, INF, NAN])
    assert scales == [1.0] * 3 and skipped == []


def test_make_scaler_by_recipe_kind():
    assert type(make_scaler("none", static_scale=8.0, growth_interval=5)) is NoLossScaler
    assert make_scaler("static", static_scale=8.0, growth_interval=5).scale == 8.0
    dynamic = make_scaler("dynamic", static_scale=8.0, growth_interval=5)
    assert dynamic.scale == 2.0**16 and dynamic.growth_interval == 5


@pytest.mark.parametrize("kwargs", [{"growth_factor": 1.0}, {"backoff_factor": 1.0}, {"growth_interval": 0},
                                    {"init_scale": 0.0}, {"init_scale": float("inf")}])
def test_invalid_settings_are_refused(kwargs):
    with pytest.raises(ValueError):
        DynamicLossScaler(**kwargs)
