"""Hardware numbers: the matrix-multiply throughput benchmark and the data files the hardware page shows.

Imports numpy, the standard library and (lazily, where asked) torch; never the web layer.
"""

from app.hardware.datafiles import (
    MEASURED_DIR,
    MeasuredFile,
    PublishedAccelerator,
    load_measured,
    load_published,
    load_training,
    published_peak,
)
from app.hardware.matmul import DEFAULT_SIZES, default_device, device_slug, measure

__all__ = [
    "DEFAULT_SIZES",
    "MEASURED_DIR",
    "MeasuredFile",
    "PublishedAccelerator",
    "default_device",
    "device_slug",
    "load_measured",
    "load_published",
    "load_training",
    "measure",
    "published_peak",
]
