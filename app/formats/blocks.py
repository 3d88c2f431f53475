"""Block quantisers: MX (OCP Microscaling v1.0), NVFP4 and NF4, where each block of values shares one scale.

Every quotient is taken once, in float64, by a divisor that float64 holds exactly and that has too few
significant bits for the rounded quotient to land on a midpoint of the element format unless the exact
quotient does; so each element is the exact quotient rounded once, and each dequantised value is exact.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from app.formats.codec import encode
from app.formats.exact import Real
from app.formats.parse import InputError
from app.formats.registry import BLOCK_FORMATS, FORMATS, NF4_BLOCK_SIZE, SCALAR_FORMATS
from app.formats.spec import FormatSpec
from app.formats.vector import decode_bits, encode_bits

__all__ = [
    "BLOCK_FORMAT_IDS", "NF4_BLOCK_SIZE", "Block", "BlockQuantization", "block_size_of", "quantize_blocks", "to_json",
]

# the block formats, then the scalar formats that are scaled per block (NF4)
BLOCK_FORMAT_IDS: tuple[str, ...] = (*(f.id for f in BLOCK_FORMATS), *(f.id for f in SCALAR_FORMATS if f.block_size))
MAX_VALUES = 1_000_000
MAX_BLOCK_SIZE = 4096
_FLOAT32 = FORMATS["float32"]
_FLOAT32_MAX = float(_FLOAT32.max)
_EXAMPLE = "as in [0.5, -1.25, 3]"


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
    mse: float
    max_abs_error: float
    tensor_scale: float | None = None  # NVFP4's FP32 scale over the whole tensor


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
    spec = _block_format(format_id)
    size = _block_size(block_size, spec)
    x = _finite_vector(values)
    padded = np.zeros(-(-len(x) // size) * size)
    padded[: len(x)] = x  # zeros pad the last block and change no block's absmax
    grid = padded.reshape(-1, size)
    absmax = np.abs(grid).max(axis=1)
    if spec.kind == "codebook":
        parts = _absmax_codebook(grid, absmax, spec)
    elif spec.scale is not None and spec.scale.id == "float8_e8m0fnu":
        parts = _microscaled(grid, absmax, spec)
    else:
        parts = _nvfp4(grid, absmax, spec)
    dequantized = parts.dequantized.reshape(-1)[: len(x)].copy()
    error = dequantized - x
    return BlockQuantization(
        format=spec.id,
        block_size=size,
        blocks=_blocks(parts, len(x)),
        dequantized=dequantized,
        mse=float(np.mean(error * error)),
        max_abs_error=float(np.max(np.abs(error))),
        tensor_scale=parts.tensor_scale,
    )


def to_json(result: BlockQuantization) -> dict[str, Any]:
    """The JSON object of POST /api/blocks/quantize: plain ints and finite floats only."""
    body: dict[str, Any] = {
        "format": result.format,
        "block_size": result.block_size,
        "blocks": [
            {"scale_bits": b.scale_bits, "scale": b.scale, "codes": b.codes, "values": b.values}
            for b in result.blocks
        ],
        "dequantized": result.dequantized.tolist(),
        "mse": result.mse,
        "max_abs_error": result.max_abs_error,
    }
    if result.tensor_scale is not None:
        body["tensor_scale"] = result.tensor_scale
    return body


# -- the quantisers ------------------------------------------------------------------------------


def _element_and_scale(spec: FormatSpec) -> tuple[FormatSpec, FormatSpec]:
    assert spec.element is not None and spec.scale is not None, "a block format has both"
    return spec.element, spec.scale


def _microscaled(grid: np.ndarray, absmax: np.ndarray, spec: FormatSpec) -> _Quantised:
    """OCP MX: shared exponent floor(log2 absmax) − emax of the element, clamped to E8M0; all-zero: 2^-127."""
    element, scale_spec = _element_and_scale(spec)
    floor_log2 = np.frexp(absmax)[1] - 1
    element_emax = int(np.frexp(float(spec.max))[1]) - 1  # of the element's values times its implicit scale
    shared = np.where(absmax > 0, floor_log2 - element_emax, scale_spec.emin)
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


def _blocks(parts: _Quantised, count: int) -> tuple[Block, ...]:
    """One Block per row, the padding of the last block left off."""
    code_rows, value_rows = parts.codes.tolist(), parts.dequantized.tolist()
    last = count - (len(code_rows) - 1) * parts.codes.shape[1]
    code_rows[-1], value_rows[-1] = code_rows[-1][:last], value_rows[-1][:last]
    scale_bits = encode_bits(parts.scales, parts.scale_format).tolist()
    return tuple(map(Block, scale_bits, parts.scales.tolist(), code_rows, value_rows))


# -- input checks: each failure is a sentence a person can act on -------------------------------


def _block_format(format_id: str) -> FormatSpec:
    spec = FORMATS.get(format_id) if isinstance(format_id, str) else None
    if spec is None or spec.id not in BLOCK_FORMAT_IDS:
        raise InputError(
            f"{format_id!r} is not a block format; block quantisation takes one of: "
            f"{', '.join(BLOCK_FORMAT_IDS)}."
        )
    return spec


def block_size_of(format_id: str, block_size: int | None = None) -> int:
    """The block size a quantisation uses: the one asked for, checked, or the format's default."""
    return _block_size(block_size, _block_format(format_id))


def _block_size(block_size: int | None, spec: FormatSpec) -> int:
    if block_size is None:
        return spec.block_size
    if isinstance(block_size, bool) or not isinstance(block_size, numbers.Integral) or not (
        1 <= block_size <= MAX_BLOCK_SIZE
    ):
        raise InputError(f"block_size must be a whole number from 1 to {MAX_BLOCK_SIZE}; got {block_size!r}.")
    return int(block_size)


def _finite_vector(values: Sequence[float]) -> np.ndarray:
    """values as float64, checked: a non-empty flat list of finite numbers within FP32's range."""
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)) or (
        isinstance(values, np.ndarray) and values.ndim == 0
    ):
        raise InputError(f"values must be a list of numbers, {_EXAMPLE}.")
    if len(values) == 0:
        raise InputError("values is empty; give at least one number to quantise.")
    if len(values) > MAX_VALUES:
        raise InputError(f"values has {len(values):,} numbers; at most {MAX_VALUES:,} are accepted.")
    try:
        array = np.asarray(values)
    except (TypeError, ValueError, OverflowError):
        array = np.asarray([], dtype=object)
    if array.ndim != 1 or array.dtype.kind not in "iuf":
        raise InputError(_first_non_number(values))
    x = array.astype(np.float64)
    with np.errstate(over="ignore"):
        bad = np.flatnonzero(~(np.abs(x) <= _FLOAT32_MAX))
    if bad.size:
        i = int(bad[0])
        if not np.isfinite(x[i]):
            raise InputError(f"values[{i}] is {x[i]}; block quantisation takes finite numbers only.")
        raise InputError(f"values[{i}] is {x[i]:g}, beyond FP32's range (±{_FLOAT32_MAX:g}); block formats "
                         "quantise FP32 tensors, so give values within it.")
    return x


def _first_non_number(values: Sequence[Any]) -> str:
    for i, item in enumerate(values):
        if isinstance(item, bool) or not isinstance(item, numbers.Real):
            shown = repr(item) if len(repr(item)) <= 40 else repr(item)[:40] + "…"
            return f"values[{i}] is {shown}, not a number; give a flat list of numbers, {_EXAMPLE}."
        try:
            float(item)
        except OverflowError:
            return f"values[{i}] is beyond FP32's range (±{_FLOAT32_MAX:g}); give values within it."
    return f"values must be a flat list of numbers, {_EXAMPLE}."
