"""Loss scalers with torch.amp.GradScaler's semantics.

GradScaler (torch/amp/grad_scaler.py and the _amp_update_scale_ kernel): the loss is multiplied by the
scale; gradients are checked for inf/NaN as they are (still scaled) and multiplied by 1/scale in FP32;
a step with any inf/NaN is skipped, the scale multiplied by backoff_factor and the count of clean steps
reset; after growth_interval consecutive clean steps the scale is multiplied by growth_factor, unless that
would overflow FP32. The scale is an FP32 number.

Decision: the static scaler also skips steps with inf/NaN gradients and keeps its scale, as static loss
scaling does in Megatron-LM (ConstantGradScaler) and as the mixed-precision paper (Micikevicius et al. 2018)
describes; a static scale that is too large therefore skips every step, which is its lesson.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DynamicLossScaler", "LossScaler", "NoLossScaler", "StaticLossScaler", "make_scaler"]

DEFAULT_INIT_SCALE = 2.0**16
DEFAULT_GROWTH_FACTOR = 2.0
DEFAULT_BACKOFF_FACTOR = 0.5
DEFAULT_GROWTH_INTERVAL = 2000


class NoLossScaler:
    """No scaling: the optimizer takes every step, inf and NaN included, as plain training does."""

    skips_non_finite = False

    def __init__(self) -> None:
        self.scale = np.float32(1.0)

    def unscale(self, grads: np.ndarray) -> tuple[np.ndarray, bool]:
        """The FP32 gradients divided by the scale, and whether any stored gradient was inf or NaN."""
        found_inf = not bool(np.isfinite(grads).all())
        # a scale that backed off to 0, or below 1/FP32's max, has the reciprocal inf, as in torch; zero gradients
        # times it are NaN, as there
        with np.errstate(divide="ignore", over="ignore"):
            inv_scale = np.float32(np.reciprocal(np.float64(self.scale)))  # scale.double().reciprocal().float()
        with np.errstate(invalid="ignore"):
            return (grads if inv_scale == 1 else grads * inv_scale), found_inf

    @property
    def collapsed(self) -> bool:
        """Whether the scale has backed off to 0, where torch's GradScaler stays: every update is then NaN."""
        return not self.scale

    def update(self, found_inf: bool) -> None:
        """Nothing to adapt."""


class StaticLossScaler(NoLossScaler):
    """A fixed scale; steps with inf/NaN gradients are skipped."""

    skips_non_finite = True

    def __init__(self, scale: float) -> None:
        if not (np.isfinite(scale) and scale > 0):
            raise ValueError(f"a loss scale must be a positive finite number, not {scale}.")
        self.scale = np.float32(scale)


class DynamicLossScaler(StaticLossScaler):
    """torch.amp.GradScaler: backs off on inf/NaN, grows after growth_interval clean steps."""

    def __init__(
        self,
        init_scale: float = DEFAULT_INIT_SCALE,
        growth_factor: float = DEFAULT_GROWTH_FACTOR,
        backoff_factor: float = DEFAULT_BACKOFF_FACTOR,
        growth_interval: int = DEFAULT_GROWTH_INTERVAL,
    ) -> None:
        super().__init__(init_scale)
        if not growth_factor > 1.0:
            raise ValueError("the growth factor must be > 1.0.")
        if not backoff_factor < 1.0:
            raise ValueError("the backoff factor must be < 1.0.")
        if growth_interval < 1:
            raise ValueError("the growth interval must be at least 1 step.")
        self.growth_factor = growth_factor
        self.backoff_factor = backoff_factor
        self.growth_interval = growth_interval
        self.growth_tracker = 0

    def update(self, found_inf: bool) -> None:
        if found_inf:
            self.scale = np.float32(float(self.scale) * self.backoff_factor)
            self.growth_tracker = 0
            return
        successful = self.growth_tracker + 1
        if successful == self.growth_interval:
            with np.errstate(over="ignore"):
                grown = np.float32(float(self.scale) * self.growth_factor)
            if np.isfinite(grown):
                self.scale = grown
            self.growth_tracker = 0
        else:
            self.growth_tracker = successful


LossScaler = NoLossScaler | StaticLossScaler | DynamicLossScaler


def make_scaler(kind: str, *, static_scale: float, growth_interval: int) -> LossScaler:
    """The scaler a recipe's `loss_scaling` names, with GradScaler's other defaults."""
    if kind == "static":
        return StaticLossScaler(static_scale)
    if kind == "dynamic":
        return DynamicLossScaler(growth_interval=growth_interval)
    return NoLossScaler()
