"""The JSON API (DESIGN.md section 3): formats, decode, encode, compare, block quantisation."""

from __future__ import annotations

from typing import Annotated, Any, get_args

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, ConfigDict, Field

from app.formats import (
    BLOCK_FORMAT_IDS,
    CUSTOM_NAN_STYLES,
    FLOAT32_MAX,
    FORMATS,
    MAX_BIAS,
    MAX_BLOCK_SIZE,
    MAX_EXPONENT_BITS,
    MAX_INPUT_LENGTH,
    MAX_MANTISSA_BITS,
    MIN_IEEE_EXPONENT_BITS,
    SCALAR_FORMATS,
    VALUE_PATTERN,
    FormatSpec,
    OverflowPolicy,
    Rounding,
    decode,
    encode,
    get_format,
    parse_bits,
    parse_number,
    quantize_blocks,
)
from app.web.platform.schemas import UNREADABLE_BODY, number, one_of, refused, stated, whole
from app.web.visualise import inputs
from app.web.visualise.rounding_query import ChosenOverflow, ChosenRounding
from app.web.visualise.schemas import (
    ComparisonAnswer,
    EncodingAnswer,
    FormatAnswer,
    NonFinite,
    QuantizationAnswer,
    RoundedAnswer,
)

router = APIRouter(prefix="/api", tags=["formats"])

FORMAT_DOC = "a format id from GET /api/formats, e.g. float16, bfloat16, float8_e4m3fn"
VALUE_DOC = "0.1, -2.5e-3, 0x1.8p-3, 1/3, inf, -inf, nan, -0"

# The limits each parameter states in /openapi.json (app/web/platform/schemas.py: `stated`); the routes check them
# and refuse what is outside with their own sentences.
BLOCK_IDS = [spec.id for spec in FORMATS.values() if spec.kind == "block"]
# 0x…, 0b… or a decimal integer (the app also reads `_` between digits); how wide it may be is the format's width
BITS_PATTERN = "^(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)$"

FormatId = Annotated[str, Path(description=FORMAT_DOC, min_length=1)]
ScalarFormatId = Annotated[str, Path(description=FORMAT_DOC + "; not a block format (quantise a vector with POST "
                                     "/api/blocks/quantize)", min_length=1),
                           stated({"type": "string", "minLength": 1, "not": one_of(BLOCK_IDS)})]
Value = Annotated[str, Query(description=VALUE_DOC, min_length=1),
                  stated({"type": "string", "maxLength": MAX_INPUT_LENGTH, "pattern": VALUE_PATTERN})]
PatternText = Annotated[str, Query(description="0x3c00, 0b0011110000000000 or a decimal integer, at most as wide as "
                                               "the format", min_length=1),
                        stated({"type": "string", "pattern": BITS_PATTERN})]
SEED_DOC = (f"seed of stochastic rounding: a whole number from 0 to {inputs.MAX_SEED}; the same seed gives the "
            "same result. Without one, each request draws afresh")
Seed = stated(whole(0, inputs.MAX_SEED))
SeedText = Annotated[str | None, Query(description=SEED_DOC), Seed]
CompareSeed = Annotated[str | None, Query(description=SEED_DOC + "; every format rounds with a generator of this "
                                          "seed, as /api/formats/{format_id}/encode does with it"), Seed]
ExponentBits = Annotated[str, Query(description=f"bits of the exponent field: {MIN_IEEE_EXPONENT_BITS} to "
                                                f"{MAX_EXPONENT_BITS}, or 1 with nan_style fn, fnuz or none "
                                                "(IEEE-style inf and NaN take the all-ones exponent)", min_length=1),
                         stated(whole(MIN_IEEE_EXPONENT_BITS, MAX_EXPONENT_BITS))]
MantissaBits = Annotated[str, Query(description=f"bits of the mantissa field: 1 to {MAX_MANTISSA_BITS}", min_length=1),
                         stated(whole(1, MAX_MANTISSA_BITS))]
Bias = Annotated[str | None, Query(description=f"the exponent bias, -{MAX_BIAS} to {MAX_BIAS}; by default "
                                               "2^(e-1) - 1 as IEEE's, or 2^(e-1) for nan_style fnuz"),
                 stated(whole(-MAX_BIAS, MAX_BIAS))]
NanStyle = Annotated[str, Query(description=f"{', '.join(CUSTOM_NAN_STYLES)}: ieee has ±inf and NaNs at the all-ones "
                                            "exponent; fn no inf, NaN only at all ones (as float8_e4m3fn); fnuz no "
                                            "inf, no -0, NaN at the pattern of -0 (as float8_e5m2fnuz); none no inf "
                                            "or NaN (as float6/float4)", min_length=1),
                     stated(one_of(CUSTOM_NAN_STYLES))]

NO_FORMAT = refused("No format has this id; GET /api/formats lists them")
UNREADABLE = refused("An input that cannot be read; the detail says what is expected")
NOT_SCALAR = refused("A block format, or an input that cannot be read; the detail says what is expected")
NO_LAYOUT = refused("A layout a custom format cannot have (1 to 15 exponent bits, 1 to 112 mantissa bits, a bias "
                    "within ±32768, IEEE-style inf and NaN from 2 exponent bits), or an input that cannot be read; "
                    "the detail says which")
# A query string past the site's limit is refused before the route reads it (app/web/platform/request_limits.py):
# within its MAX_INPUT_LENGTH characters a value never makes one, but a longer value in many-byte characters can.
TOO_LONG = refused("A query string longer than this site accepts; the detail says how long it may be")
NOT_QUANTIZED = refused("Not a block format, a value beyond FP32's range, or too many blocks; the detail says which")


@router.get("/formats", summary="Every format: fields and exact constants")
def list_formats() -> list[FormatAnswer]:
    return [FormatAnswer.of(spec) for spec in FORMATS.values()]


# The custom routes come before /formats/{format_id}, which would take `custom` for a format id.
@router.get("/formats/custom", summary="A float format of your own layout: fields and exact constants",
            responses={422: NO_LAYOUT})
def custom_format_info(
    exponent_bits: ExponentBits, mantissa_bits: MantissaBits, bias: Bias = None, nan_style: NanStyle = "ieee"
) -> FormatAnswer:
    return FormatAnswer.of(inputs.custom_layout(exponent_bits, mantissa_bits, bias, nan_style))


@router.get("/formats/custom/decode", summary="The exact value of one bit pattern of your own layout",
            responses={422: NO_LAYOUT})
def decode_custom(
    exponent_bits: ExponentBits, mantissa_bits: MantissaBits, bits: PatternText, bias: Bias = None,
    nan_style: NanStyle = "ieee",
) -> EncodingAnswer:
    return _decoded(inputs.custom_layout(exponent_bits, mantissa_bits, bias, nan_style), bits)


@router.get("/formats/custom/encode", summary="How a value is stored in your own layout, and the rounding error",
            responses={414: TOO_LONG, 422: NO_LAYOUT})
def encode_custom(
    exponent_bits: ExponentBits, mantissa_bits: MantissaBits, value: Value, rounding: ChosenRounding,
    overflow: ChosenOverflow, bias: Bias = None, nan_style: NanStyle = "ieee", seed: SeedText = None,
) -> RoundedAnswer:
    spec = inputs.custom_layout(exponent_bits, mantissa_bits, bias, nan_style)
    return _encoded(spec, value, rounding, overflow, seed)


@router.get("/formats/{format_id}", summary="One format", responses={404: NO_FORMAT})
def one_format(format_id: FormatId) -> FormatAnswer:
    return FormatAnswer.of(get_format(format_id))


@router.get("/formats/{format_id}/decode", summary="The exact value of one bit pattern",
            responses={404: NO_FORMAT, 422: NOT_SCALAR})
def decode_bits(format_id: ScalarFormatId, bits: PatternText) -> EncodingAnswer:
    return _decoded(inputs.scalar_format(format_id), bits)


@router.get("/formats/{format_id}/encode", summary="How a value is stored, and the rounding error",
            responses={404: NO_FORMAT, 414: TOO_LONG, 422: NOT_SCALAR})
def encode_value(
    format_id: ScalarFormatId, value: Value, rounding: ChosenRounding, overflow: ChosenOverflow, seed: SeedText = None,
) -> RoundedAnswer:
    return _encoded(inputs.scalar_format(format_id), value, rounding, overflow, seed)


def _decoded(spec: FormatSpec, bits: str) -> EncodingAnswer:
    return EncodingAnswer.of(decode(spec, parse_bits(bits, spec)))


def _encoded(spec: FormatSpec, value: str, rounding: Rounding, overflow: OverflowPolicy,
             seed: str | None) -> RoundedAnswer:
    result = encode(spec, parse_number(value), rounding, overflow, inputs.seed_value(seed))
    return RoundedAnswer.of(result, rounding, overflow)


@router.get("/compare", summary="One value in every scalar format", responses={414: TOO_LONG, 422: UNREADABLE})
def compare(
    value: Value, rounding: ChosenRounding, overflow: ChosenOverflow, seed: CompareSeed = None,
) -> ComparisonAnswer:
    x, drawn = parse_number(value), inputs.seed_value(seed)
    # every format rounds with a generator of the same seed, as /encode of each would with it
    return ComparisonAnswer.of([encode(spec, x, rounding, overflow, drawn) for spec in SCALAR_FORMATS], rounding,
                               overflow)


# One request's work and answer stay small (tens of milliseconds, about a megabyte at most): a vector the size of
# a large layer's row, in at most as many blocks as NVFP4's default makes of it.
MAX_QUANTIZE_VALUES = 16384
MAX_QUANTIZE_BLOCKS = 1024


# a value within FP32's range, or NaN or an infinity as a string
Fp32Value = Annotated[float, stated({"anyOf": [number(-FLOAT32_MAX, FLOAT32_MAX), one_of(get_args(NonFinite))]})]


def _blocks_within_limit() -> dict[str, Any]:
    """The schema's way of saying "at most MAX_QUANTIZE_BLOCKS blocks": any block size from `least` up (and every
    format's default) makes no more of MAX_QUANTIZE_VALUES values; a smaller one takes at most that many blocks'
    worth of values."""
    least = -(-MAX_QUANTIZE_VALUES // MAX_QUANTIZE_BLOCKS)
    large = {"properties": {"block_size": {"anyOf": [whole(least, MAX_BLOCK_SIZE), {"type": "null"}]}}}
    small = [{"properties": {"block_size": {"const": size}, "values": {"maxItems": size * MAX_QUANTIZE_BLOCKS}},
              "required": ["block_size"]} for size in range(1, least)]
    return {"anyOf": [large, *small]}


class QuantizeRequest(BaseModel):
    model_config = ConfigDict(json_schema_extra=_blocks_within_limit())

    format: Annotated[str, stated(one_of(BLOCK_FORMAT_IDS))] = Field(description=", ".join(BLOCK_FORMAT_IDS),
                                                                      min_length=1)
    values: list[Fp32Value] = Field(description=f"the vector to quantise, at most {MAX_QUANTIZE_VALUES} numbers within "
                                "FP32's range; NaN and infinities as the strings \"nan\", \"inf\", \"-inf\". Block "
                                "formats quantise FP32 tensors, so each value is first rounded to FP32 (nearest even) "
                                "and the errors are against that. A block holding NaN or inf follows OCP MX v1.0: "
                                "its scale is NaN (E8M0 0xff) and every element NaN; NVFP4's block scale is E4M3's "
                                "NaN (0x7f), NF4's the absmax itself (NaN or inf), and so every element is NaN",
                                min_length=1, max_length=MAX_QUANTIZE_VALUES)
    block_size: Annotated[int, stated(whole(1, MAX_BLOCK_SIZE))] | None = Field(
        None, description=f"elements per block, 1 to {MAX_BLOCK_SIZE} (default: 32 for MX, 16 NVFP4, 64 NF4); at most "
        f"{MAX_QUANTIZE_BLOCKS} blocks in all")


# Only NVFP4's body has tensor_scale: the field QuantizationAnswer.of leaves unset stays out of the others'
@router.post("/blocks/quantize", summary="Quantise a vector into a block-scaled format",
             response_model_exclude_unset=True, responses={400: UNREADABLE_BODY, 422: NOT_QUANTIZED})
def quantize(request: QuantizeRequest) -> QuantizationAnswer:
    inputs.block_count(len(request.values), request.format, request.block_size, MAX_QUANTIZE_BLOCKS)
    return QuantizationAnswer.of(quantize_blocks(request.values, request.format, request.block_size))
