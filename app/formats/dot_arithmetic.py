"""Exact integer arithmetic for dot products: values on one binary grid, rounding to a format, and the fused block
adder that tensor cores use.

Every stored input of one format is a whole multiple of its smallest subnormal, so every product of two of them, and
every sum of products, is a whole multiple of its square: 2^unit. A value is held as that multiple, a Python int
(exact, however long the sum), or as a float for ±inf and NaN only. Rounding to a format is then shifts and a
comparison; no float ever rounds anything here. Zero is always +0 (a dot product's sign of zero is not shown).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Literal

from app.formats.exact import Real
from app.formats.registry import FORMATS
from app.formats.spec import FormatSpec

__all__ = ["FusedAdder", "Grid", "Rounding", "Value", "add", "alignment_cut", "fused_add", "fused_output", "grid",
           "real", "rounded", "truncated", "units_of", "value_exponent"]

Value = int | float  # an int counts units of 2^unit; a float is only ever inf, -inf or nan
Rounding = Literal["nearest_even", "toward_zero"]


@dataclass(frozen=True)
class Grid:
    """A float format's numbers as whole multiples of 2^unit: precision (significant bits, the leading one
    included), the exponent of the smallest normal, the largest finite magnitude (in units) and what overflow
    gives under round-to-nearest ("inf" or "nan", ml_dtypes' rule for the format)."""

    format_id: str
    unit: int
    precision: int
    emin: int
    largest: int
    overflow: Literal["inf", "nan"]

    def ulp(self, x: Value) -> Fraction:
        """The spacing of the format's numbers at |x| (at its smallest normal below that): one ulp, exactly."""
        magnitude = abs(int(x)) if isinstance(x, int) else 0
        exponent = magnitude.bit_length() - 1 + self.unit if magnitude else self.emin
        return Fraction(2) ** (max(exponent, self.emin) - self.precision + 1)


@cache
def grid(format_id: str, unit: int) -> Grid:
    """The grid of a scalar float format (float32, float16, ...) in units of 2^unit."""
    spec: FormatSpec = FORMATS[format_id]
    largest = spec.max * Fraction(2) ** -unit
    if largest.denominator != 1:
        raise ValueError(f"{format_id}'s largest value is not a whole number of 2^{unit}")
    return Grid(format_id, unit, spec.mantissa_bits + 1, spec.emin, largest.numerator,
                "inf" if spec.overflow_default == "inf" else "nan")


def units_of(x: Fraction, unit: int) -> int:
    """x (a value on the grid) as a whole number of 2^unit."""
    scaled = x * Fraction(2) ** -unit
    if scaled.denominator != 1:
        raise ValueError(f"{x} is not a multiple of 2^{unit}")
    return scaled.numerator


def real(x: Value, unit: int) -> Real:
    """A value as an exact Real."""
    if isinstance(x, float):
        return Real.nan() if math.isnan(x) else Real.inf(x < 0)
    return Real.of(Fraction(x) * Fraction(2) ** unit)


def add(x: Value, y: Value) -> Value:
    """The exact sum; inf and NaN as IEEE 754 adds them (inf - inf is NaN)."""
    if isinstance(x, float) or isinstance(y, float):
        return float(x) + float(y)  # an int here is finite and far below float's range, see the module's note
    return x + y


def rounded(x: Value, to: Grid, mode: Rounding = "nearest_even") -> Value:
    """x rounded to the format; past its largest finite value, inf or NaN as the format does (nearest), or the
    largest finite value (toward zero, as IEEE 754 says)."""
    if isinstance(x, float) or x == 0:
        return x
    magnitude = abs(x)
    exponent = magnitude.bit_length() - 1 + to.unit
    shift = max(exponent, to.emin) - to.precision + 1 - to.unit  # the last kept bit's place, in units
    if shift > 0:
        kept, rest = magnitude >> shift, magnitude & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        if mode == "nearest_even" and (rest > half or (rest == half and kept & 1)):
            kept += 1
        magnitude = kept << shift
    if magnitude > to.largest:
        if mode == "toward_zero":
            magnitude = to.largest
        else:
            return math.nan if to.overflow == "nan" else math.copysign(math.inf, x)
    return magnitude if x > 0 else -magnitude


@dataclass(frozen=True)
class FusedAdder:
    """One block step of a multi-term adder, as MMA-Sim models NVIDIA's: the accumulator and `block` exact products
    are aligned to the largest exponent among them (a product's exponent is its factors' exponents added, so its
    significand may reach 4), each magnitude truncated to `window` bits from that exponent down, the truncated terms
    summed exactly (carries kept), and the sum normalised and truncated (toward zero) to `output_bits` significant
    bits in FP32's range; past it, inf."""

    block: int
    window: int  # bits kept from the largest exponent down, that bit included: MMA-Sim's fractional bits + 1
    output_bits: int = 24  # FP32's significand; 14 where Hopper's FP8 instructions write e8m13


def value_exponent(x: int, unit: int, emin: int) -> int | None:
    """The exponent of a value as a format stores it (its leading bit's; a subnormal's is emin); None for zero."""
    return None if x == 0 else max(abs(x).bit_length() - 1 + unit, emin)


def alignment_cut(exponents: Sequence[int | None], window: int) -> int | None:
    """The exponent of the lowest bit the adder keeps, given its terms' exponents (None when all are zero)."""
    top = max((e for e in exponents if e is not None), default=None)
    return None if top is None else top - window + 1


def truncated(term: int, cut: int, unit: int) -> int:
    """A term with its bits below 2^cut dropped (its magnitude truncated, so toward zero)."""
    shift = cut - unit
    if shift <= 0 or term == 0:
        return term
    magnitude = (abs(term) >> shift) << shift
    return magnitude if term > 0 else -magnitude


def fused_output(total: int, adder: FusedAdder, fp32: Grid) -> Value:
    """The exact sum of the truncated terms, normalised and truncated to the adder's output: inf past 2^128."""
    if total and abs(total).bit_length() - 1 + fp32.unit > 127:  # FP32's largest exponent
        return math.copysign(math.inf, total)
    narrow = Grid(fp32.format_id, fp32.unit, adder.output_bits, fp32.emin, fp32.largest, "inf")
    return rounded(total, narrow, "toward_zero")


def fused_add(accumulator: Value, products: Sequence[int], exponents: Sequence[int | None], adder: FusedAdder,
              fp32: Grid) -> Value:
    """One block step: the FP32 accumulator plus the products (with their exponents), as `adder` computes it."""
    if isinstance(accumulator, float):
        return accumulator  # inf or NaN stays; the products are finite
    cut = alignment_cut([value_exponent(accumulator, fp32.unit, fp32.emin), *exponents], adder.window)
    if cut is None:
        return 0
    return fused_output(sum(truncated(t, cut, fp32.unit) for t in [accumulator, *products]), adder, fp32)
