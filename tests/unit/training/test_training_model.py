"""The MLP's written-out backward pass against finite differences, and the toy datasets."""

from __future__ import annotations

import numpy as np
import pytest

from app.training import DATASETS, MLP, RECIPES, make_dataset
from app.training.data import N_TEST, N_TRAIN, batch_indices
from app.training.loss import loss_and_gradient
from app.training.model import backward, forward
from app.training.precision import Arithmetic

FP32 = Arithmetic(RECIPES["fp32"])  # rounds nothing, so float64 arrays pass through in float64


def _loss(mlp: MLP, params: np.ndarray, x: np.ndarray, y: np.ndarray, task: str) -> float:
    outputs, _ = forward(mlp, FP32, params, x)
    return loss_and_gradient(task, outputs, y, np.float64(1))[0]


@pytest.mark.parametrize(("activation", "dataset"), [("relu", "blobs"), ("tanh", "spiral"), ("tanh", "wave")])
def test_backward_matches_finite_differences(activation, dataset):
    data = make_dataset(dataset, 3)
    mlp = MLP(2, 5, 2, data.info.n_outputs, activation)
    params = mlp.init_params(3).astype(np.float64)
    params[mlp.n_weights:] = np.linspace(-0.1, 0.1, mlp.n_params - mlp.n_weights)
    x, y = data.x_train[:16].astype(np.float64), data.y_train[:16]
    outputs, tape = forward(mlp, FP32, params, x)
    _, _, d_out = loss_and_gradient(data.info.task, outputs, y, np.float64(1))
    grads = backward(mlp, FP32, tape, d_out, np.empty_like(params))
    numeric = np.empty_like(params)
    for i in range(len(params)):
        step = np.zeros_like(params)
        step[i] = 1e-6
        numeric[i] = (_loss(mlp, params + step, x, y, data.info.task)
                      - _loss(mlp, params - step, x, y, data.info.task)) / 2e-6
    np.testing.assert_allclose(grads, numeric, rtol=1e-4, atol=1e-7)


def test_parameter_layout_puts_weight_matrices_first():
    mlp = MLP(2, 4, 3, 3)
    assert mlp.layer_shapes == ((2, 4), (4, 4), (4, 4), (4, 3))
    assert mlp.n_weights == 8 + 16 + 16 + 12 and mlp.n_params == mlp.n_weights + 4 + 4 + 4 + 3
    flat = np.arange(mlp.n_params, dtype=np.float32)
    weights, biases = mlp.views(flat)
    assert weights[0][0, 0] == 0 and biases[0][0] == mlp.n_weights
    weights[1][...] = -1  # views, not copies
    assert np.count_nonzero(flat == -1) == 16


def test_initial_weights_are_seeded():
    mlp = MLP(2, 8, 2, 2)
    np.testing.assert_array_equal(mlp.init_params(5), mlp.init_params(5))
    assert not np.array_equal(mlp.init_params(5), mlp.init_params(6))
    assert mlp.init_params(5).dtype == np.float32


@pytest.mark.parametrize("dataset_id", list(DATASETS))
def test_datasets_are_seeded_and_shaped(dataset_id):
    data = make_dataset(dataset_id, 11)
    again = make_dataset(dataset_id, 11)
    for name in ("x_train", "y_train", "x_test", "y_test"):
        np.testing.assert_array_equal(getattr(data, name), getattr(again, name))
    assert data.x_train.shape == (N_TRAIN, 2) and data.x_test.shape == (N_TEST, 2)
    assert data.x_train.dtype == np.float32
    assert np.abs(data.x_train).max() < 2.5
    if data.info.task == "classification":
        counts = np.bincount(data.y_train, minlength=data.info.n_classes)
        assert len(counts) == data.info.n_classes and counts.min() > 0.8 * N_TRAIN / data.info.n_classes
    else:
        assert data.y_train.shape == (N_TRAIN, 1)
    assert not np.array_equal(make_dataset(dataset_id, 12).x_train, data.x_train)


def test_input_scale_multiplies_the_inputs():
    plain, scaled = make_dataset("circles", 0), make_dataset("circles", 0, input_scale=128.0)
    np.testing.assert_array_equal(scaled.x_train, (plain.x_train.astype(np.float64) * 128).astype(np.float32))


def test_batches_walk_through_seeded_permutations():
    batches = batch_indices(10, 4, 0)
    first = np.concatenate([next(batches) for _ in range(5)])  # 20 indices: two epochs
    assert sorted(first[:10]) == list(range(10)) and sorted(first[10:]) == list(range(10))
    again = batch_indices(10, 4, 0)
    np.testing.assert_array_equal(np.concatenate([next(again) for _ in range(5)]), first)
