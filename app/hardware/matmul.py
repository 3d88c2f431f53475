"""Matrix-multiply throughput per format on the machine it runs on, written as a data file the hardware page shows.

One product of two n×n matrices is 2n³ floating-point operations (n³ multiplies and n³ adds). Each format is
timed after a warm-up product; a sample runs enough back-to-back products to last about 0.2 s, and the best of
several samples gives the time of one product: the sustained best, not a mean. On CPU: numpy FP64 and FP32 (its
BLAS) and torch FP32, BF16 and FP16; on CUDA: torch FP64, FP32, TF32, FP16, BF16 and FP8 E4M3 (torch._scaled_mm,
per-tensor scales, BF16 output), each where the device runs it. torch is optional (the [torch] extra).
"""

from __future__ import annotations

import datetime
import os
import platform
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["DEFAULT_SIZES", "LABELS", "Measurement", "best_seconds", "default_device", "device_slug", "measure"]

LABELS = {"float64": "FP64", "float32": "FP32", "tfloat32": "TF32", "float16": "FP16", "bfloat16": "BF16",
          "float8_e4m3fn": "FP8 E4M3"}
NUMPY_FORMATS = ("float64", "float32")
TORCH_FORMATS = {"cpu": ("float32", "bfloat16", "float16"),
                 "cuda": ("float64", "float32", "tfloat32", "float16", "bfloat16", "float8_e4m3fn")}
DEFAULT_SIZES = {"cpu": (1024, 2048), "cuda": (8192,)}
SOURCE = "measured by precision-lab hardware-bench (app/hardware/matmul.py) on the device named here"
SAMPLE_SECONDS = 0.2
SAMPLES = 5
_MAX_PRODUCTS_PER_SAMPLE = 1000
_FP8_CAPABILITY = (8, 9)  # Ada and Hopper onwards have FP8 tensor cores
# CPU features that decide which formats have fast matrix instructions
_CPU_FEATURES = ("avx2", "avx512f", "avx512_bf16", "avx512_fp16", "amx_bf16", "amx_fp16", "amx_int8")

Product = Callable[[], object]


@dataclass(frozen=True)
class Measurement:
    library: str
    format: str
    size: int
    seconds: float  # the best time of one product
    products_timed: int

    @property
    def tflops(self) -> float:
        return 2 * self.size**3 / self.seconds / 1e12

    def to_json(self) -> dict[str, Any]:
        return {"library": self.library, "format": self.format, "label": LABELS[self.format], "size": self.size,
                "tflops": self.tflops, "seconds": self.seconds, "products_timed": self.products_timed}


def best_seconds(product: Product, synchronize: Callable[[], None]) -> tuple[float, int]:
    """The best time of one product, and how many products were timed."""
    product()  # warm-up: allocation, kernel choice, library handles
    synchronize()
    start = time.perf_counter()
    product()
    synchronize()
    best = time.perf_counter() - start
    per_sample = max(1, min(_MAX_PRODUCTS_PER_SAMPLE, int(SAMPLE_SECONDS / max(best, 1e-9))))
    for _ in range(SAMPLES):
        start = time.perf_counter()
        for _ in range(per_sample):
            product()
        synchronize()
        best = min(best, (time.perf_counter() - start) / per_sample)
    return best, 1 + SAMPLES * per_sample


def _numpy_product(format_id: str, n: int) -> Product:
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((n, n)).astype(format_id) for _ in range(2))
    out = np.empty((n, n), dtype=format_id)
    return lambda: np.matmul(a, b, out=out)


def _torch_product(torch: Any, device: str, format_id: str, n: int) -> Product:
    generator = torch.Generator().manual_seed(0)
    a, b = (torch.randn(n, n, generator=generator).to(device) for _ in range(2))
    if format_id == "float8_e4m3fn":
        scale = torch.ones((), device=device)
        a8 = a.to(torch.float8_e4m3fn)
        b8 = b.to(torch.float8_e4m3fn).t().contiguous().t()  # column-major: the layout cuBLASLt's FP8 kernels take
        return lambda: torch._scaled_mm(a8, b8, scale_a=scale, scale_b=scale, out_dtype=torch.bfloat16)
    dtype = getattr(torch, "float32" if format_id == "tfloat32" else format_id)
    a, b = a.to(dtype), b.to(dtype)
    out = torch.empty(n, n, dtype=dtype, device=device)
    return lambda: torch.matmul(a, b, out=out)


@contextmanager
def _cuda_fp32_precision(torch: Any, format_id: str) -> Iterator[None]:
    """FP32 products on TF32 tensor cores for tfloat32, in full FP32 ("ieee") for float32."""
    matmul = torch.backends.cuda.matmul
    before = matmul.fp32_precision
    matmul.fp32_precision = "tf32" if format_id == "tfloat32" else "ieee"
    try:
        yield
    finally:
        matmul.fp32_precision = before


def _fp8_refusal(torch: Any) -> str | None:
    capability = torch.cuda.get_device_capability()
    if torch.version.cuda and capability < _FP8_CAPABILITY:
        return (f"FP8 tensor cores need compute capability {_FP8_CAPABILITY[0]}.{_FP8_CAPABILITY[1]} or newer; "
                f"this GPU has {capability[0]}.{capability[1]}.")
    return None


def _torch_measurement(torch: Any, device: str, format_id: str, n: int) -> Measurement:
    cuda = device == "cuda"
    with _cuda_fp32_precision(torch, format_id) if cuda else nullcontext():
        product = _torch_product(torch, device, format_id, n)
        seconds, count = best_seconds(product, torch.cuda.synchronize if cuda else _no_wait)
    return Measurement("torch", format_id, n, seconds, count)


def _torch_measurements(device: str, sizes: tuple[int, ...]) -> tuple[list[Measurement], list[dict[str, Any]]]:
    """What torch measures on `device`, and what it could not run, with the reason (the same for every size)."""
    torch: Any = import_module("torch")
    measured, skipped = [], []
    for format_id in TORCH_FORMATS[device]:
        refusal = _fp8_refusal(torch) if device == "cuda" and format_id == "float8_e4m3fn" else None
        for n in sizes:
            if refusal is None:
                try:
                    measured.append(_torch_measurement(torch, device, format_id, n))
                    continue
                except (RuntimeError, NotImplementedError, TypeError) as error:
                    refusal = str(error).strip().splitlines()[0][:300]
            skipped.append({"library": "torch", "format": format_id, "size": n, "reason": refusal})
    return measured, skipped


def _no_wait() -> None:
    """CPU products are done when they return."""


def default_device() -> str:
    """cuda when torch is installed and sees a GPU, else cpu."""
    if find_spec("torch") is not None and import_module("torch").cuda.is_available():
        return "cuda"
    return "cpu"


def _cpu_name() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    text = cpuinfo.read_text() if cpuinfo.is_file() else ""
    found = re.search(r"^model name\s*:\s*(.+)$", text, re.MULTILINE)
    return (found[1] if found else platform.processor() or platform.machine()).strip()


def _cpu_features() -> list[str]:
    cpuinfo = Path("/proc/cpuinfo")
    found = re.search(r"^flags\s*:\s*(.+)$", cpuinfo.read_text(), re.MULTILINE) if cpuinfo.is_file() else None
    flags = set(found[1].split()) if found else set()
    return [feature for feature in _CPU_FEATURES if feature in flags]


def device_slug(device: str, device_type: str) -> str:
    """A file name stem for a device: 'NVIDIA H200' -> 'nvidia-h200', a CPU -> 'cpu-intel-xeon-processor'."""
    words = re.sub(r"\((r|tm)\)|\(cpu\)", " ", device.lower())
    slug = "-".join(re.findall(r"[a-z0-9]+", words))
    return f"cpu-{slug}" if device_type == "cpu" and not slug.startswith("cpu") else slug


def measure(device: str, sizes: tuple[int, ...], with_torch: bool) -> dict[str, Any]:
    """Time every format this device runs at each size; the document written to data/hardware/measured/."""
    measured: list[Measurement] = []
    skipped: list[dict[str, Any]] = []
    if device == "cpu":
        measured += [Measurement("numpy", f, n, *best_seconds(_numpy_product(f, n), _no_wait))
                     for f in NUMPY_FORMATS for n in sizes]
    torch = import_module("torch") if with_torch else None
    if torch is not None:
        more, skipped = _torch_measurements(device, sizes)
        measured += more
    name = torch.cuda.get_device_name(0) if torch is not None and device == "cuda" else f"{_cpu_name()} (CPU)"
    return {
        "kind": "matmul_throughput",
        "source": SOURCE,
        "device": name,
        "device_type": device,
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
        "host": {"machine": platform.machine(), "cpu_count": os.cpu_count(),
                 "cpu_features": _cpu_features() if device == "cpu" else None,
                 "torch_threads": torch.get_num_threads() if torch is not None else None},
        "versions": {"python": platform.python_version(), "numpy": np.__version__,
                     "torch": torch.__version__ if torch is not None else None,
                     "cuda": torch.version.cuda if torch is not None and device == "cuda" else None},
        "operation": "C = A B for n×n matrices of standard normal values: 2n³ operations per product; "
                     "TFLOP/s = 2n³ / best time of one product / 10¹².",
        "results": [m.to_json() for m in measured],
        "skipped": skipped,
    }
