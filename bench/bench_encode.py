"""Bulk encoding of 1,000,000 float32 values to every scalar format, next to a bare ml_dtypes astype."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import ml_dtypes
import numpy as np

from app.formats.registry import SCALAR_FORMATS
from app.formats.spec import FormatSpec
from app.formats.vector import encode_bits, has_fast_path, round_to_format

COUNT = 1_000_000
REPEATS = 7
GOAL = 3.0  # ours within 3× of the bare cast


def _best_ms(run: Callable[[], object]) -> float:
    """The fastest of REPEATS runs, in milliseconds."""
    best = math.inf
    for _ in range(REPEATS):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def _baseline(spec: FormatSpec) -> np.dtype:
    """The format's own ml_dtypes (or numpy) type; float16 for a format that ml_dtypes lacks (TF32)."""
    name = spec.ml_dtype or "float16"
    return np.dtype(getattr(ml_dtypes, name, name))


def main() -> None:
    x = (np.random.default_rng(0).standard_normal(COUNT) * 4).astype(np.float32)
    print(f"{COUNT:,} float32 values, normal with σ = 4; best of {REPEATS} runs, one process")
    print(f"{'format':18} {'round ms':>9} {'bits ms':>8} {'astype ms':>10} {'astype to':16} {'ratio':>6}  "
          f"goal ≤ {GOAL:g}×")
    for spec in SCALAR_FORMATS:
        if not has_fast_path(spec):
            print(f"{spec.id:18} no vectorised path: numpy and ml_dtypes have no such type (exact codec only)")
            continue
        dtype = _baseline(spec)
        with np.errstate(all="ignore"):  # the bare casts warn on overflow and on NaN to integers
            bare = _best_ms(lambda dtype=dtype: x.astype(dtype))
        rounded = _best_ms(lambda spec=spec: round_to_format(x, spec))
        encoded = _best_ms(lambda spec=spec: encode_bits(x, spec))
        ratio = max(rounded, encoded) / bare
        verdict = "met" if ratio <= GOAL else "missed"
        print(f"{spec.id:18} {rounded:9.2f} {encoded:8.2f} {bare:10.2f} {dtype.name:16} {ratio:6.1f}  "
              f"{verdict}")


if __name__ == "__main__":
    main()
