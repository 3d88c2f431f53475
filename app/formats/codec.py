"""The exact codec: bit pattern <-> exact value, for every scalar format in the registry.

Works on integers and Fractions only. ml_dtypes is the reference it is tested against, and its
behaviour is what `format_default` means (overflow to inf, to NaN, or saturation, by format).
"""

from __future__ import annotations

import bisect
from fractions import Fraction
from functools import cache

from app.formats.encoding import Encoding, Rounded
from app.formats.exact import Real, decimal
from app.formats.rounding import (
    OverflowPolicy,
    Rounding,
    StochasticDraw,
    magnitude_rounds_up,
    overflow_policy,
    rounding_mode,
    rounds_toward_zero,
    seeded_draw,
)
from app.formats.spec import FormatSpec, pow2
from app.messages import N_, Phrase
from app.refusal import Refusal


class NotScalarError(Refusal):
    """A block format asked to encode or decode one value on its own."""


def _check_scalar(spec: FormatSpec) -> None:
    if spec.kind == "block":
        raise NotScalarError(
            template=N_("%(format)s is a block format: its values share a scale, so quantise a whole vector with "
                        "POST /api/blocks/quantize instead."),
            params={"format": spec.id},
        )


# -- decoding -----------------------------------------------------------------------------------


def decode(spec: FormatSpec, bits: int) -> Encoding:
    """The value and class of one bit pattern."""
    _check_scalar(spec)
    if not 0 <= bits < 1 << spec.bits:
        raise ValueError(f"{bits} is not a {spec.bits}-bit pattern")
    if spec.kind == "int":
        value = bits - (1 << spec.bits) if spec.signed and bits >> (spec.bits - 1) else bits
        return Encoding(spec, bits, Real.of(value), "zero" if value == 0 else "normal")
    if spec.kind == "codebook":
        code_value = _codebook(spec)[bits]
        return Encoding(spec, bits, Real.of(code_value), "zero" if code_value == 0 else "normal")
    return _decode_float(spec, bits)


def _decode_float(spec: FormatSpec, bits: int) -> Encoding:
    m, top = spec.mantissa_bits, (1 << spec.exponent_bits) - 1
    negative = spec.signed and bool(bits >> (spec.bits - 1))
    ef, mf = (bits >> m) & top, bits & ((1 << m) - 1)
    style = spec.nan_style
    if style == "ieee" and ef == top:
        return Encoding(spec, bits, Real.nan(negative) if mf else Real.inf(negative), "nan" if mf else "inf")
    if (
        (style == "fn" and ef == top and mf == (1 << m) - 1)
        or (style == "fnuz" and bits == 1 << (spec.bits - 1))
        or (style == "e8m0" and bits == (1 << spec.bits) - 1)
    ):
        return Encoding(spec, bits, Real.nan(negative and style == "fn"), "nan")
    if spec.has_subnormals and ef == 0:
        if mf == 0:
            return Encoding(spec, bits, Real(negative), "zero")
        return Encoding(spec, bits, Real(negative, mf * pow2(spec.emin - m)), "subnormal")
    return Encoding(spec, bits, Real(negative, ((1 << m) + mf) * pow2(ef - spec.bias - m)), "normal")


@cache
def _codebook(spec: FormatSpec) -> tuple[Fraction, ...]:
    return tuple(Fraction(v) for v in spec.codebook)


# -- encoding -----------------------------------------------------------------------------------


def encode(
    spec: FormatSpec, x: Real, rounding: Rounding = "nearest_even", overflow: OverflowPolicy = "format_default",
    seed: int | None = None,
) -> Rounded:
    """Store x in the format: round by `rounding`, then handle overflow by `overflow`; an unknown mode or policy
    is an InputError, never a silent default."""
    rounding = rounding_mode(rounding)
    return encode_drawn(spec, x, rounding, overflow, seeded_draw(seed) if rounding == "stochastic" else None)


def encode_drawn(
    spec: FormatSpec, x: Real, rounding: Rounding, overflow: OverflowPolicy, rng: StochasticDraw | None
) -> Rounded:
    """encode, with stochastic rounding's draw given (stochastic.py asks for each way a draw can go)."""
    _check_scalar(spec)
    rounding, saturate = rounding_mode(rounding), overflow_policy(overflow) == "saturate"
    if spec.kind == "int":
        return _encode_int(spec, x, rounding, saturate, rng)
    if spec.kind == "codebook":
        return _encode_codebook(spec, x, rounding, rng)
    return _encode_float(spec, x, rounding, saturate, rng)


def float_bits(spec: FormatSpec, negative: bool, exponent_field: int, mantissa_field: int) -> int:
    sign = (1 << (spec.bits - 1)) if negative and spec.signed else 0
    return sign | exponent_field << spec.mantissa_bits | mantissa_field


def max_bits(spec: FormatSpec, negative: bool) -> int:
    return float_bits(spec, negative, spec.max_exponent_field, spec.max_mantissa_field)


def _nan_bits(spec: FormatSpec, negative: bool) -> int:
    m, top = spec.mantissa_bits, (1 << spec.exponent_bits) - 1
    if spec.nan_style == "ieee":
        return float_bits(spec, negative, top, 1 << (m - 1))
    if spec.nan_style == "fn":
        return float_bits(spec, negative, top, (1 << m) - 1)
    if spec.nan_style == "fnuz":
        return 1 << (spec.bits - 1)
    return (1 << spec.bits) - 1  # e8m0


# Libraries whose casts saturate where ml_dtypes' gives NaN (the OCP FP8 specification allows both)
SATURATING = {"float8_e4m3fn": Phrase(N_("PyTorch's .to(torch.float8_e4m3fn) (since PyTorch 2.12) and "
                                         "Transformer Engine"))}
# An encode's note is a Phrase (app/messages.py): as a str, the English that the API and visualiser.js give;
# pages show it in their language (refusal_sentence)


def _encode_float(spec: FormatSpec, x: Real, mode: str, saturate: bool, rng: StochasticDraw | None) -> Rounded:
    neg = x.negative
    if x.kind == "nan":
        if spec.nan_style == "none":
            # ml_dtypes stores NaN in FP6/FP4 as a zero with the NaN's sign bit flipped
            return Rounded(encoding=decode(spec, float_bits(spec, not neg, 0, 0)), input=x,
                           note=Phrase(N_("%(name)s has no NaN; ml_dtypes stores NaN as a zero."), {"name": spec.name}))
        return Rounded(encoding=decode(spec, _nan_bits(spec, neg)), input=x)
    if spec.nan_style == "e8m0" and (neg or x.is_zero):
        why = (N_("%(name)s has no sign and no zero, so zero become NaN.") if x.is_zero
               else N_("%(name)s has no sign and no zero, so negative values become NaN."))
        return Rounded(encoding=decode(spec, _nan_bits(spec, neg)), input=x, note=Phrase(why, {"name": spec.name}))
    if x.kind == "inf":
        if spec.has_inf and not saturate:
            return Rounded(encoding=decode(spec, float_bits(spec, neg, (1 << spec.exponent_bits) - 1, 0)), input=x)
        if spec.overflow_default == "nan" and not saturate:
            return Rounded(encoding=decode(spec, _nan_bits(spec, neg)), input=x,
                           note=Phrase(N_("%(name)s has no infinity; ml_dtypes stores it as NaN."),
                                       {"name": spec.name}))
        return Rounded(encoding=decode(spec, max_bits(spec, neg)), input=x,
                       note=Phrase(N_("Infinity is stored as the largest finite value (saturation).")))
    if x.is_zero:
        return Rounded(encoding=decode(spec, float_bits(spec, neg and spec.has_negative_zero, 0, 0)), input=x)

    m, a = spec.mantissa_bits, x.magnitude
    num, den = a.numerator, a.denominator
    e = num.bit_length() - den.bit_length()
    if (num << -e if e < 0 else num) < (den << e if e > 0 else den):
        e -= 1  # now 2^e <= a < 2^(e+1)
    e_eff = max(e, spec.emin)
    shift = m - e_eff  # a × 2^shift = n + r/q, and the stored value is n × 2^(e_eff − m)
    p, q = (num << shift, den) if shift >= 0 else (num, den << -shift)
    n, r = divmod(p, q)
    if r and magnitude_rounds_up(mode, neg, r, q, n % 2 == 0, rng):
        n += 1

    if e_eff > spec.emax or (e_eff == spec.emax and n > (1 << m) + spec.max_mantissa_field):
        if saturate or rounds_toward_zero(mode, neg) or spec.overflow_default == "saturate":
            return Rounded(encoding=decode(spec, max_bits(spec, neg)), input=x, overflowed=True,
                           note=Phrase(N_("Beyond the largest finite value %(max)s: stored as ±max (saturation)."),
                                       {"max": _max_text(spec)}))
        if spec.overflow_default == "inf":
            return Rounded(encoding=decode(spec, float_bits(spec, neg, (1 << spec.exponent_bits) - 1, 0)), input=x,
                           overflowed=True, note=Phrase(N_("Beyond the largest finite value: overflow to infinity.")))
        libraries = SATURATING.get(spec.id)
        note = (Phrase(N_("%(name)s has no infinity, so ml_dtypes' cast gives NaN on overflow; choose saturate to "
                          "keep ±max, as %(libraries)s do."), {"name": spec.name, "libraries": libraries})
                if libraries else Phrase(N_("%(name)s has no infinity, so ml_dtypes' cast gives NaN on overflow; "
                                            "choose saturate to keep ±max."), {"name": spec.name}))
        return Rounded(encoding=decode(spec, _nan_bits(spec, neg)), input=x, overflowed=True, note=note)
    if n == 0:
        if not spec.has_zero:
            return Rounded(encoding=decode(spec, 0), input=x, underflowed=True,
                           note=Phrase(N_("%(name)s has no zero: values below its smallest are stored as that "
                                          "smallest."), {"name": spec.name}))
        return Rounded(encoding=decode(spec, float_bits(spec, neg and spec.has_negative_zero, 0, 0)), input=x,
                       underflowed=True, note=Phrase(N_("Too small for this format: flushed to zero (underflow).")))
    if n >> (m + 1):
        n, e_eff = n >> 1, e_eff + 1  # rounding carried into the next binade
    normal = n >> m  # else a subnormal, whose exponent field is 0
    bits = float_bits(spec, neg, e_eff + spec.bias, n - (1 << m)) if normal else float_bits(spec, neg, 0, n)
    return Rounded(encoding=decode(spec, bits), input=x)


def _max_text(spec: FormatSpec) -> str:
    """max as its Fraction writes it ("448", "15/2"), or "≈" and 40 digits where that is too long to write out
    (binary128's has 4933 digits, past what str() of an int allows)."""
    text, exact = decimal(spec.max)
    return str(spec.max) if exact else "≈" + text


def int_limits(spec: FormatSpec) -> tuple[int, int]:
    return int(spec.lowest), int(spec.max)


def _encode_int(spec: FormatSpec, x: Real, mode: str, saturate: bool, rng: StochasticDraw | None) -> Rounded:
    lo, hi = int_limits(spec)
    if x.kind == "nan":
        return Rounded(encoding=decode(spec, 0), input=x, note=Phrase(N_("Integers have no NaN; stored as 0.")))
    if x.kind == "inf":
        v = lo if x.negative else hi
        return Rounded(encoding=decode(spec, v & ((1 << spec.bits) - 1)), input=x,
                       note=Phrase(N_("Integers have no infinity; stored as the nearest end of the range.")))
    n, r = divmod(x.magnitude.numerator, x.magnitude.denominator)
    if r and magnitude_rounds_up(mode, x.negative, r, x.magnitude.denominator, n % 2 == 0, rng):
        n += 1
    v = -n if x.negative else n
    overflowed = not lo <= v <= hi
    note, limits = None, {"lo": str(lo), "hi": str(hi), "bits": str(spec.bits)}
    if overflowed:
        if saturate:
            v, note = min(max(v, lo), hi), Phrase(N_("Outside %(lo)s..%(hi)s: clamped to the range (saturation)."),
                                                  limits)
        else:
            v = (v - lo) % (1 << spec.bits) + lo
            note = Phrase(N_("Outside %(lo)s..%(hi)s: wrapped around modulo 2^%(bits)s, as an integer cast does."),
                          limits)
    underflowed = v == 0 and not x.is_zero
    return Rounded(encoding=decode(spec, v & ((1 << spec.bits) - 1)), input=x, overflowed=overflowed,
                   underflowed=underflowed, note=note)


def _encode_codebook(spec: FormatSpec, x: Real, mode: str, rng: StochasticDraw | None) -> Rounded:
    values = _codebook(spec)
    if x.kind == "nan":
        return Rounded(encoding=decode(spec, values.index(Fraction(0))), input=x,
                       note=Phrase(N_("%(name)s has no NaN; stored as 0."), {"name": spec.name}))
    if x.kind == "inf" or not values[0] <= x.fraction <= values[-1]:
        code = 0 if x.negative else len(values) - 1
        return Rounded(encoding=decode(spec, code), input=x, overflowed=x.is_finite,
                       note=Phrase(N_("Outside [%(lo)s, %(hi)s]: clamped to the nearest end of the codebook."),
                                   {"lo": str(values[0]), "hi": str(values[-1])}))
    v = x.fraction
    i = bisect.bisect_right(values, v) - 1
    if values[i] == v:
        return Rounded(encoding=decode(spec, i), input=x)
    # v lies strictly between values[i] and values[i + 1], which are on the same side of zero
    inner, outer = (i, i + 1) if values[i] >= 0 else (i + 1, i)
    frac = (abs(v) - abs(values[inner])) / (abs(values[outer]) - abs(values[inner]))
    up = magnitude_rounds_up(mode, x.negative, frac.numerator, frac.denominator, inner % 2 == 0, rng)
    code = outer if up else inner
    return Rounded(encoding=decode(spec, code), input=x, underflowed=values[code] == 0)
