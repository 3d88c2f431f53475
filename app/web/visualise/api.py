"""The JSON API (DESIGN.md section 3): formats, decode, encode, compare, block quantisation."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field

from app.formats import (
    SCALAR_FORMATS,
    decode,
    encode,
    get_format,
    overflow_policy,
    parse_bits,
    parse_number,
    quantize_blocks,
    rounding_mode,
    to_json,
)
from app.web.platform.schemas import UNREADABLE_BODY, refused
from app.web.visualise import inputs
from app.web.visualise.schemas import Comparison, Encoding, FormatInfo, Quantization, Rounded
from app.web.visualise.serialise import encoding_json, format_json, rounded_json

router = APIRouter(prefix="/api", tags=["formats"])

ROUNDING_DOC = "nearest_even (default), nearest_away, toward_zero, toward_positive, toward_negative, stochastic"
OVERFLOW_DOC = "format_default (what ml_dtypes does for that format) or saturate"
FORMAT_DOC = "a format id from GET /api/formats, e.g. float16, bfloat16, float8_e4m3fn"
VALUE_DOC = "0.1, -2.5e-3, 0x1.8p-3, 1/3, inf, -inf, nan, -0"

FormatId = Annotated[str, Path(description=FORMAT_DOC, min_length=1)]
Value = Annotated[str, Query(description=VALUE_DOC, min_length=1)]
RoundingName = Annotated[str, Query(description=ROUNDING_DOC, min_length=1)]
OverflowName = Annotated[str, Query(description=OVERFLOW_DOC, min_length=1)]

NO_FORMAT = refused("No format has this id; GET /api/formats lists them")
UNREADABLE = refused("An input that cannot be read; the detail says what is expected")
NOT_SCALAR = refused("A block format, or an input that cannot be read; the detail says what is expected")
NOT_QUANTIZED = refused("Not a block format, a value that is not finite, or too many blocks; the detail says which")


@router.get("/formats", summary="Every format: fields and exact constants", response_model=list[FormatInfo])
def list_formats() -> list[dict[str, Any]]:
    from app.formats import FORMATS

    return [format_json(spec) for spec in FORMATS.values()]


@router.get("/formats/{format_id}", summary="One format", response_model=FormatInfo, responses={404: NO_FORMAT})
def one_format(format_id: FormatId) -> dict[str, Any]:
    return format_json(get_format(format_id))


@router.get("/formats/{format_id}/decode", summary="The exact value of one bit pattern", response_model=Encoding,
            responses={404: NO_FORMAT, 422: NOT_SCALAR})
def decode_bits(
    format_id: FormatId,
    bits: Annotated[str, Query(description="0x3c00, 0b0011110000000000 or a decimal integer", min_length=1)],
) -> dict[str, Any]:
    spec = inputs.scalar_format(format_id)
    return encoding_json(decode(spec, parse_bits(bits, spec)))


@router.get("/formats/{format_id}/encode", summary="How a value is stored, and the rounding error",
            response_model=Rounded, responses={404: NO_FORMAT, 422: NOT_SCALAR})
def encode_value(
    format_id: FormatId,
    value: Value,
    rounding: RoundingName = "nearest_even",
    overflow: OverflowName = "format_default",
    seed: Annotated[str | None, Query(description="seed of stochastic rounding")] = None,
) -> dict[str, Any]:
    spec = inputs.scalar_format(format_id)
    mode, policy = rounding_mode(rounding), overflow_policy(overflow)
    result = encode(spec, parse_number(value), mode, policy, inputs.seed_value(seed))
    return rounded_json(result, mode, policy)


@router.get("/compare", summary="One value in every scalar format", response_model=Comparison,
            responses={422: UNREADABLE})
def compare(
    value: Value, rounding: RoundingName = "nearest_even", overflow: OverflowName = "format_default"
) -> dict[str, Any]:
    mode, policy = rounding_mode(rounding), overflow_policy(overflow)
    x = parse_number(value)
    results = [rounded_json(encode(spec, x, mode, policy, 0), mode, policy) for spec in SCALAR_FORMATS]
    return {"input": results[0]["input"], "input_exact": results[0]["input_exact"], "results": results}


# One request's work and answer stay small (tens of milliseconds, about a megabyte at most): a vector the size of
# a large layer's row, in at most as many blocks as NVFP4's default makes of it.
MAX_QUANTIZE_VALUES = 16384
MAX_QUANTIZE_BLOCKS = 1024


class QuantizeRequest(BaseModel):
    format: str = Field(description="mxfp8_e4m3, mxfp8_e5m2, mxfp6_e2m3, mxfp6_e3m2, mxfp4, mxint8, nvfp4 or nf4",
                        min_length=1)
    values: list[float] = Field(description=f"the vector to quantise (finite numbers, at most {MAX_QUANTIZE_VALUES})",
                                min_length=1, max_length=MAX_QUANTIZE_VALUES)
    block_size: int | None = Field(None, description="elements per block (default: 32 for MX, 16 NVFP4, 64 NF4); "
                                   f"at most {MAX_QUANTIZE_BLOCKS} blocks in all")


# Only NVFP4's body has tensor_scale: the fields to_json leaves unset stay out of the others'
@router.post("/blocks/quantize", summary="Quantise a vector into a block-scaled format", response_model=Quantization,
             response_model_exclude_unset=True, responses={400: UNREADABLE_BODY, 422: NOT_QUANTIZED})
def quantize(request: QuantizeRequest) -> dict[str, Any]:
    inputs.block_count(len(request.values), request.format, request.block_size, MAX_QUANTIZE_BLOCKS)
    return to_json(quantize_blocks(request.values, request.format, request.block_size))
