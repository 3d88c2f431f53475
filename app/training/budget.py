"""What a run costs before it starts: its work and its peak memory, and the most the lab gives one run.

Work is counted from the operations the run will perform, as `precision.Arithmetic` and the runner perform
them: the multiply-adds of every matrix product, the elements each rounding point sends through the formats
core, the element-wise work on activations, the gradients each histogram of exponents counts, and a fixed
cost per step, per layer and per call of the rounding function (the interpreter's share); the decision grids
predicted at each histogram snapshot count as forward passes over the grid, with a fixed cost per grid for
turning its predictions into JSON. Each count is
weighted by what it costs next to one FP32 multiply-add of numpy's matrix product; the weights were fitted
to runs timed on one core (bench/bench_budget.py prints predicted against measured seconds). The time of a
run also depends on its numbers (zeros are cheap, subnormals dear), which is why the budget leaves room.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from app.training.data import DATASETS, N_TEST, N_TRAIN, DatasetId
from app.training.model import MLP, ActivationId
from app.training.optim import OPTIMIZERS, OptimizerId
from app.training.recipes import RECIPES, Recipe, RecipeId
from app.training.run_shape import GRID_POINTS, snapshot_count


class ResolvedConfig(Hashable, Protocol):
    """What the budget reads of a run's configuration (config.ResolvedConfig has it; config checks the budget
    with this module, which therefore imports nothing of config)."""

    @property
    def recipes(self) -> tuple[RecipeId, ...]: ...
    @property
    def dataset(self) -> DatasetId: ...
    @property
    def steps(self) -> int: ...
    @property
    def optimizer(self) -> OptimizerId: ...
    @property
    def width(self) -> int: ...
    @property
    def depth(self) -> int: ...
    @property
    def activation(self) -> ActivationId: ...
    @property
    def batch_size(self) -> int: ...

__all__ = [
    "MEMORY_BUDGET", "WORK_BUDGET", "RunCounts", "grid_counts", "grid_work_units", "peak_bytes", "run_counts",
    "work_units",
]

# About 8 s on one core of the machine the costs were fitted on (2.7e-11 s per multiply-add); runs whose
# numbers take slow paths (FP16 rounding of tanh gradients) measured up to 1.6 times their estimate.
WORK_BUDGET = 3e11
MEMORY_BUDGET = 2**28  # bytes: 256 MiB, two runs at once stay within half a gigabyte

_GRID_ROWS = GRID_POINTS * GRID_POINTS  # the points of a decision grid
# The rows of the runner's final predictions: training set, test set, its decision grid
_PREDICTED_ROWS = (N_TRAIN, N_TEST, _GRID_ROWS)

# What each counted operation costs, in FP32 multiply-adds
_STEP_COST = 3.8e6  # the trainer's and the runner's interpreter work per recipe and step, its event included
_LAYER_STEP_COST = 7.9e5  # per layer, forward and backward
_ROUNDING_CALL_COST = 3.8e5
_ACTIVATION_COST = 63  # per activation element: bias, ReLU or tanh, their derivatives, loss
_HISTOGRAM_COST = 430  # per gradient element counted by a histogram of exponents
# per snapshot's grid besides its forward pass: the prediction's interpreter work, its values as lists and
# their JSON (a regression's 576 floats take ten times as long to write as a classification's small integers)
_GRID_COST = {"classification": 2e6, "regression": 1.2e7}
_ROUNDED_COST = {  # per element rounded to the format (FP32 is never rounded)
    "tfloat32": 96,
    "float16": 310,  # numpy's cast, with float16's subnormals rounded beforehand
    "bfloat16": 59,
    "float8_e4m3fn": 710,  # FP8 casts also scale, saturate and take the amax
    "float8_e5m2": 570,
}


@dataclass(frozen=True)
class RunCounts:
    """One recipe's operations over a whole run."""

    steps: int
    layer_steps: int  # layers times steps
    multiply_adds: int
    rounded: Counter[str]  # elements rounded to each format
    roundings: int  # calls of the rounding function
    activation_elements: int  # outputs of every layer, forward and backward
    histogram_elements: int  # gradient elements the histograms of exponents count
    grids: int  # decision grids predicted during the run, one per histogram snapshot
    task: str  # classification or regression: what a grid holds, classes or values

    @property
    def work(self) -> float:
        """The work of these operations, in FP32 multiply-adds."""
        return (self.steps * _STEP_COST + self.layer_steps * _LAYER_STEP_COST + self.multiply_adds
                + sum(n * _ROUNDED_COST[f] for f, n in self.rounded.items())
                + self.roundings * _ROUNDING_CALL_COST + self.activation_elements * _ACTIVATION_COST
                + self.histogram_elements * _HISTOGRAM_COST + self.grids * _GRID_COST[self.task])


@lru_cache(maxsize=256)  # a request resolves its configuration several times
def work_units(config: ResolvedConfig) -> float:
    """The work of a whole run, every recipe's steps and final predictions, in FP32 multiply-adds."""
    return sum(run_counts(config, recipe_id).work for recipe_id in config.recipes)


def grid_work_units(config: ResolvedConfig) -> float:
    """The part of `work_units` that the decision grids predicted at the histogram snapshots take."""
    return sum(grid_counts(config, recipe_id).work for recipe_id in config.recipes)


def run_counts(config: ResolvedConfig, recipe_id: RecipeId) -> RunCounts:
    """The operations one recipe of a configuration performs in a whole run (every step taken)."""
    recipe, mlp, steps = RECIPES[recipe_id], _mlp(config), config.steps
    step = _Counter()
    _working_weights(step, recipe, mlp)
    _forward(step, recipe, mlp, config.batch_size)
    _backward(step, recipe, mlp, config.batch_size)
    once = _Counter()
    if not recipe.master_weights:
        step.round(recipe.weights, mlp.n_params)  # each update is rounded to the stored format
        once.round(recipe.weights, mlp.n_params)  # and so are the initial weights
    for rows in _PREDICTED_ROWS:
        _working_weights(once, recipe, mlp)
        _forward(once, recipe, mlp, rows)
    histograms = snapshot_count(steps) * (_kept_gradients(mlp, config.batch_size) + mlp.n_params)
    return _totals(((steps, step), (snapshot_count(steps), _grid_pass(recipe, mlp)), (1, once)),
                   steps=steps, layer_steps=steps * len(mlp.layer_shapes), histogram_elements=histograms,
                   grids=snapshot_count(steps), task=DATASETS[config.dataset].task)


def grid_counts(config: ResolvedConfig, recipe_id: RecipeId) -> RunCounts:
    """The part of `run_counts` that the decision grids of the histogram snapshots take."""
    recipe, mlp, snapshots = RECIPES[recipe_id], _mlp(config), snapshot_count(config.steps)
    return _totals(((snapshots, _grid_pass(recipe, mlp)),), steps=0, layer_steps=0, histogram_elements=0,
                   grids=snapshots, task=DATASETS[config.dataset].task)


def _grid_pass(recipe: Recipe, mlp: MLP) -> _Counter:
    """One snapshot's decision grid: the model's predictions at its points."""
    grid = _Counter()
    _working_weights(grid, recipe, mlp)
    _forward(grid, recipe, mlp, _GRID_ROWS)
    return grid


def _totals(passes: tuple[tuple[int, _Counter], ...], *, steps: int, layer_steps: int, histogram_elements: int,
            grids: int, task: str) -> RunCounts:
    """The operations of passes that each run a number of times, with the counts that are not per pass."""
    rounded: Counter[str] = Counter()
    for times, count in passes:
        rounded.update({f: times * n for f, n in count.rounded.items()})
    return RunCounts(
        steps=steps, layer_steps=layer_steps,
        multiply_adds=sum(times * count.multiply_adds for times, count in passes),
        rounded=rounded,
        roundings=sum(times * count.roundings for times, count in passes),
        activation_elements=sum(times * count.activation_elements for times, count in passes),
        histogram_elements=histogram_elements, grids=grids, task=task,
    )


class _Counter:
    """Operations of one pass, counted as `precision.Arithmetic` performs them."""

    def __init__(self) -> None:
        self.multiply_adds = 0
        self.rounded: Counter[str] = Counter()
        self.roundings = 0
        self.activation_elements = 0

    def round(self, format_id: str, elements: int) -> None:
        if format_id != "float32":  # a rounding to FP32 is the identity: nothing is called
            self.rounded[format_id] += elements
            self.roundings += 1

    def layer(self, rows: int, fan_in: int, fan_out: int) -> None:
        self.multiply_adds += rows * fan_in * fan_out
        self.activation_elements += rows * fan_out


def _mlp(config: ResolvedConfig) -> MLP:
    return MLP(2, config.width, config.depth, DATASETS[config.dataset].n_outputs, config.activation)


def _working_weights(count: _Counter, recipe: Recipe, mlp: MLP) -> None:
    stored = "float32" if recipe.master_weights else recipe.weights
    matrices = recipe.output if recipe.delayed_scaling else recipe.compute
    if matrices == recipe.output:
        if matrices != stored:
            count.round(recipe.output, mlp.n_params)
        return
    if matrices != stored:
        count.round(matrices, mlp.n_weights)
    if recipe.output != stored:
        count.round(recipe.output, mlp.n_params - mlp.n_weights)


def _forward(count: _Counter, recipe: Recipe, mlp: MLP, rows: int) -> None:
    count.round(recipe.output, rows * mlp.n_inputs)
    for i, (fan_in, fan_out) in enumerate(mlp.layer_shapes):
        if i and mlp.activation == "tanh":
            count.round(recipe.output, rows * fan_in)
        if recipe.delayed_scaling:
            count.round(recipe.compute, rows * fan_in)
            count.round(recipe.compute, fan_in * fan_out)
        elif recipe.compute != recipe.output:
            count.round(recipe.compute, rows * fan_in)
        count.layer(rows, fan_in, fan_out)
        count.round(recipe.output, rows * fan_out)


def _backward(count: _Counter, recipe: Recipe, mlp: MLP, rows: int) -> None:
    count.round(recipe.output, rows * mlp.n_outputs)
    for i, (fan_in, fan_out) in reversed(list(enumerate(mlp.layer_shapes))):
        if recipe.delayed_scaling or recipe.gradient != recipe.output:
            count.round(recipe.gradient, rows * fan_out)
        count.layer(rows, fan_in, fan_out)  # the weight gradient
        if i:
            count.multiply_adds += rows * fan_in * fan_out  # the input gradient
            count.round(recipe.output, rows * fan_in)
            if mlp.activation == "tanh":
                count.round(recipe.output, rows * fan_in)
    count.round(recipe.output, mlp.n_params)


def _kept_gradients(mlp: MLP, batch: int) -> int:
    """Elements of the gradients a histogram step collects besides the parameters': d_out and each dh."""
    per_hidden = 2 if mlp.activation == "tanh" else 1
    return batch * (mlp.n_outputs + per_hidden * sum(fan_in for fan_in, _ in mlp.layer_shapes[1:]))


# -- memory -------------------------------------------------------------------------------------

_FLOAT32 = 4
# exponent_histogram's copies of what it counts: the gathered gradients, the finite mask and values, the
# non-zero mask and values, frexp's mantissas and exponents, the exponents as int64 twice
_HISTOGRAM_BYTES = 32
_TAPE_COPIES = 3  # per element of a layer's input and output: the value, its rounded operand, temporaries
_PARAMETER_COPIES = 6  # working weights, rounded gradients, the optimizer's temporaries, the new weights
_RECORD_BYTES = 512  # one recipe's statistics of one step: its SSE frame and its gathered lists
_GRID_VALUE_BYTES = 64  # one value of a snapshot's decision grid: its JSON in the frame, its gathered float
_FIXED_BYTES = 2**20  # the dataset, histograms and final decision grids, the interpreter's own objects


def peak_bytes(config: ResolvedConfig) -> int:
    """An upper bound of the memory a run allocates, the events a page records of it included.

    Every recipe keeps its weights, gradient accumulators and optimizer states, and from a step with a
    histogram to its next step the gradients it collected; recipes step one at a time, so the
    temporaries of one step count once.
    """
    mlp = _mlp(config)
    kept = _kept_gradients(mlp, config.batch_size)
    state_bytes = OPTIMIZERS[config.optimizer].state_bytes_per_param
    per_recipe = ((2 * _FLOAT32 + state_bytes) * mlp.n_params + _FLOAT32 * kept + _RECORD_BYTES * config.steps
                  + _GRID_VALUE_BYTES * _GRID_ROWS * snapshot_count(config.steps))
    rows = max(config.batch_size, *_PREDICTED_ROWS)
    tape = _FLOAT32 * _TAPE_COPIES * rows * sum(fan_in + fan_out for fan_in, fan_out in mlp.layer_shapes)
    one_step = _HISTOGRAM_BYTES * (kept + mlp.n_params) + tape + _FLOAT32 * _PARAMETER_COPIES * mlp.n_params
    initial = _FLOAT32 * mlp.n_params
    return len(config.recipes) * per_recipe + one_step + initial + _FIXED_BYTES
