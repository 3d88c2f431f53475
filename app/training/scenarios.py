"""The scenarios (DESIGN.md section 3): settings under which a lesson comes out of the arithmetic.

A scenario only chooses settings a practitioner could meet (a loss averaged over many elements, inputs left
unnormalised, a small learning rate); nothing in a curve is scripted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.messages import N_
from app.training.data import DatasetId
from app.training.model import ActivationId
from app.training.optim import OptimizerId
from app.training.recipes import RecipeId

__all__ = ["SCENARIOS", "Scenario", "ScenarioId"]

ScenarioId = Literal["baseline", "tiny_gradients", "small_updates", "large_activations"]


@dataclass(frozen=True)
class Scenario:
    id: ScenarioId
    title: str
    explanation: str  # 2-4 sentences for the page, in plain language
    recipes: tuple[RecipeId, ...]  # the comparison the lesson needs
    dataset: DatasetId
    optimizer: OptimizerId
    learning_rate: float
    steps: int
    width: int
    depth: int
    batch_size: int
    activation: ActivationId
    loss_weight: float  # the loss is multiplied by this before the backward pass
    input_scale: float  # the inputs are multiplied by this
    static_loss_scale: float
    growth_interval: int


_DEFAULT_RECIPES: tuple[RecipeId, ...] = ("fp32", "fp16_no_scaling", "fp16_dynamic_scaling", "bf16")

SCENARIOS: dict[ScenarioId, Scenario] = {s.id: s for s in (
    Scenario(
        id="baseline", title=N_("Baseline: every recipe trains"),
        explanation=N_(
            "A well-scaled problem: three overlapping clouds of points. Every recipe rounds differently, yet "
            "all end within 0.01 of FP32's loss, closer than FP32's own runs differ from seed to seed."
        ),
        recipes=_DEFAULT_RECIPES, dataset="blobs", optimizer="adam", learning_rate=0.01, steps=300,
        width=32, depth=2, batch_size=64, activation="relu", loss_weight=1.0, input_scale=1.0,
        static_loss_scale=2.0**10, growth_interval=100,
    ),
    Scenario(
        id="tiny_gradients", title=N_("Tiny gradients: FP16 underflows, loss scaling rescues it"),
        explanation=N_(
            "The loss is multiplied by 2^-18, as when it is averaged over a very large number of elements, "
            "so every gradient is tiny. FP16's smallest number is 2^-24: gradients up to half of it, 2^-25, "
            "round to zero (those between 2^-25 and 2^-24 round up to 2^-24) and their updates are lost. "
            "A loss scale lifts the gradients into FP16's range and dividing them in FP32 afterwards restores "
            "their size; BF16 has FP32's range and needs no scale."
        ),
        recipes=("fp32", "fp16_no_scaling", "fp16_static_scaling", "fp16_dynamic_scaling", "bf16"),
        dataset="spiral", optimizer="adam", learning_rate=0.01, steps=600, width=32, depth=2,
        batch_size=64, activation="relu", loss_weight=2.0**-18, input_scale=1.0,
        static_loss_scale=2.0**16, growth_interval=100,
    ),
    Scenario(
        id="small_updates", title=N_("Small updates: 16-bit weights without a master copy stall"),
        explanation=N_(
            "Adam moves each weight by about its learning rate, here 2e-5, a usual rate for fine-tuning. "
            "Between 0.25 and 0.5, neighbouring BF16 numbers are 2^-9 apart and FP16 numbers 2^-12: an "
            "update smaller than half that gap rounds away, so 16-bit weights without a master copy fall far "
            "behind (FP16, with three more bits, loses fewer updates). An FP32 master copy keeps every update."
        ),
        recipes=("fp32", "fp16_dynamic_scaling", "bf16", "fp16_no_master", "bf16_no_master"),
        dataset="blobs", optimizer="adam", learning_rate=2e-5, steps=800, width=32, depth=2,
        batch_size=64, activation="relu", loss_weight=1.0, input_scale=1.0,
        static_loss_scale=2.0**10, growth_interval=100,
    ),
    Scenario(
        id="large_activations",
        title=N_("Large activations: scaled gradients overflow FP16, the dynamic scaler backs off"),
        explanation=N_(
            "The inputs are left unnormalised, about a hundred times too large, so the activations reach the "
            "hundreds and the weight gradients computed from them are large, yet inside FP16's range: FP16 "
            "without loss scaling never overflows here. Times the dynamic scaler's starting scale of 65536 they "
            "pass FP16's largest number, 65504, and become inf: the scaler skips those steps, halves its scale "
            "until they fit and tries a larger one again after 50 clean steps. BF16 reaches 3e38 and never "
            "overflows. FP8 ends worse for another reason, precision: Adam moves each bias by about its "
            "learning rate a step, so the biases stay below 1 while the activations are in the hundreds, and "
            "the model tells the classes apart by small differences of large activations, which E4M3's 3 "
            "mantissa bits (an error of up to 1/16 of each value) blur."
        ),
        recipes=("fp32", "fp16_no_scaling", "fp16_dynamic_scaling", "bf16"),
        dataset="circles", optimizer="adam", learning_rate=0.003, steps=300, width=32, depth=2,
        batch_size=64, activation="relu", loss_weight=1.0, input_scale=128.0,
        static_loss_scale=2.0**10, growth_interval=50,
    ),
)}
