"""Format constants and layout flags: against ml_dtypes.finfo / numpy iinfo, and a table of known values."""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from app.formats import FORMATS, SCALAR_FORMATS, get_format
from app.formats.registry import UnknownFormatError
from app.formats.spec import FormatSpec
from tests.helpers.formats import format_ids, numpy_type

ML_FLOATS = [s for s in SCALAR_FORMATS if s.kind == "float" and s.ml_dtype]
SMALL_ML_FLOATS = [s for s in ML_FLOATS if s.bits <= 16]
INTS = [s for s in SCALAR_FORMATS if s.kind == "int"]
BLOCKS = [s for s in FORMATS.values() if s.kind == "block"]


def exact(x: object) -> Fraction:
    return Fraction(float(x))  # type: ignore[arg-type]


def test_format_ids_are_the_contract() -> None:
    """DESIGN.md section 3: the stable format ids, in this order."""
    assert list(FORMATS) == [
        "float128", "float64", "float32", "tfloat32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2",
        "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3", "float8_e3m4", "float8_e4m3b11fnuz", "float8_e8m0fnu",
        "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn", "int8", "uint8", "int4", "uint4", "int2", "uint2", "nf4",
        "mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e2m3", "mxfp6_e3m2", "mxfp4", "mxint8", "nvfp4",
    ]
    assert all(get_format(i).id == i for i in FORMATS)


def test_unknown_format_names_the_known_ones() -> None:
    with pytest.raises(UnknownFormatError, match="float16"):
        get_format("float17")
    with pytest.raises(UnknownFormatError):
        get_format(None)  # type: ignore[arg-type]


WITH_ML_DTYPE = [s for s in SCALAR_FORMATS if s.ml_dtype]


@pytest.mark.parametrize("spec", WITH_ML_DTYPE, ids=format_ids(WITH_ML_DTYPE))
def test_ml_dtype_names_an_existing_type(spec: FormatSpec) -> None:
    """A format's ml_dtype is the name of an ml_dtypes type or a numpy dtype, with the format's width."""
    info = ml_dtypes.finfo(numpy_type(spec)) if spec.kind == "float" else ml_dtypes.iinfo(numpy_type(spec))
    assert info.bits == spec.bits


def test_only_float128_tfloat32_and_nf4_lack_a_reference_type() -> None:
    """binary128 is in neither numpy nor ml_dtypes (tests/unit/formats/test_float128.py checks it otherwise)."""
    assert [s.id for s in SCALAR_FORMATS if s.ml_dtype is None] == ["float128", "tfloat32", "nf4"]


@pytest.mark.parametrize("spec", ML_FLOATS, ids=format_ids(ML_FLOATS))
def test_float_constants_equal_finfo(spec: FormatSpec) -> None:
    """max, lowest, min_normal, min_subnormal, epsilon and the field widths, exactly as ml_dtypes.finfo says.

    float8_e8m0fnu has no subnormals: min_subnormal is None (finfo reports its smallest normal there).
    """
    info = ml_dtypes.finfo(numpy_type(spec))
    assert spec.max == exact(info.max)
    assert spec.lowest == exact(info.min)
    assert spec.min_normal == exact(info.smallest_normal)
    assert spec.epsilon == exact(info.eps)
    assert (spec.mantissa_bits, spec.exponent_bits) == (info.nmant, info.nexp)
    if spec.has_subnormals:
        assert spec.min_subnormal == exact(info.smallest_subnormal)
        assert spec.min_positive == spec.min_subnormal
    else:
        assert spec.min_subnormal is None
        assert exact(info.smallest_subnormal) == spec.min_normal == spec.min_positive


@pytest.mark.parametrize("spec", INTS, ids=format_ids(INTS))
def test_int_constants_equal_iinfo(spec: FormatSpec) -> None:
    info = ml_dtypes.iinfo(numpy_type(spec))
    assert (spec.max, spec.lowest) == (info.max, info.min)
    assert spec.epsilon == 1 and spec.min_positive == 1
    assert spec.min_normal is None and spec.min_subnormal is None


# Known constants, as hex floats with the decimal in a comment: max, min_normal, min_subnormal, epsilon.
KNOWN = {
    # 1.19e4932, 3.36e-4932, 6.48e-4966, 1.93e-34
    "float128": ("0x1.ffffffffffffffffffffffffffffp+16383", "0x1p-16382", "0x1p-16494", "0x1p-112"),
    "float64": ("0x1.fffffffffffffp+1023", "0x1p-1022", "0x1p-1074", "0x1p-52"),  # 1.797…e308, 2.225…e-308
    "float32": ("0x1.fffffep+127", "0x1p-126", "0x1p-149", "0x1p-23"),  # 3.4028235e38, 1.1754944e-38
    "tfloat32": ("0x1.ffcp+127", "0x1p-126", "0x1p-136", "0x1p-10"),  # 3.4011621e38; FP32 range, FP16 precision
    "float16": ("0x1.ffcp+15", "0x1p-14", "0x1p-24", "0x1p-10"),  # 65504, 6.1035e-5, 5.96e-8, 0.000977
    "bfloat16": ("0x1.fep+127", "0x1p-126", "0x1p-133", "0x1p-7"),  # 3.3895e38, …, 0.0078125
    "float8_e4m3fn": ("0x1.cp+8", "0x1p-6", "0x1p-9", "0x1p-3"),  # 448, 0.015625, 0.001953125, 0.125
    "float8_e5m2": ("0x1.cp+15", "0x1p-14", "0x1p-16", "0x1p-2"),  # 57344, …, 0.25
    "float8_e4m3fnuz": ("0x1.ep+7", "0x1p-7", "0x1p-10", "0x1p-3"),  # 240, 0.0078125, 0.0009765625, 0.125
    "float8_e5m2fnuz": ("0x1.cp+15", "0x1p-15", "0x1p-17", "0x1p-2"),  # 57344
    "float8_e4m3": ("0x1.ep+7", "0x1p-6", "0x1p-9", "0x1p-3"),  # 240
    "float8_e3m4": ("0x1.fp+3", "0x1p-2", "0x1p-6", "0x1p-4"),  # 15.5, 0.25, 0.015625, 0.0625
    "float8_e4m3b11fnuz": ("0x1.ep+4", "0x1p-10", "0x1p-13", "0x1p-3"),  # 30, 0.0009765625, 0.0001220703125
    "float8_e8m0fnu": ("0x1p+127", "0x1p-127", None, "0x1p+0"),  # 1.7e38, 5.9e-39, no subnormals, 1
    "float6_e2m3fn": ("0x1.ep+2", "0x1p+0", "0x1p-3", "0x1p-3"),  # 7.5, 1, 0.125, 0.125
    "float6_e3m2fn": ("0x1.cp+4", "0x1p-2", "0x1p-4", "0x1p-2"),  # 28, 0.25, 0.0625, 0.25
    "float4_e2m1fn": ("0x1.8p+2", "0x1p+0", "0x1p-1", "0x1p-1"),  # 6, 1, 0.5, 0.5
}


def _hex(text: str | None) -> Fraction | None:
    """A hex float, exactly (float.fromhex cannot hold float128's)."""
    if text is None:
        return None
    mantissa, _, exponent = text.removeprefix("0x").partition("p")
    whole, _, fraction = mantissa.partition(".")
    return Fraction(int(whole + fraction, 16), 16 ** len(fraction)) * Fraction(2) ** int(exponent)


@pytest.mark.parametrize("format_id", list(KNOWN))
def test_known_float_constants(format_id: str) -> None:
    spec = get_format(format_id)
    assert (spec.max, spec.min_normal, spec.min_subnormal, spec.epsilon) == tuple(map(_hex, KNOWN[format_id]))


def test_known_constants_of_the_other_formats() -> None:
    assert (FORMATS["int8"].lowest, FORMATS["int8"].max) == (-128, 127)
    assert (FORMATS["uint8"].lowest, FORMATS["uint8"].max) == (0, 255)
    assert (FORMATS["int4"].lowest, FORMATS["int4"].max) == (-8, 7)
    assert (FORMATS["uint4"].lowest, FORMATS["uint4"].max) == (0, 15)
    assert (FORMATS["int2"].lowest, FORMATS["int2"].max) == (-2, 1)
    assert (FORMATS["uint2"].lowest, FORMATS["uint2"].max) == (0, 3)
    nf4 = FORMATS["nf4"]
    assert (nf4.lowest, nf4.max) == (-1, 1)
    assert nf4.min_positive == Fraction(float(np.float32(0.07958029955625534)))
    assert nf4.epsilon is None and nf4.min_normal is None
    assert FORMATS["tfloat32"].bits == 19 and FORMATS["tfloat32"].bits_per_value == 32  # held in 32 bits


@pytest.mark.parametrize("spec", BLOCKS, ids=format_ids(BLOCKS))
def test_block_constants_are_the_elements_times_its_implicit_scale(spec: FormatSpec) -> None:
    """A block format reports its element's constants (MXINT8's times 2^-6), and bits per value with the scale."""
    element, scale_format = spec.element, spec.scale
    assert element is not None and scale_format is not None
    assert element is get_format(element.id) and scale_format is get_format(scale_format.id)  # the registry's own
    scale = Fraction(1, 64) if spec.id == "mxint8" else Fraction(1)
    for name in ("max", "lowest", "min_normal", "min_subnormal", "min_positive", "epsilon"):
        mine, theirs = getattr(spec, name), getattr(element, name)
        assert mine == (None if theirs is None else theirs * scale), name
    assert spec.bits_per_value == element.bits + Fraction(scale_format.bits, spec.block_size)


def test_known_block_sizes_and_bits_per_value() -> None:
    """OCP MX: 32 elements and one E8M0 scale; NVFP4: 16 FP4 elements and one E4M3 scale."""
    assert FORMATS["mxfp4"].bits_per_value == Fraction(17, 4)  # 4 + 8/32
    assert FORMATS["mxfp8_e4m3"].bits_per_value == Fraction(33, 4)
    assert FORMATS["nvfp4"].bits_per_value == Fraction(9, 2)  # 4 + 8/16
    assert FORMATS["mxint8"].max == Fraction(127, 64)
    assert FORMATS["bfloat16"].bytes_per_value == 2 and FORMATS["float4_e2m1fn"].bytes_per_value == Fraction(1, 2)


@pytest.mark.parametrize("spec", SMALL_ML_FLOATS, ids=format_ids(SMALL_ML_FLOATS))
def test_layout_flags_match_the_patterns(spec: FormatSpec) -> None:
    """has_inf, has_nan, has_negative_zero and has_zero: what ml_dtypes' bit patterns actually hold."""
    storage = {1: np.uint8, 2: np.uint16}[np.dtype(numpy_type(spec)).itemsize]
    with np.errstate(invalid="ignore"):
        values = np.arange(1 << spec.bits).astype(storage).view(numpy_type(spec)).astype(np.float64)
    assert spec.has_inf == bool(np.isinf(values).any())
    assert spec.has_nan == bool(np.isnan(values).any())
    finite = values[np.isfinite(values)]
    assert spec.has_zero == bool((finite == 0).any())
    assert spec.has_negative_zero == bool(((finite == 0) & np.signbit(finite)).any())
    assert spec.has_subnormals == bool(((finite != 0) & (np.abs(finite) < float(spec.min_normal))).any())


@pytest.mark.parametrize("spec", ML_FLOATS, ids=format_ids(ML_FLOATS))
def test_overflow_default_is_what_ml_dtypes_does(spec: FormatSpec) -> None:
    """inf for IEEE-like formats, NaN for fn/fnuz and e8m0, saturation to max for float6/float4."""
    beyond = np.array([float(spec.max) * 2 if spec.max < 2**1000 else math.inf])
    with np.errstate(over="ignore"):
        stored = float(beyond.astype(numpy_type(spec)).astype(np.float64)[0])
    expected = "nan" if math.isnan(stored) else "inf" if math.isinf(stored) else "saturate"
    assert spec.overflow_default == expected
    assert stored == float(spec.max) or expected != "saturate"


def test_overflow_default_of_the_other_formats() -> None:
    assert FORMATS["tfloat32"].overflow_default == "inf"
    assert all(s.overflow_default == "wrap" for s in INTS)  # as integer casts do
    assert FORMATS["nf4"].overflow_default == "saturate"
