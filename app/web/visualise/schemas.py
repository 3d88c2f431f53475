"""The JSON the format API answers with (DESIGN.md section 3): one model per answer, built from the core's objects by
its `of`, so that /openapi.json and the bytes on the wire come from the same fields. Exact values travel as decimal
strings ("0.100000001490116119384765625", "-0", "inf", "nan").

A model is named for what it holds and ends in `Answer`, the house's word for what a route sends back (beside the
`Request` bodies it reads), so that none is taken for the core's Encoding, Rounded or Block. An `of` validates the
fields it gathers, once, at the top of the answer: pydantic's compiled validator takes a third of model_construct's
time, and FastAPI passes a model it is given through unchecked.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, Field

from app.formats import (
    BlockQuantization,
    Encoding,
    FormatSpec,
    OverflowPolicy,
    Rounded,
    Rounding,
    ValueClass,
    next_down,
    next_up,
    ulp,
)
from app.web.visualise.serialise import exact, real_json

EXACT = "an exact decimal string"
# Past 1200 significant digits a decimal is rounded to 40: only values of float128 and wide custom layouts, far
# from 1, have that many
LONG = " (rounded to 40 significant digits where it has more than 1200: values of float128 and wide custom layouts)"
# As DESIGN.md section 3 promises them (tests/web/visualise/test_openapi_schemas.py holds them to the core's)
FormatKind = Literal["float", "int", "codebook", "block"]
OverflowDefault = Literal["inf", "nan", "saturate", "wrap"]


class FormatAnswer(BaseModel):
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

    @classmethod
    def of(cls, spec: FormatSpec) -> FormatAnswer:
        is_float = spec.kind in ("float", "block")
        return cls.model_validate(dict(
            id=spec.id,
            name=spec.name,
            kind=spec.kind,
            bits=spec.bits,
            exponent_bits=spec.exponent_bits if is_float else None,
            mantissa_bits=spec.mantissa_bits if is_float else None,
            bias=spec.bias if is_float else None,
            has_inf=spec.has_inf,
            has_nan=spec.has_nan,
            has_negative_zero=spec.has_negative_zero,
            max=exact(spec.max),
            lowest=exact(spec.lowest),
            min_normal=exact(spec.min_normal),
            min_subnormal=exact(spec.min_subnormal),
            epsilon=exact(spec.epsilon),
            signed=spec.signed,
            overflow_default=spec.overflow_default,
            bits_per_value=float(spec.bits_per_value),
            bytes_per_value=float(spec.bytes_per_value),
            gigabytes_per_billion=float(spec.gigabytes_per_billion),
            in_ml_dtypes=spec.ml_dtype is not None,
            element_format=spec.element.id if spec.element else None,
            scale_format=spec.scale.id if spec.scale else None,
            block_size=spec.block_size or None,
            summary=spec.summary,
        ))


class _EncodingFields(BaseModel):
    """The fields that an EncodingAnswer and a RoundedAnswer share."""

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


class EncodingAnswer(_EncodingFields):
    """One bit pattern of one format and the exact value it holds."""

    @classmethod
    def of(cls, enc: Encoding) -> EncodingAnswer:
        return cls.model_validate(_encoding_fields(enc))


def _encoding_fields(enc: Encoding) -> dict[str, Any]:
    """The fields of an EncodingAnswer, which a RoundedAnswer has too, by their names in the JSON."""
    up, down = next_up(enc), next_down(enc)
    return {
        "format": enc.format.id,
        "bits": enc.hex,
        "binary": enc.binary,
        "sign": enc.sign,
        "exponent_field": enc.exponent_field,
        "mantissa_field": enc.mantissa_field,
        "exponent": enc.exponent,
        "significand": exact(enc.significand),
        "class": enc.cls,
        "value": enc.value.exact_string(),
        "value_exact": real_json(enc.value)[1],
        "next_up": up.value.exact_string() if up else None,
        "next_down": down.value.exact_string() if down else None,
        "ulp": exact(ulp(enc)),
    }


class RoundedAnswer(_EncodingFields):
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

    @classmethod
    def of(cls, result: Rounded, rounding: Rounding, overflow: OverflowPolicy) -> RoundedAnswer:
        return cls.model_validate(_rounded_fields(result, rounding, overflow))


def _rounded_fields(result: Rounded, rounding: Rounding, overflow: OverflowPolicy) -> dict[str, Any]:
    given, given_exact = real_json(result.input)
    error, error_exact = real_json(result.error)
    return _encoding_fields(result.encoding) | {
        "input": given,
        "input_exact": given_exact,
        "error": error,
        "error_exact": error_exact,
        "rel_error": result.rel_error,
        "overflowed": result.overflowed,
        "underflowed": result.underflowed,
        "note": result.note,
        "rounding": rounding,
        "overflow": overflow,
    }


class ComparisonAnswer(BaseModel):
    """One value in every scalar format."""

    input: str = Field(description="the value asked for, as a decimal string (exact when input_exact)")
    input_exact: bool = Field(description="whether input is exact")
    results: list[RoundedAnswer] = Field(description="the value stored in each scalar format, in the order of "
                                         "/api/formats")

    @classmethod
    def of(cls, stored: list[Rounded], rounding: Rounding, overflow: OverflowPolicy) -> ComparisonAnswer:
        """One input stored in each format, in order."""
        results = [_rounded_fields(result, rounding, overflow) for result in stored]
        return cls.model_validate({"input": results[0]["input"], "input_exact": results[0]["input_exact"],
                                   "results": results})


# JSON has no NaN or infinity: a block holding them answers with these strings where a number would be
NonFinite = Literal["nan", "inf", "-inf"]
Number = float | NonFinite


class QuantizedBlock(BaseModel):
    """One block of a quantised vector."""

    scale_bits: int = Field(description="the shared scale's bit pattern in the scale format (E8M0's NaN 0xff, "
                            "E4M3's 0x7f, or FP32's NaN or inf for a block holding NaN or inf)")
    scale: Number = Field(description='the shared scale\'s value; "nan" (NF4: "nan" or "inf") for a block holding NaN '
                          "or inf")
    codes: list[int] = Field(description="each element's bit pattern in the element format (zeros, the zero code "
                             "for NF4, where the scale is NaN: the elements are NaN whatever their bits)")
    values: list[Number] = Field(description='each element\'s value: its element value times the scale ("nan" in a '
                                 "block holding NaN or inf)")


class QuantizationAnswer(BaseModel):
    """A vector quantised block by block, and its error against the input rounded to FP32."""

    format: str = Field(description="the block format's id")
    block_size: int = Field(description="elements per block (the last block may be shorter)")
    blocks: list[QuantizedBlock] = Field(description="the blocks, in order")
    dequantized: list[Number] = Field(description="the stored values, one per input value")
    mse: Number = Field(description="the mean squared error of dequantized against the input rounded to FP32; "
                        '"nan" when a value is NaN')
    max_abs_error: Number = Field(description='the largest absolute error of one value; "nan" when a value is NaN')
    tensor_scale: float | None = Field(None, description="NVFP4 only: the FP32 scale over the whole vector (over "
                                       "its blocks without NaN or inf)")

    @classmethod
    def of(cls, result: BlockQuantization) -> QuantizationAnswer:
        """The answer of POST /api/blocks/quantize; tensor_scale is left unset, and so out of the JSON, but for
        NVFP4."""
        blocks = [{"scale_bits": b.scale_bits, "scale": _number(b.scale), "codes": b.codes,
                   "values": _numbers(b.values)} for b in result.blocks]
        fields: dict[str, Any] = {
            "format": result.format, "block_size": result.block_size, "blocks": blocks,
            "dequantized": _numbers(result.dequantized.tolist()), "mse": _number(result.mse),
            "max_abs_error": _number(result.max_abs_error),
        }
        if result.tensor_scale is not None:
            fields["tensor_scale"] = result.tensor_scale
        return cls.model_validate(fields)


def _number(x: float) -> Number:
    return x if math.isfinite(x) else "nan" if math.isnan(x) else "inf" if x > 0 else "-inf"


def _numbers(xs: list[float]) -> list[Number]:
    return xs if all(map(math.isfinite, xs)) else [_number(x) for x in xs]  # type: ignore[return-value]
