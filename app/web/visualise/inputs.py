"""Query parameters a person or a client sends, checked once for every route that takes them."""

from __future__ import annotations

import re

from app.formats import (
    CUSTOM_ID,
    CUSTOM_NAN_STYLES,
    MAX_EXPONENT_BITS,
    MAX_MANTISSA_BITS,
    FormatSpec,
    InputError,
    LayoutError,
    block_size_of,
    custom_format,
    default_bias,
    get_format,
)
from app.refusal import quoted
from app.web.platform.catalogs import N_

MAX_SEED = 2**63 - 1


def scalar_format(format_id: str) -> FormatSpec:
    """A scalar format by id; UnknownFormatError (404) or InputError for block formats."""
    spec = get_format(format_id)
    if spec.kind == "block":
        raise InputError(
            template=N_("%(format)s is a block format: its values share a scale, so quantise a whole vector with "
                        "POST /api/blocks/quantize (or see the format table at /formats)."),
            params={"format": spec.id},
        )
    return spec


def seed_value(text: str | None) -> int | None:
    if text is None or text == "":
        return None
    if not text.isascii() or not text.isdigit() or len(text) > 19 or int(text) > MAX_SEED:
        raise InputError(template=N_("The seed must be a whole number from 0 to %(most)s."),
                         params={"most": str(MAX_SEED)})
    return int(text)


def block_count(values: int, format_id: str, block_size: int | None, most: int) -> int:
    """How many blocks a quantisation makes; InputError past `most`, saying which block size would do."""
    size = block_size_of(format_id, block_size)
    blocks = -(-values // size)
    if blocks > most:
        raise InputError(template=N_("%(values)s values in blocks of %(size)s make %(blocks)s blocks; at most "
                                    "%(most)s are quantised at once, so use a block size of at least %(least)s or "
                                    "fewer values."),
                         params={"values": str(values), "size": str(size), "blocks": str(blocks), "most": str(most),
                                 "least": str(-(-values // most))})
    return blocks


# -- custom layouts -----------------------------------------------------------------------------

_WHOLE = re.compile(r"\s*([+-]?)([0-9]+)\s*", re.ASCII)
_LONGEST = 15  # digits read in full; longer is out of every range, and said to be
LAYOUT_NEEDED = (
    f"A custom format needs its layout: exponent_bits (1 to {MAX_EXPONENT_BITS}) and mantissa_bits (1 to "
    f"{MAX_MANTISSA_BITS}), as in /visualise/custom?exponent_bits=4&mantissa_bits=3; bias (default IEEE's "
    f"2^(e-1) - 1, FNUZ's 2^(e-1)) and nan_style ({', '.join(CUSTOM_NAN_STYLES)}; default ieee) may follow."
)


def custom_layout(
    exponent_bits: str | None, mantissa_bits: str | None, bias: str | None = None, nan_style: str | None = None
) -> FormatSpec:
    """The custom format a query's layout describes; LayoutError, with the sentence, for one it cannot be."""
    if not exponent_bits or not mantissa_bits:
        raise LayoutError(LAYOUT_NEEDED)
    return custom_format(
        _whole(exponent_bits, "exponent_bits"), _whole(mantissa_bits, "mantissa_bits"),
        None if bias is None or not bias.strip() else _whole(bias, "bias"), nan_style or "ieee",
    )


def _whole(text: str, name: str) -> int:
    """A whole number as typed (ASCII digits, a sign); one of more than 15 digits as 10^16, which every range
    refuses without the number being made."""
    match = _WHOLE.fullmatch(text)
    if match is None:
        raise LayoutError(template=N_("%(name)s must be a whole number, such as 5; %(text)s is not one."),
                          params={"name": name, "text": quoted(text[:40])})
    sign, digits = -1 if match[1] == "-" else 1, match[2].lstrip("0") or "0"
    return sign * (int(digits) if len(digits) <= _LONGEST else 10**(_LONGEST + 1))


def custom_layout_query(spec: FormatSpec) -> tuple[tuple[str, str], ...] | None:
    """The query that makes this layout a custom format (bias and nan_style only where they are not the default),
    or None where a custom format cannot take it (integers, codebooks, E8M0, unsigned floats)."""
    if spec.kind != "float" or not spec.signed or spec.nan_style not in CUSTOM_NAN_STYLES:
        return None
    try:
        custom_format(spec.exponent_bits, spec.mantissa_bits, spec.bias, spec.nan_style)
    except LayoutError:
        return None
    pairs = [("exponent_bits", str(spec.exponent_bits)), ("mantissa_bits", str(spec.mantissa_bits))]
    if spec.bias != default_bias(spec.exponent_bits, spec.nan_style):
        pairs.append(("bias", str(spec.bias)))
    if spec.nan_style != "ieee":
        pairs.append(("nan_style", spec.nan_style))
    return tuple(pairs)


def layout_of(spec: FormatSpec) -> tuple[tuple[str, str], ...]:
    """What every link to this format's page carries besides its id: a custom format's layout, else nothing."""
    return (custom_layout_query(spec) or ()) if spec.id == CUSTOM_ID else ()
