"""The formats core: registry, exact codec, rounding, input parsing, vector and block quantisers.

Imports numpy, ml_dtypes and the standard library only; never the web layer.
"""

from app.formats.codec import Encoding, NotScalarError, Rounded, decode, encode
from app.formats.exact import Real, decimal
from app.formats.neighbours import next_down, next_up, ulp
from app.formats.parse import InputError, RawBits, parse_bits, parse_number, parse_value
from app.formats.registry import FORMATS, SCALAR_FORMATS, UnknownFormatError, get_format
from app.formats.rounding import OVERFLOW_POLICIES, ROUNDINGS, OverflowPolicy, Rounding, overflow_policy, rounding_mode
from app.formats.spec import FormatSpec

__all__ = [
    "FORMATS",
    "OVERFLOW_POLICIES",
    "ROUNDINGS",
    "SCALAR_FORMATS",
    "Encoding",
    "FormatSpec",
    "InputError",
    "OverflowPolicy",
    "Rounding",
    "NotScalarError",
    "RawBits",
    "Real",
    "Rounded",
    "UnknownFormatError",
    "decimal",
    "decode",
    "encode",
    "get_format",
    "next_down",
    "next_up",
    "overflow_policy",
    "parse_bits",
    "parse_number",
    "parse_value",
    "rounding_mode",
    "ulp",
]
