"""The formats core: registry, exact codec, rounding, input parsing, vector and block quantisers.

Imports numpy, ml_dtypes and the standard library only; never the web layer.
"""

from app.formats.block_detail import (
    BlockSummary,
    Fate,
    MxExponent,
    block_absmax,
    block_step,
    exact_error,
    fates,
    mx_exponent,
    nvfp4_quotients,
    scale_rule,
    summarise,
)
from app.formats.blocks import (
    BLOCK_FORMAT_IDS,
    NF4_BLOCK_SIZE,
    BlockQuantization,
    block_size_of,
    element_emax,
    quantize_blocks,
    to_json,
)
from app.formats.codec import SATURATED_BY, NotScalarError, decode, encode
from app.formats.custom import (
    CUSTOM_ID,
    CUSTOM_NAN_STYLES,
    MAX_BIAS,
    MAX_EXPONENT_BITS,
    MAX_MANTISSA_BITS,
    LayoutError,
    custom_format,
    default_bias,
)
from app.formats.encoding import Encoding, Rounded, ValueClass
from app.formats.exact import Real, decimal, decimal_string
from app.formats.neighbours import next_down, next_up, ulp
from app.formats.parse import InputError, RawBits, parse_bits, parse_number, parse_value
from app.formats.registry import FORMATS, SCALAR_FORMATS, UnknownFormatError, get_format
from app.formats.rounding import OVERFLOW_POLICIES, ROUNDINGS, OverflowPolicy, Rounding, overflow_policy, rounding_mode
from app.formats.spec import FormatSpec

__all__ = [
    "SATURATED_BY",
    "BLOCK_FORMAT_IDS",
    "CUSTOM_ID",
    "CUSTOM_NAN_STYLES",
    "FORMATS",
    "MAX_BIAS",
    "MAX_EXPONENT_BITS",
    "MAX_MANTISSA_BITS",
    "NF4_BLOCK_SIZE",
    "OVERFLOW_POLICIES",
    "ROUNDINGS",
    "SCALAR_FORMATS",
    "BlockQuantization",
    "BlockSummary",
    "Encoding",
    "Fate",
    "FormatSpec",
    "InputError",
    "LayoutError",
    "MxExponent",
    "NotScalarError",
    "OverflowPolicy",
    "RawBits",
    "Real",
    "Rounded",
    "Rounding",
    "UnknownFormatError",
    "ValueClass",
    "block_absmax",
    "block_size_of",
    "block_step",
    "custom_format",
    "decimal",
    "decimal_string",
    "decode",
    "default_bias",
    "element_emax",
    "encode",
    "exact_error",
    "fates",
    "get_format",
    "mx_exponent",
    "next_down",
    "next_up",
    "nvfp4_quotients",
    "overflow_policy",
    "parse_bits",
    "parse_number",
    "parse_value",
    "quantize_blocks",
    "rounding_mode",
    "scale_rule",
    "summarise",
    "to_json",
    "ulp",
]
