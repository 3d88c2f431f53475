"""A run of the training demo as a stand-alone PyTorch script, one recipe per script: "take it home".

The script needs torch and numpy only, so it cannot import the lab: it rebuilds the data, the initial weights and
the minibatch order itself. The lab's own code stays the one source of truth: the script holds the dataset's
generator and `batch_indices` as app/training/data.py has them (their source, copied in by `inspect`), the data
split and the weight initialisation as small templates of data.py's `make_dataset` and model.py's
`MLP.init_params`, with data.py's and model.py's constants. A test runs the emitted code against the lab's for
every dataset and several seeds, and runs the scripts on a CPU against app/training/torch_backend.py.

The training step is written out for the recipe alone, in the terms torch offers, as the torch backend maps them:
FP32 plain; TF32 by allowing cuBLAS TF32 (CUDA only); FP16 and BF16 products under `torch.autocast` with FP32
master weights; loss scaling with `torch.amp.GradScaler` (static scaling: a GradScaler whose scale is set back after
every step, so that it skips steps with inf/NaN gradients as the lab's static scaler does); 16-bit weights without
a master copy by rounding the FP32 parameters after every update. FP8 with delayed scaling has no torch.autocast
form: the script uses NVIDIA Transformer Engine's DelayedScaling (Format.HYBRID) where an FP8-capable GPU and
Transformer Engine are there, and otherwise says so and runs BF16.
"""

from __future__ import annotations

import math
import textwrap
from string import Template

from app.training import scaler as _scaler
from app.training.config import ResolvedConfig, TrainConfig, as_recipe_id
from app.training.data import DATASETS
from app.training.pytorch_script_model import data_source, init_source, model_source, n_inputs
from app.training.recipes import RECIPES, Recipe, RecipeId
from app.training.scenarios import SCENARIOS

__all__ = ["pytorch_script", "script_filename"]

_TORCH_DTYPES = {"float16": "torch.float16", "bfloat16": "torch.bfloat16"}
_FORMAT_NAMES = {"float16": "FP16", "bfloat16": "BF16"}


def script_filename(recipe_id: RecipeId) -> str:
    """The name the download is saved as."""
    return f"precision_lab_{as_recipe_id(recipe_id)}.py"


def pytorch_script(config: TrainConfig, recipe_id: RecipeId, *, page: str | None = None) -> str:
    """The Python source of a script that trains `recipe_id` under `config` (its own recipe list aside) in PyTorch.

    `page` is where the settings came from (the demo's URL), quoted in the script's docstring. ConfigError, as
    the demo refuses them, for a configuration outside the lab's limits or an unknown recipe.
    """
    resolved = config.resolved()
    recipe = RECIPES[as_recipe_id(recipe_id)]
    parts = [
        _header(resolved, recipe, page).strip("\n") + "\n\n" + _settings(resolved, recipe),
        data_source(resolved.dataset),
        init_source(),
        model_source(recipe),
        _recipe_source(recipe),
        _loop_source(resolved, recipe),
    ]
    return "\n\n\n".join(part.strip("\n") for part in parts) + "\n"


# -- the parts, in the order the script has them -----------------------------------------------------------------


def _header(config: ResolvedConfig, recipe: Recipe, page: str | None) -> str:
    info = DATASETS[config.dataset]
    scenario = SCENARIOS[config.scenario]
    about = (f"The same network, data, initial weights, minibatch order and settings as the lab's training demo "
             f"(scenario: {scenario.title}), in plain PyTorch: torch.autocast and torch.amp.GradScaler as the recipe "
             "calls for. It needs only Python 3.10 or newer, torch 2.4 or newer and numpy: the data and the initial "
             "weights are made here with numpy, exactly as the lab makes them, so on a CPU the losses it prints are "
             "the lab's PyTorch backend's.")
    where = f"\nSettings from the lab's page {page}\n" if page else ""
    return Template('''\
#!/usr/bin/env python3
"""Precision Lab as PyTorch: $name; a small MLP on $dataset, seed $seed.

$summary

$about
$where
Run it:   python $filename                  # $steps steps, on a CUDA GPU if there is one
          python $filename --steps 20 --device cpu --print-every 1
"""

from __future__ import annotations

import argparse
${contextlib}from collections.abc import Iterator

import numpy as np
import torch
''').substitute(name=recipe.name, dataset=info.name, seed=config.seed, summary=_wrap(recipe.summary),
                about=_wrap(about), where=where, filename=script_filename(recipe.id), steps=config.steps,
                contextlib="import contextlib\n" if recipe.delayed_scaling else "")


def _settings(config: ResolvedConfig, recipe: Recipe) -> str:
    info = DATASETS[config.dataset]
    lines = [
        "# The run's settings (the lab's scenario fills in what the page left open).",
        f'RECIPE = "{recipe.id}"  # {recipe.name}',
        f'DATASET = "{config.dataset}"  # {info.name}: {info.task}',
        f"SEED = {config.seed}  # seeds the data, the initial weights and the minibatch order",
        f"STEPS = {config.steps}",
        f"BATCH_SIZE = {config.batch_size}",
        f"N_INPUTS = {n_inputs(config)}",
        f"WIDTH = {config.width}  # units in each hidden layer",
        f"DEPTH = {config.depth}  # hidden layers",
        f"N_OUTPUTS = {info.n_outputs}",
        f'ACTIVATION = "{config.activation}"',
        f'OPTIMIZER = "{config.optimizer}"',
        f"LEARNING_RATE = {_literal(config.learning_rate)}",
        f"LOSS_WEIGHT = {_literal(config.loss_weight)}  # the loss is multiplied by this before the backward pass",
        f"INPUT_SCALE = {_literal(config.input_scale)}  # the inputs are multiplied by this",
    ]
    if recipe.loss_scaling == "static":
        lines.append(f"STATIC_LOSS_SCALE = {_literal(config.static_loss_scale)}")
    if recipe.loss_scaling == "dynamic":
        lines.append(f"GROWTH_INTERVAL = {config.growth_interval}  # clean steps before the scale doubles")
    return "\n".join(lines)


def _recipe_source(recipe: Recipe) -> str:
    """The recipe's pieces: where its products run, its loss scaler, how its weights are stored."""
    lines = [f"# The recipe: {recipe.name}."]
    if recipe.compute == "tfloat32":
        lines += [
            "def allow_tf32(device: torch.device) -> None:",
            '    """TF32: FP32 tensors, but cuBLAS may round the matrix products\' inputs to 10 mantissa bits on',
            '    tensor cores (NVIDIA Ampere or newer). A CPU has no TF32: there this is plain FP32."""',
            '    if device.type != "cuda":',
            '        print("Note: TF32 is a CUDA tensor-core mode; on this device the products run in plain FP32.")',
            "        return",
            '    if hasattr(torch.backends.cuda.matmul, "fp32_precision"):  # torch 2.9 and newer',
            '        torch.backends.cuda.matmul.fp32_precision = "tf32"',
            "    else:",
            "        torch.backends.cuda.matmul.allow_tf32 = True",
            "",
            "",
        ]
    lines += ["def make_scaler(device: torch.device) -> torch.amp.GradScaler | None:"]
    if recipe.loss_scaling == "dynamic":
        lines += [
            '    """Dynamic loss scaling: the loss is multiplied by the scale before the backward pass; a step',
            "    whose gradients hold inf or NaN is skipped and the scale halved; after GROWTH_INTERVAL clean steps",
            '    the scale doubles."""',
            f"    return torch.amp.GradScaler(device.type, init_scale={_literal(_scaler.DEFAULT_INIT_SCALE)}, "
            f"growth_factor={_literal(_scaler.DEFAULT_GROWTH_FACTOR)},",
            f"                                backoff_factor={_literal(_scaler.DEFAULT_BACKOFF_FACTOR)}, "
            "growth_interval=GROWTH_INTERVAL)",
        ]
    elif recipe.loss_scaling == "static":
        lines += [
            '    """Static loss scaling: the loss is multiplied by STATIC_LOSS_SCALE. A GradScaler does the scaling,',
            "    the unscaling in FP32 and the skipping of steps whose gradients hold inf or NaN; train_step sets its",
            '    scale back after every step, so the scale never changes."""',
            "    return torch.amp.GradScaler(device.type, init_scale=STATIC_LOSS_SCALE)",
        ]
    else:
        lines += ['    """No loss scaling."""', "    return None"]
    stored = None if recipe.master_weights else _TORCH_DTYPES.get(recipe.weights)
    if stored:
        name = _FORMAT_NAMES[recipe.weights]
        lines += [
            "",
            "",
            "def round_weights(model: torch.nn.Module) -> None:",
            f'    """No master copy: after every update the weights keep only what {name} holds. They are',
            f"    FP32 tensors rounded to {name} values, so the optimizer's states stay FP32 as in the lab",
            f'    (model.to({stored}) would give {name} optimizer states too)."""',
            "    with torch.no_grad():",
            "        for p in model.parameters():",
            f"            p.copy_(p.to({stored}))",
        ]
    return "\n".join(lines)


def _autocast_line(recipe: Recipe) -> str | None:
    """The `with` statement the forward pass runs under, or None for FP32 (and TF32) products."""
    if recipe.delayed_scaling:
        return ("    with torch.autocast(x.device.type, dtype=torch.bfloat16), fp8_context(fp8):"
                "  # FP8 where it runs, else BF16")
    dtype = _TORCH_DTYPES.get(recipe.compute)
    if dtype is None:
        return None
    return (f"    with torch.autocast(x.device.type, dtype={dtype}):"
            f"  # the matrix products in {_FORMAT_NAMES[recipe.compute]}")


def _loop_source(config: ResolvedConfig, recipe: Recipe) -> str:
    task = DATASETS[config.dataset].task
    autocast = _autocast_line(recipe)
    fp8 = recipe.delayed_scaling
    te_param = ", fp8" if fp8 else ""
    forward = ["    outputs = model(x)"] if autocast is None else [autocast, "        outputs = model(x)"]
    scaled = recipe.loss_scaling != "none"
    stored = not recipe.master_weights and recipe.weights in _TORCH_DTYPES

    step = [f"def train_step(model, optimizer, scaler, x, y{te_param}) -> tuple[float, bool]:",
            '    """One step on a minibatch: its loss (before LOSS_WEIGHT) and whether the update was skipped."""',
            "    optimizer.zero_grad(set_to_none=True)",
            *forward,
            "    loss = loss_fn(outputs.float(), y)  # the loss in FP32"]
    if scaled:
        step += ["    scaler.scale(loss * LOSS_WEIGHT).backward()",
                 "    skipped = not all(bool(p.grad.isfinite().all()) for p in model.parameters())",
                 "    scaler.step(optimizer)  # unscales the gradients in FP32; skips the update if any is inf or NaN",
                 "    scaler.update(STATIC_LOSS_SCALE)" if recipe.loss_scaling == "static" else "    scaler.update()"]
    else:
        step += ["    (loss * LOSS_WEIGHT).backward()",
                 "    skipped = False  # without a loss scaler every step is taken, inf and NaN included",
                 "    optimizer.step()"]
    if stored:
        step.append("    round_weights(model)")
    step.append("    return loss.item(), skipped")

    evaluate = [
        "@torch.no_grad()",
        f"def evaluate(model, x, y{te_param}) -> tuple[float, float | None]:",
        '    """Loss and accuracy (None for regression) of the current weights on (x, y)."""',
        *forward,
        "    loss = loss_fn(outputs.float(), y)",
        "    accuracy = None" if task == "regression"
        else "    accuracy = float((outputs.float().argmax(dim=1) == y).float().mean())",
        "    return loss.item(), accuracy",
    ]
    loss_fn = ("    return torch.nn.functional.mse_loss(outputs, targets)" if task == "regression"
               else "    return torch.nn.functional.cross_entropy(outputs, targets)")
    fp8_context = [
        "def fp8_context(fp8):",
        '    """te.fp8_autocast with the delayed-scaling recipe, or nothing where FP8 does not run."""',
        "    if fp8 is None:",
        "        return contextlib.nullcontext()",
        "    te, recipe = fp8",
        "    return te.fp8_autocast(enabled=True, fp8_recipe=recipe)",
        "",
        "",
    ] if fp8 else []
    setup = []
    if recipe.compute == "tfloat32":
        setup.append("    allow_tf32(device)")
    if fp8:
        setup.append("    fp8 = fp8_engine(device)")
    setup += [
        "    arrays = make_dataset(SEED, INPUT_SCALE)",
        "    x_train, y_train, x_test, y_test = (torch.from_numpy(a).to(device) for a in arrays)",
        f"    model = build_model(device{te_param})",
    ]
    if stored:
        setup.append("    round_weights(model)")
    setup += [
        '    if OPTIMIZER == "sgd":',
        "        optimizer = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE, momentum=0.9)",
        "    else:",
        "        optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)",
        "    scaler = make_scaler(device)",
    ]

    main = [
        "def main() -> None:",
        '    parser = argparse.ArgumentParser(description=__doc__.split("\\n")[0])',
        '    parser.add_argument("--steps", type=int, default=STEPS, help=f"training steps (default {STEPS})")',
        '    parser.add_argument("--device", default=None, help="cpu, cuda, ... (default: cuda if there is one)")',
        '    parser.add_argument("--print-every", type=int, default=10, help="print the loss every N steps")',
        "    args = parser.parse_args()",
        '    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))',
        *setup,
        "    batches = batch_indices(len(x_train), BATCH_SIZE, SEED)",
        "    for step in range(1, args.steps + 1):",
        "        rows = torch.from_numpy(next(batches)).to(device)",
        *(['        scale = f"  scale {scaler.get_scale():g}"  # the scale this step uses'] if scaled else []),
        f"        loss, skipped = train_step(model, optimizer, scaler, x_train[rows], y_train[rows]{te_param})",
        "        if step % args.print_every == 0 or step == args.steps or skipped:",
        '            print(f"step {step:5d}  loss {loss:.9g}' + ("{scale}" if scaled else "")
        + '" + ("  skipped" if skipped else ""))',
        '    for name, x, y in (("train", x_train, y_train), ("test", x_test, y_test)):',
        f"        loss, accuracy = evaluate(model, x, y{te_param})",
        '        print(f"final {name} loss {loss:.9g}" + ("" if accuracy is None else f"  accuracy {accuracy:.4f}"))',
    ]
    return "\n".join([
        "# Training.",
        "def loss_fn(outputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:",
        loss_fn,
        "",
        "",
        *fp8_context,
        *step,
        "",
        "",
        *evaluate,
        "",
        "",
        *main,
        "",
        "",
        'if __name__ == "__main__":',
        "    main()",
    ])


# -- helpers ---------------------------------------------------------------------------------------------------


def _literal(value: float) -> str:
    """A number as Python source that reads back exactly: a power of two far from 1 as 2.0 ** n."""
    if isinstance(value, int):
        return str(value)
    mantissa, exponent = math.frexp(value)
    if value > 0 and mantissa == 0.5 and abs(exponent - 1) >= 8:
        return f"2.0 ** {exponent - 1}"
    return repr(float(value))


def _wrap(text: str) -> str:
    return "\n".join(textwrap.wrap(text, 110))
