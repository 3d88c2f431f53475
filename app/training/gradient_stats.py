"""What a step's gradients show: overflow to inf/NaN, their exponents, and how far a step moved the weights.

(Underflow is counted where it happens, in `precision.Arithmetic`.)
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from app.formats import FormatSpec

__all__ = ["exponent_histogram", "format_range", "nonfinite_count", "update_ratio"]


def nonfinite_count(values: np.ndarray) -> int:
    return int(values.size - np.count_nonzero(np.isfinite(values)))


def exponent_histogram(values: np.ndarray) -> dict[str, object]:
    """Counts of floor(log2 |g|) over the non-zero finite elements, from the lowest exponent to the highest.

    Returns {"exponents": [lo, ..., hi], "counts": [...], "zeros": n, "nonfinite": n}.
    """
    finite = values[np.isfinite(values)]
    nonzero = finite[finite != 0]
    counts: list[int] = []
    exponents: list[int] = []
    if nonzero.size:
        # frexp: |g| = m * 2^e with m in [0.5, 1), so floor(log2 |g|) = e - 1, exact for subnormals too
        floor_log2 = np.frexp(nonzero)[1].astype(np.int64) - 1
        lo = int(floor_log2.min())
        counts = np.bincount(floor_log2 - lo).tolist()
        exponents = list(range(lo, lo + len(counts)))
    return {
        "exponents": exponents,
        "counts": counts,
        "zeros": int(finite.size - nonzero.size),
        "nonfinite": int(values.size - finite.size),
    }


def format_range(spec: FormatSpec) -> dict[str, object]:
    """Where a format's values lie on the log2 axis of the histogram."""
    return {
        "format": spec.id,
        "min_subnormal_log2": None if spec.min_subnormal is None else _log2_of_power(spec.min_subnormal),
        "min_normal_log2": None if spec.min_normal is None else _log2_of_power(spec.min_normal),
        "max_log2": math.log2(spec.max),
    }


def _log2_of_power(value: Fraction) -> int:
    if value.denominator == 1:
        return value.numerator.bit_length() - 1
    return 1 - value.denominator.bit_length()


def update_ratio(old: np.ndarray, new: np.ndarray) -> float:
    """|new - old| / |old| over all parameters (Euclidean norms), as a step changed them."""
    change = new - old
    size = math.sqrt(float(np.dot(old, old)))
    return math.sqrt(float(np.dot(change, change))) / size if size else 0.0
