"""POST /api/train: a whole run as JSON (DESIGN.md section 3), trained once per configuration."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from app.deps import RunsDep, rate_limited
from app.services.training_runs import result
from app.training import ACTIVATIONS, DATASETS, LIMITS, OPTIMIZERS, RECIPES, SCENARIOS, TrainConfig
from app.web.platform.schemas import UNREADABLE_BODY, number, one_of, refused, stated, whole
from app.web.train.inputs import MAX_TEXT, checked
from app.web.train.schemas import TrainResult

router = APIRouter(prefix="/api", tags=["training"])

_LEFT_OUT = "Left out: the scenario's choice."
Word = Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]
# The limits /openapi.json states (app/web/platform/schemas.py: `stated`); TrainConfig checks them and refuses what is
# outside with its own sentence. Within them a run may still be too large for the lab's work or memory budget.
Scenario = Annotated[Word, stated(one_of(SCENARIOS))]
Recipe = Annotated[Word, stated(one_of(RECIPES))]
Dataset = Annotated[Word, stated(one_of(DATASETS))]
Optimizer = Annotated[Word, stated(one_of(OPTIMIZERS))]
Activation = Annotated[Word, stated(one_of(ACTIVATIONS))]


def _whole(field: str) -> WithJsonSchema:
    low, high = LIMITS[field]
    return stated(whole(int(low), int(high)))


def _number(field: str) -> WithJsonSchema:
    return stated(number(*LIMITS[field]))


def _limits(field: str, what: str) -> str:
    low, high = LIMITS[field]
    return f"{what}, from {low:g} to {high:g}. {_LEFT_OUT}"


class TrainRequest(BaseModel):
    """A training run: a scenario, and any setting that should differ from the scenario's."""

    model_config = ConfigDict(extra="forbid")

    scenario: Scenario = Field("baseline", description=f"One of {', '.join(SCENARIOS)}.")
    recipes: list[Recipe] | None = Field(
        None, min_length=1, max_length=len(RECIPES), json_schema_extra={"uniqueItems": True},
        description=f"The recipes to compare side by side, each at most once: {', '.join(RECIPES)}. {_LEFT_OUT}",
    )
    dataset: Dataset | None = Field(None, description=f"One of {', '.join(DATASETS)}. {_LEFT_OUT}")
    steps: Annotated[int, _whole("steps")] | None = Field(None, description=_limits("steps", "Training steps"))
    learning_rate: Annotated[float, _number("learning_rate")] | None = Field(
        None, description=_limits("learning_rate", "The optimizer's learning rate"))
    optimizer: Optimizer | None = Field(None, description=f"adam or sgd (with momentum). {_LEFT_OUT}")
    width: Annotated[int, _whole("width")] | None = Field(
        None, description=_limits("width", "Units in each hidden layer"))
    depth: Annotated[int, _whole("depth")] | None = Field(None, description=_limits("depth", "Hidden layers"))
    activation: Activation | None = Field(None, description=f"relu or tanh. {_LEFT_OUT}")
    batch_size: Annotated[int, _whole("batch_size")] | None = Field(
        None, description=_limits("batch_size", "Examples per step"))
    seed: Annotated[int, _whole("seed")] = Field(
        0, description=f"Seeds the data, the initial weights and the minibatch order, from 0 to "
                       f"{int(LIMITS['seed'][1])}; the same configuration and seed give the same numbers, bit for bit.")
    static_loss_scale: Annotated[float, _number("static_loss_scale")] | None = Field(
        None, description=_limits("static_loss_scale", "The scale of fp16_static_scaling"))
    growth_interval: Annotated[int, _whole("growth_interval")] | None = Field(
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
