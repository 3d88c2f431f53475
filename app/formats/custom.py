"""Float formats of a person's own layout: sign, exponent and mantissa widths, bias, and how the top exponent is spent.

A custom layout is not in the registry: its FormatSpec is built on demand (and kept, a bounded number of them), with
the id `custom`, and the exact codec treats it as any other float format.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal, cast, get_args

from app.formats.parse import InputError
from app.formats.registry import SCALAR_FORMATS
from app.formats.spec import FormatSpec
from app.messages import N_, Phrase
from app.refusal import quoted

CUSTOM_ID = "custom"
MAX_EXPONENT_BITS = 15  # binary128's
MAX_MANTISSA_BITS = 112  # binary128's
MIN_IEEE_EXPONENT_BITS = 2  # IEEE-style inf and NaN take the all-ones exponent: one bit would leave no normal number
# A bias within ±2^15 keeps every value within 2^±(2^16 + 112): past binary128's range, and quick to show exactly.
MAX_BIAS = 1 << MAX_EXPONENT_BITS

# ieee: ±inf and NaNs at the all-ones exponent; fn: no inf, NaN only at all-ones exponent and mantissa (E4M3FN);
# fnuz: no inf, no -0, NaN at the pattern of -0 (E5M2FNUZ); none: every pattern a number (FP6, FP4)
CustomNanStyle = Literal["ieee", "fn", "fnuz", "none"]
CUSTOM_NAN_STYLES: tuple[str, ...] = get_args(CustomNanStyle)

_STYLE_WORDS = {
    "ieee": N_("IEEE-style ±inf and NaN"),
    "fn": N_("no inf; NaN at all ones"),
    "fnuz": N_("no inf, no −0; NaN at the pattern of −0"),
    "none": N_("no inf, no NaN"),
}
_STYLE_SUFFIX = {"ieee": "", "fn": " FN", "fnuz": " FNUZ", "none": " (no inf/NaN)"}


class LayoutError(InputError):
    """A custom layout the codec cannot hold; the message says which limit and why."""


def default_bias(exponent_bits: int, nan_style: str = "ieee") -> int:
    """IEEE's 2^(e−1) − 1; FNUZ formats take one more (float8_e4m3fnuz 8, float8_e5m2fnuz 16)."""
    return (1 << (exponent_bits - 1)) - (0 if nan_style == "fnuz" else 1)


def nan_style_named(name: str) -> CustomNanStyle:
    """The inf/NaN rule of this name; LayoutError, with the rules there are, for any other."""
    if name not in CUSTOM_NAN_STYLES:
        raise LayoutError(template=N_("Unknown nan_style %(input)s; choose one of: %(styles)s."),
                          params={"input": quoted(name[:40]), "styles": ", ".join(CUSTOM_NAN_STYLES)})
    return cast(CustomNanStyle, name)


@lru_cache(maxsize=256)
def custom_format(
    exponent_bits: int, mantissa_bits: int, bias: int | None = None, nan_style: str = "ieee"
) -> FormatSpec:
    """The signed float format of this layout (bias None: default_bias); LayoutError for one it cannot be."""
    style = nan_style_named(nan_style)
    _check_layout(exponent_bits, mantissa_bits, style)
    if bias is None:
        bias = default_bias(exponent_bits, style)
    if not -MAX_BIAS <= bias <= MAX_BIAS:
        raise LayoutError(template=N_("The bias of a custom format is from -%(most)s to %(most)s, so %(given)s is "
                                      "refused."),
                          params={"most": str(MAX_BIAS), "given": _named("bias", bias)})
    bits = 1 + exponent_bits + mantissa_bits
    layout = ("float", bits, exponent_bits, mantissa_bits, bias, style, True)
    same = next((f.id for f in SCALAR_FORMATS if _layout(f) == layout), None)
    # a Phrase, as the pages translate it (app/messages.py); as a str, the English
    words = {"exponent": _bits(exponent_bits, "exponent"), "mantissa": _bits(mantissa_bits, "mantissa"),
             "bias": str(bias), "style": Phrase(_STYLE_WORDS[style]), "same": same or ""}
    summary = Phrase(N_("Your own layout: 1 sign, %(exponent)s and %(mantissa)s, bias %(bias)s; %(style)s. The same "
                        "layout as %(same)s.") if same else
                     N_("Your own layout: 1 sign, %(exponent)s and %(mantissa)s, bias %(bias)s; %(style)s."), words)
    return FormatSpec(
        id=CUSTOM_ID, name=_name(exponent_bits, mantissa_bits, bias, style), kind="float", bits=bits,
        exponent_bits=exponent_bits, mantissa_bits=mantissa_bits, bias=bias, nan_style=style, summary=summary,
    )


def _check_layout(exponent_bits: int, mantissa_bits: int, style: str) -> None:
    if not 1 <= exponent_bits <= MAX_EXPONENT_BITS:
        raise LayoutError(
            template=N_("A custom format has 1 to %(most)s exponent bits (binary128's %(most)s are the most), so "
                        "%(given)s is refused."),
            params={"most": str(MAX_EXPONENT_BITS), "given": _named("exponent_bits", exponent_bits)},
        )
    if not 1 <= mantissa_bits <= MAX_MANTISSA_BITS:
        raise LayoutError(
            template=N_("A custom format has 1 to %(most)s mantissa bits (binary128's %(most)s are the most; with none "
                        "there would be no subnormals), so %(given)s is refused."),
            params={"most": str(MAX_MANTISSA_BITS), "given": _named("mantissa_bits", mantissa_bits)},
        )
    if style == "ieee" and exponent_bits < MIN_IEEE_EXPONENT_BITS:
        raise LayoutError(template=N_(
            "IEEE-style inf and NaN take the all-ones exponent field, which leaves a 1-bit exponent no normal "
            "numbers; give at least 2 exponent bits, or choose nan_style fn, fnuz or none."
        ))


def _layout(spec: FormatSpec) -> tuple[object, ...]:
    return spec.kind, spec.bits, spec.exponent_bits, spec.mantissa_bits, spec.bias, spec.nan_style, spec.signed


_BITS = {("exponent", True): N_("%(count)s exponent bit"), ("exponent", False): N_("%(count)s exponent bits"),
         ("mantissa", True): N_("%(count)s mantissa bit"), ("mantissa", False): N_("%(count)s mantissa bits")}


def _bits(n: int, field: str) -> Phrase:
    return Phrase(_BITS[field, n == 1], {"count": str(n)})


def _name(exponent_bits: int, mantissa_bits: int, bias: int, style: str) -> str:
    shifted = "" if bias == default_bias(exponent_bits, style) else f", bias {bias}"
    return f"Custom E{exponent_bits}M{mantissa_bits}{_STYLE_SUFFIX[style]}{shifted}"


def _named(name: str, n: int) -> str:
    """A parameter as a refusal names it: its number in full unless absurdly long (str() of a huge int is costly)."""
    return f"{name}={n}" if abs(n) < 10**15 else Phrase(N_("%(name)s with more than 15 digits"), {"name": name})
