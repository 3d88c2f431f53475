"""The memory calculator's core: parameter counts, weights per format, training state per recipe, ZeRO, fit."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.formats import FORMATS, InputError
from app.training.memory_calc import (
    ACCELERATORS,
    WEIGHT_FORMATS,
    ZERO_STAGES,
    memory_report,
    min_devices,
    parse_devices,
    parse_param_count,
    parse_zero_stage,
    stored_bits_per_value,
    weights_bytes,
    zero_per_device,
)
from app.training.optim import OPTIMIZERS
from app.training.recipes import RECIPES, memory_for_model

B = 10**9
GB = 10**9


@pytest.mark.parametrize(("text", "count"), [
    ("7B", 7 * B), ("70b", 70 * B), ("1.5T", 1_500 * B), ("350M", 350_000_000), ("7e9", 7 * B),
    ("7,000,000,000", 7 * B), ("7_000_000_000", 7 * B), (" 13 B ", 13 * B), (".5k", 500), ("1", 1),
    ("1e15", 10**15), ("2.5e2M", 250_000_000),
])
def test_parameter_counts_as_people_write_them(text: str, count: int) -> None:
    assert parse_param_count(text) == count


@pytest.mark.parametrize("text", [
    "", "abc", "-7B", "+7B", "0", "0.4", "1e400", "1e16", "2000T", "inf", "nan", "7BB", "7 billion", "0x10",
    "1e99999", "7" * 41, "seven", "7B; DROP TABLE",
])
def test_parameter_counts_refused_with_a_sentence(text: str) -> None:
    with pytest.raises(InputError, match=r"parameters.*\.$"):
        parse_param_count(text)


@pytest.mark.parametrize("text", ["0", "-1", "1.5", "abc", "", "1000001", "99999999999", "1e3", "８"])
def test_device_counts_refused(text: str) -> None:
    with pytest.raises(InputError, match="accelerators"):
        parse_devices(text)


@pytest.mark.parametrize("text", ["4", "-1", "x", "", "1.0"])
def test_zero_stages_refused(text: str) -> None:
    with pytest.raises(InputError, match="ZeRO stage"):
        parse_zero_stage(text)


def test_known_weight_sizes() -> None:
    seven_b = 7 * B
    assert weights_bytes(FORMATS["bfloat16"], seven_b) == 14 * GB
    assert weights_bytes(FORMATS["float16"], seven_b) == 14 * GB
    assert weights_bytes(FORMATS["float32"], seven_b) == 28 * GB
    assert weights_bytes(FORMATS["float64"], seven_b) == 56 * GB
    assert weights_bytes(FORMATS["float8_e4m3fn"], seven_b) == 7 * GB
    assert weights_bytes(FORMATS["int4"], seven_b) == Fraction(7, 2) * GB
    assert weights_bytes(FORMATS["mxfp4"], 32) == 17  # 32 four-bit elements and one 8-bit scale


@pytest.mark.parametrize(("format_id", "bits"), [
    ("float32", 32), ("tfloat32", 32), ("bfloat16", 16), ("float6_e2m3fn", 6), ("float4_e2m1fn", 4), ("int4", 4),
    ("mxfp8_e4m3", Fraction(33, 4)), ("mxfp6_e3m2", Fraction(25, 4)), ("mxfp4", Fraction(17, 4)),
    ("mxint8", Fraction(33, 4)), ("nvfp4", Fraction(9, 2)),
    ("nf4", Fraction(9, 2)),  # 4-bit codes plus one FP32 absmax per block of 64
])
def test_bits_per_value_include_scales(format_id: str, bits: Fraction) -> None:
    assert stored_bits_per_value(FORMATS[format_id]) == bits


def test_every_format_but_the_scale_format_can_hold_weights() -> None:
    assert {f.id for f in WEIGHT_FORMATS} == set(FORMATS) - {"float8_e8m0fnu"}
    for spec in WEIGHT_FORMATS:
        if spec.id != "nf4":
            assert stored_bits_per_value(spec) == spec.bits_per_value


def test_adam_mixed_precision_is_16_bytes_per_parameter() -> None:
    parts = zero_per_device(RECIPES["bf16"], "adam", 7 * B, 1, 0)
    assert parts == {"weights": 14 * GB, "weight_copies": 0, "master_weights": 28 * GB, "gradients": 14 * GB,
                     "optimizer_states": 56 * GB, "total": 112 * GB}
    for recipe_id in ("fp32", "fp16_dynamic_scaling", "bf16"):
        assert zero_per_device(RECIPES[recipe_id], "adam", 1, 1, 0)["total"] == 16
    assert zero_per_device(RECIPES["bf16_no_master"], "adam", 1, 1, 0)["total"] == 12
    fp8 = zero_per_device(RECIPES["fp8_hybrid_delayed"], "adam", 1, 4, 3)  # the FP8 copies shard with the weights
    assert fp8["weight_copies"] == Fraction(1, 4) and fp8["weights"] == Fraction(2, 4)
    assert zero_per_device(RECIPES["fp32"], "sgd", 1, 1, 0)["total"] == 12


@pytest.mark.parametrize("recipe_id", list(RECIPES))
@pytest.mark.parametrize("optimizer", list(OPTIMIZERS))
def test_unsharded_state_agrees_with_the_training_demo(recipe_id: str, optimizer: str) -> None:
    recipe, n = RECIPES[recipe_id], 7 * B
    demo = memory_for_model(recipe, optimizer, n)
    ours = zero_per_device(recipe, optimizer, n, 1, 0)
    assert {part: float(v / GB) for part, v in ours.items()} == pytest.approx(demo)


@pytest.mark.parametrize("recipe_id", list(RECIPES))
def test_zero_3_divides_everything_by_n(recipe_id: str) -> None:
    recipe = RECIPES[recipe_id]
    whole = zero_per_device(recipe, "adam", 7 * B, 1, 0)
    sharded = zero_per_device(recipe, "adam", 7 * B, 8, 3)
    assert sharded == {part: v / 8 for part, v in whole.items()}


def test_zero_paper_figure_1() -> None:
    """Rajbhandari et al., 2020, Figure 1: 7.5B parameters, mixed-precision Adam, 64 devices."""
    totals = [zero_per_device(RECIPES["bf16"], "adam", 7_500_000_000, 64, s)["total"] / GB for s in ZERO_STAGES]
    assert totals == [120, Fraction(3140625, 100000), Fraction(16640625, 1000000), Fraction(1875, 1000)]


def test_one_device_shards_nothing() -> None:
    totals = {zero_per_device(RECIPES["bf16"], "adam", 7 * B, 1, s)["total"] for s in ZERO_STAGES}
    assert totals == {112 * GB}


@pytest.mark.parametrize("stage", ZERO_STAGES)
@pytest.mark.parametrize("n_params", [350_000_000, 7 * B, 70 * B, 405 * B])
def test_min_devices_is_the_fewest_that_fit(stage: int, n_params: int) -> None:
    recipe, capacity = RECIPES["bf16"], 80 * GB
    fewest = min_devices(recipe, "adam", n_params, stage, capacity)
    if fewest is None:
        assert zero_per_device(recipe, "adam", n_params, 10**6, stage)["total"] > capacity
        return
    assert zero_per_device(recipe, "adam", n_params, fewest, stage)["total"] <= capacity
    if fewest > 1:
        assert zero_per_device(recipe, "adam", n_params, fewest - 1, stage)["total"] > capacity


def test_70b_on_80_gb_devices() -> None:
    recipe = RECIPES["bf16"]
    assert min_devices(recipe, "adam", 70 * B, 3, 80 * GB) == 14  # 1120 GB / 80 GB
    assert min_devices(recipe, "adam", 70 * B, 0, 80 * GB) is None


def test_report_checks_real_accelerators() -> None:
    report = memory_report(70 * B, FORMATS["bfloat16"], RECIPES["bf16"], "adam", 8, 3)
    fits = {fit.accelerator.name: fit for fit in report.accelerators}
    assert len(fits) == len(ACCELERATORS)
    assert fits["NVIDIA H200"].weights_devices == 1  # 140 GB in 141 GB
    assert fits["NVIDIA H100 SXM"].weights_devices == 2
    assert not fits["NVIDIA H100 SXM"].training_fits  # 1120 / 8 = 140 GB per device
    assert fits["AMD Instinct MI300X"].training_fits
    assert report.per_device["total"] == 140 * GB
    assert report.weights == 140 * GB
