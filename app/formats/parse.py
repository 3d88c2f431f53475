"""Reading what a person types: values (decimal, hex float, fraction, inf, nan) and raw bit patterns."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from app.formats.exact import Real, ten_to
from app.formats.spec import FormatSpec
from app.messages import N_, Phrase
from app.refusal import Refusal, quoted

MAX_INPUT_LENGTH = 1100  # room for the exact decimal of the smallest float64 subnormal, and more
MAX_DECIMAL_EXPONENT = 100_000
MAX_BINARY_EXPONENT = 400_000

ACCEPTED = Phrase(N_(
    "decimals (0.1, -2.5e-3), hex floats (0x1.8p-3), fractions (1/3), inf, -inf, nan, -0, "
    "and raw bits (0x3c00 or 0b0011110000000000)"
))

_F = re.ASCII | re.IGNORECASE
_DECIMAL = r"(?P<int{n}>[0-9]+)?(?:\.(?P<frac{n}>[0-9]*))?(?:e(?P<exp{n}>[+-]?[0-9]+))?"
_SPECIAL = re.compile(r"(?P<sign>[+-]?)(?P<word>inf|infinity|nan)", _F)
_NUMBER = re.compile(r"(?P<sign>[+-]?)" + _DECIMAL.format(n=""), _F)
_FRACTION = re.compile(
    r"(?P<sign>[+-]?)" + _DECIMAL.format(n="") + r"\s*/\s*(?P<dsign>[+-]?)" + _DECIMAL.format(n="_d"), _F
)
_HEX_FLOAT = re.compile(r"(?P<sign>[+-]?)0x(?P<int>[0-9a-f]*)(?:\.(?P<frac>[0-9a-f]*))?p(?P<exp>[+-]?[0-9]+)", _F)
# underscores group digits, so a pattern needs at least one digit besides them
_RAW_HEX = re.compile(r"0x(?P<digits>_*[0-9a-f][0-9a-f_]*)", _F)
_RAW_BIN = re.compile(r"0b(?P<digits>_*[01][01_]*)", _F)
_RAW_DEC = re.compile(r"(?P<digits>_*[0-9][0-9_]*)", _F)


def _exponent_digits(most: int) -> str:
    """An exponent's digits, as few as keep every exponent written with them within ±most."""
    return f"[+-]?[0-9]{{1,{len(str(most)) - 1}}}"


# The values parse_number reads, as /openapi.json states them (an ECMA-262 regex): decimals, hex floats, a decimal
# over a nonzero decimal, inf, infinity and nan, each signed. parse_number also reads spaces, upper-case words and
# longer exponents within the limits above; what it cannot read, it refuses with a sentence.
_DECIMAL_DIGITS = r"([0-9]+(\.[0-9]*)?|\.[0-9]+)"
_HEX_DIGITS = r"([0-9a-fA-F]+(\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)"
VALUE_PATTERN = (
    r"^[+-]?(inf|infinity|nan"
    rf"|{_DECIMAL_DIGITS}([eE]{_exponent_digits(MAX_DECIMAL_EXPONENT)})?"
    rf"|0[xX]{_HEX_DIGITS}[pP]{_exponent_digits(MAX_BINARY_EXPONENT)}"
    rf"|{_DECIMAL_DIGITS}/[+-]?[0-9]*[1-9][0-9]*(\.[0-9]*)?)$"
)


class InputError(Refusal):
    """Input that cannot be read; the message is a sentence a person can act on."""


@dataclass(frozen=True)
class RawBits:
    """A bit pattern typed where a value was expected (0x3c00, 0b0011…)."""

    pattern: int
    text: str


def _shown(text: str) -> str:
    return quoted(text if len(text) <= 40 else text[:40] + "…")


def _clean(text: str) -> str:
    if len(text) > MAX_INPUT_LENGTH:
        raise InputError(template=N_("The input is %(length)s characters long; at most %(most)s are accepted."),
                         params={"length": str(len(text)), "most": str(MAX_INPUT_LENGTH)})
    text = text.strip().replace("\u2212", "-")  # accept the typographic minus sign
    if not text:
        raise InputError(template=N_("The input is empty; type a number. Accepted: %(accepted)s."),
                         params={"accepted": ACCEPTED})
    return text


def _decimal(match: re.Match[str], n: str = "") -> tuple[int, int]:
    """(digits, exponent) of a decimal: its value is digits × 10^exponent."""
    whole, frac, exp = match.group("int" + n), match.group("frac" + n), match.group("exp" + n)
    if not whole and not frac:
        raise InputError(template=N_("A number needs at least one digit."))
    exponent = int(exp) if exp else 0
    if abs(exponent) > MAX_DECIMAL_EXPONENT:
        raise InputError(
            template=N_("The exponent %(exponent)s is out of range; decimal exponents from -%(most)s to %(most)s are "
                        "accepted (far beyond every format here)."),
            params={"exponent": str(exponent), "most": str(MAX_DECIMAL_EXPONENT)},
        )
    return int((whole or "") + (frac or "") or "0"), exponent - len(frac or "")


def _scaled(digits: int, exponent: int, divisor: int = 1) -> Fraction:
    """digits × 10^exponent / divisor, with one power of ten and one gcd of it with the small divisor."""
    if exponent >= 0:
        return Fraction(digits * ten_to(exponent), divisor)
    return Fraction(digits, divisor * ten_to(-exponent))


def parse_value(text: str) -> Real | RawBits:
    """Read a value as a person types it; raw bit patterns come back as RawBits."""
    text = _clean(text)
    if m := _SPECIAL.fullmatch(text):
        negative = m.group("sign") == "-"
        return Real.nan(negative) if m.group("word").lower() == "nan" else Real.inf(negative)
    if m := _RAW_HEX.fullmatch(text):
        return RawBits(int(m.group("digits").replace("_", ""), 16), text)
    if m := _RAW_BIN.fullmatch(text):
        return RawBits(int(m.group("digits").replace("_", ""), 2), text)
    if m := _HEX_FLOAT.fullmatch(text):
        return _hex_float(m)
    if m := _NUMBER.fullmatch(text):
        return Real(m.group("sign") == "-", _scaled(*_decimal(m)))
    if m := _FRACTION.fullmatch(text):
        (num, num_exponent), (den, den_exponent) = _decimal(m), _decimal(m, "_d")
        if den == 0:
            raise InputError(template=N_("%(input)s divides by zero; the denominator must not be 0."),
                             params={"input": _shown(text)})
        negative = (m.group("sign") == "-") != (m.group("dsign") == "-")
        if num == 0:
            return Real(negative, Fraction(0))
        exponent = num_exponent - den_exponent
        _check_size(len(str(num)) - len(str(den)) + exponent)
        return Real(negative, _scaled(num, exponent, den))
    raise InputError(template=N_("Could not read %(input)s as a number. Accepted: %(accepted)s."),
                     params={"input": _shown(text), "accepted": ACCEPTED})


def _check_size(size: int) -> None:
    """A fraction's value, within a factor of ten of 10^size, within the range a decimal may have,
    10^±MAX_DECIMAL_EXPONENT: two decimals at opposite ends would otherwise make a value of twice as many
    digits, with no format the wiser. Checked before any big number is made."""
    if abs(size) > MAX_DECIMAL_EXPONENT + 1:
        raise InputError(
            template=N_("That fraction is about 10^%(size)s; a value from 10^-%(most)s to 10^%(most)s is accepted, "
                        "which is already far beyond every format here."),
            params={"size": str(size), "most": str(MAX_DECIMAL_EXPONENT)},
        )


def _hex_float(m: re.Match[str]) -> Real:
    whole, frac, exp = m.group("int"), m.group("frac") or "", int(m.group("exp"))
    if not whole and not frac:
        raise InputError(template=N_("A hex float needs at least one hex digit, as in 0x1.8p-3."))
    if abs(exp) > MAX_BINARY_EXPONENT:
        raise InputError(
            template=N_("The binary exponent p%(exponent)s is out of range; from p-%(most)s to p%(most)s are "
                        "accepted."),
            params={"exponent": str(exp), "most": str(MAX_BINARY_EXPONENT)},
        )
    mantissa = int((whole or "") + frac or "0", 16)
    exp -= 4 * len(frac)
    value = Fraction(mantissa << exp) if exp >= 0 else Fraction(mantissa, 1 << -exp)
    return Real(m.group("sign") == "-", value)


def parse_number(text: str) -> Real:
    """Read a value; a raw bit pattern is refused with a sentence that says how to write a value."""
    parsed = parse_value(text)
    if isinstance(parsed, RawBits):
        raise InputError(
            template=N_("%(input)s is a raw bit pattern, not a value; to give a value in hex write a hex float such "
                        "as 0x1.8p-3, or decode the pattern in one format instead."),
            params={"input": _shown(parsed.text)},
        )
    return parsed


def parse_bits(text: str, spec: FormatSpec) -> int:
    """Read a bit pattern (0x…, 0b… or a decimal integer) that must fit the format's width."""
    text = _clean(text)
    if m := _RAW_HEX.fullmatch(text):
        pattern = int(m.group("digits").replace("_", ""), 16)
    elif m := _RAW_BIN.fullmatch(text):
        pattern = int(m.group("digits").replace("_", ""), 2)
    elif m := _RAW_DEC.fullmatch(text):
        pattern = int(m.group("digits").replace("_", ""))
    else:
        raise InputError(
            template=N_("Could not read %(input)s as a bit pattern; write it in hex (0x3c00), binary (0b0011…) or "
                        "as a non-negative decimal integer."),
            params={"input": _shown(text)},
        )
    if pattern >> spec.bits:
        raise InputError(
            template=N_("The pattern %(input)s is wider than %(format)s's %(bits)s bits; the largest pattern is "
                        "%(largest)s."),
            params={"input": _shown(text), "format": spec.id, "bits": str(spec.bits),
                    "largest": hex((1 << spec.bits) - 1)},
        )
    return pattern
