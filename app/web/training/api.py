"""POST /api/train: a whole run as JSON (DESIGN.md section 3), trained once per configuration."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from app.services.training_runs import RunsBusy, result
from app.training import DATASETS, LIMITS, RECIPES, SCENARIOS, TrainConfig
from app.web.shared.deps import RunsDep
from app.web.shared.rate_limiting import rate_limited
from app.web.training.inputs import MAX_TEXT, checked

router = APIRouter(prefix="/api", tags=["training"])

_LEFT_OUT = "Left out: the scenario's choice."
Word = Annotated[str, Field(max_length=MAX_TEXT)]


def _limits(field: str, what: str) -> str:
    low, high = LIMITS[field]
    return f"{what}, from {low:g} to {high:g}. {_LEFT_OUT}"


class TrainRequest(BaseModel):
    """A training run: a scenario, and any setting that should differ from the scenario's."""

    model_config = ConfigDict(extra="forbid")

    scenario: Word = Field("baseline", description=f"One of {', '.join(SCENARIOS)}.")
    recipes: list[Word] | None = Field(
        None, max_length=len(RECIPES),
        description=f"The recipes to compare side by side, each at most once: {', '.join(RECIPES)}. {_LEFT_OUT}",
    )
    dataset: Word | None = Field(None, description=f"One of {', '.join(DATASETS)}. {_LEFT_OUT}")
    steps: int | None = Field(None, description=_limits("steps", "Training steps"))
    learning_rate: float | None = Field(None, description=_limits("learning_rate", "The optimizer's learning rate"))
    optimizer: Word | None = Field(None, description=f"adam or sgd (with momentum). {_LEFT_OUT}")
    width: int | None = Field(None, description=_limits("width", "Units in each hidden layer"))
    depth: int | None = Field(None, description=_limits("depth", "Hidden layers"))
    activation: Word | None = Field(None, description=f"relu or tanh. {_LEFT_OUT}")
    batch_size: int | None = Field(None, description=_limits("batch_size", "Examples per step"))
    seed: int = Field(0, description="Seeds the data, the initial weights and the minibatch order; "
                                     "the same configuration and seed give the same numbers, bit for bit.")
    static_loss_scale: float | None = Field(
        None, description=_limits("static_loss_scale", "The scale of fp16_static_scaling"))
    growth_interval: int | None = Field(
        None, description=_limits("growth_interval", "Clean steps before the dynamic scaler doubles its scale"))

    def config(self) -> TrainConfig:
        fields = self.model_dump()
        recipes = fields.pop("recipes")
        return TrainConfig(**fields, recipes=None if recipes is None else tuple(recipes))


@router.post(
    "/train",
    summary="Train every chosen recipe side by side and return every step",
    response_description="config, scenario, n_params, and per recipe: loss, accuracy, underflow_fraction, "
                         "nonfinite_count, loss_scale and update_ratio per step, skipped_steps, histograms, "
                         "bytes_per_param, final_loss, final_accuracy, test_loss, test_accuracy, decision_grid",
    responses={422: {"description": "A setting outside the lab's limits; the detail names the limit"},
               429: {"description": "Too many runs started from this address; retry after the Retry-After seconds"},
               503: {"description": "Too many runs at once; retry after the Retry-After seconds"}},
    dependencies=[rate_limited("train")],
)
def train(body: TrainRequest, runs: RunsDep) -> JSONResponse:
    config = checked(body.config())
    try:
        recorded = runs.record(config)
    except RunsBusy as busy:
        raise HTTPException(503, str(busy), headers=busy.headers) from None
    content: dict[str, Any] = result(recorded)
    return JSONResponse(content)
