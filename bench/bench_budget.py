"""The work budget of a training run against the time it takes: every scenario and the largest runs accepted.

Each run's estimate (app/training/budget.py) is printed as a share of WORK_BUDGET beside the CPU seconds
the run took with single-threaded BLAS, its events encoded as a page records them. The last column, the
seconds a whole budget would take at that run's pace, should come out about the same on every row: that
is the estimate tracking time, and it is how long the longest accepted run takes on this machine.
The second table asks whether a plain bound on steps x batch x parameters x recipes would do instead: for
each recipe and a wide, a middling and a narrow model, the CPU nanoseconds per unit of that product. Were the
bound enough, each column would be about the same down the rows and across them. Prints only; speed is never
asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import replace

from app.training import DATASETS, RECIPES, SCENARIOS, ConfigError, TrainConfig, stream
from app.training.budget import WORK_BUDGET, work_units
from app.training.model import MLP

ALL = tuple(RECIPES)
# shapes whose largest accepted number of steps is timed: big models, long runs, the dearest formats
LARGEST = [
    ("every recipe, width 256, depth 6, batch 1024", TrainConfig(recipes=ALL, width=256, depth=6, batch_size=1024)),
    ("fp32, width 256, depth 6, batch 1024", TrainConfig(recipes=("fp32",), width=256, depth=6, batch_size=1024)),
    ("fp8, width 256, depth 6, batch 1024, tanh",
     TrainConfig(recipes=("fp8_hybrid_delayed",), width=256, depth=6, batch_size=1024, activation="tanh")),
    ("fp16, width 128, depth 4, batch 1024, tanh",
     TrainConfig(recipes=("fp16_no_scaling",), width=128, depth=4, batch_size=1024, activation="tanh")),
    ("every recipe, width 64, depth 3, batch 256, tanh",
     TrainConfig(recipes=ALL, width=64, depth=3, batch_size=256, activation="tanh")),
    ("every recipe, width 2, depth 1, batch 1", TrainConfig(recipes=ALL, width=2, depth=1, batch_size=1)),
]


def _accepted(config: TrainConfig) -> bool:
    try:
        config.resolved()
    except ConfigError:
        return False
    return True


def _largest_steps(config: TrainConfig) -> TrainConfig:
    low, high = 1, 2000
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if _accepted(replace(config, steps=middle)) else (low, middle - 1)
    return replace(config, steps=low)


def _cpu_seconds(config: TrainConfig) -> float:
    start = time.process_time()
    for event in stream(config):
        json.dumps(event, separators=(",", ":"), allow_nan=False)
    return time.process_time() - start


def measure() -> None:
    print(f"CPU seconds, single-threaded BLAS; WORK_BUDGET = {WORK_BUDGET:.2g} multiply-add equivalents")
    print(f"{'run':58} {'steps':>5} {'x budget':>8} {'CPU s':>7} {'s per budget':>12}")
    runs = [(f"scenario {s}", TrainConfig(scenario=s)) for s in SCENARIOS]
    runs += [(name, _largest_steps(config)) for name, config in LARGEST]
    for name, config in runs:
        resolved = config.resolved()
        share = work_units(resolved) / WORK_BUDGET
        seconds = _cpu_seconds(config)
        print(f"{name:58} {resolved.steps:5} {share:8.2f} {seconds:7.2f} {seconds / share:12.1f}", flush=True)
    plain_bound()


# A wide model (matrix products dominate), a middling tanh one and a narrow one (the interpreter dominates)
PLAIN_SHAPES = {
    "256x6, batch 1024": {"width": 256, "depth": 6, "batch_size": 1024, "steps": 4},
    "64x3, batch 256, tanh": {"width": 64, "depth": 3, "batch_size": 256, "steps": 40, "activation": "tanh"},
    "8x2, batch 16": {"width": 8, "depth": 2, "batch_size": 16, "steps": 300},
}


def plain_bound() -> None:
    print("\nCPU ns per unit of steps x batch x parameters, one recipe at a time")
    print(f"{'recipe':22}" + "".join(f"{name:>24}" for name in PLAIN_SHAPES))
    for recipe_id in RECIPES:
        row = []
        for shape in PLAIN_SHAPES.values():
            run = TrainConfig(recipes=(recipe_id,), **shape)  # type: ignore[arg-type]
            config = run.resolved()
            mlp = MLP(2, config.width, config.depth, DATASETS[config.dataset].n_outputs, config.activation)
            row.append(1e9 * _cpu_seconds(run) / (config.steps * config.batch_size * mlp.n_params))
        print(f"{recipe_id:22}" + "".join(f"{ns:24.2f}" for ns in row), flush=True)


_SINGLE_THREADED = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}


def main() -> None:
    """Run `measure` where BLAS is single-threaded: numpy reads these variables only when it loads."""
    if all(os.environ.get(name) == value for name, value in _SINGLE_THREADED.items()):
        measure()
        return
    subprocess.run([sys.executable, "-c", "import bench.bench_budget as b; b.measure()"],
                   env={**os.environ, **_SINGLE_THREADED}, check=True)
