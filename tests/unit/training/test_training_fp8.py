"""FP8 delayed scaling against Transformer Engine's rules: amax history, roll, scale from the window's max."""

from __future__ import annotations

import numpy as np

from app.formats import get_format
from app.formats.vector import round_to_format
from app.training.fp8 import DelayedScaling

E4M3 = get_format("float8_e4m3fn")
E5M2 = get_format("float8_e5m2")


def _tensor(amax: float) -> np.ndarray:
    return np.array([amax, -amax / 4, 0.0], dtype=np.float32)


def test_the_first_cast_uses_scale_one_and_records_its_amax():
    scaling = DelayedScaling(history_len=4)
    values, scale_inv = scaling.quantize(_tensor(3.0), "x", E4M3)
    assert scale_inv == 1.0
    np.testing.assert_array_equal(values, round_to_format(_tensor(3.0), E4M3))
    np.testing.assert_array_equal(scaling.history("x"), [3.0, 0, 0, 0])


def test_scale_is_fp8_max_over_the_max_of_the_history_window():
    scaling = DelayedScaling(history_len=3)
    expected_scales = []
    for amax, window_max in [(2.0, 2.0), (8.0, 8.0), (1.0, 8.0), (0.5, 8.0), (0.25, 1.0)]:
        scaling.quantize(_tensor(amax), "x", E4M3)
        scaling.update()
        expected_scales.append(np.float32(448.0) / np.float32(window_max))
        assert scaling.scale("x") == expected_scales[-1]
    # after the fifth step the window holds the last three amaxes, newest slot zeroed for the next cast
    np.testing.assert_array_equal(scaling.history("x"), [0.0, 0.5, 0.25])


def test_the_roll_matches_transformer_engine():
    # TE: new[i] = old[i + 1] for 0 < i < L - 1, new[L - 1] = old[0] (the newest), new[0] = 0
    scaling = DelayedScaling(history_len=4)
    scaling.quantize(_tensor(1.0), "x", E5M2)
    scaling.quantize(_tensor(1.0), "w", E4M3)
    scaling.amax_history[:, 0] = [5.0, 1.0, 2.0, 3.0]
    scaling.update()
    np.testing.assert_array_equal(scaling.history("x"), [0.0, 2.0, 3.0, 5.0])
    np.testing.assert_array_equal(scaling.history("w"), [0.0, 0.0, 0.0, 1.0])
    assert scaling.scale("x") == np.float32(57344.0) / np.float32(5.0)
    assert scaling.scale("w") == np.float32(448.0)


def test_a_zero_or_non_finite_amax_keeps_the_scale():
    scaling = DelayedScaling(history_len=1)
    scaling.quantize(_tensor(4.0), "x", E4M3)
    scaling.update()
    scale = scaling.scale("x")
    scaling.quantize(np.zeros(3, dtype=np.float32), "x", E4M3)
    scaling.update()
    assert scaling.scale("x") == scale
    scaling.quantize(np.array([np.inf, 1.0], dtype=np.float32), "x", E4M3)
    scaling.update()
    assert scaling.scale("x") == scale


def test_casts_saturate_and_margin_leaves_headroom():
    scaling = DelayedScaling(history_len=2, margin=1)
    scaling.quantize(_tensor(1.0), "x", E4M3)
    scaling.update()
    assert scaling.scale("x") == 224.0  # 448 / 1 / 2^1
    values, scale_inv = scaling.quantize(_tensor(10.0), "x", E4M3)  # 10 * 224 is far beyond 448
    assert values[0] == 448.0 and scale_inv == np.float32(1 / 224)


def test_evaluation_casts_do_not_record():
    scaling = DelayedScaling(history_len=2)
    scaling.quantize(_tensor(2.0), "x", E4M3, record=False)
    np.testing.assert_array_equal(scaling.history("x"), [0.0, 0.0])


def test_an_amax_too_small_for_a_finite_scale_clamps_it_to_fp32_max_and_zeros_stay_zero():
    """fp8_max / amax is beyond FP32 for amax below about 1.3e-36 (E4M3) or 1.7e-34 (E5M2): Transformer Engine
    then takes FP32's largest finite value as the scale; an infinite one would turn the zeros of x * scale into
    NaN."""
    fp32_max = np.finfo(np.float32).max
    for spec, tiny in ((E4M3, 1e-37), (E4M3, 1e-45), (E5M2, 1e-35), (E5M2, 1e-40)):
        scaling = DelayedScaling(history_len=1)
        scaling.quantize(_tensor(tiny), "x", spec)
        scaling.update()
        assert scaling.scale("x") == fp32_max
        values, scale_inv = scaling.quantize(_tensor(tiny), "x", spec)
        assert np.isfinite(values).all() and values[2] == 0 and scale_inv > 0
    # just above the threshold the scale is the plain quotient, finite and below FP32's max
    for spec, small in ((E4M3, 1e-35), (E5M2, 1e-33)):
        scaling = DelayedScaling(history_len=1)
        scaling.quantize(_tensor(small), "x", spec)
        scaling.update()
        assert scaling.scale("x") == np.float32(spec.max) / np.float32(small) < fp32_max
