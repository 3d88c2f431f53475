"""What the codec answers: an Encoding (one bit pattern and the exact value it holds) and a Rounded (an input
stored in a format: the encoding, the exact error, and whether it overflowed or underflowed)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Literal

from app.formats.exact import Real
from app.formats.spec import FormatSpec

ValueClass = Literal["zero", "subnormal", "normal", "inf", "nan"]


@dataclass(frozen=True)
class Encoding:
    """One bit pattern of one format and the exact value it holds."""

    format: FormatSpec
    bits: int
    value: Real
    cls: ValueClass

    @property
    def hex(self) -> str:
        return f"0x{self.bits:0{(self.format.bits + 3) // 4}x}"

    @property
    def binary(self) -> str:
        return f"{self.bits:0{self.format.bits}b}"

    @property
    def sign(self) -> int | None:
        """The sign bit, for formats that have one."""
        spec = self.format
        if spec.kind == "codebook" or not spec.signed:
            return None
        return (self.bits >> (spec.bits - 1)) & 1

    @property
    def exponent_field(self) -> int | None:
        spec = self.format
        if spec.kind != "float":
            return None
        return (self.bits >> spec.mantissa_bits) & ((1 << spec.exponent_bits) - 1)

    @property
    def mantissa_field(self) -> int | None:
        spec = self.format
        if spec.kind != "float":
            return None
        return self.bits & ((1 << spec.mantissa_bits) - 1)

    @property
    def exponent(self) -> int | None:
        """The unbiased exponent of a finite nonzero float (emin for subnormals)."""
        if self.format.kind != "float" or self.cls not in ("normal", "subnormal"):
            return None
        return self.format.emin if self.cls == "subnormal" else (self.exponent_field or 0) - self.format.bias

    @property
    def significand(self) -> Fraction | None:
        """1.m for normal numbers, 0.m for subnormals: value = (-1)^sign × 2^exponent × significand."""
        if self.exponent is None:
            return None
        lead = 1 if self.cls == "normal" else 0
        return lead + Fraction(self.mantissa_field or 0, 1 << self.format.mantissa_bits)

    @property
    def significand_binary(self) -> str | None:
        if self.exponent is None:
            return None
        m = self.format.mantissa_bits
        lead = "1" if self.cls == "normal" else "0"
        return lead + ("." + f"{self.mantissa_field:0{m}b}" if m else "")


@dataclass(frozen=True, kw_only=True)
class Rounded:
    """The result of storing an input in a format: built with keywords, the flags said only where they are set."""

    encoding: Encoding
    input: Real
    overflowed: bool = False
    underflowed: bool = False
    note: str | None = None

    @cached_property
    def error(self) -> Real:
        """stored − input, exactly (inf or NaN where the difference is not finite)."""
        stored, given = self.encoding.value, self.input
        if stored.kind == "nan" or given.kind == "nan":
            return Real.nan()
        if stored.kind == "inf":
            return Real.of(0) if given == stored else Real.inf(stored.negative)
        if given.kind == "inf":
            return Real.inf(not given.negative)
        return Real.of(stored.fraction - given.fraction)

    @property
    def rel_error(self) -> float | None:
        """error / |input| as a float, where both are finite and the input is not zero."""
        error, given = self.error, self.input
        if not error.is_finite or not given.is_finite or given.is_zero:
            return None
        # from the leading 128 bits of each, divided with one rounding: the exact quotient of two values of
        # 10^5 digits would cost a gcd of them, and the float of it is the same but for a tie within 2^-127
        e, g = error.fraction, given.magnitude
        (error_bits, error_scale), (given_bits, given_scale) = _leading(abs(e)), _leading(g)
        sign = -1.0 if e < 0 else 1.0
        try:
            return sign * math.ldexp(error_bits / given_bits, error_scale - given_scale)
        except OverflowError:
            return sign * math.inf


def _leading(x: Fraction) -> tuple[int, int]:
    """x ≥ 0 as about m × 2^k, m its leading 128 bits as an integer (x − m × 2^k < 2^k)."""
    if not x:
        return 0, 0
    k = x.numerator.bit_length() - x.denominator.bit_length() - 128
    n, d = (x.numerator, x.denominator << k) if k >= 0 else (x.numerator << -k, x.denominator)
    return n // d, k
