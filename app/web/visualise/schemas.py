"""The JSON the format API answers with (DESIGN.md section 3), field by field, for /openapi.json.

The routes build these bodies in app/web/visualise/serialise.py and app/formats/blocks.py; the models check and
describe them. Exact values travel as decimal strings ("0.100000001490116119384765625", "-0", "inf", "nan").
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.formats import OverflowPolicy, Rounding, ValueClass

EXACT = "an exact decimal string"
# Past 1200 significant digits a decimal is rounded to 40: only values of float128 and wide custom layouts, far
# from 1, have that many
LONG = " (rounded to 40 significant digits where it has more than 1200: values of float128 and wide custom layouts)"
# As DESIGN.md section 3 promises them (tests/web/test_openapi_schemas.py holds them to the core's)
FormatKind = Literal["float", "int", "codebook", "block"]
OverflowDefault = Literal["inf", "nan", "saturate", "wrap"]


class FormatInfo(BaseModel):
    """One number format: its layout and exact constants."""

    id: str = Field(description="the format's id, as the URLs name it")
    name: str = Field(description="its name as people write it")
    kind: FormatKind = Field(description="float, int, codebook (a table of values) or block (values sharing a scale)")
    bits: int = Field(description="bits of one stored value (of one element, for a block format)")
    exponent_bits: int | None = Field(description="bits of the exponent field; null but for float and block")
    mantissa_bits: int | None = Field(description="bits of the mantissa field; null but for float and block")
    bias: int | None = Field(description="the exponent bias; null but for float and block")
    has_inf: bool = Field(description="whether it has infinities")
    has_nan: bool = Field(description="whether it has NaN")
    has_negative_zero: bool = Field(description="whether -0 is a pattern of its own")
    max: str = Field(description=f"the largest finite value, {EXACT}{LONG}")
    lowest: str = Field(description=f"the most negative finite value, {EXACT}{LONG}")
    min_normal: str | None = Field(description=f"the smallest positive normal value, {EXACT}{LONG}; null where none")
    min_subnormal: str | None = Field(description=f"the smallest positive subnormal, {EXACT}{LONG}; null where none")
    epsilon: str | None = Field(description=f"the gap from 1 to the next value up, {EXACT}; null where 1 is not held")
    signed: bool = Field(description="whether it holds negative values")
    overflow_default: OverflowDefault = Field(description="what storing a finite value beyond max gives by default")
    bits_per_value: float = Field(description="storage per value, a block's shared scale included")
    bytes_per_value: float = Field(description="bits_per_value / 8")
    gigabytes_per_billion: float = Field(description="GB (10^9 bytes) for a billion values")
    in_ml_dtypes: bool = Field(description="whether numpy has it through ml_dtypes")
    element_format: str | None = Field(description="of a block format: its elements' format id; else null")
    scale_format: str | None = Field(description="of a block format: its shared scale's format id; else null")
    block_size: int | None = Field(description="of a block format: elements per shared scale; else null")
    summary: str = Field(description="what it is and where it is used, in a sentence or two")


class Encoding(BaseModel):
    """One bit pattern of one format and the exact value it holds."""

    format: str = Field(description="the format's id")
    bits: str = Field(description="the pattern in hex, zero-padded to the format's width")
    binary: str = Field(description="the pattern in binary, every bit")
    sign: int | None = Field(description="the sign bit; null for formats without one")
    exponent_field: int | None = Field(description="the stored exponent field; null but for floats")
    mantissa_field: int | None = Field(description="the stored mantissa field; null but for floats")
    exponent: int | None = Field(description="the unbiased exponent of a finite nonzero float; else null")
    significand: str | None = Field(description=f"1.m or 0.m, {EXACT}; null where exponent is")
    value_class: ValueClass = Field(alias="class", description="zero, subnormal, normal, inf or nan")
    value: str = Field(description=f"the value the pattern holds, {EXACT}{LONG}")
    value_exact: bool = Field(description="whether value is exact: false only past 1200 significant digits")
    next_up: str | None = Field(description=f"the next value up, {EXACT}{LONG}; null at the top")
    next_down: str | None = Field(description=f"the next value down, {EXACT}{LONG}; null at the bottom")
    ulp: str | None = Field(description=f"the gap to the next value of larger magnitude, {EXACT}{LONG}; "
                                        "null where none")


class Rounded(Encoding):
    """How one value is stored in one format, and the rounding error."""

    input: str = Field(description="the value asked for, as a decimal string (exact when input_exact)")
    input_exact: bool = Field(description="whether input is exact (a value such as 1/3 has no finite decimal)")
    error: str = Field(description="stored − input, as a decimal string (exact when error_exact)")
    error_exact: bool = Field(description="whether error is exact")
    rel_error: float | None = Field(description="error / |input|; null where either is not finite or input is 0")
    overflowed: bool = Field(description="whether the input was beyond the format's largest finite value")
    underflowed: bool = Field(description="whether a nonzero input was stored as zero")
    note: str | None = Field(description="a sentence on what happened, where there is something to say; else null")
    rounding: Rounding = Field(description="the rounding used")
    overflow: OverflowPolicy = Field(description="the overflow policy used")


class Comparison(BaseModel):
    """One value in every scalar format."""

    input: str = Field(description="the value asked for, as a decimal string (exact when input_exact)")
    input_exact: bool = Field(description="whether input is exact")
    results: list[Rounded] = Field(description="the value stored in each scalar format, in the order of /api/formats")


# JSON has no NaN or infinity: a block holding them answers with these strings where a number would be
NonFinite = Literal["nan", "inf", "-inf"]
Number = float | NonFinite


class Block(BaseModel):
    """One block of a quantised vector."""

    scale_bits: int = Field(description="the shared scale's bit pattern in the scale format (E8M0's NaN 0xff, "
                            "E4M3's 0x7f, or FP32's NaN or inf for a block holding NaN or inf)")
    scale: Number = Field(description='the shared scale\'s value; "nan" (NF4: "nan" or "inf") for a block holding NaN '
                          "or inf")
    codes: list[int] = Field(description="each element's bit pattern in the element format (zeros, the zero code "
                             "for NF4, where the scale is NaN: the elements are NaN whatever their bits)")
    values: list[Number] = Field(description='each element\'s value: its element value times the scale ("nan" in a '
                                 "block holding NaN or inf)")


class Quantization(BaseModel):
    """A vector quantised block by block, and its error against the input rounded to FP32."""

    format: str = Field(description="the block format's id")
    block_size: int = Field(description="elements per block (the last block may be shorter)")
    blocks: list[Block] = Field(description="the blocks, in order")
    dequantized: list[Number] = Field(description="the stored values, one per input value")
    mse: Number = Field(description="the mean squared error of dequantized against the input rounded to FP32; "
                        '"nan" when a value is NaN')
    max_abs_error: Number = Field(description='the largest absolute error of one value; "nan" when a value is NaN')
    tensor_scale: float | None = Field(None, description="NVFP4 only: the FP32 scale over the whole vector (over "
                                       "its blocks without NaN or inf)")
