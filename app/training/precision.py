"""One recipe's arithmetic: where each value of a training step is rounded, and to which format.

Hardware practice, as torch.autocast and Transformer Engine do it: a matrix product rounds its inputs to the
compute format (FP8: scaled per tensor first), accumulates in FP32 (numpy's float32 matmul), and rounds its
output; softmax, losses and reductions run in FP32 on those values. Every rounding goes through the formats
core's vectorised path. Rounding is skipped only where a value is already in the target format, since
rounding it again would give the same bits.

Underflow is counted where it happens: each time a gradient is rounded (the output gradient, every
activation gradient, the gradient operands of FP8 and TF32 products, the weight and bias gradients), the
elements that were non-zero before that rounding and are zero after it. A gradient that a flushed one
would have fed is then zero before its own rounding and is not counted twice. On request the values about
to be rounded to the output format are also kept, for the histogram of gradient exponents.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import NamedTuple

import numpy as np

from app.formats import get_format
from app.formats.vector import round_to_format
from app.training.fp8 import DelayedScaling
from app.training.recipes import Recipe

__all__ = ["ACTIVATION", "Arithmetic", "GRADIENT", "Operand", "WEIGHT"]

# roles of a matrix product's operands
ACTIVATION = "activation"
WEIGHT = "weight"
GRADIENT = "gradient"

Rounder = Callable[[np.ndarray], np.ndarray]


class Operand(NamedTuple):
    """A matrix-product input: the tensor is values * scale_inv (scale_inv is 1 except under FP8 scaling)."""

    values: np.ndarray
    scale_inv: np.float32

    @property
    def T(self) -> Operand:  # noqa: N802 - numpy's name for it
        return Operand(self.values.T, self.scale_inv)


_ONE = np.float32(1.0)


def _identity(x: np.ndarray) -> np.ndarray:
    return x


def _rounder(format_id: str) -> Rounder:
    """Rounding to a format; FP32 values are already FP32, so for it nothing is done."""
    if format_id == "float32":
        return _identity
    return partial(round_to_format, spec=get_format(format_id))


class Arithmetic:
    """The rounding points of one recipe; FP8 recipes carry their per-tensor delayed scaling state."""

    def __init__(self, recipe: Recipe) -> None:
        self.recipe = recipe
        self.to_output = _rounder(recipe.output)
        self.to_weights = _rounder(recipe.weights)
        self.recording = True  # FP8: casts write their amax into the histories (off while evaluating)
        self.gradients_nonzero = 0  # gradient elements non-zero before a rounding, since reset_counts()
        self.gradients_flushed = 0  # ... and zero after it
        self.gradients_seen: list[np.ndarray] | None = None  # when a list, round_gradient appends its inputs
        self.delayed_scaling = DelayedScaling() if recipe.delayed_scaling else None
        self._specs = {ACTIVATION: get_format(recipe.compute), WEIGHT: get_format(recipe.compute),
                       GRADIENT: get_format(recipe.gradient)}
        # Matrix-product operands arrive already in the output format (activations, gradients) or in
        # the working-weight format; only where the operand's format differs is there a rounding left.
        self._operand_rounders: dict[str, Rounder] = {
            ACTIVATION: _rounder(recipe.compute) if recipe.compute != recipe.output else _identity,
            WEIGHT: _identity,
            GRADIENT: _rounder(recipe.gradient) if recipe.gradient != recipe.output else _identity,
        }
        stored = "float32" if recipe.master_weights else recipe.weights
        matrices = recipe.output if recipe.delayed_scaling else recipe.compute
        self._round_matrices = _rounder(matrices) if matrices != stored else None
        self._round_biases = _rounder(recipe.output) if recipe.output != stored else None
        self._same_working_format = matrices == recipe.output

    def working_weights(self, params: np.ndarray, n_weights: int) -> np.ndarray:
        """The flat parameters the matrix products read: weight matrices first, then biases.

        Weight matrices go to the compute format (FP8: to the output format, to be scaled per tensor at
        each product); biases join the products' FP32 accumulators in the output format.
        """
        if self._round_matrices is None and self._round_biases is None:
            return params
        if self._same_working_format:
            return self.to_output(params)
        working = params.copy()
        if self._round_matrices is not None:
            working[:n_weights] = self._round_matrices(params[:n_weights])
        if self._round_biases is not None:
            working[n_weights:] = self._round_biases(params[n_weights:])
        return working

    def input(self, x: np.ndarray) -> np.ndarray:
        """The model input as the first layer receives it (autocast: cast to the output format)."""
        return self.to_output(x)

    def operand(self, x: np.ndarray, role: str, layer: int) -> Operand:
        """x as an input of a matrix product: rounded (FP8: scaled and cast) to its role's format."""
        if self.delayed_scaling is not None:
            values, scale_inv = self.delayed_scaling.quantize(
                x, (role, layer), self._specs[role], record=self.recording)
        else:
            values, scale_inv = self._operand_rounders[role](x), _ONE
        if role == GRADIENT and values is not x:
            self._count(x, values)
        return Operand(values, scale_inv)

    def round_gradient(self, x: np.ndarray) -> np.ndarray:
        """A gradient rounded to the output format, its flushed elements counted."""
        if self.gradients_seen is not None:
            self.gradients_seen.append(x.ravel())
        rounded = self.to_output(x)
        if rounded is not x:
            self._count(x, rounded)
        return rounded

    def reset_counts(self, *, keep_gradients: bool = False) -> None:
        """Start counting afresh; with keep_gradients, collect the gradients in `gradients_seen`."""
        self.gradients_nonzero = self.gradients_flushed = 0
        self.gradients_seen = [] if keep_gradients else None

    @property
    def underflow_fraction(self) -> float:
        """Share of the gradient elements rounded since reset_counts() that a rounding turned into zero."""
        return self.gradients_flushed / self.gradients_nonzero if self.gradients_nonzero else 0.0

    def _count(self, before: np.ndarray, after: np.ndarray) -> None:
        # rounding turns no zero into a non-zero, so the difference of the counts is the flushed elements
        nonzero = int(np.count_nonzero(before))
        self.gradients_nonzero += nonzero
        self.gradients_flushed += nonzero - int(np.count_nonzero(after))

    def matmul(self, a: Operand, b: Operand, *, bias: np.ndarray | None = None,
               out: np.ndarray | None = None, round_output: bool = True) -> np.ndarray:
        """a @ b accumulated in FP32, descaled and biased in FP32, then rounded to the output format.

        round_output=False leaves the FP32 result for the caller to round, as a gradient or together with
        other products (the same values, since rounding is element-wise).
        """
        result = np.matmul(a.values, b.values, out=out)
        scale_inv = a.scale_inv * b.scale_inv
        if scale_inv != 1:
            result *= scale_inv
        if bias is not None:
            result += bias
        return self.to_output(result) if round_output else result

    def update_scales(self) -> None:
        """FP8: after each step, the next scales from the amax histories."""
        if self.delayed_scaling is not None:
            self.delayed_scaling.update()
