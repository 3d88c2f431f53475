"""The reference libraries' view of a format, for the tests that check the codec against ml_dtypes and numpy."""

from __future__ import annotations

from collections.abc import Iterable

import ml_dtypes
import numpy as np

from app.formats.spec import FormatSpec


def format_ids(specs: Iterable[FormatSpec]) -> list[str]:
    """Test ids for a parametrisation over formats: their ids."""
    return [spec.id for spec in specs]


def numpy_type(spec: FormatSpec) -> type:
    """The ml_dtypes or numpy scalar type of a format."""
    return getattr(ml_dtypes, spec.ml_dtype or "", None) or np.dtype(spec.ml_dtype).type


def storage_uint(spec: FormatSpec) -> type:
    """The unsigned integer type as wide as the format's numpy type, to read its bit patterns."""
    return {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(numpy_type(spec)).itemsize]
