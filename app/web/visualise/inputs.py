"""Query parameters a person or a client sends, checked once for every route that takes them."""

from __future__ import annotations

from app.formats import FormatSpec, InputError, block_size_of, get_format

MAX_SEED = 2**63 - 1


def scalar_format(format_id: str) -> FormatSpec:
    """A scalar format by id; UnknownFormatError (404) or InputError for block formats."""
    spec = get_format(format_id)
    if spec.kind == "block":
        raise InputError(
            f"{spec.id} is a block format: its values share a scale, so quantise a whole vector with "
            "POST /api/blocks/quantize (or see the format table at /formats)."
        )
    return spec


def seed_value(text: str | None) -> int | None:
    if text is None or text == "":
        return None
    if not text.isascii() or not text.isdigit() or len(text) > 19 or int(text) > MAX_SEED:
        raise InputError(f"The seed must be a whole number from 0 to {MAX_SEED}.")
    return int(text)


def block_count(values: int, format_id: str, block_size: int | None, most: int) -> int:
    """How many blocks a quantisation makes; InputError past `most`, saying which block size would do."""
    size = block_size_of(format_id, block_size)
    blocks = -(-values // size)
    if blocks > most:
        raise InputError(f"{values} values in blocks of {size} make {blocks} blocks; at most {most} are quantised "
                         f"at once, so use a block size of at least {-(-values // most)} or fewer values.")
    return blocks
