"""The dot product's inputs: vectors typed or pasted (read by parse_number), or drawn from a seeded distribution,
then stored in the input format (nearest-even, clamped to ± its largest value) as whole numbers of its smallest
subnormal, the form app/formats/dot_product.py computes with."""

from __future__ import annotations

import re
from collections.abc import Sized
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeVar

import numpy as np

from app.formats.codec import encode
from app.formats.dot_product import MAX_DOT_LENGTH, DotInputError, checked_dot_format
from app.formats.exact import Real
from app.formats.parse import MAX_INPUT_LENGTH, parse_number
from app.formats.registry import FORMATS
from app.formats.vector import round_to_format
from app.messages import N_
from app.refusal import Refusal, quoted

__all__ = ["DOT_DISTRIBUTIONS", "MAX_DOT_SEED", "MAX_VECTOR_TEXT", "StoredVector", "checked_pair", "drawn_doubles",
           "drawn_vectors", "parse_dot_setting", "parse_vector_items", "parse_vector", "smallest_exponent",
           "stored_vector", "vector_items", "vectors"]

DOT_DISTRIBUTIONS = {
    "normal": N_("Normal (mean 0, standard deviation 1)"),
    "uniform": N_("Uniform on [-1, 1)"),
    "lognormal": N_("Log-normal (σ = 1)"),
    "outliers": N_("Normal with outliers (1 value in 200 times 100)"),
}
MAX_DOT_SEED = 2**32 - 1
MAX_VECTOR_TEXT = 64 * MAX_DOT_LENGTH  # characters of one typed vector
OUTLIER_SHARE, OUTLIER_FACTOR = 0.005, 100.0
_SEPARATORS = re.compile(r"[,;\s]+")
_V = TypeVar("_V", bound=Sized)


@dataclass(frozen=True)
class StoredVector:
    """A vector stored in the format: whole numbers of its smallest subnormal, and what storing changed."""

    units: tuple[int, ...]
    clamped: int  # values beyond the format's largest, stored as ± its largest
    zeroed: int  # values that were not zero and were stored as zero


def parse_dot_setting(text: str, name: str, lowest: int, highest: int) -> int:
    """A setting typed as a whole number from `lowest` to `highest`."""
    cleaned = text.strip()
    if not (cleaned.isascii() and cleaned.isdigit() and len(cleaned) <= 10 and lowest <= int(cleaned) <= highest):
        raise DotInputError(template=N_("%(name)s must be a whole number from %(lowest)s to %(highest)s; %(input)s "
                                        "is not."),
                            params={"name": name, "lowest": str(lowest), "highest": str(highest),
                                    "input": quoted(text[:40])})
    return int(cleaned)


def parse_vector(text: str, name: str) -> list[Real]:
    """The numbers of a typed vector, separated by commas, semicolons, spaces or new lines."""
    return parse_vector_items(vector_items(text, name), name)


def vector_items(text: str, name: str) -> list[str]:
    """A typed vector's items, split where parse_vector splits it; refused where it has none or too many."""
    if len(text) > MAX_VECTOR_TEXT:
        raise DotInputError(template=N_("Vector %(name)s is %(length)s characters long; at most %(most)s are read."),
                            params={"name": name, "length": str(len(text)), "most": str(MAX_VECTOR_TEXT)})
    items = [item for item in _SEPARATORS.split(text.replace("\u2212", "-")) if item]
    if not items:
        raise DotInputError(template=N_("Vector %(name)s is empty; type numbers separated by commas or spaces."),
                            params={"name": name})
    if len(items) > MAX_DOT_LENGTH:
        raise DotInputError(template=N_("Vector %(name)s has %(count)s numbers; at most %(most)s are taken."),
                            params={"name": name, "count": str(len(items)), "most": str(MAX_DOT_LENGTH)})
    return items


def parse_vector_items(items: list[str], name: str, first: int = 1) -> list[Real]:
    """A vector's numbers, one string each, finite (the first at position `first`)."""
    values = []
    for position, item in enumerate(items, first):
        if len(item) > MAX_INPUT_LENGTH:
            raise DotInputError(template=N_("Number %(position)s of vector %(name)s is %(length)s characters long; at "
                                            "most %(most)s are read."),
                                params={"position": str(position), "name": name, "length": str(len(item)),
                                        "most": str(MAX_INPUT_LENGTH)})
        try:
            value = parse_number(item)
        except Refusal:
            raise DotInputError(template=N_("Number %(position)s of vector %(name)s, %(input)s, is not a number; "
                                            "write decimals such as 0.5 or -1.25e-3, hex floats such as 0x1.8p-3, "
                                            "or fractions such as 1/3."),
                                params={"position": str(position), "name": name, "input": quoted(item[:40])}) from None
        if not value.is_finite:
            raise DotInputError(template=N_("Number %(position)s of vector %(name)s is %(input)s; a dot product here "
                                            "takes finite numbers only."),
                                params={"position": str(position), "name": name, "input": quoted(item[:40])})
        values.append(value)
    return values


def smallest_exponent(format_id: str) -> int:
    spec = FORMATS[format_id]
    return spec.emin - spec.mantissa_bits


def stored_vector(values: list[Real], format_id: str) -> StoredVector:
    """Typed values stored in the format, one exact encode each."""
    checked_dot_format(format_id)
    spec, scale = FORMATS[format_id], Fraction(2) ** -smallest_exponent(format_id)
    units, clamped, zeroed = [], 0, 0
    for value in values:
        stored = encode(spec, value, "nearest_even", "saturate")
        x = stored.encoding.value.fraction * scale
        units.append(x.numerator)
        clamped += stored.overflowed
        zeroed += x == 0 and not value.is_zero
    return StoredVector(tuple(units), clamped, zeroed)


def _draw(rng: np.random.Generator, distribution: str, n: int) -> np.ndarray:
    if distribution == "uniform":
        return rng.uniform(-1.0, 1.0, n)
    if distribution == "lognormal":
        return rng.lognormal(0.0, 1.0, n)
    x = rng.standard_normal(n)
    if distribution == "outliers":
        picked = rng.choice(n, max(1, round(n * OUTLIER_SHARE)), replace=False)
        x[picked] *= OUTLIER_FACTOR
    return x


def drawn_doubles(distribution: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The doubles drawn_vectors stores (unchecked): n values with numpy's default generator from `seed`, a then b;
    the dot-product page's JSON carries them, for the browser to store in any format."""
    rng = np.random.default_rng(seed)
    return _draw(rng, distribution, n), _draw(rng, distribution, n)


def drawn_vectors(format_id: str, distribution: str, n: int, seed: int) -> tuple[StoredVector, StoredVector]:
    """Two vectors of n values drawn with numpy's default generator from `seed` (a, then b), stored in the format."""
    checked_dot_format(format_id)
    if distribution not in DOT_DISTRIBUTIONS:
        raise DotInputError(template=N_("%(input)s is not a distribution here; choose from %(known)s."),
                            params={"input": quoted(distribution[:40]), "known": ", ".join(DOT_DISTRIBUTIONS)})
    if not 1 <= n <= MAX_DOT_LENGTH or not 0 <= seed <= MAX_DOT_SEED:
        raise DotInputError(template=N_("n runs from 1 to %(most)s and the seed from 0 to %(most_seed)s."),
                            params={"most": str(MAX_DOT_LENGTH), "most_seed": str(MAX_DOT_SEED)})
    spec, shift = FORMATS[format_id], -smallest_exponent(format_id)
    out = []
    for drawn in drawn_doubles(distribution, n, seed):
        stored = round_to_format(drawn, spec, saturate=True).astype(np.float64)
        units = tuple(int(v) for v in np.ldexp(stored, shift).tolist())  # exact: whole numbers below 2^278
        out.append(StoredVector(units, int(np.count_nonzero(np.abs(drawn) > float(spec.max))),
                          int(np.count_nonzero((stored == 0) & (drawn != 0)))))
    return out[0], out[1]


def vectors(format_id: str, a: list[Real] | None, b: list[Real] | None, distribution: str, n: int,
            seed: int) -> tuple[StoredVector, StoredVector]:
    """Both vectors typed, stored in the format; or neither, drawn."""
    if a is None and b is None:
        return drawn_vectors(format_id, distribution, n, seed)
    a, b = checked_pair(a, b)
    return stored_vector(a, format_id), stored_vector(b, format_id)


def checked_pair(a: _V | None, b: _V | None) -> tuple[_V, _V]:
    """Both vectors, when both are given with as many numbers each."""
    if a is None or b is None:
        raise DotInputError(template=N_("Give both vectors, a and b, or neither to draw them from a distribution."))
    if len(a) != len(b):
        raise DotInputError(template=N_("Vector a has %(a)s numbers and vector b %(b)s; a dot product needs as many "
                                        "in each."), params={"a": str(len(a)), "b": str(len(b))})
    return a, b
