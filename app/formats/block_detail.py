"""A quantised block explained, exactly: how its scale was chosen, each element's error, and what became of each
value (kept, saturated at the element's max, flushed to zero, or NaN)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np

from app.formats.blocks import BlockQuantization, element_emax
from app.formats.registry import FORMATS
from app.formats.spec import FormatSpec

__all__ = ["BlockSummary", "Fate", "MxExponent", "block_absmax", "block_step", "exact_error", "fates", "mx_exponent",
           "nvfp4_quotients", "scale_rule", "summarise"]

Fate = Literal["kept", "saturated", "zeroed", "nan"]
ScaleRule = Literal["mx", "nvfp4", "absmax"]


def scale_rule(spec: FormatSpec) -> ScaleRule:
    """How the format picks a block's scale: OCP MX's power of two, NVFP4's two levels, or NF4's absmax."""
    if spec.kind == "codebook":
        return "absmax"
    return "mx" if spec.scale is FORMATS["float8_e8m0fnu"] else "nvfp4"


@dataclass(frozen=True)
class MxExponent:
    """OCP MX v1.0's shared exponent of a block: floor(log2 absmax) − emax of the element, clamped to E8M0."""

    floor_log2: int
    element_emax: int
    unclamped: int
    shared: int

    @property
    def clamped(self) -> bool:
        return self.shared != self.unclamped


def mx_exponent(absmax: float, spec: FormatSpec) -> MxExponent | None:
    """The shared exponent of a block with this absmax; None where there is no log2 (0, NaN, inf)."""
    if not math.isfinite(absmax) or absmax == 0 or spec.scale is None:
        return None
    floor_log2 = math.frexp(absmax)[1] - 1
    emax = element_emax(spec)
    unclamped = floor_log2 - emax
    return MxExponent(floor_log2, emax, unclamped, min(max(unclamped, spec.scale.emin), spec.scale.emax))


def nvfp4_quotients(block_absmax: float, tensor_absmax: float, tensor_scale: float,
                    spec: FormatSpec) -> tuple[Fraction, Fraction]:
    """NVFP4's two exact quotients before rounding: tensor absmax / (6 × 448), the FP32 tensor scale's, and
    block absmax / 6 / tensor scale, the E4M3 block scale's."""
    assert spec.element is not None and spec.scale is not None, "a block format has both"
    element_max = spec.element.max
    return (Fraction(tensor_absmax) / (element_max * spec.scale.max),
            Fraction(block_absmax) / element_max / Fraction(tensor_scale))


def block_absmax(result: BlockQuantization, block: int) -> float:
    """The largest magnitude of one block's values: NaN where it holds a NaN, inf where it holds ±inf."""
    size = result.block_size
    return float(np.abs(result.inputs[block * size : (block + 1) * size]).max())


def block_step(result: BlockQuantization, block: int) -> float:
    """The value one unit of an element's value stands for in this block: its scale, times NVFP4's tensor scale
    and MXINT8's implicit 2^-6."""
    spec = FORMATS[result.format]
    return result.blocks[block].scale * (result.tensor_scale or 1.0) * 2.0**spec.element_scale_exp


def exact_error(stored: float, value: float) -> Fraction | None:
    """stored − value, exactly; None where either is not finite."""
    if not (math.isfinite(stored) and math.isfinite(value)):
        return None
    return Fraction(stored) - Fraction(value)


def fates(result: BlockQuantization) -> list[Fate]:
    """What became of each value: NaN, flushed to zero, saturated at the element's max, or kept (rounded)."""
    spec = FORMATS[result.format]
    element_max = float((spec.element or spec).max)
    out: list[Fate] = []
    for i, (value, stored) in enumerate(zip(result.inputs.tolist(), result.dequantized.tolist(), strict=True)):
        if math.isnan(stored):
            out.append("nan")
        elif stored == 0 and value != 0:
            out.append("zeroed")
        elif abs(value) > block_step(result, i // result.block_size) * element_max:
            out.append("saturated")
        else:
            out.append("kept")
    return out


@dataclass(frozen=True)
class BlockSummary:
    """A quantised vector in a few numbers: exact MSE and max error (None when NaN), how many nonzero values
    became zero, and what became of the value of largest magnitude."""

    result: BlockQuantization
    mse: Fraction | None
    max_error: Fraction | None
    zeroed: int
    largest: int | None  # the index of the finite value of largest magnitude; None if none is nonzero
    largest_fate: Fate | None


def summarise(result: BlockQuantization) -> BlockSummary:
    errors = [exact_error(s, v) for s, v in zip(result.dequantized.tolist(), result.inputs.tolist(), strict=True)]
    known = [e for e in errors if e is not None]
    complete = len(known) == len(errors)
    magnitudes = np.where(np.isfinite(result.inputs), np.abs(result.inputs), 0.0)
    largest = int(np.argmax(magnitudes)) if magnitudes.max() > 0 else None
    fate = fates(result)
    return BlockSummary(
        result=result,
        mse=sum((e * e for e in known), Fraction(0)) / len(errors) if complete else None,
        max_error=max(abs(e) for e in known) if complete else None,
        zeroed=fate.count("zeroed"),
        largest=largest,
        largest_fate=fate[largest] if largest is not None else None,
    )
