"""Runs a configuration: every chosen recipe side by side, from the same initial weights and data order.

`stream(config)` yields events a page can send as they come (and stop reading when its client goes away):

- {"type": "start", "config": {...}, "scenario": {...}, "recipes": {id: {"name", "bytes_per_param",
  "gradient_range"}}, "n_params": n}
- {"type": "step", "step": n (1-based), "recipes": {id: {"loss", "accuracy", "underflow_fraction",
  "nonfinite_count", "loss_scale", "skipped", "update_ratio"}}, and at `run_shape.is_snapshot` steps (at
  most HISTOGRAM_SNAPSHOTS a run, the last step's included) "histograms": {id: {...}} of that step's gradients
  and "decision_grids": {id: values}, each model's decision grid after that step's update (values as in
  decision_grid below, on its x and y)}
- {"type": "diverged", "step": n, "recipe": id, "detail": a sentence}, once, right after the step at which the
  recipe's dynamic loss scale backed off to 0 (every step had inf or NaN gradients): the run has diverged
- {"type": "done", "recipes": {id: {"final_loss", "final_accuracy", "test_loss", "test_accuracy",
  "decision_grid"}}}, where decision_grid is {"x": [...], "y": [...], "values": [[...] per y]}: the predicted
  class (classification) or value (regression) on a grid over the inputs, for drawing the decision boundary

`run(config)` gathers them into the result of POST /api/train (DESIGN.md section 3). JSON has no NaN or
infinity: a loss or ratio that is NaN or infinite travels as null.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from app.messages import N_
from app.training.config import ResolvedConfig, TrainConfig
from app.training.data import Dataset, batch_indices, make_dataset
from app.training.gather import gather
from app.training.gradient_stats import format_range
from app.training.model import MLP
from app.training.recipes import RECIPES, bytes_per_param
from app.training.run_shape import GRID_POINTS, HISTOGRAM_SNAPSHOTS, is_snapshot
from app.training.scenarios import SCENARIOS
from app.training.trainer import RecipeTrainer

__all__ = ["DEFAULT_CONFIG", "HISTOGRAM_SNAPSHOTS", "run", "stream"]

DEFAULT_CONFIG = TrainConfig()  # the baseline scenario's four-recipe comparison

Event = dict[str, Any]


def stream(config: TrainConfig) -> Iterator[Event]:
    """Train and yield one event per step; raises ConfigError before any work when a limit is broken."""
    return _events(config.resolved())


def _events(config: ResolvedConfig) -> Iterator[Event]:
    scenario = SCENARIOS[config.scenario]
    data = make_dataset(config.dataset, config.seed, input_scale=config.input_scale)
    mlp = MLP(data.x_train.shape[1], config.width, config.depth, data.info.n_outputs, config.activation)
    initial = mlp.init_params(config.seed)
    trainers = {
        recipe_id: RecipeTrainer(
            RECIPES[recipe_id], mlp, initial, task=data.info.task, optimizer=config.optimizer,
            learning_rate=config.learning_rate, loss_weight=config.loss_weight,
            static_loss_scale=config.static_loss_scale, growth_interval=config.growth_interval,
        )
        for recipe_id in config.recipes
    }
    yield {
        "type": "start",
        "config": config.to_dict(),
        "scenario": {"id": scenario.id, "title": scenario.title, "explanation": scenario.explanation},
        "n_params": mlp.n_params,
        "recipes": {
            recipe_id: {
                "name": trainer.recipe.name,
                "summary": trainer.recipe.summary,
                "bytes_per_param": bytes_per_param(trainer.recipe, config.optimizer),
                "gradient_range": format_range(trainer.gradient_format),
            }
            for recipe_id, trainer in trainers.items()
        },
    }
    grid_points = _grid(data.x_train)[2]
    batches = batch_indices(len(data.x_train), config.batch_size, config.seed)
    skipping_since: dict[str, int] = {}  # the first step of each recipe's current run of skipped steps
    diverged: set[str] = set()
    for step in range(1, config.steps + 1):
        rows = next(batches)
        x, y = data.x_train[rows], data.y_train[rows]
        with_histogram = is_snapshot(step, config.steps)
        stats = {recipe_id: t.step(x, y, with_histogram=with_histogram) for recipe_id, t in trainers.items()}
        event: Event = {"type": "step", "step": step, "recipes": {
            recipe_id: {
                "loss": _number(s.loss),
                "accuracy": s.accuracy,
                "underflow_fraction": s.underflow_fraction,
                "nonfinite_count": s.nonfinite_count,
                "loss_scale": s.loss_scale,
                "skipped": s.skipped,
                "update_ratio": _number(s.update_ratio),
            }
            for recipe_id, s in stats.items()
        }}
        if with_histogram:
            event["histograms"] = {recipe_id: s.histogram for recipe_id, s in stats.items()}
            event["decision_grids"] = {
                recipe_id: _grid_values(t, grid_points, data) for recipe_id, t in trainers.items()}
        yield event
        for recipe_id, s in stats.items():
            if not s.skipped:
                skipping_since.pop(recipe_id, None)
                continue
            since = skipping_since.setdefault(recipe_id, step)
            if trainers[recipe_id].scaler.collapsed and recipe_id not in diverged:
                diverged.add(recipe_id)
                yield {"type": "diverged", "step": step, "recipe": recipe_id, "detail": _collapse(since, step)}
    yield {"type": "done", "recipes": {recipe_id: _final(t, data) for recipe_id, t in trainers.items()}}


# the diverged event's sentence; a page shows it in its own language (app/web/train/present.py)
COLLAPSE = N_("The run diverged: every step from step %(since)s on had inf or NaN gradients, so the dynamic loss "
              "scale halved at each of them and reached 0 at step %(step)s, where torch.amp.GradScaler's would stay. "
              "No later step can update the weights.")


def _collapse(since: int, step: int) -> str:
    return COLLAPSE % {"since": since, "step": step}


def _final(trainer: RecipeTrainer, data: Dataset) -> Event:
    """Loss and accuracy of the trained model on the whole training and test sets, and its decision grid."""
    final_loss, final_accuracy = trainer.evaluate(data.x_train, data.y_train)
    test_loss, test_accuracy = trainer.evaluate(data.x_test, data.y_test)
    xs, ys, points = _grid(data.x_train)
    return {
        "final_loss": _number(final_loss), "final_accuracy": final_accuracy,
        "test_loss": _number(test_loss), "test_accuracy": test_accuracy,
        "decision_grid": {"x": xs, "y": ys, "values": _grid_values(trainer, points, data)},
    }


def _grid_values(trainer: RecipeTrainer, points: np.ndarray, data: Dataset) -> list[list[Any]]:
    """The model's predicted class (classification) or value (regression) at each of `_grid`'s points, per y."""
    outputs = trainer.predict(points)
    values = (outputs.argmax(axis=1).tolist() if data.info.n_classes
              else [_number(float(v)) for v in outputs[:, 0]])
    return [values[row * GRID_POINTS:(row + 1) * GRID_POINTS] for row in range(GRID_POINTS)]


def _grid(x: np.ndarray) -> tuple[list[float], list[float], np.ndarray]:
    """GRID_POINTS x GRID_POINTS points over the inputs' extent (a tenth wider), row by row along y."""
    low, high = x.min(axis=0), x.max(axis=0)
    pad = (high - low) / 10
    xs = np.linspace(low[0] - pad[0], high[0] + pad[0], GRID_POINTS, dtype=np.float32)
    ys = np.linspace(low[1] - pad[1], high[1] + pad[1], GRID_POINTS, dtype=np.float32)
    points = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    return xs.tolist(), ys.tolist(), points


def run(config: TrainConfig) -> dict[str, Any]:
    """The whole run as one JSON-safe dict: {"config", "scenario", "n_params", "recipes": {id: {...}}}.

    Per recipe: per-step lists "loss", "accuracy", "underflow_fraction", "nonfinite_count", "loss_scale",
    "update_ratio"; "skipped_steps" (the 1-based numbers of the steps the scaler skipped); "histograms"
    ([{"step", "exponents", "counts", "zeros", "nonfinite"}]) with "gradient_range" beside them;
    "decision_grids" ([{"step", "values"}], the decision grid after each histogram's step, on the x and y of
    "decision_grid");
    "bytes_per_param"; "final_loss" and "final_accuracy" on the whole training set; "test_loss" and
    "test_accuracy" on the test set; "decision_grid"; "diverged": null, or {"step", "detail"} from the
    diverged event.
    """
    return gather(stream(config))


def _number(value: float) -> float | None:
    return value if math.isfinite(value) else None
