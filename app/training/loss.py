"""Losses in FP32, as autocast runs them: softmax cross-entropy and mean squared error.

Each returns the loss, the accuracy (None for regression) and the FP32 gradient of the model's outputs for a
loss multiplied by `grad_scale` (the scenario's loss weight times the loss scale), before any rounding.
"""

from __future__ import annotations

import numpy as np

__all__ = ["cross_entropy", "loss_and_gradient", "mean_squared_error"]


def cross_entropy(logits: np.ndarray, labels: np.ndarray, grad_scale: np.float32
                  ) -> tuple[float, float, np.ndarray]:
    rows = np.arange(len(labels))
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    total = exp.sum(axis=1, keepdims=True)
    loss = float(np.mean(np.log(total[:, 0]) - shifted[rows, labels]))
    accuracy = float(np.mean(logits.argmax(axis=1) == labels))
    d_logits = exp / total
    d_logits[rows, labels] -= 1
    d_logits *= grad_scale / np.float32(len(labels))
    return loss, accuracy, d_logits


def mean_squared_error(outputs: np.ndarray, targets: np.ndarray, grad_scale: np.float32
                       ) -> tuple[float, None, np.ndarray]:
    error = outputs - targets
    loss = float(np.mean(error * error))
    return loss, None, error * (np.float32(2) * grad_scale / np.float32(error.size))


def loss_and_gradient(task: str, outputs: np.ndarray, targets: np.ndarray, grad_scale: np.float32
                      ) -> tuple[float, float | None, np.ndarray]:
    if task == "regression":
        return mean_squared_error(outputs, targets, grad_scale)
    return cross_entropy(outputs, targets, grad_scale)
