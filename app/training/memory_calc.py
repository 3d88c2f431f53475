"""How much accelerator memory a model's parameters take: inference weights, training state, ZeRO sharding.

Bytes are exact Fractions; GB is 10^9 bytes, GiB 2^30. Activations, the KV cache, temporary buffers and the
framework's own memory are not counted: these are the parameter-proportional parts only.

ZeRO (Rajbhandari et al., 2020) partitions over N data-parallel devices: stage 1 the optimizer states (which
include the FP32 master weights, as in the paper's K = 12 for mixed-precision Adam), stage 2 also the gradients,
stage 3 also the weights. Per device, mixed-precision Adam: 2Ψ + 2Ψ + 12Ψ/N, 2Ψ + 14Ψ/N and 16Ψ/N bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from app.formats import FORMATS, FormatSpec, InputError
from app.messages import N_, Phrase
from app.refusal import quoted
from app.training.optim import OPTIMIZERS, OptimizerId
from app.training.recipes import RECIPES, Recipe, bytes_per_param

__all__ = [
    "ACCELERATORS", "BYTES_PER_GB", "BYTES_PER_GIB", "MAX_DEVICES", "MAX_PARAMS", "WEIGHT_FORMATS", "ZERO_STAGES",
    "Accelerator", "AcceleratorFit", "MemoryReport", "memory_report", "min_devices", "optimizer_named",
    "parse_devices", "parse_param_count", "parse_zero_stage", "recipe_named", "stored_bits_per_value",
    "weight_format_named", "weights_bytes", "zero_per_device",
]

BYTES_PER_GB = 10**9
BYTES_PER_GIB = 2**30
MAX_PARAMS = 10**15  # a thousand times the largest published models: beyond this is a typo
MAX_DEVICES = 1_000_000
ZERO_STAGES = (0, 1, 2, 3)
# the first ZeRO stage that partitions each part of the training state
_ZERO_SHARDS_FROM = {"master_weights": 1, "optimizer_states": 1, "gradients": 2, "weights": 3, "weight_copies": 3}
_PARTS = ("weights", "weight_copies", "master_weights", "gradients", "optimizer_states")
# E8M0 is the MX scale format (no zero, no sign): it cannot hold weights on its own
WEIGHT_FORMATS: tuple[FormatSpec, ...] = tuple(f for f in FORMATS.values() if f.id != "float8_e8m0fnu")

_SUFFIXES = {"": 1, "k": 10**3, "m": 10**6, "b": 10**9, "t": 10**12}
_PARAMS = re.compile(
    r"(?P<number>[0-9][0-9_,]*(?:\.[0-9]*)?|\.[0-9]+)(?:e(?P<exp>[+-]?[0-9]{1,4}))?\s*(?P<suffix>[kmbt]?)",
    re.ASCII | re.IGNORECASE,
)
_PARAMS_EXAMPLES = Phrase(N_("7B, 70B, 1.5T, 350M, 7e9 or 7000000000"))  # words: "or" is translated


@dataclass(frozen=True)
class Accelerator:
    name: str
    memory_gb: int  # as its maker names it, e.g. "80 GB"


ACCELERATORS: tuple[Accelerator, ...] = (
    Accelerator("NVIDIA T4", 16),
    Accelerator("Google TPU v5e (per chip)", 16),
    Accelerator("NVIDIA L4", 24),
    Accelerator("NVIDIA GeForce RTX 4090", 24),
    Accelerator("NVIDIA V100 32 GB", 32),
    Accelerator("NVIDIA A100 40 GB", 40),
    Accelerator("NVIDIA L40S", 48),
    Accelerator("NVIDIA A100 80 GB", 80),
    Accelerator("NVIDIA H100 SXM", 80),
    Accelerator("NVIDIA H100 NVL", 94),
    Accelerator("Google TPU v5p (per chip)", 95),
    Accelerator("NVIDIA H200", 141),
    Accelerator("AMD Instinct MI300X", 192),
    Accelerator("AMD Instinct MI325X", 256),
)


def parse_param_count(text: str) -> int:
    """A parameter count as people write it (7B, 1.5T, 350M, 7e9), rounded to a whole number."""
    cleaned = text.strip()
    match = _PARAMS.fullmatch(cleaned) if len(cleaned) <= 40 else None
    if match is None:
        raise InputError(template=N_("Cannot read %(text)s as a number of parameters; write it as %(examples)s."),
                         params={"text": quoted(cleaned[:40]), "examples": _PARAMS_EXAMPLES})
    number = Decimal(match["number"].replace(",", "").replace("_", ""))
    count = Fraction(number) * Fraction(10) ** int(match["exp"] or 0) * _SUFFIXES[match["suffix"].lower()]
    if not 1 <= count <= MAX_PARAMS:
        raise InputError(template=N_("The number of parameters must be from 1 to 10^15 (a thousand trillion); "
                                    "%(text)s is outside that."), params={"text": quoted(cleaned[:40])})
    return round(count)


def parse_devices(text: str) -> int:
    """The number of accelerators the model is sharded over, 1 to MAX_DEVICES."""
    cleaned = text.strip()
    if not (cleaned.isascii() and cleaned.isdigit() and len(cleaned) <= 7 and 1 <= int(cleaned) <= MAX_DEVICES):
        raise InputError(template=N_("The number of accelerators must be a whole number from 1 to %(most)s; "
                                    "%(text)s is not."),
                         params={"most": f"{MAX_DEVICES:,}", "text": quoted(cleaned[:40])})
    return int(cleaned)


def stored_bits_per_value(spec: FormatSpec) -> Fraction:
    """Bits of memory per weight: the format's own bits_per_value, its block scales included."""
    return spec.bits_per_value


def weights_bytes(spec: FormatSpec, n_params: int) -> Fraction:
    """Bytes the weights of an `n_params` model take when stored in `spec`."""
    return n_params * spec.bytes_per_value


def _sharded_parts(stage: int) -> set[str]:
    if stage not in ZERO_STAGES:
        raise InputError(template=N_("The ZeRO stage must be one of %(stages)s."),
                         params={"stages": ", ".join(map(str, ZERO_STAGES))})
    return {part for part, first in _ZERO_SHARDS_FROM.items() if stage >= first}


def zero_per_device(recipe: Recipe, optimizer: OptimizerId, n_params: int, devices: int,
                    stage: int) -> dict[str, Fraction]:
    """Bytes per device of each part (weights, weight_copies, master_weights, gradients, optimizer_states) and the
    total."""
    sharded = _sharded_parts(stage)
    per_param = bytes_per_param(recipe, optimizer)
    parts = {part: Fraction(per_param[part] * n_params, devices if part in sharded else 1) for part in _PARTS}
    return {**parts, "total": sum(parts.values(), Fraction(0))}


def min_devices(recipe: Recipe, optimizer: OptimizerId, n_params: int, stage: int, memory_bytes: int) -> int | None:
    """The fewest devices on which each one's share fits in `memory_bytes`; None if no number of them is enough."""
    sharded = _sharded_parts(stage)
    per_param = bytes_per_param(recipe, optimizer)
    kept = sum(per_param[part] for part in _PARTS if part not in sharded) * n_params
    shared = sum(per_param[part] for part in sharded) * n_params
    if kept > memory_bytes or (kept == memory_bytes and shared):
        return None
    return 1 if not shared else max(1, -(-shared // (memory_bytes - kept)))


def parse_zero_stage(text: str) -> int:
    if text.strip() not in {str(stage) for stage in ZERO_STAGES}:
        raise InputError(template=N_("The ZeRO stage must be one of %(stages)s; %(text)s is not."),
                         params={"stages": ", ".join(map(str, ZERO_STAGES)), "text": quoted(text[:40])})
    return int(text)


def recipe_named(recipe_id: str) -> Recipe:
    if recipe_id not in RECIPES:
        raise InputError(template=N_("Unknown recipe %(name)s; choose one of: %(known)s."),
                         params={"name": quoted(recipe_id[:40]), "known": ", ".join(RECIPES)})
    return RECIPES[recipe_id]


def optimizer_named(optimizer: str) -> OptimizerId:
    if optimizer not in OPTIMIZERS:
        raise InputError(template=N_("Unknown optimizer %(name)s; choose one of: %(known)s."),
                         params={"name": quoted(optimizer[:40]), "known": ", ".join(OPTIMIZERS)})
    return optimizer


def weight_format_named(format_id: str) -> FormatSpec:
    spec = next((f for f in WEIGHT_FORMATS if f.id == format_id), None)
    if spec is None:
        # not every id: the list grows with the registry, and the sentence must stay one
        raise InputError(template=N_("Unknown weight format %(name)s; choose the id of any format in GET "
                                    "/api/formats but float8_e8m0fnu (which has no zero or sign), such as bfloat16, "
                                    "float8_e4m3fn, int4, nf4 or mxfp4."), params={"name": quoted(format_id[:40])})
    return spec


@dataclass(frozen=True)
class AcceleratorFit:
    accelerator: Accelerator
    weights_devices: int  # how many of it hold the inference weights between them
    training_fits: bool  # whether each device's share of the training state fits, at the chosen N and stage
    training_min_devices: int | None  # the fewest that would, at the chosen stage; None: no number would


@dataclass(frozen=True)
class MemoryReport:
    """Every figure of the calculator for one model size and choice of format, recipe, optimizer, N and stage."""

    n_params: int
    weight_format: FormatSpec
    recipe: Recipe
    optimizer: OptimizerId
    devices: int
    stage: int
    inference: list[tuple[FormatSpec, Fraction]]  # (format, bytes of the weights)
    training: list[tuple[Recipe, dict[str, int]]]  # (recipe, bytes per parameter of each part and the total)
    zero: list[tuple[int, dict[str, Fraction]]]  # (stage, bytes per device of each part and the total)
    accelerators: list[AcceleratorFit]

    @property
    def weights(self) -> Fraction:
        return weights_bytes(self.weight_format, self.n_params)

    @property
    def per_param(self) -> dict[str, int]:
        """Bytes per parameter of the chosen recipe and optimizer."""
        return bytes_per_param(self.recipe, self.optimizer)

    @property
    def per_device(self) -> dict[str, Fraction]:
        return self.zero[self.stage][1]


def memory_report(n_params: int, weight_format: FormatSpec, recipe: Recipe, optimizer: OptimizerId, devices: int,
                  stage: int) -> MemoryReport:
    zero = [(s, zero_per_device(recipe, optimizer, n_params, devices, s)) for s in ZERO_STAGES]
    per_device = zero_per_device(recipe, optimizer, n_params, devices, stage)["total"]
    weights = weights_bytes(weight_format, n_params)
    fits = []
    for accelerator in ACCELERATORS:
        capacity = accelerator.memory_gb * BYTES_PER_GB
        fits.append(AcceleratorFit(accelerator, max(1, -(-weights // capacity)), per_device <= capacity,
                                   min_devices(recipe, optimizer, n_params, stage, capacity)))
    return MemoryReport(
        n_params, weight_format, recipe, optimizer, devices, stage,
        inference=[(spec, weights_bytes(spec, n_params)) for spec in WEIGHT_FORMATS],
        training=[(r, bytes_per_param(r, optimizer)) for r in RECIPES.values()],
        zero=zero, accelerators=fits,
    )
