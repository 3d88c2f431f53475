"""What the arithmetic lab reads from a query: the formats (a custom layout by its fields), the operation and the
operands it needs, and a chain's steps; each refused with a sentence that says what is wrong."""

from __future__ import annotations

from dataclasses import dataclass

from app.formats import (
    ARITY,
    CUSTOM_ID,
    FORMATS,
    MAX_STEPS,
    SCALAR_FORMATS,
    ChainStep,
    FormatSpec,
    InputError,
    Phrase,
    RawBits,
    Real,
    UnknownFormatError,
    decode,
    operation,
    parse_bits,
    parse_chain_step,
    parse_value,
)
from app.refusal import quoted
from app.web.platform.catalogs import N_
from app.web.visualise.inputs import custom_layout, scalar_format


@dataclass(frozen=True)
class Layout:
    """A custom format's fields as the query gives them (all None for a named format)."""

    exponent_bits: str | None = None
    mantissa_bits: str | None = None
    bias: str | None = None
    nan_style: str | None = None


def formats(format_id: str, result_format: str | None, layout: Layout) -> tuple[FormatSpec, FormatSpec]:
    """The operands' format and the result's (the operands' by default); `custom` in either is the layout's."""

    def one(format_id: str) -> FormatSpec:
        if format_id == CUSTOM_ID:
            return custom_layout(layout.exponent_bits, layout.mantissa_bits, layout.bias, layout.nan_style)
        if format_id not in FORMATS:  # the scalar formats named, not every id: a sentence short enough to read
            raise UnknownFormatError(template=N_("Unknown format %(input)s; choose one of: %(formats)s."),
                                     params={"input": quoted(format_id[:40]), "formats": SCALAR_IDS})
        return scalar_format(format_id)

    spec = one(format_id)
    return spec, one(result_format) if result_format else spec


NAMES = ("a", "b", "c")
SCALAR_IDS = ", ".join([*(spec.id for spec in SCALAR_FORMATS), CUSTOM_ID])


def operands(op: str, texts: tuple[str | None, ...], spec: FormatSpec) -> tuple[Real, ...]:
    """The values `op` takes from a, b, c, read as the visualiser reads a value: a number, or a bit pattern of the
    operands' format (0x3c00, 0b…) for the value it holds; InputError naming the one missing or unreadable."""
    needed = ARITY[operation(op)]
    values = []
    for name, text in zip(NAMES[:needed], texts, strict=False):
        if text is None or not text.strip():
            raise InputError(template=N_("%(op)s needs %(names)s: %(name)s is missing."),
                             params={"op": op, "names": ", ".join(NAMES[:needed]), "name": name})
        try:
            parsed = parse_value(text)
            values.append(decode(spec, parse_bits(parsed.text, spec)).value if isinstance(parsed, RawBits) else parsed)
        except InputError as error:
            raise InputError(template=N_("%(name)s: %(why)s"), params={"name": name, "why": _why(error)}) from error
    return tuple(values)


def chain_steps(texts: list[str]) -> tuple[ChainStep, ...]:
    """The steps of a chain, each as `add:0.1`; InputError naming the first that cannot be read."""
    if len(texts) > MAX_STEPS:
        raise InputError(template=N_("A chain has at most %(most)s steps; this one has %(count)s."),
                         params={"most": str(MAX_STEPS), "count": str(len(texts))})
    steps = []
    for number, text in enumerate(texts, 1):
        try:
            steps.append(parse_chain_step(text))
        except InputError as error:
            raise InputError(template=N_("Step %(number)s: %(why)s"),
                             params={"number": str(number), "why": _why(error)}) from error
    return tuple(steps)


def _why(error: InputError) -> str:
    """An inner refusal's sentence as a parameter of the outer one, translated with it where it has a template."""
    return Phrase(error.template, error.params) if error.template else str(error)
