"""A small MLP with its forward and backward passes written out in numpy.

Parameters live in one flat FP32 vector, weight matrices first and biases after, so that rounding all
weights, an optimizer update or a gradient statistic is one vectorised operation. Every matrix product goes
through `Arithmetic.matmul`, so one recipe decides where each value is rounded.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal, NamedTuple

import numpy as np

from app.training.precision import ACTIVATION, GRADIENT, WEIGHT, Arithmetic, Operand

__all__ = ["ACTIVATIONS", "MLP", "Activation", "ActivationId", "Tape", "backward", "forward"]

ActivationId = Literal["relu", "tanh"]


@dataclass(frozen=True)
class Activation:
    id: ActivationId
    name: str  # as a page shows it


ACTIVATIONS: dict[ActivationId, Activation] = {
    a.id: a for a in (Activation("relu", "ReLU"), Activation("tanh", "tanh"))
}

_INIT_STREAM = 3  # spawn key of the weight initialisation under the run's seed


class _Layer(NamedTuple):
    activation: Operand  # the layer's input as its matrix product read it
    weight: Operand
    input: np.ndarray  # the layer's input before that rounding (output format)


Tape = list[_Layer]


@dataclass(frozen=True)
class MLP:
    """Fully connected layers: n_inputs -> width (depth times) -> n_outputs."""

    n_inputs: int
    width: int
    depth: int
    n_outputs: int
    activation: ActivationId = "relu"

    @cached_property
    def layer_shapes(self) -> tuple[tuple[int, int], ...]:
        sizes = [self.n_inputs, *[self.width] * self.depth, self.n_outputs]
        return tuple(zip(sizes[:-1], sizes[1:], strict=True))

    @cached_property
    def n_weights(self) -> int:
        """Entries of the weight matrices: they come first in the flat vector."""
        return sum(fan_in * fan_out for fan_in, fan_out in self.layer_shapes)

    @cached_property
    def n_params(self) -> int:
        return self.n_weights + sum(fan_out for _, fan_out in self.layer_shapes)

    def views(self, flat: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """The weight matrices and bias vectors of each layer, as views into the flat vector."""
        weights, biases = [], []
        w_at, b_at = 0, self.n_weights
        for fan_in, fan_out in self.layer_shapes:
            weights.append(flat[w_at:w_at + fan_in * fan_out].reshape(fan_in, fan_out))
            biases.append(flat[b_at:b_at + fan_out])
            w_at += fan_in * fan_out
            b_at += fan_out
        return weights, biases

    def init_params(self, seed: int) -> np.ndarray:
        """He-normal weights for ReLU layers, Glorot-normal for tanh and the output layer; zero biases."""
        rng = np.random.default_rng([seed, _INIT_STREAM])
        flat = np.zeros(self.n_params, dtype=np.float32)
        weights, _ = self.views(flat)
        last = len(weights) - 1
        for i, (fan_in, fan_out) in enumerate(self.layer_shapes):
            he = self.activation == "relu" and i < last
            std = np.sqrt(2.0 / fan_in) if he else np.sqrt(2.0 / (fan_in + fan_out))
            weights[i][...] = rng.normal(0.0, std, (fan_in, fan_out))
        return flat


def forward(mlp: MLP, arith: Arithmetic, params: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, Tape]:
    """The model's outputs (in the output format) and what the backward pass needs."""
    weights, biases = mlp.views(params)
    z = arith.input(x)
    tape: Tape = []
    for i, (w, b) in enumerate(zip(weights, biases, strict=True)):
        h = z if i == 0 else _activate(mlp, arith, z)
        a_op, w_op = arith.operand(h, ACTIVATION, i), arith.operand(w, WEIGHT, i)
        tape.append(_Layer(a_op, w_op, h))
        z = arith.matmul(a_op, w_op, bias=b)
    return z, tape


def backward(mlp: MLP, arith: Arithmetic, tape: Tape, d_out: np.ndarray, grads: np.ndarray) -> np.ndarray:
    """The parameter gradients, flat and rounded to the output format, from the FP32 gradient of the outputs.

    `grads` is the buffer for the FP32 accumulators before their rounding.
    """
    d_weights, d_biases = mlp.views(grads)
    dz = arith.round_gradient(d_out)
    for i in reversed(range(len(tape))):
        layer = tape[i]
        g_op = arith.operand(dz, GRADIENT, i)
        arith.matmul(layer.activation.T, g_op, out=d_weights[i], round_output=False)
        np.sum(dz, axis=0, out=d_biases[i])
        if i:
            dh = arith.round_gradient(arith.matmul(g_op, layer.weight.T, round_output=False))
            dz = _activation_backward(mlp, arith, dh, layer.input)
    return arith.round_gradient(grads)


def _activate(mlp: MLP, arith: Arithmetic, z: np.ndarray) -> np.ndarray:
    """ReLU is exact in any format; tanh runs in FP32 and its output is rounded."""
    return np.maximum(z, 0) if mlp.activation == "relu" else arith.to_output(np.tanh(z))


def _activation_backward(mlp: MLP, arith: Arithmetic, dh: np.ndarray, h: np.ndarray) -> np.ndarray:
    """dh through the activation whose output was h; ReLU's mask is exact, tanh's product is rounded."""
    if mlp.activation == "relu":
        return dh * (h > 0)
    return arith.round_gradient(dh * (1 - h * h))
