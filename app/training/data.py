"""Seeded toy datasets after TensorFlow Playground: 2-D points, four classifications, one regression.

Points lie in about [-1, 1]^2 (a scenario may scale them); the same dataset id and seed give the same arrays,
bit for bit, on every backend.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np

from app.messages import N_

__all__ = ["DATASETS", "Dataset", "DatasetId", "DatasetInfo", "batch_indices", "make_dataset"]

DatasetId = Literal["spiral", "circles", "xor", "blobs", "wave"]

N_TRAIN = 1024
N_TEST = 512

# independent random streams under one seed: spawn keys of numpy's SeedSequence
_DATA_STREAM = 1
_ORDER_STREAM = 2


@dataclass(frozen=True)
class DatasetInfo:
    id: DatasetId
    name: str
    task: str  # "classification" or "regression"
    n_classes: int  # 0 for regression
    description: str

    @property
    def n_outputs(self) -> int:
        return self.n_classes or 1


@dataclass(frozen=True)
class Dataset:
    info: DatasetInfo
    x_train: np.ndarray  # (N_TRAIN, 2) float32
    y_train: np.ndarray  # (N_TRAIN,) int64 labels, or (N_TRAIN, 1) float32 targets
    x_test: np.ndarray
    y_test: np.ndarray


def _spiral(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    labels = np.arange(n) % 2
    t = rng.uniform(0.0, 1.0, n)
    angle = 1.75 * t * 2 * np.pi + np.pi * labels
    points = t[:, None] * np.stack([np.sin(angle), np.cos(angle)], axis=1)
    return points + rng.normal(0.0, 0.02, (n, 2)), labels


def _circles(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    labels = np.arange(n) % 2
    radius = np.where(labels == 0, rng.uniform(0.0, 0.5, n), rng.uniform(0.7, 1.0, n))
    angle = rng.uniform(0.0, 2 * np.pi, n)
    points = radius[:, None] * np.stack([np.sin(angle), np.cos(angle)], axis=1)
    return points + rng.normal(0.0, 0.02, (n, 2)), labels


def _xor(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    points = rng.uniform(0.05, 1.0, (n, 2)) * rng.choice([-1.0, 1.0], (n, 2))
    labels = (points[:, 0] * points[:, 1] > 0).astype(np.int64)
    return points + rng.normal(0.0, 0.02, (n, 2)), labels


def _blobs(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    labels = np.arange(n) % 3
    centre_angle = 2 * np.pi * labels / 3 + np.pi / 2
    centres = 0.6 * np.stack([np.cos(centre_angle), np.sin(centre_angle)], axis=1)
    return centres + rng.normal(0.0, 0.25, (n, 2)), labels


def _wave(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    points = rng.uniform(-1.0, 1.0, (n, 2))
    targets = np.sin(2.5 * points[:, 0]) * np.cos(2.0 * points[:, 1])
    return points, (targets + rng.normal(0.0, 0.02, n))[:, None]


_Generator = Callable[[np.random.Generator, int], tuple[np.ndarray, np.ndarray]]

_GENERATORS: dict[DatasetId, tuple[DatasetInfo, _Generator]] = {
    info.id: (info, gen)
    for info, gen in (
        (DatasetInfo("spiral", N_("Spiral"), "classification", 2,
                     "Two interleaved spiral arms: needs depth and width to separate."), _spiral),
        (DatasetInfo("circles", N_("Circles"), "classification", 2,
                     "A disc inside a ring: one curved boundary."), _circles),
        (DatasetInfo("xor", "XOR", "classification", 2,
                     "Opposite quadrants share a class: no single line separates them."), _xor),
        (DatasetInfo("blobs", N_("Gaussian blobs"), "classification", 3,
                     "Three overlapping Gaussian clouds, three classes."), _blobs),
        (DatasetInfo("wave", N_("Wave (regression)"), "regression", 0,
                     "Predict sin(2.5 x) cos(2 y): a smooth surface, mean squared error."), _wave),
    )
}

DATASETS: dict[DatasetId, DatasetInfo] = {key: info for key, (info, _) in _GENERATORS.items()}


def make_dataset(dataset_id: DatasetId, seed: int, *, input_scale: float = 1.0) -> Dataset:
    """The train and test split of one dataset, inputs multiplied by `input_scale`, as float32."""
    info, generate = _GENERATORS[dataset_id]
    rng = np.random.default_rng([seed, _DATA_STREAM])
    points, targets = generate(rng, N_TRAIN + N_TEST)
    order = rng.permutation(N_TRAIN + N_TEST)
    x = (points[order] * input_scale).astype(np.float32)
    y = targets[order].astype(np.float32 if info.task == "regression" else np.int64)
    return Dataset(info, x[:N_TRAIN], y[:N_TRAIN], x[N_TRAIN:], y[N_TRAIN:])


def batch_indices(n: int, batch_size: int, seed: int) -> Iterator[np.ndarray]:
    """Endless minibatches of row indices: each epoch a fresh permutation, drawn in order."""
    rng = np.random.default_rng([seed, _ORDER_STREAM])
    pending = np.empty(0, dtype=np.int64)
    while True:
        while len(pending) < batch_size:
            pending = np.concatenate([pending, rng.permutation(n)])
        yield pending[:batch_size]
        pending = pending[batch_size:]
