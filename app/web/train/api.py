"""POST /api/train: a whole run as JSON (DESIGN.md section 3), trained once per configuration."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from app.deps import RunsDep, rate_limited
from app.services.training_runs import result
from app.training import DATASETS, LIMITS, RECIPES, SCENARIOS, TrainConfig
from app.web.platform.schemas import UNREADABLE_BODY, refused
from app.web.train.inputs import MAX_TEXT, checked
from app.web.train.schemas import TrainResult

router = APIRouter(prefix="/api", tags=["training"])

_LEFT_OUT = "Left out: the scenario's choice."
Word = Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]


def _limits(field: str, what: str) -> str:
    low, high = LIMITS[field]
    return f"{what}, from {low:g} to {high:g}. {_LEFT_OUT}"


class TrainRequest(BaseModel):
    """A training run: a scenario, and any setting that should differ from the scenario's."""

    model_config = ConfigDict(extra="forbid")

    scenario: Word = Field("baseline", description=f"One of {', '.join(SCENARIOS)}.")
    recipes: list[Word] | None = Field(
        None, min_length=1, max_length=len(RECIPES),
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
    response_description="The settings used, and per recipe every step's figures and the trained model",
    response_model=TrainResult,
    responses={400: UNREADABLE_BODY,
               422: refused("A setting outside the lab's limits; the detail names the limit"),
               429: refused("Too many runs started from this address; retry after the Retry-After seconds"),
               503: refused("Too many runs at once; retry after the Retry-After seconds")},
    dependencies=[rate_limited("train")],
)
def train(body: TrainRequest, runs: RunsDep) -> JSONResponse:
    config = checked(body.config())
    content: dict[str, Any] = result(runs.record(config))
    # TrainResult documents this body and is not applied to it: a run has thousands of numbers, checked already
    return JSONResponse(content)
