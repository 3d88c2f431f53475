"""Block quantisers: MX (OCP Microscaling v1.0), NVFP4 and NF4, where each block of values shares one scale.

The input is an FP32 tensor: values are first rounded to FP32 (nearest even), and errors are against those.
Every quotient is taken once, in float64, by a divisor that float64 holds exactly and that has too few
significant bits for the rounded quotient to land on a midpoint of the element format unless the exact
quotient does; so each element is the exact quotient rounded once, and each dequantised value is exact.

A block holding NaN or ±inf has no finite absmax to scale by. MX follows OCP MX v1.0: the shared exponent
floor(log2 absmax) − emax is then not a number, so the scale is E8M0's NaN (0xff), and a NaN scale makes
every element of its block NaN whatever its bits (stored as zeros here). NVFP4 and NF4 define no rule, so
they follow their own arithmetic: NVFP4's E4M3 block scale absmax / 6 / tensor scale is NaN (0x7f), its
elements NaN, and its FP32 tensor scale is taken over the other blocks, which so keep their scales;
NF4's FP32 scale is the absmax itself (NaN, or inf), and each element is NaN: value / NaN and code × NaN are
NaN; finite / inf is 0, inf / inf NaN, and 0 × inf NaN (the codes are stored as the zero code).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from app.formats.block_inputs import (
    BLOCK_FORMAT_IDS,
    MAX_VALUES,
    block_format,
    block_size_of,
    checked_block_size,
    fp32_vector,
)
from app.formats.codec import encode
from app.formats.exact import Real
from app.formats.registry import FORMATS, NF4_BLOCK_SIZE
from app.formats.spec import FormatSpec
from app.formats.vector import decode_bits, encode_bits

__all__ = [
    "BLOCK_FORMAT_IDS", "MAX_VALUES", "NF4_BLOCK_SIZE", "Block", "BlockQuantization", "block_size_of",
    "element_emax", "quantize_blocks",
]

_FLOAT32 = FORMATS["float32"]


@dataclass(frozen=True)
class Block:
    """One block: its scale (bit pattern in the scale format, and value), its element codes and values."""

    scale_bits: int
    scale: float
    codes: list[int]
    values: list[float]


@dataclass(frozen=True, eq=False)
class BlockQuantization:
    """A vector quantised block by block, with its error against the input."""

    format: str
    block_size: int
    blocks: tuple[Block, ...]
    dequantized: np.ndarray
    mse: float  # NaN where a value or a block is NaN
    max_abs_error: float
    inputs: np.ndarray  # the values quantised: the input rounded to FP32
    tensor_scale: float | None = None  # NVFP4's FP32 scale over the whole tensor (its finite blocks)


class _Quantised(NamedTuple):
    scale_format: FormatSpec
    scales: np.ndarray  # one per block
    codes: np.ndarray  # blocks × block size, the last block padded with zeros
    dequantized: np.ndarray  # as codes
    tensor_scale: float | None = None


def quantize_blocks(
    values: Sequence[float], format_id: str, block_size: int | None = None
) -> BlockQuantization:
    """Quantise values in blocks of block_size (the format's default if None); the last may be shorter."""
    spec = block_format(format_id)
    size = checked_block_size(block_size, spec)
    x = fp32_vector(values)
    padded = np.zeros(-(-len(x) // size) * size)
    padded[: len(x)] = x  # zeros pad the last block and change no block's absmax
    grid = padded.reshape(-1, size)
    absmax = np.abs(grid).max(axis=1)  # NaN where a block holds NaN, inf where it holds inf
    special = ~np.isfinite(absmax)
    finite = np.where(special[:, None], 0.0, grid), np.where(special, 0.0, absmax)
    if spec.kind == "codebook":
        parts = _absmax_codebook(*finite, spec)
    elif spec.scale is not None and spec.scale.id == "float8_e8m0fnu":
        parts = _microscaled(*finite, spec)
    else:
        parts = _nvfp4(*finite, spec)
    if special.any():
        parts = _not_finite(parts, special, absmax, spec)
    dequantized = parts.dequantized.reshape(-1)[: len(x)].copy()
    with np.errstate(invalid="ignore"):
        error = dequantized - x
        mse, max_abs_error = float(np.mean(error * error)), float(np.max(np.abs(error)))
    return BlockQuantization(
        format=spec.id,
        block_size=size,
        blocks=_blocks(parts, len(x)),
        dequantized=dequantized,
        mse=mse,
        max_abs_error=max_abs_error,
        inputs=x,
        tensor_scale=parts.tensor_scale,
    )


def element_emax(spec: FormatSpec) -> int:
    """floor(log2 max) of a block format's elements, their implicit scale included: OCP MX's emax_elem."""
    return int(np.frexp(float(spec.max))[1]) - 1


# -- the quantisers ------------------------------------------------------------------------------


def _element_and_scale(spec: FormatSpec) -> tuple[FormatSpec, FormatSpec]:
    assert spec.element is not None and spec.scale is not None, "a block format has both"
    return spec.element, spec.scale


def _microscaled(grid: np.ndarray, absmax: np.ndarray, spec: FormatSpec) -> _Quantised:
    """OCP MX: shared exponent floor(log2 absmax) − emax of the element, clamped to E8M0; all-zero: 2^-127."""
    element, scale_spec = _element_and_scale(spec)
    floor_log2 = np.frexp(absmax)[1] - 1
    shared = np.where(absmax > 0, floor_log2 - element_emax(spec), scale_spec.emin)
    shared = np.clip(shared, scale_spec.emin, scale_spec.emax)[:, None]
    exponent = shared + spec.element_scale_exp
    # dividing by a power of two is exact; the clamp to ±max is symmetric, so MXINT8 never uses -128
    quotient = np.clip(np.ldexp(grid, -exponent), -float(element.max), float(element.max))
    codes = encode_bits(quotient, element)
    dequantized = np.ldexp(decode_bits(codes, element), exponent)
    return _Quantised(scale_spec, np.ldexp(1.0, shared[:, 0]), codes, dequantized)


def _nvfp4(grid: np.ndarray, absmax: np.ndarray, spec: FormatSpec) -> _Quantised:
    """NVFP4: FP32 tensor scale absmax / (6 × 448), E4M3 block scales absmax / 6 / tensor scale, E2M1."""
    element, scale_spec = _element_and_scale(spec)
    exact = Real.of(Fraction(float(absmax.max())) / (element.max * scale_spec.max))
    tensor_scale = encode(_FLOAT32, exact).encoding.value.to_float()
    if tensor_scale == 0:
        tensor_scale = 1.0  # an all-zero tensor (or one too small for FP32): nothing to scale
    block_scales = decode_bits(
        encode_bits(absmax / (float(element.max) * tensor_scale), scale_spec, saturate=True), scale_spec
    )
    step = (block_scales * tensor_scale)[:, None]  # exact: 4 significant bits times 24
    quotient = _divide(grid, step)
    codes = encode_bits(quotient, element, saturate=True)
    return _Quantised(scale_spec, block_scales, codes, decode_bits(codes, element) * step, tensor_scale)


def _absmax_codebook(grid: np.ndarray, absmax: np.ndarray, spec: FormatSpec) -> _Quantised:
    """NF4: the scale is the block's absmax as FP32; each element the nearest code of value / scale."""
    scales = absmax.astype(np.float32).astype(np.float64)
    step = scales[:, None]
    quotient = _divide(grid, step)
    codes = encode_bits(quotient, spec)
    return _Quantised(_FLOAT32, scales, codes, decode_bits(codes, spec) * step)


def _divide(grid: np.ndarray, step: np.ndarray) -> np.ndarray:
    """grid / step, and a zero of the value's sign where the step is 0 (a block with nothing to scale)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(step > 0, grid / step, np.copysign(0.0, grid))


def _not_finite(parts: _Quantised, special: np.ndarray, absmax: np.ndarray, spec: FormatSpec) -> _Quantised:
    """The blocks holding NaN or ±inf: their scale NaN (NF4's: the absmax itself), their elements NaN."""
    zero_code = encode_bits(np.zeros(1), spec.element or spec)[0]
    scales = np.where(special, absmax if spec.kind == "codebook" else np.nan, parts.scales)
    codes = np.where(special[:, None], zero_code, parts.codes).astype(parts.codes.dtype)
    dequantized = np.where(special[:, None], np.nan, parts.dequantized)
    return _Quantised(parts.scale_format, scales, codes, dequantized, parts.tensor_scale)


def _blocks(parts: _Quantised, count: int) -> tuple[Block, ...]:
    """One Block per row, the padding of the last block left off."""
    code_rows, value_rows = parts.codes.tolist(), parts.dequantized.tolist()
    last = count - (len(code_rows) - 1) * parts.codes.shape[1]
    code_rows[-1], value_rows[-1] = code_rows[-1][:last], value_rows[-1][:last]
    scale_bits = encode_bits(parts.scales, parts.scale_format).tolist()
    return tuple(map(Block, scale_bits, parts.scales.tolist(), code_rows, value_rows))
