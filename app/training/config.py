"""The configuration of a training run, its limits, and how a scenario fills what the person left open."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any, TypeVar, cast

from app.messages import N_
from app.refusal import Refusal, quoted
from app.training import budget
from app.training.data import DATASETS, DatasetId
from app.training.model import ACTIVATIONS, ActivationId
from app.training.optim import OPTIMIZERS, OptimizerId
from app.training.recipes import RECIPES, RecipeId
from app.training.scenarios import SCENARIOS, ScenarioId

__all__ = [
    "LIMITS", "ConfigError", "ResolvedConfig", "TrainConfig", "as_activation_id", "as_dataset_id", "as_optimizer_id",
    "as_recipe_id", "as_scenario_id",
]


class ConfigError(Refusal):
    """A configuration outside what the lab runs; the message names the limit."""


# (smallest, largest) of each numeric setting
LIMITS: dict[str, tuple[float, float]] = {
    "steps": (1, 2000),
    "width": (2, 256),
    "depth": (1, 6),
    "batch_size": (1, 1024),
    "learning_rate": (1e-6, 1.0),
    "seed": (0, 2**32 - 1),
    "static_loss_scale": (2.0**-24, 2.0**24),
    "growth_interval": (1, 10_000),
}

_INTEGERS = ("steps", "width", "depth", "batch_size", "seed", "growth_interval")


@dataclass(frozen=True)
class TrainConfig:
    """What to train. None means the scenario's choice; `resolved()` fills those in and checks every limit."""

    scenario: ScenarioId = "baseline"
    recipes: tuple[RecipeId, ...] | None = None
    dataset: DatasetId | None = None
    steps: int | None = None
    learning_rate: float | None = None
    optimizer: OptimizerId | None = None
    width: int | None = None
    depth: int | None = None
    activation: ActivationId | None = None
    batch_size: int | None = None
    seed: int = 0
    static_loss_scale: float | None = None
    growth_interval: int | None = None

    def resolved(self) -> ResolvedConfig:
        """Every setting filled from the scenario where left open, checked against LIMITS and the budgets.

        Within LIMITS every setting may be at its largest, but not all of them at once: the run's work
        and memory must stay within budget.WORK_BUDGET and budget.MEMORY_BUDGET.
        """
        scenario = SCENARIOS[as_scenario_id(self.scenario)]
        chosen = {f.name: getattr(self, f.name) for f in fields(self)}
        filled = {name: getattr(scenario, name) if value is None else value for name, value in chosen.items()}
        filled["recipes"] = tuple(filled["recipes"])
        _check(filled)
        resolved = ResolvedConfig(**filled, loss_weight=scenario.loss_weight, input_scale=scenario.input_scale)
        _check_budgets(resolved)
        return resolved


@dataclass(frozen=True)
class ResolvedConfig:
    """A checked configuration with every setting decided, the scenario's fixed ones included."""

    scenario: ScenarioId
    recipes: tuple[RecipeId, ...]
    dataset: DatasetId
    steps: int
    learning_rate: float
    optimizer: OptimizerId
    width: int
    depth: int
    activation: ActivationId
    batch_size: int
    seed: int
    static_loss_scale: float
    growth_interval: int
    loss_weight: float  # the loss is multiplied by this before the backward pass (scenario)
    input_scale: float  # the inputs are multiplied by this (scenario)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready."""
        return {**asdict(self), "recipes": list(self.recipes)}


def _check(settings: dict[str, Any]) -> None:
    as_dataset_id(settings["dataset"])
    as_optimizer_id(settings["optimizer"])
    as_activation_id(settings["activation"])
    recipes = settings["recipes"]
    if not recipes:
        raise ConfigError(template=N_("Choose at least one recipe."))
    for recipe in recipes:
        as_recipe_id(recipe)
    if len(set(recipes)) != len(recipes):
        raise ConfigError(template=N_("Each recipe may be chosen only once."))
    for name, (low, high) in LIMITS.items():
        value = settings[name]
        if name in _INTEGERS and (isinstance(value, bool) or not isinstance(value, int)):
            raise ConfigError(template=N_("%(name)s must be a whole number, not %(value)s."),
                              params={"name": name, "value": quoted(value)})
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise ConfigError(template=N_("%(name)s must be a finite number, not %(value)s."),
                              params={"name": name, "value": quoted(value)})
        if value < low:
            raise ConfigError(template=N_("%(name)s must be at least %(low)s (got %(value)s)."),
                              params={"name": name, "low": f"{low:g}", "value": f"{value:g}"})
        if value > high:
            raise ConfigError(template=N_("%(name)s must be at most %(high)s (got %(value)s)."),
                              params={"name": name, "high": f"{high:g}", "value": f"{value:g}"})


def _check_budgets(config: ResolvedConfig) -> None:
    work = budget.work_units(config) / budget.WORK_BUDGET
    if work > 1:
        raise ConfigError(
            template=N_("This run is too large: it would take about %(times)s times the work the lab allows one run; "
                        "lower the steps, batch size, width, depth or the number of recipes."),
            params={"times": _times(work)},
        )
    memory = budget.peak_bytes(config)
    if memory > budget.MEMORY_BUDGET:
        raise ConfigError(
            template=N_("This run is too large: it would need about %(need)s MiB of memory, and one run may use at "
                        "most %(most)s MiB; lower the batch size, width, depth or the number of recipes."),
            params={"need": f"{memory / 2**20:.0f}", "most": f"{budget.MEMORY_BUDGET / 2**20:.0f}"},
        )


def _times(ratio: float) -> str:
    """Over 1, rounded up so that a run just over the budget does not read as "1.0 times"."""
    return f"{math.ceil(ratio * 10) / 10:.1f}" if ratio < 10 else f"{math.ceil(ratio):,}"


# -- ids: each registry's keys are a Literal type; any other name is refused, with the names there are ---------


def as_scenario_id(name: object) -> ScenarioId:
    return _one_of("scenario", name, SCENARIOS)


def as_recipe_id(name: object) -> RecipeId:
    return _one_of("recipe", name, RECIPES)


def as_dataset_id(name: object) -> DatasetId:
    return _one_of("dataset", name, DATASETS)


def as_optimizer_id(name: object) -> OptimizerId:
    return _one_of("optimizer", name, OPTIMIZERS)


def as_activation_id(name: object) -> ActivationId:
    return _one_of("activation", name, ACTIVATIONS)


_Id = TypeVar("_Id", bound=str)


def _one_of(what: str, name: object, known: Mapping[_Id, object]) -> _Id:
    """`name` as an id of `known`; ConfigError naming the ids there are if it is none of them."""
    if not isinstance(name, str) or name not in known:
        shown = name[:40] if isinstance(name, str) else name  # the sentence stays short whatever was sent
        raise ConfigError(f"Unknown {what} {shown!r}; choose one of: {', '.join(known)}.")
    return cast(_Id, name)
