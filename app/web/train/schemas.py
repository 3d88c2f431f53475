"""The JSON of POST /api/train (app/training/runner.py gathers it), field by field, for /openapi.json.

JSON has no NaN or infinity: a loss, ratio or output that is not finite travels as null.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

PER_STEP = "one per step"


class ResolvedSettings(BaseModel):
    """Every setting the run used: the request's, and the scenario's for the rest."""

    scenario: str = Field(description="the scenario's id")
    recipes: list[str] = Field(description="the recipes trained side by side, in order")
    dataset: str = Field(description="the dataset's id")
    steps: int = Field(description="training steps")
    learning_rate: float = Field(description="the optimizer's learning rate")
    optimizer: str = Field(description="adam or sgd")
    width: int = Field(description="units in each hidden layer")
    depth: int = Field(description="hidden layers")
    activation: str = Field(description="relu or tanh")
    batch_size: int = Field(description="examples per step")
    seed: int = Field(description="the seed of the data, the initial weights and the minibatch order")
    static_loss_scale: float = Field(description="the scale of fp16_static_scaling")
    growth_interval: int = Field(description="clean steps before the dynamic scaler doubles its scale")
    loss_weight: float = Field(description="the scenario multiplies the loss by this before the backward pass")
    input_scale: float = Field(description="the scenario multiplies the inputs by this")


class ScenarioInfo(BaseModel):
    """The lesson the run belongs to."""

    id: str = Field(description="the scenario's id")
    title: str = Field(description="its title")
    explanation: str = Field(description="what it shows, in a few sentences")


class BytesPerParam(BaseModel):
    """Bytes each parameter costs under the recipe."""

    weights: int = Field(description="the weights, in the recipe's weight format")
    weight_copies: int = Field(description="low-precision copies of the weights that the matrix products read, kept "
                                           "beside them (FP8: Transformer Engine adds them to BF16 parameters); 0 "
                                           "for recipes without")
    master_weights: int = Field(description="the FP32 master copy (0 for recipes without one)")
    gradients: int = Field(description="the gradients, in the recipe's gradient format")
    optimizer_states: int = Field(description="the optimizer's state")
    total: int = Field(description="all of them")


class GradientRange(BaseModel):
    """Where the gradient format's values lie on the log2 axis of the histograms."""

    format: str = Field(description="the gradient format's id")
    min_subnormal_log2: int | None = Field(description="log2 of its smallest subnormal; null where none")
    min_normal_log2: int | None = Field(description="log2 of its smallest normal value; null where none")
    max_log2: float = Field(description="log2 of its largest finite value")


class Histogram(BaseModel):
    """Exponents of one step's (loss-scaled) gradients before rounding."""

    step: int = Field(description="the step, from 1")
    exponents: list[int] = Field(description="floor(log2 |g|), from the lowest seen to the highest")
    counts: list[int] = Field(description="how many gradients had each exponent")
    zeros: int = Field(description="gradients that were zero")
    nonfinite: int = Field(description="gradients that were inf or NaN")


class Divergence(BaseModel):
    """Where a dynamic loss scale backed off to 0: no later step can update the weights."""

    step: int = Field(description="the step at which the scale reached 0")
    detail: str = Field(description="what happened, in a sentence or two")


class DecisionGrid(BaseModel):
    """The trained model's output on a grid over the inputs, for drawing the decision boundary."""

    x: list[float] = Field(description="the grid's x coordinates")
    y: list[float] = Field(description="the grid's y coordinates")
    values: list[list[float | None]] = Field(
        description="per y, per x: the predicted class (classification) or value (regression; null if not finite)")


class GridSnapshot(BaseModel):
    """The model's output on the decision grid after one step, at each histogram's step."""

    step: int = Field(description="the step, from 1, after whose update the model predicted")
    values: list[list[float | None]] = Field(
        description="as decision_grid's values, on its x and y coordinates")


class RecipeRun(BaseModel):
    """One recipe's run, step by step, and the trained model."""

    name: str = Field(description="the recipe's name")
    summary: str = Field(description="what the recipe does, in a sentence")
    bytes_per_param: BytesPerParam = Field(description="memory per parameter")
    gradient_range: GradientRange = Field(description="the range of the gradient format")
    loss: list[float | None] = Field(description=f"the minibatch loss, {PER_STEP}")
    accuracy: list[float | None] = Field(description=f"the minibatch accuracy, {PER_STEP}; null for regression")
    underflow_fraction: list[float] = Field(description=f"the fraction of gradients that underflowed, {PER_STEP}")
    nonfinite_count: list[int] = Field(description=f"gradients that were inf or NaN, {PER_STEP}")
    loss_scale: list[float] = Field(description=f"the loss scale used, {PER_STEP}")
    update_ratio: list[float | None] = Field(description=f"|update| / |weights|, {PER_STEP}")
    skipped_steps: list[int] = Field(description="the steps the loss scaler skipped (inf or NaN gradients)")
    histograms: list[Histogram] = Field(description="gradient exponent histograms, every few steps")
    decision_grids: list[GridSnapshot] = Field(
        description="the decision grid at each histogram's step, as training moved it; the last is decision_grid's")
    diverged: Divergence | None = Field(description="null, or where the run diverged")
    final_loss: float | None = Field(description="the trained model's loss on the whole training set")
    final_accuracy: float | None = Field(description="its accuracy on the training set; null for regression")
    test_loss: float | None = Field(description="its loss on the test set")
    test_accuracy: float | None = Field(description="its accuracy on the test set; null for regression")
    decision_grid: DecisionGrid = Field(description="its output over the input plane")


class TrainResult(BaseModel):
    """A whole run: every chosen recipe, trained side by side from the same weights and data order."""

    config: ResolvedSettings = Field(description="the settings the run used")
    scenario: ScenarioInfo = Field(description="the scenario")
    n_params: int = Field(description="parameters of the model")
    recipes: dict[str, RecipeRun] = Field(description="per recipe id, in the order of config.recipes")
