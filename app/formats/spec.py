"""Specifications of number formats, and the constants derived from them.

Every constant is computed from the fields of a specification, exactly, as a Fraction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Literal

Kind = Literal["float", "int", "codebook", "block"]

# How a float format spends its top exponent field:
#   ieee  all-ones exponent is inf (mantissa 0) or NaN (anything else)
#   fn    no inf; only all-ones exponent with all-ones mantissa is NaN (E4M3FN)
#   fnuz  no inf, no negative zero; the pattern of negative zero is the only NaN
#   none  every pattern is a finite number (FP6, FP4)
#   e8m0  unsigned powers of two, no zero; all-ones is NaN
NanStyle = Literal["ieee", "fn", "fnuz", "none", "e8m0"]

# What an encode does with a finite value beyond max, unless told to saturate.
OverflowDefault = Literal["inf", "nan", "saturate", "wrap"]
_OVERFLOW_BY_NAN_STYLE: dict[str, OverflowDefault] = {
    "ieee": "inf", "fn": "nan", "fnuz": "nan", "e8m0": "nan", "none": "saturate"
}


@dataclass(frozen=True)
class FormatSpec:
    """One number format: enough fields to derive every value it can hold."""

    id: str
    name: str
    kind: Kind
    bits: int
    exponent_bits: int = 0
    mantissa_bits: int = 0
    bias: int = 0
    nan_style: NanStyle = "ieee"
    signed: bool = True
    ml_dtype: str | None = None
    storage_bits: int | None = None
    codebook: tuple[float, ...] = ()
    element: FormatSpec | None = None  # of a block format: the format of its elements
    # of a block format, and of a codebook scaled per block (NF4): the format of the shared scale, and how many
    # values share one
    scale: FormatSpec | None = None
    block_size: int = 0
    scale_bits: int = 0
    element_scale_exp: int = 0
    summary: str = ""

    # -- layout -------------------------------------------------------------------

    @property
    def has_inf(self) -> bool:
        return self.kind == "float" and self.nan_style == "ieee"

    @property
    def has_nan(self) -> bool:
        return self.kind == "float" and self.nan_style != "none"

    @property
    def has_negative_zero(self) -> bool:
        return self.kind == "float" and self.signed and self.nan_style not in ("fnuz", "e8m0")

    @property
    def has_zero(self) -> bool:
        return self.nan_style != "e8m0" or self.kind != "float"

    @property
    def has_subnormals(self) -> bool:
        return self.kind == "float" and self.nan_style != "e8m0"

    @property
    def sign_bits(self) -> int:
        return 1 if self.signed and self.kind == "float" else 0

    @property
    def overflow_default(self) -> OverflowDefault:
        """What ml_dtypes does with a finite value beyond max (and what int casts do)."""
        if self.kind == "int":
            return "wrap"
        if self.kind != "float":
            return "saturate"
        return _OVERFLOW_BY_NAN_STYLE[self.nan_style]

    @property
    def min_exponent_field(self) -> int:
        """The smallest exponent field of a normal number: 0 where there are no subnormals."""
        return 1 if self.has_subnormals else 0

    @property
    def max_exponent_field(self) -> int:
        """The largest exponent field of a finite number."""
        top = (1 << self.exponent_bits) - 1
        return top - 1 if self.nan_style in ("ieee", "e8m0") else top

    @property
    def max_mantissa_field(self) -> int:
        """The largest mantissa field that is finite under the largest finite exponent field."""
        ones = (1 << self.mantissa_bits) - 1
        return ones - 1 if self.nan_style == "fn" else ones

    @property
    def emin(self) -> int:
        """Unbiased exponent of the smallest normal number."""
        return self.min_exponent_field - self.bias

    @property
    def emax(self) -> int:
        """Unbiased exponent of the largest finite number."""
        return self.max_exponent_field - self.bias

    # -- constants (exact) ------------------------------------------------------
    # A block format reports its element's constants, times the element's implicit scale
    # (2^-6 for MXINT8): the values an element holds before the block's shared scale.

    def _from_element(self, name: str) -> Fraction | None:
        value = getattr(self.element, name)
        return None if value is None else value * _pow2(self.element_scale_exp)

    @cached_property
    def max(self) -> Fraction:
        if self.kind == "block":
            return self._from_element("max")  # type: ignore[return-value]
        if self.kind == "int":
            return Fraction((1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1)
        if self.kind == "codebook":
            return max(Fraction(v) for v in self.codebook)
        m = self.mantissa_bits
        return Fraction((1 << m) + self.max_mantissa_field) * _pow2(self.emax - m)

    @cached_property
    def lowest(self) -> Fraction:
        """The most negative finite value."""
        if self.kind == "block":
            return self._from_element("lowest")  # type: ignore[return-value]
        if self.kind == "int":
            return Fraction(-(1 << (self.bits - 1)) if self.signed else 0)
        if self.kind == "codebook":
            return min(Fraction(v) for v in self.codebook)
        return -self.max if self.signed else self.min_positive

    @cached_property
    def min_normal(self) -> Fraction | None:
        if self.kind == "block":
            return self._from_element("min_normal")
        return _pow2(self.emin) if self.kind == "float" else None

    @cached_property
    def min_subnormal(self) -> Fraction | None:
        if self.kind == "block":
            return self._from_element("min_subnormal")
        if not self.has_subnormals:
            return None
        return _pow2(self.emin - self.mantissa_bits)

    @cached_property
    def min_positive(self) -> Fraction:
        if self.kind == "block":
            return self._from_element("min_positive")  # type: ignore[return-value]
        if self.kind == "float":
            return self.min_subnormal if self.min_subnormal is not None else _pow2(self.emin)
        if self.kind == "int":
            return Fraction(1)
        return min(Fraction(v) for v in self.codebook if v > 0)

    @cached_property
    def epsilon(self) -> Fraction | None:
        """Gap between 1 and the next larger value, where 1 is representable."""
        if self.kind == "block":
            return self._from_element("epsilon")
        if self.kind == "float":
            return _pow2(-self.mantissa_bits)
        if self.kind == "int":
            return Fraction(1)
        return None

    # -- precision ------------------------------------------------------------------

    @property
    def significand_bits(self) -> int | None:
        """Bits of a normal number's significand, its implicit leading bit included; None for integers and codes."""
        if self.kind == "block":
            return self.element.significand_bits if self.element is not None else None
        return self.mantissa_bits + 1 if self.kind == "float" else None

    @property
    def decimal_digits(self) -> float | None:
        """About how many significant decimal digits a normal number holds: significand bits × log10(2)."""
        bits = self.significand_bits
        return None if bits is None else bits * math.log10(2)

    # -- memory (exact) -----------------------------------------------------------

    @property
    def bits_per_value(self) -> Fraction:
        """Bits of memory per stored value, its share of a block's scale included (NVFP4's one FP32 scale per
        tensor is not: it is shared by the whole tensor)."""
        stored = Fraction(self.storage_bits or self.bits)
        return stored + Fraction(self.scale_bits, self.block_size) if self.block_size else stored

    @property
    def bytes_per_value(self) -> Fraction:
        return self.bits_per_value / 8

    @property
    def gigabytes_per_billion(self) -> Fraction:
        """Memory for 10^9 values in GB (10^9 bytes): numerically equal to bytes per value."""
        return self.bytes_per_value


def _pow2(n: int) -> Fraction:
    return Fraction(1 << n) if n >= 0 else Fraction(1, 1 << -n)


pow2 = _pow2
