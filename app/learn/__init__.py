"""Figures of the guides computed from the cores: numpy, ml_dtypes and app.formats only, never the web layer."""

from app.learn.sample_error import DISTRIBUTIONS, SAMPLE_SIZE, SCALES, Measured, measure_formats, sample_tensor

__all__ = [
    "DISTRIBUTIONS",
    "SAMPLE_SIZE",
    "SCALES",
    "Measured",
    "measure_formats",
    "sample_tensor",
]
