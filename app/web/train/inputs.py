"""What a person sends to train: the /train query string (the whole configuration) and its checks.

Query names: scenario, recipe (repeated, one per recipe), dataset, optimizer, activation, steps, lr, width,
depth, batch, seed, loss_scale, growth_interval; a setting left out is the scenario's. `params` is the model
size of the memory table, `run=1` asks the server to train (the page without JavaScript).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from starlette.datastructures import QueryParams

from app.formats import InputError, Phrase
from app.refusal import quoted
from app.training import (
    ACTIVATIONS,
    DATASETS,
    LIMITS,
    OPTIMIZERS,
    RECIPES,
    SCENARIOS,
    ScenarioId,
    TrainConfig,
    as_scenario_id,
)
from app.web.platform.catalogs import N_

MAX_TEXT = 40  # characters in one query value; every valid one is shorter
DEFAULT_MODEL_SIZE = "7e9"
MAX_MODEL_SIZE = 10**15
_SIZE_SUFFIXES = {"": 1, "k": 10**3, "m": 10**6, "b": 10**9, "t": 10**12}
# ASCII digits only: Python's int() and float() also read Arabic-Indic, fullwidth and "1_000" digits
_WHOLE = re.compile(r"[+-]?[0-9]{1,12}")
_REAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?")
_SIZE = re.compile(r"(\d[\d_,]*(?:\.\d*)?(?:e\+?\d{1,2})?)\s*([kmbt]?)", re.IGNORECASE)


@dataclass(frozen=True)
class Setting:
    """One control of the form: its query name, the TrainConfig field it sets, and how it is shown."""

    name: str
    field: str
    label: str
    help: str = ""
    options: Mapping[str, str] | None = None  # id -> name, for a choice

    @property
    def limits(self) -> tuple[float, float] | None:
        return LIMITS.get(self.field)


# Labels, help and option names are English here, as refusals name them; the page translates them where it shows them.
SETTINGS = (
    Setting("dataset", "dataset", N_("Dataset"), options={d.id: d.name for d in DATASETS.values()}),
    Setting("optimizer", "optimizer", N_("Optimizer"), options={o_id: o.name for o_id, o in OPTIMIZERS.items()}),
    Setting("activation", "activation", N_("Activation"), options={a.id: a.name for a in ACTIVATIONS.values()}),
    Setting("steps", "steps", N_("Steps")),
    Setting("lr", "learning_rate", N_("Learning rate")),
    Setting("width", "width", N_("Hidden width")),
    Setting("depth", "depth", N_("Hidden layers")),
    Setting("batch", "batch_size", N_("Batch size")),
    Setting("seed", "seed", N_("Seed"), N_("The same seed gives the same numbers, bit for bit.")),
    Setting("loss_scale", "static_loss_scale", N_("Static loss scale"),
            N_("FP16 static scaling multiplies the loss by it.")),
    Setting("growth_interval", "growth_interval", N_("Growth interval"),
            N_("Dynamic scaling doubles its scale after this many clean steps.")),
)
_INTEGERS = {"steps", "width", "depth", "batch_size", "seed", "growth_interval"}


def _text(query: QueryParams, name: str) -> str | None:
    values = query.getlist(name)
    if not values or values[-1].strip() == "":
        return None
    return values[-1].strip()


def _number(setting: Setting, text: str) -> int | float:
    if setting.field in _INTEGERS:
        if not _WHOLE.fullmatch(text):
            raise InputError(template=N_("%(setting)s must be a whole number, not %(text)s."),
                             params={"setting": Phrase(setting.label), "text": quoted(text)})
        return int(text)
    if not _REAL.fullmatch(text):
        raise InputError(template=N_("%(setting)s must be a number such as 0.01 or 1e-3, not %(text)s."),
                         params={"setting": Phrase(setting.label), "text": quoted(text)})
    return float(text)


def config_from_query(query: QueryParams) -> TrainConfig:
    """The configuration a /train URL describes, checked (InputError with a sentence when it cannot run)."""
    for name, value in query.multi_items():
        if len(name) > MAX_TEXT or len(value) > MAX_TEXT:
            raise InputError(template=N_("The value of %(name)s is too long: at most %(most)s characters."),
                             params={"name": quoted(name[:MAX_TEXT]), "most": str(MAX_TEXT)})
    chosen: dict[str, Any] = {}
    for setting in SETTINGS:
        text = _text(query, setting.name)
        if text is not None:
            chosen[setting.field] = text if setting.options else _number(setting, text)
    recipes = query.getlist("recipe")
    if recipes:
        chosen["recipes"] = tuple(r for r in recipes if r)
    return checked(TrainConfig(scenario=as_scenario_id(_text(query, "scenario") or "baseline"), **chosen))


def checked(config: TrainConfig) -> TrainConfig:
    """The configuration, if the lab runs it: within the core's limits, its work budget and its memory budget."""
    config.resolved()  # ConfigError, a refusal, names the limit
    return config


def model_size(text: str | None) -> int:
    """A model's parameter count as a person types it: 7e9, 7000000000, 7B, 1.5T, 350M."""
    match = _SIZE.fullmatch((text or DEFAULT_MODEL_SIZE).strip())
    try:
        size = Decimal(match[1].replace(",", "").replace("_", "")) * _SIZE_SUFFIXES[match[2].lower()] if match else None
    except InvalidOperation:
        size = None
    if size is None or size != size.to_integral_value() or not 1 <= size <= MAX_MODEL_SIZE:
        raise InputError(template=N_("The model size must be a whole number of parameters from 1 to 10^15, such as "
                                     "7e9, 7B or 350M; not %(text)s."),
                         params={"text": quoted((text or "")[:MAX_TEXT])})
    return int(size)


def shown_value(value: object) -> str:
    """A setting as the form shows it: 65536 rather than 65536.0, and every float exactly (repr)."""
    text = repr(value) if isinstance(value, float) else str(value)
    return text.removesuffix(".0")


def scenario_defaults(scenario_id: ScenarioId) -> dict[str, Any]:
    """The form's values for a scenario: what it chooses for each setting, by query name."""
    resolved = TrainConfig(scenario=scenario_id).resolved()
    values: dict[str, Any] = {s.name: shown_value(getattr(resolved, s.field)) for s in SETTINGS}
    return values | {"recipe": list(resolved.recipes)}


def form_values(query: QueryParams) -> dict[str, Any]:
    """What each control shows: what the person typed, else the scenario's choice (so an error keeps the input)."""
    scenario = _text(query, "scenario") or "baseline"
    values = scenario_defaults(scenario if scenario in SCENARIOS else "baseline")
    for setting in SETTINGS:
        values[setting.name] = _text(query, setting.name) or values[setting.name]
    if query.getlist("recipe"):
        values["recipe"] = [r for r in query.getlist("recipe") if r in RECIPES]
    return values | {"scenario": scenario, "params": _text(query, "params") or DEFAULT_MODEL_SIZE}
