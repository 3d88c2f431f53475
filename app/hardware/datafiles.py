"""The hardware page's data files: published peaks, matrix-multiply measurements, training measurements.

    data/hardware/published_peaks.json   what the makers publish (see its "description")
    data/hardware/measured/*.json        written by `precision-lab hardware-bench` (app/hardware/matmul.py),
                                         or figures reported elsewhere, whose "source" says where from
    data/hardware/*.json                 training step time and memory, written by app/training/torch_hardware.py
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "DATA_DIR", "DataFileError", "MeasuredFile", "Peak", "PublishedAccelerator", "load_measured", "load_published",
    "load_training", "published_peak",
]

DATA_DIR = Path(__file__).resolve().parents[2] / "data" / "hardware"
PUBLISHED_FILE = DATA_DIR / "published_peaks.json"
MEASURED_DIR = DATA_DIR / "measured"
MEASURED_PREFIX = "measured by"  # the "source" of files this project's benchmark wrote
_MEASURED_FIELDS = ("kind", "source", "device", "device_type", "date", "versions", "operation", "results", "skipped")
_RESULT_FIELDS = ("library", "format", "label", "size", "tflops")
_TRAINING_FIELDS = ("device", "device_type", "date", "torch_version", "model", "recipes", "notes")


class DataFileError(ValueError):
    """A data file that is not JSON or lacks the documented fields; the message names the file."""


@dataclass(frozen=True)
class Peak:
    format: str  # the lab's format id
    label: str
    engine: str  # "tensor" (tensor cores, matrix cores) or "vector" (ordinary FP units)
    dense: float
    sparse: float | None  # the maker's figure with 2:4 structured sparsity, where it quotes one
    unit: str  # TFLOP/s or TOPS
    source: str
    accumulate: str | None = None  # the accumulator's format where the maker quotes rates per accumulator (GeForce)


@dataclass(frozen=True)
class PublishedAccelerator:
    id: str
    name: str
    maker: str
    year: int  # the year the maker announced it (see published_peaks.json)
    device_names: tuple[str, ...]  # what torch.cuda.get_device_name calls it: links measurements to these peaks
    peaks: tuple[Peak, ...]

    def peak_for(self, format_id: str) -> Peak | None:
        """The highest dense peak for a format: FP64 products run on the FP64 tensor cores where there are some. A
        rate with FP16 accumulation is left out: the lab's matrix products accumulate in FP32."""
        return max((p for p in self.peaks if p.format == format_id and p.accumulate != "float16"),
                   key=lambda p: p.dense, default=None)


@dataclass(frozen=True)
class MeasuredFile:
    name: str  # the file name
    document: dict[str, Any]

    @property
    def measured_here(self) -> bool:
        """Written by this project's benchmark, as opposed to figures reported elsewhere."""
        return str(self.document["source"]).startswith(MEASURED_PREFIX)


def _read(path: Path, fields: tuple[str, ...]) -> dict[str, Any]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DataFileError(f"{path.name}: cannot be read as JSON ({error}).") from None
    missing = [field for field in fields if not isinstance(document, dict) or field not in document]
    if missing:
        raise DataFileError(f"{path.name}: lacks the field(s) {', '.join(missing)}.")
    return dict(document)


@functools.cache  # the file changes only with a deploy; the hardware page and the guides read it
def load_published(path: Path = PUBLISHED_FILE) -> tuple[PublishedAccelerator, ...]:
    document = _read(path, ("description", "accelerators"))
    try:
        return tuple(
            PublishedAccelerator(a["id"], a["name"], a["maker"], a["year"], tuple(a["device_names"]),
                                 tuple(Peak(**peak) for peak in a["peaks"]))
            for a in document["accelerators"]
        )
    except (KeyError, TypeError) as error:
        raise DataFileError(f"{path.name}: an accelerator or peak lacks a field or has an unknown one ({error}).") \
            from None


def published_peak(accelerator_id: str, label: str) -> Peak:
    """One published figure, by accelerator id and the peak's label, for the guides that quote it."""
    accelerator = next(a for a in load_published() if a.id == accelerator_id)
    return next(p for p in accelerator.peaks if p.label == label)


def load_measured(directory: Path = MEASURED_DIR) -> tuple[MeasuredFile, ...]:
    """Every measurement file: this project's own first, then reported ones; newest first within each."""
    files = []
    for path in sorted(directory.glob("*.json")):
        document = _read(path, _MEASURED_FIELDS)
        for result in document["results"]:
            if any(field not in result for field in _RESULT_FIELDS):
                raise DataFileError(f"{path.name}: a result lacks one of the fields {', '.join(_RESULT_FIELDS)}.")
        files.append(MeasuredFile(path.name, document))
    files.sort(key=lambda f: str(f.document["date"]), reverse=True)
    return tuple(sorted(files, key=lambda f: not f.measured_here))


def load_training(directory: Path = DATA_DIR) -> tuple[dict[str, Any], ...]:
    """The files app/training/torch_hardware.py wrote: every .json directly in `directory` but the published peaks."""
    found = []
    for path in sorted(directory.glob("*.json")):
        if path == directory / PUBLISHED_FILE.name:
            continue
        found.append(_read(path, _TRAINING_FIELDS))
    return tuple(found)
