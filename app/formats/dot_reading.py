"""Typed dot-product vectors read and stored with bounded work, bit for bit as parse_vector_items and stored_vector.

Every input format of the dot product is at most FP32 wide, so a number's stored value depends only on where its
exact value lies among the format's numbers and their midpoints, all of them doubles. An item is read as the double
nearest its exact value (float() and float.fromhex() round correctly; a fraction, one correctly rounded integer
division): unless that double is itself a midpoint of the format, the item rounds as the double does, since no
midpoint lies between a value and its nearest double. Only at a midpoint is the item compared exactly with the double
(Decimal for decimals, exact fractions for the rest), and one step decided. Values beyond every format's range, by
their count of digits and exponent, stand in as ±inf (stored as ± the format's largest, clamped) or as ± the smallest
double (stored as zero, zeroed): their exact value is never built. Items of any other shape (inf, raw bits, words)
are read by parse_number as before, which refuses them with the same sentences.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import numpy as np

from app.formats.dot_inputs import (
    StoredVector,
    checked_pair,
    drawn_vectors,
    parse_vector_items,
    smallest_exponent,
    stored_vector,
    vector_items,
)
from app.formats.dot_product import checked_dot_format
from app.formats.exact import Real
from app.formats.parse import (
    _FRACTION,
    _HEX_FLOAT,
    _NUMBER,
    MAX_BINARY_EXPONENT,
    MAX_DECIMAL_EXPONENT,
    MAX_INPUT_LENGTH,
    parse_number,
)
from app.formats.registry import FORMATS

__all__ = ["ReadVector", "read_items", "read_vector", "store_read", "stored_vectors"]

_TINY = 5e-324  # stands in for a nonzero value below every format's smallest half step
_TENS = [10**k for k in range(2 * MAX_INPUT_LENGTH + 100)]
_FAR = 41  # decimal orders of magnitude: from 10^40 on, past every format's largest; below 10^-46, zero in every one


@dataclass(frozen=True)
class ReadVector:
    """A vector as read: each item's nearest double (or its stand-in) and the item as typed, for the rare exact
    comparison; items parse_number read (shapes the fast reading does not take) keep their exact value."""

    doubles: tuple[float, ...]
    items: tuple[float | str, ...]
    exact: tuple[tuple[int, Real], ...] = ()  # (position, value) of the items parse_number read

    def __len__(self) -> int:
        return len(self.doubles)


def _decimal_double(m: re.Match[str], item: str) -> float | None:
    """A decimal's nearest double, or None where parse_number must read it (no digit, an exponent out of range)."""
    whole, frac, exp = m.group("int", "frac", "exp")
    if not whole and not frac or exp and abs(int(exp)) > MAX_DECIMAL_EXPONENT:
        return None
    d = float(item)
    if d == 0 and ((whole or "") + (frac or "")).strip("0"):
        return math.copysign(_TINY, d)
    return d


def _hex_double(m: re.Match[str], item: str) -> float | None:
    whole, frac, written = m.group("int", "frac", "exp")
    exp = int(written)
    if not whole and not frac or abs(exp) > MAX_BINARY_EXPONENT:
        return None
    negative = m.group("sign") == "-"
    try:
        d = float.fromhex(item)
    except OverflowError:
        return -math.inf if negative else math.inf
    if d == 0 and ((whole or "") + (frac or "")).strip("0"):
        return -_TINY if negative else _TINY
    return d


def _fraction_double(m: re.Match[str]) -> float | None:
    sign, whole, frac, exp, dsign, whole_d, frac_d, exp_d = m.groups()
    top_exponent, bottom_exponent = int(exp) if exp else 0, int(exp_d) if exp_d else 0
    if (not whole and not frac or not whole_d and not frac_d or abs(top_exponent) > MAX_DECIMAL_EXPONENT
            or abs(bottom_exponent) > MAX_DECIMAL_EXPONENT):
        return None  # parse_number refuses it
    top, bottom = (whole or "") + (frac or ""), (whole_d or "") + (frac_d or "")
    num, den = int(top), int(bottom)  # at most MAX_INPUT_LENGTH digits
    if den == 0:
        return None
    if num == 0:
        return 0.0
    shift = top_exponent - len(frac or "") - bottom_exponent + len(frac_d or "")
    size = len(top.lstrip("0")) - len(bottom.lstrip("0")) + shift  # the value is within 10^(size ± 1)
    if abs(size) > MAX_DECIMAL_EXPONENT + 1:
        return None
    negative = (sign == "-") != (dsign == "-")
    if size >= _FAR or size <= -_FAR - 6:
        far = math.inf if size > 0 else _TINY
        return -far if negative else far
    # one correctly rounded division; |shift| is at most the digits and _FAR + 6 here
    d = num * _TENS[shift] / den if shift >= 0 else num / (den * _TENS[-shift])
    return -d if negative else d


def _double(item: str) -> float | None:
    """The item's nearest double (or stand-in), or None where parse_number must read it."""
    text = item.strip().replace("\u2212", "-")
    if "/" in text:
        m = _FRACTION.fullmatch(text)
        return None if m is None else _fraction_double(m)
    if "x" in text or "X" in text:
        m = _HEX_FLOAT.fullmatch(text)
        return None if m is None else _hex_double(m, text)
    m = _NUMBER.fullmatch(text)
    return None if m is None else _decimal_double(m, text)


def read_items(items: Sequence[float | str], name: str) -> ReadVector:
    """A vector's numbers, each a JSON number (read as the decimal repr writes) or a string; refused, item by item,
    exactly as parse_vector_items refuses them."""
    doubles: list[float] = []
    exact: list[tuple[int, Real]] = []
    read: dict[str, float | None] = {}  # a string typed again is read once
    for position, item in enumerate(items, 1):
        if isinstance(item, float):
            d = item if math.isfinite(item) else None
        elif item in read:
            d = read[item]
        else:
            d = read[item] = _double(item) if len(item) <= MAX_INPUT_LENGTH else None
        if d is None:
            text = repr(item) if isinstance(item, float) else item
            value = parse_vector_items([text], name, position)[0]
            exact.append((position - 1, value))
            d = 0.0
        doubles.append(d)
    return ReadVector(tuple(doubles), tuple(items), tuple(exact))


def read_vector(text: str, name: str) -> ReadVector:
    """A typed vector read as parse_vector reads it (and refused as it refuses)."""
    return read_items(vector_items(text, name), name)


def _repr_side(item: float) -> int:
    """The sign of (the decimal repr(item) writes − item): whole numbers, digits × 10^k against a ratio to 2^j."""
    mantissa, _, written = repr(item).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits, k = int(whole + frac), (int(written) if written else 0) - len(frac)
    num, den = item.as_integer_ratio()
    x, y = (digits * _TENS[k] * den, num) if k >= 0 else (digits * den, num * _TENS[-k])
    return (x > y) - (x < y)


def _exact_side(item: float | str, d: float) -> int:
    """The sign of (the item's exact value − d), d being its nearest double and finite."""
    if isinstance(item, float):
        return _repr_side(item)
    text = item.strip().replace("\u2212", "-")
    if _NUMBER.fullmatch(text):
        x, y = Decimal(text), Decimal(d)
        return (x > y) - (x < y)
    xf, yf = parse_number(text).fraction, Fraction(d)  # hex floats and fractions: bounded, the value is in range
    return (xf > yf) - (xf < yf)


def store_read(read: ReadVector, format_id: str) -> StoredVector:
    """The vector stored in the format (nearest-even, clamped to ± its largest), as stored_vector stores it."""
    checked_dot_format(format_id)
    spec = FORMATS[format_id]
    smallest, precision, largest = smallest_exponent(format_id), spec.mantissa_bits + 1, float(spec.max)
    d = np.array(read.doubles, dtype=np.float64)
    a = np.abs(d)
    finite = np.isfinite(a)
    a = np.where(finite, a, 0.0)
    exponent = np.maximum(np.frexp(a)[1] - 1, spec.emin)
    quantum = exponent - precision + 1  # the exponent of the format's step at each value
    r = np.ldexp(a, -quantum)  # exact: below 2^precision
    k = np.rint(r)  # nearest, ties to even
    ties = np.flatnonzero(r - np.floor(r) == 0.5)  # a midpoint: the exact value decides
    if ties.size:
        decided = []
        for i, x, half, even in zip(ties.tolist(), d[ties].tolist(), r[ties].tolist(), k[ties].tolist(), strict=True):
            side = _exact_side(read.items[i], x) * (1 if x > 0 else -1)  # which way from the magnitude
            decided.append(math.floor(half) + (side > 0) if side else even)
        k[ties] = decided
    magnitude = np.ldexp(k, quantum)
    over = (magnitude > largest) | ~finite
    magnitude = np.where(over, largest, magnitude)
    signed = np.where(d < 0, -magnitude, magnitude)
    units = [int(v) for v in np.ldexp(signed, -smallest).tolist()]  # exact: whole numbers below 2^300
    zeroed = int(np.count_nonzero((magnitude == 0) & (d != 0)))
    clamped = int(np.count_nonzero(over))
    for i, value in read.exact:  # the items parse_number read
        one = stored_vector([value], format_id)
        zeroed += one.zeroed - (magnitude[i] == 0 and d[i] != 0)
        clamped += one.clamped - bool(over[i])
        units[i] = one.units[0]
    return StoredVector(tuple(units), clamped, zeroed)




def stored_vectors(format_id: str, a: ReadVector | None, b: ReadVector | None, distribution: str, n: int,
                   seed: int) -> tuple[StoredVector, StoredVector]:
    """Both vectors read, stored in the format; or neither, drawn: dot_inputs.vectors for vectors read."""
    if a is None and b is None:
        return drawn_vectors(format_id, distribution, n, seed)
    a, b = checked_pair(a, b)
    return store_read(a, format_id), store_read(b, format_id)
