"""Optimizers with FP32 states on a flat FP32 parameter vector: SGD with momentum and Adam, as torch.optim.

Each returns the step Δ to add to the weights; the caller decides where the sum is stored (an FP32 master
copy, or 16-bit weights that round it).
"""

from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np

from app.messages import N_

__all__ = ["OPTIMIZERS", "Adam", "Optimizer", "OptimizerId", "SGD", "make_optimizer"]

OptimizerId = Literal["adam", "sgd"]


class SGD:
    """torch.optim.SGD with momentum: buf = momentum * buf + g, Δ = -lr * buf."""

    name: ClassVar[str] = N_("SGD with momentum")
    state_bytes_per_param: ClassVar[int] = 4  # one FP32 momentum buffer

    def __init__(self, n_params: int, learning_rate: float, momentum: float = 0.9) -> None:
        self.learning_rate = np.float32(learning_rate)
        self.momentum = np.float32(momentum)
        self._buffer = np.zeros(n_params, dtype=np.float32)

    def delta(self, grads: np.ndarray) -> np.ndarray:
        self._buffer *= self.momentum
        self._buffer += grads
        return self._buffer * -self.learning_rate


class Adam:
    """torch.optim.Adam (no weight decay): bias-corrected first and second moments in FP32."""

    name: ClassVar[str] = "Adam"
    state_bytes_per_param: ClassVar[int] = 8  # FP32 first and second moments

    def __init__(self, n_params: int, learning_rate: float, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8) -> None:
        self.learning_rate = learning_rate
        self.beta1, self.beta2 = np.float32(betas[0]), np.float32(betas[1])
        self.eps = np.float32(eps)
        self.steps = 0
        self._m = np.zeros(n_params, dtype=np.float32)
        self._v = np.zeros(n_params, dtype=np.float32)

    def delta(self, grads: np.ndarray) -> np.ndarray:
        self.steps += 1
        self._m *= self.beta1
        self._m += (1 - self.beta1) * grads
        self._v *= self.beta2
        self._v += (1 - self.beta2) * grads * grads
        correction1 = 1 - float(self.beta1) ** self.steps
        correction2 = 1 - float(self.beta2) ** self.steps
        denominator = np.sqrt(self._v) / np.float32(np.sqrt(correction2)) + self.eps
        return self._m / denominator * np.float32(-self.learning_rate / correction1)


Optimizer = SGD | Adam

OPTIMIZERS: dict[OptimizerId, type[SGD] | type[Adam]] = {"adam": Adam, "sgd": SGD}


def make_optimizer(optimizer_id: OptimizerId, n_params: int, learning_rate: float) -> Optimizer:
    return OPTIMIZERS[optimizer_id](n_params, learning_rate)
