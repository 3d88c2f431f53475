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


def test_backing_off_past_the_smallest_fp32_reaches_zero_and_unscaling_then_gives_nan_not_an_error():
    scaler = DynamicLossScaler(init_scale=2.0**-148)
    scales, skipped = _drive(scaler, [INF, INF, INF])
    assert scales == [2.0**-148, 2.0**-149, 0.0] and skipped == [1, 2, 3]
    assert scaler.collapsed and scaler.scale == 0
    unscaled, found_inf = scaler.unscale(np.array([0.0, 1.0], dtype=np.float32))
    assert not found_inf  # the scaled gradients were finite; their unscaled values are not
    assert np.isnan(unscaled[0]) and np.isinf(unscaled[1])


def test_the_bottom_of_the_range_is_torchs():
    torch = pytest.importorskip("torch")
    scale, tracker = torch.tensor([2.0**-148]), torch.tensor([0], dtype=torch.int32)
    ours = DynamicLossScaler(init_scale=2.0**-148)
    for _ in range(3):
        torch._amp_update_scale_(scale, tracker, torch.ones(1), 2.0, 0.5, 2000)
        ours.update(found_inf=True)
        assert float(ours.scale) == scale.item()
    grads, found = [torch.tensor([0.0, 1.0])], torch.zeros(1)
    torch._amp_foreach_non_finite_check_and_unscale_(grads, found, scale.double().reciprocal().float())
    unscaled, found_inf = ours.unscale(np.array([0.0, 1.0], dtype=np.float32))
    assert found_inf == bool(found.item())
    np.testing.assert_array_equal(unscaled, grads[0].numpy())
