"""The error each format adds to one seeded sample tensor: the live table of the quantisation guide.

Each format stores the same tensor in one of three ways: cast as it is, scaled by one absmax scale for the
whole tensor (integers), or in blocks that share a scale (MX, NVFP4, NF4, by app.formats.blocks).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np

from app.formats.blocks import quantize_blocks
from app.formats.registry import FORMATS
from app.formats.vector import round_to_format

__all__ = ["DISTRIBUTIONS", "SCALES", "Measured", "measure_formats", "sample_tensor"]

DISTRIBUTIONS = {
    "normal": "Normal, like weights",
    "heavy_tailed": "Heavy-tailed (Student's t)",
    "outliers": "Normal with outliers",
}
SCALES = ("1e-6", "0.001", "1", "1000")  # the standard deviation of the normal part
SAMPLE_SIZE = 4096
SEED = 20240229
OUTLIER_SHARE, OUTLIER_FACTOR = 0.005, 100.0

Scaling = Literal["direct", "tensor", "block"]

# (format, how its values are brought into its range), in the order of the table
MEASURED_FORMATS: tuple[tuple[str, Scaling], ...] = (
    ("float16", "direct"), ("bfloat16", "direct"), ("float8_e4m3fn", "direct"), ("float8_e5m2", "direct"),
    ("int8", "tensor"), ("int4", "tensor"),
    ("mxint8", "block"), ("mxfp8_e4m3", "block"), ("mxfp6_e2m3", "block"), ("mxfp4", "block"),
    ("nvfp4", "block"), ("nf4", "block"),
)


@dataclass(frozen=True)
class Measured:
    """One format's error on the sample; mse and rel_rms_error are None when a value became inf or NaN."""

    format_id: str
    scaling: Scaling
    bits_per_value: Fraction  # memory per value, the shared scales included
    mse: float | None
    max_abs_error: float | None
    rel_rms_error: float | None  # root of the MSE over the root mean square of the sample
    zeroed: int  # non-zero inputs stored as zero
    non_finite: int  # inputs stored as inf or NaN


def sample_tensor(distribution: str, scale: str) -> np.ndarray:
    """SAMPLE_SIZE values drawn with a fixed seed, times `scale`: the same tensor on every request."""
    rng = np.random.default_rng(SEED)
    if distribution == "heavy_tailed":
        x = rng.standard_t(3, SAMPLE_SIZE)
    else:
        x = rng.standard_normal(SAMPLE_SIZE)
        if distribution == "outliers":
            picked = rng.choice(SAMPLE_SIZE, int(SAMPLE_SIZE * OUTLIER_SHARE), replace=False)
            x[picked] *= OUTLIER_FACTOR
    return x * float(scale)


def _stored(x: np.ndarray, format_id: str, scaling: Scaling) -> np.ndarray:
    """What the format gives back for each value of x, as float64."""
    if scaling == "block":
        return quantize_blocks(x.tolist(), format_id).dequantized
    spec = FORMATS[format_id]
    if scaling == "direct":
        return round_to_format(x, spec).astype(np.float64)
    step = float(np.abs(x).max()) / float(spec.max) or 1.0  # symmetric absmax: the largest |x| maps to max
    return round_to_format(x / step, spec, saturate=True).astype(np.float64) * step


def _measure(x: np.ndarray, format_id: str, scaling: Scaling) -> Measured:
    stored = _stored(x, format_id, scaling)
    non_finite = int(np.count_nonzero(~np.isfinite(stored)))
    zeroed = int(np.count_nonzero((stored == 0) & (x != 0)))
    bits = FORMATS[format_id].bits_per_value  # one scale per tensor adds nothing per value
    if non_finite:
        return Measured(format_id, scaling, bits, None, None, None, zeroed, non_finite)
    error = stored - x
    mse = float(np.mean(error * error))
    rms = float(np.sqrt(np.mean(x * x)))
    return Measured(format_id, scaling, bits, mse, float(np.max(np.abs(error))), float(np.sqrt(mse)) / rms,
                    zeroed, 0)


def measure_formats(distribution: str, scale: str) -> list[Measured]:
    """Every measured format's error on the sample of this distribution and scale."""
    x = sample_tensor(distribution, scale)
    return [_measure(x, format_id, scaling) for format_id, scaling in MEASURED_FORMATS]
