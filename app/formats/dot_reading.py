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


def _digits(whole: str | None, frac: str | None, exp: str | None) -> tuple[int, int] | None:
    """(significant digit count, exponent of the value's order) of a decimal, or None for zero; its digits are not
    turned into a number."""
    mantissa = ((whole or "") + (frac or "")).lstrip("0")
    if not mantissa:
        return None
    return len(mantissa), (int(exp) if exp else 0) - len(frac or "")


def _decimal_double(m: object, item: str) -> float | None:
    """A decimal's nearest double, or None where parse_number must read it (no digit, an exponent out of range)."""
    whole, frac, exp = m.group("int"), m.group("frac"), m.group("exp")  # type: ignore[attr-defined]
    if not whole and not frac or exp and abs(int(exp)) > MAX_DECIMAL_EXPONENT:
        return None
    d = float(item)
    if d == 0 and _digits(whole, frac, exp) is not None:
        return math.copysign(_TINY, d)
    return d


def _hex_double(m: object, item: str) -> float | None:
    whole, frac, exp = m.group("int"), m.group("frac"), int(m.group("exp"))  # type: ignore[attr-defined]
    if not whole and not frac or abs(exp) > MAX_BINARY_EXPONENT:
        return None
    negative = m.group("sign") == "-"  # type: ignore[attr-defined]
    try:
        d = float.fromhex(item)
    except OverflowError:
        return -math.inf if negative else math.inf
    if d == 0 and ((whole or "") + (frac or "")).strip("0"):
        return -_TINY if negative else _TINY
    return d


def _fraction_double(m: object) -> float | None:
    group = m.group  # type: ignore[attr-defined]
    top = _digits(group("int"), group("frac"), group("exp"))
    bottom = _digits(group("int_d"), group("frac_d"), group("exp_d"))
    if (not group("int") and not group("frac") or not group("int_d") and not group("frac_d") or bottom is None
            or any(e and abs(int(e)) > MAX_DECIMAL_EXPONENT for e in (group("exp"), group("exp_d")))):
        return None  # parse_number refuses it
    if top is None:
        return 0.0
    size = top[0] - bottom[0] + top[1] - bottom[1]  # the value lies between 10^(size-1) and 10^(size+1)
    negative = (group("sign") == "-") != (group("dsign") == "-")
    if abs(size) > MAX_DECIMAL_EXPONENT + 1:
        return None
    if size >= _FAR or size <= -_FAR - 6:
        far = math.inf if size > 0 else _TINY
        return -far if negative else far
    num = int((group("int") or "") + (group("frac") or ""))
    den = int((group("int_d") or "") + (group("frac_d") or ""))
    shift = (int(group("exp")) if group("exp") else 0) - len(group("frac") or "")
    shift -= (int(group("exp_d")) if group("exp_d") else 0) - len(group("frac_d") or "")
    d = num * 10**shift / den if shift >= 0 else num / (den * 10**-shift)  # one correctly rounded division
    return -d if negative else d


def _double(item: str) -> float | None:
    """The item's nearest double (or stand-in), or None where parse_number must read it."""
    text = item.strip().replace("\u2212", "-")
    if m := _HEX_FLOAT.fullmatch(text):
        return _hex_double(m, text)
    if m := _NUMBER.fullmatch(text):
        return _decimal_double(m, text)
    if m := _FRACTION.fullmatch(text):
        return _fraction_double(m)
    return None


def read_items(items: Sequence[float | str], name: str) -> ReadVector:
    """A vector's numbers, each a JSON number (read as the decimal repr writes) or a string; refused, item by item,
    exactly as parse_vector_items refuses them."""
    doubles: list[float] = []
    exact: list[tuple[int, Real]] = []
    for position, item in enumerate(items, 1):
        d = (item if math.isfinite(item) else None) if isinstance(item, float) else (
            _double(item) if len(item) <= MAX_INPUT_LENGTH else None)
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


def _exact_side(item: float | str, d: float) -> int:
    """The sign of (the item's exact value − d), d being its nearest double and finite."""
    text = repr(item) if isinstance(item, float) else item.strip().replace("\u2212", "-")
    if _NUMBER.fullmatch(text):
        x = Decimal(text)
        y = Decimal(d)
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
    for i in np.flatnonzero(r - np.floor(r) == 0.5).tolist():  # a midpoint: the exact value decides
        side = _exact_side(read.items[i], float(d[i])) * (1 if d[i] > 0 else -1)
        k[i] = math.floor(r[i]) + 1 if side > 0 else math.floor(r[i]) if side < 0 else k[i]
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
