"""The numpy core against torch on CPU: time per FP32 training step of the same model, data and optimizer.

Both single-threaded on one CPU core (torch.set_num_threads(1), single-threaded BLAS for numpy), so the ratio
compares the two implementations, not how many cores each grabs. Each side runs its backend's whole fp32
step: forward, loss, backward, Adam, and its per-step statistics. Prints only; needs the [torch] extra.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from app.training import MLP, RECIPES, make_dataset
from app.training.data import batch_indices
from app.training.trainer import RecipeTrainer
from bench.bench_training import _SINGLE_THREADED, MODELS, REPEATS, _best_seconds, _one_core

_SETTINGS: dict[str, Any] = {"task": "classification", "optimizer": "adam", "learning_rate": 0.01,
                             "loss_weight": 1.0, "static_loss_scale": 1024.0, "growth_interval": 100}


def main() -> None:
    """Run `measure` in a child process where BLAS is single-threaded: numpy and torch read that when they load."""
    if importlib.util.find_spec("torch") is None:
        print("torch is not installed (pip install -e '.[torch]'): no numpy-against-torch comparison.")
        return
    if all(os.environ.get(name) == value for name, value in _SINGLE_THREADED.items()):
        measure()
        return
    subprocess.run([sys.executable, "-c", "import bench.bench_torch as b; b.measure()"],
                   env={**os.environ, **_SINGLE_THREADED}, check=True)


def measure() -> None:
    import torch

    torch.set_num_threads(1)
    print(f"one CPU core, one thread each; torch {torch.__version__}, fp32 recipe, Adam on spiral, "
          f"best of {REPEATS}")
    print(f"{'model':28} {'params':>7} {'numpy us/step':>14} {'torch us/step':>14} {'torch/numpy':>12}")
    with _one_core():
        for width, depth, batch_size, steps in MODELS:
            mlp = MLP(2, width, depth, 2)
            numpy_step, torch_step = _best_seconds(*_trainings(mlp, batch_size, steps))
            print(f"{f'width {width}, depth {depth}, batch {batch_size}':28} {mlp.n_params:7} "
                  f"{numpy_step / steps * 1e6:14.1f} {torch_step / steps * 1e6:14.1f} "
                  f"{torch_step / numpy_step:12.2f}")


def _trainings(mlp: MLP, batch_size: int, steps: int) -> tuple[Callable[[], None], Callable[[], None]]:
    """`steps` training steps of a fresh fp32 trainer in each backend, from the same weights and batches."""
    import torch

    from app.training.torch_backend import TorchRecipeTrainer, build_module

    data = make_dataset("spiral", 0)
    initial = mlp.init_params(0)
    order = batch_indices(len(data.x_train), batch_size, 0)
    batches = [(data.x_train[rows], data.y_train[rows]) for rows in (next(order) for _ in range(steps))]
    tensors = [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in batches]

    def numpy_training() -> None:
        trainer = RecipeTrainer(RECIPES["fp32"], mlp, initial, **_SETTINGS)
        for x, y in batches:
            trainer.step(x, y)

    def torch_training() -> None:
        trainer = TorchRecipeTrainer(RECIPES["fp32"], build_module(mlp, initial), **_SETTINGS)
        for x, y in tensors:
            trainer.step(x, y)

    return numpy_training, torch_training
