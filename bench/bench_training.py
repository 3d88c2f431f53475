"""Training emulation: time per step of plain numpy FP32 against each recipe, and the default comparison.

Measured in a child process pinned to one CPU core with single-threaded BLAS: OpenBLAS threads that share
one core (or a busy machine) spin against each other and make every number meaningless.
Prints only; speed is never asserted.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from app.training import DEFAULT_CONFIG, MLP, RECIPES, make_dataset, run, stream
from app.training.data import batch_indices
from app.training.loss import loss_and_gradient
from app.training.model import backward, forward
from app.training.optim import Adam
from app.training.precision import Arithmetic
from app.training.trainer import RecipeTrainer

REPEATS = 3
STEP_GOAL = 3.0  # emulated step at most 3x plain FP32
DEFAULT_GOAL_S = 1.5
FIRST_EVENT_GOAL_MS = 200.0
# (width, depth, batch size, steps timed): the default comparison's model and a larger one
MODELS = [(32, 2, 64, 200), (128, 3, 256, 40)]


@contextmanager
def _one_core() -> Iterator[None]:
    """Pin this process (numpy's BLAS threads included) to one CPU where the platform allows it."""
    if not hasattr(os, "sched_setaffinity"):
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def _best_seconds(*actions: Callable[[], object]) -> list[float]:
    """The shortest of REPEATS timings of each action, the actions taking turns so that drift hits all alike."""
    best = [float("inf")] * len(actions)
    for _ in range(REPEATS):
        for i, action in enumerate(actions):
            start = time.perf_counter()
            action()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def _plain_fp32(mlp: MLP, initial: np.ndarray, batches: list[tuple[np.ndarray, np.ndarray]]) -> Callable[[], None]:
    """The same model step in plain numpy FP32: no rounding, no loss scaler, no statistics."""
    arith = Arithmetic(RECIPES["fp32"])
    accumulators = np.empty(mlp.n_params, dtype=np.float32)
    one = np.float32(1.0)

    def train() -> None:
        params, optimizer = initial.copy(), Adam(mlp.n_params, 0.01)
        for x, y in batches:
            outputs, tape = forward(mlp, arith, params, x)
            _, _, d_out = loss_and_gradient("classification", outputs, y, one)
            params += optimizer.delta(backward(mlp, arith, tape, d_out, accumulators))

    return train


def _recipe(recipe_id: str, mlp: MLP, initial: np.ndarray, batches: list[tuple[np.ndarray, np.ndarray]]
            ) -> Callable[[], None]:
    def train() -> None:
        trainer = RecipeTrainer(RECIPES[recipe_id], mlp, initial, task="classification", optimizer="adam",
                                learning_rate=0.01, loss_weight=1.0, static_loss_scale=1024.0,
                                growth_interval=100)
        for x, y in batches:
            trainer.step(x, y)

    return train


def _step_table(width: int, depth: int, batch_size: int, steps: int) -> None:
    data = make_dataset("spiral", 0)
    mlp = MLP(2, width, depth, 2)
    initial = mlp.init_params(0)
    order = batch_indices(len(data.x_train), batch_size, 0)
    batches = [(data.x_train[rows], data.y_train[rows]) for rows in (next(order) for _ in range(steps))]
    plain, *recipes = _best_seconds(_plain_fp32(mlp, initial, batches),
                                    *(_recipe(recipe_id, mlp, initial, batches) for recipe_id in RECIPES))
    print(f"\nMLP width {width}, depth {depth}, batch {batch_size} ({mlp.n_params} parameters), "
          f"Adam on spiral, best of {REPEATS} x {steps} steps")
    print(f"{'recipe':24} {'us/step':>9} {'x plain':>8}")
    print(f"{'plain numpy FP32':24} {plain / steps * 1e6:9.1f} {1.0:8.2f}")
    for recipe_id, seconds in zip(RECIPES, recipes, strict=True):
        ratio = seconds / plain
        flag = "" if ratio <= STEP_GOAL else f"  over the {STEP_GOAL:g}x goal"
        print(f"{recipe_id:24} {seconds / steps * 1e6:9.1f} {ratio:8.2f}{flag}")


_SINGLE_THREADED = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}


def main() -> None:
    """Run `measure` where BLAS is single-threaded: numpy reads these variables only when it loads."""
    if all(os.environ.get(name) == value for name, value in _SINGLE_THREADED.items()):
        measure()
        return
    subprocess.run([sys.executable, "-c", "import bench.bench_training as b; b.measure()"],
                   env={**os.environ, **_SINGLE_THREADED}, check=True)


def measure() -> None:
    with _one_core():
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"one CPU core, single-threaded BLAS, load average {load:.1f}; "
              f"goal: an emulated step at most {STEP_GOAL:g}x plain numpy FP32")
        for width, depth, batch_size, steps in MODELS:
            _step_table(width, depth, batch_size, steps)
        config = DEFAULT_CONFIG.resolved()
        wall, first, first_step = _best_seconds(
            lambda: run(DEFAULT_CONFIG),
            lambda: next(stream(DEFAULT_CONFIG)),
            lambda: [next(events) for events in [stream(DEFAULT_CONFIG)] for _ in "ab"],
        )
    print(f"\ndefault comparison ({', '.join(config.recipes)}; {config.scenario}, {config.steps} steps): "
          f"{wall:.3f} s (goal: under {DEFAULT_GOAL_S} s)")
    print(f"first streamed event (start): {first * 1e3:.1f} ms; first step event: {first_step * 1e3:.1f} ms "
          f"(goal: under {FIRST_EVENT_GOAL_MS:.0f} ms)")
