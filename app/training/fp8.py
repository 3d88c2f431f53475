"""FP8 per-tensor delayed scaling, as NVIDIA Transformer Engine's DelayedScaling recipe.

Each tensor that enters an FP8 matrix product has a scale and an amax history. A cast multiplies the tensor
by the scale the history gave before this step, saturates to the format's max (CUDA's __NV_SATFINITE), rounds,
and writes the tensor's amax into the newest slot. After the step every history is rolled by one slot and the
scale becomes fp8_max / max(history) / 2^margin, kept as it was while that amax is zero or not finite, and
FP32's largest finite value where it would be infinite (transformer_engine/common/recipe/delayed_scaling.cu).
Scales start at 1. As in Transformer Engine, the histories of all tensors are the columns of one array, so that
an update is a few vectorised operations.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from app.formats import FormatSpec
from app.formats.vector import round_to_format

__all__ = ["DEFAULT_AMAX_HISTORY_LEN", "DelayedScaling"]

# Transformer Engine defaults to 1024 steps; these runs are a few hundred steps long, so a short window
# lets the scale follow the tensor within a run.
DEFAULT_AMAX_HISTORY_LEN = 16
_FLOAT32_MAX = np.finfo(np.float32).max


class DelayedScaling:
    """Scales and amax histories of every FP8 tensor of a model, by tensor key."""

    def __init__(self, history_len: int = DEFAULT_AMAX_HISTORY_LEN, margin: int = 0) -> None:
        if history_len < 1:
            raise ValueError("the amax history needs at least one slot.")
        self.margin = margin
        self.amax_history = np.zeros((history_len, 0), dtype=np.float32)  # row 0 is the newest amax
        self.scales = np.ones(0, dtype=np.float32)
        self._scaled_max = np.ones(0, dtype=np.float32)  # fp8_max / 2^margin of each tensor's format
        self._columns: dict[Hashable, int] = {}
        # this step's amaxes, and each scale with its inverse, as Python values: a cast of a small tensor would
        # otherwise spend more time indexing numpy arrays one element at a time than rounding
        self._newest: list[float] = []
        self._scale_pairs: list[tuple[np.float32, np.float32]] = []

    def history(self, key: Hashable) -> np.ndarray:
        """One tensor's amax history, newest first."""
        column = self._columns[key]
        history = self.amax_history[:, column].copy()
        history[0] = max(history[0], self._newest[column])
        return history

    def scale(self, key: Hashable) -> np.float32:
        return self.scales[self._columns[key]]

    def quantize(self, x: np.ndarray, key: Hashable, spec: FormatSpec, *, record: bool = True
                 ) -> tuple[np.ndarray, np.float32]:
        """The FP8 values of x * scale (as float32) and 1/scale; `record` writes x's amax into the history."""
        column = self._columns.get(key)
        if column is None:
            column = self._add(key, spec)
        if record:
            # fmax ignores NaN, as the cast kernel's amax reduction does
            amax = float(np.fmax.reduce(np.abs(x), axis=None, initial=0.0))
            if amax > self._newest[column]:
                self._newest[column] = amax
        scale, scale_inv = self._scale_pairs[column]
        return round_to_format(x * scale, spec, saturate=True), scale_inv

    def update(self) -> None:
        """After a step: the next scales from each history's maximum, and every history rolled by one."""
        np.fmax(self.amax_history[0], self._newest, out=self.amax_history[0])
        self._newest = [0.0] * len(self._newest)
        amax = self.amax_history.max(axis=0)
        self.amax_history = np.roll(self.amax_history, -1, axis=0)
        self.amax_history[0] = 0
        usable = np.isfinite(amax) & (amax > 0)
        with np.errstate(over="ignore"):
            scales = self._scaled_max / np.where(usable, amax, 1)
        # an amax so small that the scale is beyond FP32 (below about 1.3e-36 for E4M3, 1.7e-34 for E5M2) gives
        # FP32's largest finite scale, as Transformer Engine clamps it: an infinite one would turn zeros into NaN
        scales = np.where(np.isinf(scales), _FLOAT32_MAX, scales).astype(np.float32)
        self.scales = np.where(usable, scales, self.scales)
        self._scale_pairs = list(zip(self.scales, np.float32(1) / self.scales, strict=True))

    def _add(self, key: Hashable, spec: FormatSpec) -> int:
        self._columns[key] = column = len(self.scales)
        self.amax_history = np.pad(self.amax_history, ((0, 0), (0, 1)))
        self.scales = np.append(self.scales, np.float32(1))
        self._scaled_max = np.append(self._scaled_max, np.float32(float(spec.max) * 2.0**-self.margin))
        self._newest.append(0.0)
        self._scale_pairs.append((np.float32(1), np.float32(1)))
        return column
