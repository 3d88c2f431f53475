"""Figures of the guides computed from the cores: numpy, ml_dtypes and app.formats only, never the web layer."""

from app.learn.accumulation import (
    ACCUMULATION_DISTRIBUTIONS,
    MAX_SEED,
    MAX_VALUES,
    Accumulation,
    AccumulationInputError,
    MethodResult,
    accumulate,
    chart_counts,
    draw_values,
    parse_count,
    parse_methods,
    parse_seed,
)
from app.learn.sample_error import DISTRIBUTIONS, SAMPLE_SIZE, SCALES, Measured, measure_formats, sample_tensor

__all__ = [
    "ACCUMULATION_DISTRIBUTIONS",
    "MAX_SEED",
    "MAX_VALUES",
    "Accumulation",
    "AccumulationInputError",
    "MethodResult",
    "accumulate",
    "chart_counts",
    "draw_values",
    "parse_count",
    "parse_methods",
    "parse_seed",
    "DISTRIBUTIONS",
    "SAMPLE_SIZE",
    "SCALES",
    "Measured",
    "measure_formats",
    "sample_tensor",
]
