"""The value of /compare alone in one block of each block format (MX, NVFP4, NF4): what that format stores of it.

A block holding one value has that value as its absmax, so this is the best a block format does for the value; the
block page (blocks/pages.py) shows what a whole block does to its smaller values. As there, the value is first
rounded to FP32 (nearest even), since block formats quantise FP32 tensors; the error here is against the value as
typed, so it includes that rounding. Block quantisation has one rounding (nearest even) and its own rule for
overflow, so the page's rounding and overflow choices do not apply to these rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.formats import (
    BLOCK_FORMAT_IDS,
    FORMATS,
    Encoding,
    FormatSpec,
    Real,
    Rounded,
    ValueClass,
    decode,
    encode,
    fates,
    quantize_blocks,
)
from app.web.blocks.pages import block_url
from app.web.platform.catalogs import N_, gettext
from app.web.visualise.present import BitGroup, Shown, bit_groups, relative, shown

_FLOAT32 = FORMATS["float32"]
# What the rows say of a value that was not simply rounded, translated where shown (block_notes)
NOTES = {
    "saturated": N_("Clamped to the element's largest value."),
    "zeroed": N_("Below the smallest step the scale allows: flushed to zero."),
    "nan": N_("A block holding {what} has no finite absmax to scale by, so its elements are NaN."),
    "refused": N_("Beyond FP32's largest finite value ≈{max}: block formats quantise FP32 tensors, so this value has "
                  "no block."),
}
FP32_MAX = f"{float(_FLOAT32.max):.7g}"


@dataclass(frozen=True)
class BlockRow:
    """One block format's line: the element's code bits and the shared scale's, what it stores, and its error."""

    spec: FormatSpec
    href: str
    groups: list[BitGroup]
    code_hex: str | None
    scale_hex: str | None
    scale_name: str
    result: Rounded | None  # stored against the typed value; None where the value has no FP32 block
    fate: str | None  # kept, saturated, zeroed or nan (block_detail.fates)
    stored: Shown | None
    error: Shown | None

    @property
    def rel_error(self) -> str:
        return relative(self.result.rel_error) if self.result else "—"

    @property
    def flag(self) -> str | None:
        return {"saturated": "saturated", "zeroed": "underflow", "nan": "nan"}.get(self.fate or "")

    @property
    def note_id(self) -> str | None:
        """Which of block_notes the row says, where the value was not simply rounded."""
        if self.result is None:
            return "refused"
        if self.fate == "nan":
            given = self.result.input
            return None if given.is_finite else "nan-NaN" if given.kind == "nan" else "nan-inf"
        return self.fate if self.fate in NOTES else None


def block_notes() -> dict[str, str]:
    """Every sentence a row may say, by note id, in the page's language: the page carries them all, for its script
    to write the one that applies."""
    said = {note: gettext(sentence) for note, sentence in NOTES.items()}
    return {"saturated": said["saturated"], "zeroed": said["zeroed"], "nan-NaN": said["nan"].format(what="NaN"),
            "nan-inf": said["nan"].format(what="inf"), "refused": said["refused"].format(max=FP32_MAX)}


def block_rows(x: Real, typed: str, prefix: str) -> list[BlockRow]:
    """The value x (typed as `typed`) alone in a block of every block format, in the registry's order."""
    fp32 = encode(_FLOAT32, x)
    return [_row(FORMATS[format_id], x, fp32.encoding.value.to_float(), typed, prefix, fp32.overflowed)
            for format_id in BLOCK_FORMAT_IDS]


def _row(spec: FormatSpec, x: Real, value: float, typed: str, prefix: str, refused: bool) -> BlockRow:
    element_spec = spec.element or spec  # NF4 is its own codebook
    scale_spec = spec.scale or _FLOAT32
    scale_name = N_("FP32 absmax") if spec.kind == "codebook" else scale_spec.name  # translated where shown
    href = block_url(spec.id, values=typed, prefix=prefix)
    if refused:  # beyond FP32's range: no block
        return BlockRow(spec, href, bit_groups(decode(element_spec, 0)), None, None, scale_name, None, None, None,
                        None)
    result = quantize_blocks([value], spec.id)
    block = result.blocks[0]
    stored = float(result.dequantized[0])
    element = decode(element_spec, block.codes[0])
    scale_hex = f"0x{block.scale_bits:0{(scale_spec.bits + 3) // 4}x}"
    held = Real.of_float(stored)
    cls: ValueClass = "zero" if held.is_zero else "normal" if held.kind == "finite" else held.kind
    rounded = Rounded(encoding=Encoding(spec, block.codes[0], held, cls), input=x)
    return BlockRow(spec, href, bit_groups(element), element.hex, scale_hex, scale_name, rounded, fates(result)[0],
                    shown(held, limit=80, digits=20), shown(rounded.error, limit=40))
