"""The training recipes (DESIGN.md section 3), as data: which format each part of a step is held in.

Memory per parameter follows the usual accounting (ZeRO, Rajbhandari et al., 2020): the weights as the model keeps
them, the low-precision copies of them that the matrix products read where a recipe adds such copies (FP8: Transformer
Engine keeps BF16 parameters and adds FP8 copies), an FP32 master copy where there is one, the gradients, and the
optimizer states (FP32 here). Adam in FP32 and Adam in mixed precision both come to 16 bytes per parameter; FP8
training as Transformer Engine does it comes to 17: it saves activation memory and time, not parameter memory.

Each recipe also has the colour and dash pattern every chart draws it with, so that a new recipe needs no
stylesheet edit: colours of a colour-blind-safe palette (after Okabe and Ito), one for light and one for dark
pages, and dashes so that no two recipes differ by colour alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

from app.formats import get_format
from app.messages import N_
from app.training.optim import OPTIMIZERS, OptimizerId

__all__ = ["RECIPES", "Colour", "Recipe", "RecipeId", "bytes_per_param", "memory_for_model"]

RecipeId = Literal["fp32", "tf32", "fp16_no_scaling", "fp16_static_scaling", "fp16_dynamic_scaling", "bf16",
                   "fp16_no_master", "bf16_no_master", "fp8_hybrid_delayed"]
LossScaling = Literal["none", "static", "dynamic"]

_BYTES_PER_GB = 10**9


class Colour(NamedTuple):
    """A CSS colour (#rrggbb) for light pages and one for dark pages."""

    light: str
    dark: str


@dataclass(frozen=True)
class Recipe:
    id: RecipeId
    name: str
    compute: str  # format of the forward matrix products' inputs (activations and weights)
    gradient: str  # format of the gradient operand of the backward matrix products
    output: str  # format every matrix product's output is rounded to: activations, biases, all gradients
    weights: str  # format of the weights as stored for the matrix products
    parameters: str  # format the model keeps its parameters in: `weights`, or wider where `weights` are copies
    master_weights: bool  # an FP32 copy takes the optimizer's updates; `weights` is rounded from it
    loss_scaling: LossScaling
    delayed_scaling: bool  # FP8: per-tensor scales from an amax history (Transformer Engine)
    summary: str
    colour: Colour  # of its line in every chart, and of its key beside its name
    dash: tuple[int, ...]  # the line's dash pattern (SVG stroke-dasharray lengths); () is a solid line


def _recipe(id: RecipeId, name: str, compute: str, *, gradient: str | None = None, output: str | None = None,
            weights: str | None = None, parameters: str | None = None, master: bool = True,
            scaling: LossScaling = "none", delayed: bool = False, summary: str, colour: tuple[str, str],
            dash: tuple[int, ...] = ()) -> Recipe:
    return Recipe(id, name, compute, gradient or compute, output or compute, weights or compute,
                  parameters or weights or compute, master, scaling, delayed, summary, Colour(*colour), dash)


RECIPES: dict[RecipeId, Recipe] = {r.id: r for r in (
    _recipe("fp32", "FP32", "float32", master=False,
            summary=N_("Everything in FP32: the reference."),
            colour=("#1b1b1f", "#f1f1f4")),
    _recipe("tf32", "TF32", "tfloat32", output="float32", weights="float32", master=False,
            summary=N_("FP32 storage; tensor cores round matrix-product inputs to 10 mantissa bits."),
            colour=("#6b6e76", "#a9acb6"), dash=(2, 3)),
    _recipe("fp16_no_scaling", N_("FP16, no loss scaling"), "float16",
            summary=N_("FP16 compute with FP32 master weights, but nothing keeps small gradients in range."),
            colour=("#c24f00", "#ff8a3d")),
    _recipe("fp16_static_scaling", N_("FP16, static loss scaling"), "float16", scaling="static",
            summary=N_("The loss is multiplied by a fixed scale; steps with inf/NaN gradients are skipped."),
            colour=("#a46f00", "#e6b13a"), dash=(8, 3)),
    _recipe("fp16_dynamic_scaling", N_("FP16, dynamic loss scaling"), "float16", scaling="dynamic",
            summary=N_("torch.autocast with torch.amp.GradScaler: the scale backs off on overflow, grows back."),
            colour=("#0072b2", "#5bb8f0"), dash=(4, 3)),
    _recipe("bf16", "BF16", "bfloat16",
            summary=N_("BF16 compute with FP32 master weights: FP32's range, so no loss scaling."),
            colour=("#008060", "#2fc99c")),
    _recipe("fp16_no_master", N_("FP16 weights, no master copy"), "float16", master=False, scaling="dynamic",
            summary=N_("Pure FP16: the update w + Δ is rounded back to FP16 (with dynamic loss scaling)."),
            colour=("#b0407f", "#e98ac0"), dash=(10, 3, 2, 3)),
    _recipe("bf16_no_master", N_("BF16 weights, no master copy"), "bfloat16", master=False,
            summary=N_("Pure BF16: the update w + Δ is rounded back to BF16, 8 significant bits."),
            colour=("#6a4fb0", "#b49cf2"), dash=(6, 2, 2, 2)),
    _recipe("fp8_hybrid_delayed", N_("FP8 hybrid, delayed scaling"), "float8_e4m3fn", gradient="float8_e5m2",
            output="bfloat16", parameters="bfloat16", delayed=True,
            summary=N_("E4M3 forward, E5M2 backward, per-tensor scales from an amax history; BF16 outputs."),
            colour=("#7a6a00", "#d8cb52"), dash=(1, 2)),
)}


def _bytes(format_id: str) -> int:
    return int(get_format(format_id).bytes_per_value)


def bytes_per_param(recipe: Recipe, optimizer: OptimizerId) -> dict[str, int]:
    """Bytes each parameter costs: weights, their low-precision copies, master weights, gradients, optimizer
    states, and the total."""
    parts = {
        "weights": _bytes(recipe.parameters),
        "weight_copies": _bytes(recipe.weights) if recipe.weights != recipe.parameters else 0,
        "master_weights": 4 if recipe.master_weights else 0,
        "gradients": _bytes(recipe.output),
        "optimizer_states": OPTIMIZERS[optimizer].state_bytes_per_param,
    }
    return {**parts, "total": sum(parts.values())}


def memory_for_model(recipe: Recipe, optimizer: OptimizerId, n_params: int) -> dict[str, float]:
    """Gigabytes (10^9 bytes) each part takes for a model of `n_params` parameters, and the total."""
    return {part: n * n_params / _BYTES_PER_GB for part, n in bytes_per_param(recipe, optimizer).items()}
