"""What the recipes cost on real hardware: step time and peak memory of the torch backend, written as a data file.

    python -m app.training.torch_hardware --out data/hardware/training_h200.json

runs FP32, TF32, BF16 and FP16 with GradScaler on one model (CUDA when present, else CPU) and writes
{"device", "device_type", "date", "torch_version", "model": {"width", "depth", "batch_size", "n_params",
"optimizer", "steps_timed"}, "recipes": {id: {"name", "matmul_format", "step_time_ms", "peak_memory_bytes",
"skipped_steps_timed"}}, "notes": [...]}. A step is the backend's whole training step: forward, FP32 loss,
backward, GradScaler, Adam.
peak_memory_bytes is torch.cuda.max_memory_allocated over building the model and training it; on CPU it is
null, since torch keeps no peak counter for CPU memory. On CPU, TF32 runs as FP32 (matmul_format says so).
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from app.training.data import batch_indices, make_dataset
from app.training.model import MLP
from app.training.recipes import RECIPES, RecipeId
from app.training.torch_backend import TorchRecipeTrainer, build_module, matmul_format

__all__ = ["HARDWARE_RECIPES", "main", "measure"]

HARDWARE_RECIPES: tuple[RecipeId, ...] = ("fp32", "tf32", "bf16", "fp16_dynamic_scaling")
# (width, depth, batch size): large enough on a GPU that matrix products dominate the step
_CUDA_MODEL = (8192, 4, 8192)
_CPU_MODEL = (256, 2, 256)


def measure(device: str, width: int, depth: int, batch_size: int, steps: int, warmup: int) -> dict[str, Any]:
    """Time `steps` training steps of each recipe after `warmup` untimed ones, on a fresh model each."""
    device_type = torch.device(device).type
    data = make_dataset("spiral", 0)
    rows = next(batch_indices(len(data.x_train), batch_size, 0))
    x = torch.from_numpy(data.x_train[rows]).to(device)
    y = torch.from_numpy(data.y_train[rows]).to(device)
    mlp = MLP(data.x_train.shape[1], width, depth, data.info.n_outputs)
    recipes = {}
    for recipe_id in HARDWARE_RECIPES:
        recipe = RECIPES[recipe_id]
        if device_type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
        trainer = TorchRecipeTrainer(recipe, build_module(mlp, device=device), task=data.info.task,
                                     optimizer="adam", learning_rate=1e-4, loss_weight=1.0,
                                     static_loss_scale=2.0**16, growth_interval=2000, device=device)
        for _ in range(warmup):
            trainer.step(x, y)
        _synchronize(device_type)
        start = time.perf_counter()
        skipped = sum(trainer.step(x, y).skipped for _ in range(steps))
        _synchronize(device_type)
        seconds = time.perf_counter() - start
        recipes[recipe_id] = {
            "name": recipe.name,
            "matmul_format": matmul_format(recipe, device_type),
            "step_time_ms": seconds / steps * 1e3,
            "peak_memory_bytes": torch.cuda.max_memory_allocated(device) if device_type == "cuda" else None,
            "skipped_steps_timed": skipped,  # GradScaler skips the optimizer on inf/NaN: a cheaper step
        }
        del trainer  # its weights, gradients and Adam states, before the next recipe's peak is measured
    return {
        "device": torch.cuda.get_device_name(device) if device_type == "cuda" else f"CPU ({platform.machine()})",
        "device_type": device_type,
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
        "torch_version": torch.__version__,
        "model": {"width": width, "depth": depth, "batch_size": batch_size, "n_params": mlp.n_params,
                  "optimizer": "adam", "steps_timed": steps},
        "recipes": recipes,
        "notes": _notes(device_type),
    }


def _synchronize(device_type: str) -> None:
    if device_type == "cuda":
        torch.cuda.synchronize()


def _notes(device_type: str) -> list[str]:
    if device_type == "cuda":
        return ["peak_memory_bytes: torch.cuda.max_memory_allocated while the recipe's model was built and trained."]
    return ["peak_memory_bytes is null: torch keeps no peak counter for CPU memory.",
            "CPU has no TF32 path: the tf32 recipe ran in FP32.",
            f"torch used {torch.get_num_threads()} CPU threads."]


def main(argv: Sequence[str] | None = None) -> None:
    default_device = "cuda" if torch.cuda.is_available() else "cpu"
    parser = argparse.ArgumentParser(prog="python -m app.training.torch_hardware", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    parser.add_argument("--device", default=default_device, help=f"default: {default_device}")
    parser.add_argument("--width", type=int)
    parser.add_argument("--depth", type=int)
    parser.add_argument("--batch-size", type=int)
    parser.add_argument("--steps", type=int, default=20, help="timed steps per recipe")
    parser.add_argument("--warmup", type=int, default=5, help="untimed steps per recipe before those")
    args = parser.parse_args(argv)
    width, depth, batch_size = _CUDA_MODEL if torch.device(args.device).type == "cuda" else _CPU_MODEL
    result = measure(args.device, args.width or width, args.depth or depth, args.batch_size or batch_size,
                     args.steps, args.warmup)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    for recipe_id, row in result["recipes"].items():
        memory = "n/a" if row["peak_memory_bytes"] is None else f"{row['peak_memory_bytes'] / 2**20:.0f} MiB"
        print(f"{recipe_id:22} {row['matmul_format']:9} {row['step_time_ms']:9.2f} ms/step  peak {memory}")
    print(f"wrote {args.out} ({result['device']}, torch {result['torch_version']})")


if __name__ == "__main__":
    main()
