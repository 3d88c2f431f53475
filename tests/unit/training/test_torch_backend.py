"""The numpy core against torch: FP32 loss curves, GradScaler's scale sequence, BF16 matrix products.

CI installs the [torch] extra (`make test`); a checkout without it skips this module.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from app.training import RECIPES, TrainConfig, run  # noqa: E402
from app.training.config import ConfigError  # noqa: E402
from app.training.precision import Arithmetic, Operand  # noqa: E402
from app.training.scaler import DynamicLossScaler  # noqa: E402
from app.training.torch_backend import TORCH_RECIPES, run_torch  # noqa: E402

# measured on 100 steps: at most 2e-7 (ReLU, cross-entropy) and 3.2e-6 (tanh, mean squared error)
LOSS_CURVE_RTOL = 1e-4


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """Tiny models: torch's thread pool only spins against itself (and the curves do not depend on it)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.mark.slow  # trains 100 steps in numpy and in torch
@pytest.mark.parametrize("settings", [
    {"optimizer": "adam"},
    {"optimizer": "sgd", "learning_rate": 0.05},
    {"dataset": "wave", "activation": "tanh"},
    {"dataset": "blobs", "width": 64, "depth": 3},
], ids=["adam-spiral", "sgd-spiral", "tanh-regression", "deeper-blobs"])
def test_fp32_loss_curves_of_numpy_and_torch_agree(settings):
    config = TrainConfig(recipes=("fp32",), steps=100, **settings)
    numpy_loss = np.array(run(config)["recipes"]["fp32"]["loss"])
    torch_loss = np.array(run_torch(config)["recipes"]["fp32"]["loss"])
    np.testing.assert_allclose(torch_loss, numpy_loss, rtol=LOSS_CURVE_RTOL)


def _scripted_gradients():
    """Gradients of the loss before scaling: finite, or with an inf or a NaN, at chosen steps."""
    finite = [1.0, -2.0, 0.0]
    script = ["finite"] * 4 + ["inf", "finite", "nan", "inf"] + ["finite"] * 7 + ["-inf"] + ["finite"] * 3
    return [np.array({"finite": finite, "inf": [1.0, np.inf, 0.0], "-inf": [-np.inf, 1.0, 0.0],
                      "nan": [np.nan, 1.0, 0.0]}[kind], dtype=np.float32) for kind in script]


def test_numpy_scaler_reproduces_gradscalers_scales_and_skipped_steps():
    gradients = _scripted_gradients()
    numpy_scaler = DynamicLossScaler(growth_interval=3)
    numpy_scales, numpy_skipped = [], []
    for step, grads in enumerate(gradients, 1):
        _, found_inf = numpy_scaler.unscale(grads * numpy_scaler.scale)
        if found_inf and numpy_scaler.skips_non_finite:
            numpy_skipped.append(step)
        numpy_scaler.update(found_inf)
        numpy_scales.append(float(numpy_scaler.scale))

    weight = torch.nn.Parameter(torch.zeros(3))
    optimizer = torch.optim.SGD([weight], lr=1.0)
    grad_scaler = torch.amp.GradScaler("cpu", growth_interval=3)
    torch_scales, torch_skipped = [], []
    for step, grads in enumerate(gradients, 1):
        before = weight.detach().clone()
        optimizer.zero_grad()
        loss = torch.dot(weight, torch.from_numpy(grads))  # its gradient is `grads`
        grad_scaler.scale(loss).backward()
        grad_scaler.step(optimizer)
        grad_scaler.update()
        if torch.equal(weight.detach(), before):
            torch_skipped.append(step)
        torch_scales.append(grad_scaler.get_scale())

    assert numpy_scales == torch_scales
    assert numpy_skipped == torch_skipped == [5, 7, 8, 16]
    assert max(torch_scales) > 2.0**16 > min(torch_scales)  # the script both grows and backs off the scale


def _bf16_order(values):
    """BF16 values as integers in the order of the numbers, so that a difference counts ulps."""
    bits = torch.from_numpy(np.ascontiguousarray(values, dtype=np.float32)).bfloat16().view(torch.int16)
    bits = bits.numpy().astype(np.int32)
    return np.where(bits < 0, -(bits & 0x7FFF), bits)


@pytest.mark.parametrize("shape", [(1, 1, 1), (8, 16, 4), (64, 64, 64), (33, 257, 17), (128, 1024, 96)])
def test_emulated_bf16_matmul_is_within_one_ulp_of_torch(shape):
    m, k, n = shape
    rng = np.random.default_rng(k)
    a, b = rng.standard_normal((m, k), dtype=np.float32), rng.standard_normal((k, n), dtype=np.float32)
    arith = Arithmetic(RECIPES["bf16"])
    a16, b16 = arith.to_output(a), arith.to_output(b)
    torch_a, torch_b = torch.from_numpy(a).bfloat16(), torch.from_numpy(b).bfloat16()
    np.testing.assert_array_equal(a16, torch_a.float().numpy())  # both round to nearest even
    np.testing.assert_array_equal(b16, torch_b.float().numpy())

    one = np.float32(1.0)
    emulated = arith.matmul(Operand(a16, one), Operand(b16, one))
    product = torch.matmul(torch_a, torch_b).float().numpy()
    ulps = np.abs(_bf16_order(emulated) - _bf16_order(product))
    assert ulps.max() <= 1


@pytest.mark.slow  # trains two scenarios on ten seeds in torch
def test_scenario_lessons_come_out_of_torch_arithmetic_too():
    """The lessons the numpy core's scenario tests check, with their bars, at every seed 0-9 in torch."""
    for seed in range(10):
        tiny = run_torch(TrainConfig(scenario="tiny_gradients", seed=seed, recipes=(
            "fp32", "fp16_no_scaling", "fp16_dynamic_scaling")))["recipes"]
        stall = tiny["fp16_no_scaling"]["final_loss"] - tiny["fp32"]["final_loss"]
        assert stall > 0.5, seed
        assert abs(tiny["fp16_dynamic_scaling"]["final_loss"] - tiny["fp32"]["final_loss"]) < 0.1 * stall, seed

        large = run_torch(TrainConfig(scenario="large_activations", seed=seed, recipes=(
            "fp16_no_scaling", "fp16_dynamic_scaling", "bf16")))["recipes"]
        dynamic = large["fp16_dynamic_scaling"]
        assert dynamic["skipped_steps"][:4] == [1, 2, 3, 4] and min(dynamic["loss_scale"]) <= 2.0**11, seed
        for recipe_id in ("fp16_no_scaling", "bf16"):  # only the scaled gradients overflow
            assert not large[recipe_id]["skipped_steps"] and not any(large[recipe_id]["nonfinite_count"]), seed


def test_result_has_the_runners_shape_and_every_torch_recipe_trains():
    config = TrainConfig(recipes=TORCH_RECIPES, steps=5)
    result = run_torch(config)
    assert result["backend"] == "torch" and result["config"] == config.resolved().to_dict()
    assert set(result["recipes"]) == set(TORCH_RECIPES)
    for recipe in result["recipes"].values():
        assert len(recipe["loss"]) == len(recipe["loss_scale"]) == 5
        assert recipe["final_loss"] is not None and 0 <= recipe["test_accuracy"] <= 1
    assert result["recipes"]["tf32"]["matmul_format"] == "float32"  # CPU has no TF32 path


@pytest.mark.parametrize("recipe_id", [r for r in RECIPES if r not in TORCH_RECIPES])
def test_a_recipe_without_a_torch_form_is_refused_before_any_training(recipe_id):
    with pytest.raises(ConfigError, match=f"no form of '{recipe_id}'.*Transformer Engine"):
        run_torch(TrainConfig(recipes=("fp32", recipe_id)))
