"""What block quantisation accepts, checked once: the format, the block size and the vector, each failure a sentence
a person can act on. The vector comes back rounded to FP32, as the block formats quantise FP32 tensors."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from app.formats.parse import InputError
from app.formats.registry import BLOCK_FORMATS, FORMATS, SCALAR_FORMATS
from app.formats.spec import FormatSpec
from app.messages import N_
from app.refusal import quoted

# the block formats, then the scalar formats that are scaled per block (NF4)
BLOCK_FORMAT_IDS: tuple[str, ...] = (*(f.id for f in BLOCK_FORMATS), *(f.id for f in SCALAR_FORMATS if f.block_size))
MAX_VALUES = 1_000_000
MAX_BLOCK_SIZE = 4096
FLOAT32_MAX = float(FORMATS["float32"].max)  # the values a block quantisation takes lie within ±this


def block_format(format_id: str) -> FormatSpec:
    """The block format (or block-scaled codebook) with this id."""
    spec = FORMATS.get(format_id) if isinstance(format_id, str) else None
    if spec is None or spec.id not in BLOCK_FORMAT_IDS:
        raise InputError(
            template=N_("%(input)s is not a block format; block quantisation takes one of: %(formats)s."),
            params={"input": quoted(format_id), "formats": ", ".join(BLOCK_FORMAT_IDS)},
        )
    return spec


def block_size_of(format_id: str, block_size: int | None = None) -> int:
    """The block size a quantisation uses: the one asked for, checked, or the format's default."""
    return checked_block_size(block_size, block_format(format_id))


def checked_block_size(block_size: int | None, spec: FormatSpec) -> int:
    if block_size is None:
        return spec.block_size
    if isinstance(block_size, bool) or not isinstance(block_size, numbers.Integral) or not (
        1 <= block_size <= MAX_BLOCK_SIZE
    ):
        raise InputError(template=N_("block_size must be a whole number from 1 to %(most)s; got %(input)s."),
                         params={"most": str(MAX_BLOCK_SIZE), "input": quoted(block_size)})
    return int(block_size)


def fp32_vector(values: Sequence[float]) -> np.ndarray:
    """values rounded to FP32 (nearest even), held as float64: a non-empty flat list of numbers within FP32's
    range; NaN and ±inf are kept, since an FP32 tensor can hold them."""
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)) or (
        isinstance(values, np.ndarray) and values.ndim == 0
    ):
        raise InputError(template=N_("values must be a list of numbers, as in [0.5, -1.25, 3]."))
    if len(values) == 0:
        raise InputError(template=N_("values is empty; give at least one number to quantise."))
    if len(values) > MAX_VALUES:
        raise InputError(template=N_("values has %(count)s numbers; at most %(most)s are accepted."),
                         params={"count": f"{len(values):,}", "most": f"{MAX_VALUES:,}"})
    try:
        array = np.asarray(values)
    except (TypeError, ValueError, OverflowError):
        array = np.asarray([], dtype=object)
    if array.ndim != 1 or array.dtype.kind not in "iuf":
        raise _first_non_number(values)
    x = array.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        bad = np.flatnonzero(np.isfinite(x) & ~(np.abs(x) <= FLOAT32_MAX))
    if bad.size:
        i = int(bad[0])
        raise InputError(
            template=N_("values[%(index)s] is %(value)s, beyond FP32's range (±%(max)s); block formats quantise FP32 "
                        "tensors, so give values within it."),
            params={"index": str(i), "value": f"{x[i]:g}", "max": f"{FLOAT32_MAX:g}"},
        )
    return x.astype(np.float32).astype(np.float64)


def _first_non_number(values: Sequence[Any]) -> InputError:
    for i, item in enumerate(values):
        if isinstance(item, bool) or not isinstance(item, numbers.Real):
            shown = quoted(item) if len(quoted(item)) <= 40 else quoted(item)[:40] + "…"
            return InputError(
                template=N_("values[%(index)s] is %(input)s, not a number; give a flat list of numbers, as in "
                            "[0.5, -1.25, 3]."),
                params={"index": str(i), "input": shown},
            )
        try:
            float(item)
        except OverflowError:
            return InputError(
                template=N_("values[%(index)s] is beyond FP32's range (±%(max)s); give values within it."),
                params={"index": str(i), "max": f"{FLOAT32_MAX:g}"},
            )
    return InputError(template=N_("values must be a flat list of numbers, as in [0.5, -1.25, 3]."))
