"""A second training backend: the lab's model, data and recipes through torch.autocast and torch.amp.GradScaler.

The same MLP (built from the numpy core's initial weights, transposed for nn.Linear), the same minibatches in
the same order and the same optimizer settings as `app.training.runner`, so the two backends can be checked
against each other. Each recipe maps onto what torch offers:

- matrix products in FP16 or BF16: `torch.autocast` (on CPU too), FP32 weights as the master copy;
- TF32: FP32 with cuBLAS allowed to use TF32 tensor cores (CUDA only; on CPU no TF32 path exists, so the
  recipe runs plain FP32 there and `matmul_format` says so);
- loss scaling: `torch.amp.GradScaler`; static scaling is a GradScaler whose scale is set back after every step,
  so it skips steps with inf/NaN gradients as the numpy core's static scaler does;
- 16-bit weights without a master copy: the FP32 parameters are rounded to 16 bits after every update, so the
  optimizer states stay FP32 as in the numpy core (torch.optim on 16-bit tensors would keep 16-bit states);
- FP8 with delayed scaling has no torch.autocast form (it needs Transformer Engine) and is refused.

torch is an optional extra (`[torch]`); nothing else in app.training imports this module.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

import numpy as np

try:
    import torch
except ModuleNotFoundError as error:  # pragma: no cover - depends on the installed extras
    raise ModuleNotFoundError("The torch backend needs the [torch] extra: pip install -e '.[torch]'.") from error

from app.training.config import ConfigError, TrainConfig
from app.training.data import batch_indices, make_dataset
from app.training.model import MLP
from app.training.optim import OptimizerId
from app.training.recipes import RECIPES, Recipe

__all__ = ["TORCH_RECIPES", "TorchRecipeTrainer", "TorchStepStats", "build_module", "matmul_format", "run_torch"]

TORCH_RECIPES = tuple(recipe_id for recipe_id, recipe in RECIPES.items() if not recipe.delayed_scaling)

_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16}


def matmul_format(recipe: Recipe, device_type: str) -> str:
    """The format the recipe's matrix products read their inputs in on this kind of device."""
    if recipe.compute == "tfloat32" and device_type != "cuda":
        return "float32"
    return recipe.compute


def build_module(mlp: MLP, params: np.ndarray | None = None, device: str | torch.device = "cpu"
                 ) -> torch.nn.Sequential:
    """The MLP as nn.Linear layers, with the flat numpy parameters copied in (torch's own init without them)."""
    activation = torch.nn.ReLU if mlp.activation == "relu" else torch.nn.Tanh
    layers: list[torch.nn.Module] = []
    for i, (fan_in, fan_out) in enumerate(mlp.layer_shapes):
        if i:
            layers.append(activation())
        layers.append(torch.nn.Linear(fan_in, fan_out, device=device))
    module = torch.nn.Sequential(*layers)
    if params is not None:
        weights, biases = mlp.views(params)
        linears = [layer for layer in module if isinstance(layer, torch.nn.Linear)]
        with torch.no_grad():
            for linear, w, b in zip(linears, weights, biases, strict=True):
                linear.weight.copy_(torch.from_numpy(w.T.copy()))  # numpy keeps (fan_in, fan_out)
                linear.bias.copy_(torch.from_numpy(b))
    return module


class TorchStepStats(NamedTuple):
    loss: float  # the unweighted loss of this minibatch
    accuracy: float | None
    nonfinite_count: int  # inf/NaN elements among the (scaled) gradients
    loss_scale: float  # the scale this step used
    skipped: bool


class TorchRecipeTrainer:
    """One recipe's model, optimizer and scaler in torch; the counterpart of trainer.RecipeTrainer."""

    def __init__(self, recipe: Recipe, module: torch.nn.Module, *, task: str, optimizer: OptimizerId,
                 learning_rate: float, loss_weight: float, static_loss_scale: float, growth_interval: int,
                 device: str | torch.device = "cpu") -> None:
        if recipe.delayed_scaling:
            raise ConfigError(f"The torch backend has no form of {recipe.id!r} (FP8 needs Transformer Engine); "
                              f"choose from: {', '.join(TORCH_RECIPES)}.")
        self.recipe = recipe
        self.module = module
        self.task = task
        self.device_type = torch.device(device).type
        self.loss_weight = loss_weight
        self._autocast_dtype = _DTYPES.get(recipe.compute)
        self._stored_dtype = None if recipe.master_weights else _DTYPES.get(recipe.weights)
        self._round_weights()
        params = list(module.parameters())
        self.optimizer: torch.optim.Optimizer = (
            torch.optim.SGD(params, lr=learning_rate, momentum=0.9) if optimizer == "sgd"
            else torch.optim.Adam(params, lr=learning_rate))
        self.scaler = None
        self._static_scale = None  # set back after every step: static scaling
        if recipe.loss_scaling == "dynamic":
            self.scaler = torch.amp.GradScaler(self.device_type, growth_interval=growth_interval)
        elif recipe.loss_scaling == "static":
            self.scaler = torch.amp.GradScaler(self.device_type, init_scale=static_loss_scale)
            self._static_scale = static_loss_scale

    def step(self, x: torch.Tensor, y: torch.Tensor) -> TorchStepStats:
        scale = self.scaler.get_scale() if self.scaler is not None else 1.0
        self.optimizer.zero_grad(set_to_none=True)
        with self._fp32_matmuls():
            loss, accuracy = _loss(self.task, self._forward(x), y)
            weighted = loss * self.loss_weight
            (weighted if self.scaler is None else self.scaler.scale(weighted)).backward()
        grads = [p.grad for p in self.module.parameters() if p.grad is not None]
        nonfinite = int(torch.stack([g.isfinite().logical_not().sum() for g in grads]).sum())
        if self.scaler is None:
            self.optimizer.step()
        else:
            self.scaler.step(self.optimizer)
            self.scaler.update(self._static_scale)
        self._round_weights()
        return TorchStepStats(loss.item(), accuracy, nonfinite, scale, self.scaler is not None and nonfinite > 0)

    def evaluate(self, x: torch.Tensor, y: torch.Tensor) -> tuple[float, float | None]:
        """Loss and accuracy of the current weights on (x, y)."""
        with torch.no_grad(), self._fp32_matmuls():
            loss, accuracy = _loss(self.task, self._forward(x), y)
        return loss.item(), accuracy

    def _forward(self, x: torch.Tensor) -> torch.Tensor:
        """The model's outputs; FP16/BF16 recipes under autocast, whose casts the backward pass follows."""
        dtype = self._autocast_dtype
        with torch.autocast(self.device_type, dtype=dtype, enabled=dtype is not None):
            return self.module(x)

    @contextmanager
    def _fp32_matmuls(self) -> Iterator[None]:
        """TF32 on CUDA: FP32 matrix products, backward ones included, on TF32 tensor cores. Else no change."""
        if matmul_format(self.recipe, self.device_type) != "tfloat32":
            yield
            return
        before = torch.backends.cuda.matmul.fp32_precision
        torch.backends.cuda.matmul.fp32_precision = "tf32"
        try:
            yield
        finally:
            torch.backends.cuda.matmul.fp32_precision = before

    def _round_weights(self) -> None:
        """Recipes without a master copy: the weights hold only what their 16-bit format can."""
        if self._stored_dtype is not None:
            with torch.no_grad():
                for p in self.module.parameters():
                    p.copy_(p.to(self._stored_dtype))


def _loss(task: str, outputs: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, float | None]:
    """The loss in FP32, as autocast runs it, and the accuracy (None for regression)."""
    outputs = outputs.float()
    if task == "regression":
        return torch.nn.functional.mse_loss(outputs, targets), None
    accuracy = float((outputs.argmax(dim=1) == targets).float().mean())
    return torch.nn.functional.cross_entropy(outputs, targets), accuracy


def run_torch(config: TrainConfig, device: str = "cpu") -> dict[str, Any]:
    """The configuration through torch: {"backend", "device", "torch_version", "config", "n_params", "recipes"}.

    Per recipe, as in runner.run where torch can say it: per-step lists "loss", "accuracy",
    "nonfinite_count", "loss_scale"; "skipped_steps" (1-based); "final_loss" and "final_accuracy" on the whole
    training set, "test_loss" and "test_accuracy"; "matmul_format" (what the products ran in on this device).
    A loss that is NaN or infinite is null.
    """
    resolved = config.resolved()
    data = make_dataset(resolved.dataset, resolved.seed, input_scale=resolved.input_scale)
    mlp = MLP(data.x_train.shape[1], resolved.width, resolved.depth, data.info.n_outputs, resolved.activation)
    initial = mlp.init_params(resolved.seed)
    x_train, y_train, x_test, y_test = (torch.from_numpy(a).to(device) for a in (
        data.x_train, data.y_train, data.x_test, data.y_test))
    trainers = {
        recipe_id: TorchRecipeTrainer(
            RECIPES[recipe_id], build_module(mlp, initial, device), task=data.info.task,
            optimizer=resolved.optimizer, learning_rate=resolved.learning_rate, loss_weight=resolved.loss_weight,
            static_loss_scale=resolved.static_loss_scale, growth_interval=resolved.growth_interval, device=device)
        for recipe_id in resolved.recipes
    }
    recipes = {}
    for recipe_id, trainer in trainers.items():
        batches = batch_indices(len(data.x_train), resolved.batch_size, resolved.seed)
        steps = []
        for _ in range(resolved.steps):
            rows = torch.from_numpy(next(batches)).to(device)
            steps.append(trainer.step(x_train[rows], y_train[rows]))
        final_loss, final_accuracy = trainer.evaluate(x_train, y_train)
        test_loss, test_accuracy = trainer.evaluate(x_test, y_test)
        recipes[recipe_id] = {
            "name": trainer.recipe.name,
            "matmul_format": matmul_format(trainer.recipe, trainer.device_type),
            "loss": [_finite_or_none(s.loss) for s in steps],
            "accuracy": [s.accuracy for s in steps],
            "nonfinite_count": [s.nonfinite_count for s in steps],
            "loss_scale": [s.loss_scale for s in steps],
            "skipped_steps": [n for n, s in enumerate(steps, 1) if s.skipped],
            "final_loss": _finite_or_none(final_loss), "final_accuracy": final_accuracy,
            "test_loss": _finite_or_none(test_loss), "test_accuracy": test_accuracy,
        }
    return {"backend": "torch", "device": str(device), "torch_version": torch.__version__,
            "config": resolved.to_dict(), "n_params": mlp.n_params, "recipes": recipes}


def _finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None
