"""The formats core: registry, exact codec, rounding, input parsing, vector and block quantisers.

Imports numpy, ml_dtypes and the standard library only; never the web layer.
"""

from app.formats.blocks import NF4_BLOCK_SIZE, block_size_of, quantize_blocks, to_json
from app.formats.codec import NotScalarError, decode, encode
from app.formats.encoding import Encoding, Rounded, ValueClass
from app.formats.exact import Real, decimal, decimal_string
from app.formats.neighbours import next_down, next_up, ulp
from app.formats.parse import InputError, RawBits, parse_bits, parse_number, parse_value
from app.formats.registry import FORMATS, SCALAR_FORMATS, UnknownFormatError, get_format
from app.formats.rounding import OVERFLOW_POLICIES, ROUNDINGS, OverflowPolicy, Rounding, overflow_policy, rounding_mode
from app.formats.spec import FormatSpec

__all__ = [
    "FORMATS",
    "NF4_BLOCK_SIZE",
    "OVERFLOW_POLICIES",
    "ROUNDINGS",
    "SCALAR_FORMATS",
    "Encoding",
    "FormatSpec",
    "InputError",
    "NotScalarError",
    "OverflowPolicy",
    "RawBits",
    "Real",
    "Rounded",
    "Rounding",
    "UnknownFormatError",
    "ValueClass",
    "block_size_of",
    "decimal",
    "decimal_string",
    "decode",
    "encode",
    "get_format",
    "next_down",
    "next_up",
    "overflow_policy",
    "parse_bits",
    "parse_number",
    "parse_value",
    "quantize_blocks",
    "rounding_mode",
    "to_json",
    "ulp",
]
