"""One recipe's training state and its step: forward, loss, backward, loss scaling, optimizer update."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.formats import get_format
from app.training import gradient_stats
from app.training.loss import loss_and_gradient
from app.training.model import MLP, backward, forward
from app.training.optim import OptimizerId, make_optimizer
from app.training.precision import Arithmetic
from app.training.recipes import Recipe
from app.training.scaler import make_scaler

__all__ = ["RecipeTrainer", "StepStats"]


@dataclass(frozen=True)
class StepStats:
    loss: float  # the unweighted loss of this minibatch, as the recipe computed it
    accuracy: float | None
    underflow_fraction: float
    nonfinite_count: int
    loss_scale: float  # the scale this step used
    skipped: bool
    update_ratio: float
    histogram: dict[str, object] | None  # exponents of this step's (loss-scaled) gradients before rounding


class RecipeTrainer:
    """Trains one copy of the model under one recipe; the runner drives several side by side."""

    def __init__(self, recipe: Recipe, mlp: MLP, initial_params: np.ndarray, *, task: str, optimizer: OptimizerId,
                 learning_rate: float, loss_weight: float, static_loss_scale: float, growth_interval: int
                 ) -> None:
        self.recipe = recipe
        self.mlp = mlp
        self.task = task
        self.arith = Arithmetic(recipe)
        # master recipes keep FP32 weights; the others store them, from the start, in their own format
        self.params = (initial_params.copy() if recipe.master_weights
                       else self.arith.to_weights(initial_params))
        self.optimizer = make_optimizer(optimizer, mlp.n_params, learning_rate)
        self.scaler = make_scaler(recipe.loss_scaling, static_scale=static_loss_scale,
                                  growth_interval=growth_interval)
        self.loss_weight = np.float32(loss_weight)
        self.gradient_format = get_format(recipe.output)
        self._accumulators = np.empty(mlp.n_params, dtype=np.float32)  # gradients before their rounding

    def step(self, x: np.ndarray, y: np.ndarray, *, with_histogram: bool = False) -> StepStats:
        with np.errstate(all="ignore"):  # inf and NaN are results to report, not errors
            return self._step(x, y, with_histogram)

    def _step(self, x: np.ndarray, y: np.ndarray, with_histogram: bool) -> StepStats:
        arith, mlp = self.arith, self.mlp
        scale = self.scaler.scale
        working = arith.working_weights(self.params, mlp.n_weights)
        outputs, tape = forward(mlp, arith, working, x)
        loss, accuracy, d_out = loss_and_gradient(self.task, outputs, y, self.loss_weight * scale)
        arith.reset_counts(keep_gradients=with_histogram)
        grads = backward(mlp, arith, tape, d_out, self._accumulators)
        histogram = None
        if arith.gradients_seen is not None:
            histogram = gradient_stats.exponent_histogram(np.concatenate(arith.gradients_seen))

        unscaled, found_inf = self.scaler.unscale(grads)
        skipped = found_inf and self.scaler.skips_non_finite
        ratio = 0.0
        if not skipped:
            old = self.params
            if self.recipe.master_weights:
                self.params = old + self.optimizer.delta(unscaled)
            else:
                self.params = arith.to_weights(old + self.optimizer.delta(unscaled))
            ratio = gradient_stats.update_ratio(old, self.params)
        self.scaler.update(found_inf)
        arith.update_scales()
        return StepStats(
            loss=loss, accuracy=accuracy, underflow_fraction=arith.underflow_fraction,
            nonfinite_count=gradient_stats.nonfinite_count(grads) if found_inf else 0,
            loss_scale=float(scale), skipped=skipped, update_ratio=ratio, histogram=histogram,
        )

    def predict(self, x: np.ndarray) -> np.ndarray:
        """The model's outputs for x with the current weights, in the recipe's forward arithmetic."""
        self.arith.recording = False  # an evaluation must not move the FP8 scales
        try:
            with np.errstate(all="ignore"):
                working = self.arith.working_weights(self.params, self.mlp.n_weights)
                return forward(self.mlp, self.arith, working, x)[0]
        finally:
            self.arith.recording = True

    def evaluate(self, x: np.ndarray, y: np.ndarray) -> tuple[float, float | None]:
        """Loss and accuracy of the current weights on (x, y)."""
        with np.errstate(all="ignore"):
            loss, accuracy, _ = loss_and_gradient(self.task, self.predict(x), y, np.float32(0))
        return loss, accuracy
