"""The registry of every format the lab knows, by its stable id (DESIGN.md section 3)."""

from __future__ import annotations

from app.formats.spec import FormatSpec
from app.messages import N_
from app.refusal import NotFound, quoted


class UnknownFormatError(NotFound):
    """A format id that is not in the registry."""


def _float(
    id: str, name: str, e: int, m: int, bias: int, nan_style: str = "ieee", *, in_ml_dtypes: bool = True,
    bits: int | None = None, storage_bits: int | None = None, signed: bool = True, summary: str = "",
) -> FormatSpec:
    width = bits if bits is not None else (1 if signed else 0) + e + m
    return FormatSpec(
        id=id, name=name, kind="float", bits=width, exponent_bits=e, mantissa_bits=m, bias=bias,
        nan_style=nan_style, signed=signed, ml_dtype=id if in_ml_dtypes else None,  # type: ignore[arg-type]
        storage_bits=storage_bits, summary=summary,
    )


# bitsandbytes' NF4 codebook (QLoRA, Dettmers et al. 2023): quantiles of N(0, 1) scaled to [-1, 1],
# stored by bitsandbytes as float32; these literals are those float32 values.
NF4_CODEBOOK = (
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
    -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
    0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
    0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0,
)

NF4_BLOCK_SIZE = 64  # QLoRA's (and bitsandbytes') default

_FLOAT32 = _float("float32", "FP32 (single)", 8, 23, 127,
                  summary=N_("IEEE 754 binary32: the default for training and master weights."))

SCALAR_FORMATS: tuple[FormatSpec, ...] = (
    # numpy's float128 is x87 extended precision padded to 16 bytes, not binary128: no library type to check against
    _float("float128", "FP128 (quad)", 15, 112, 16383, in_ml_dtypes=False,
           summary=N_("IEEE 754 binary128: 113 significant bits, about 34 decimal digits, FP64's range squared; "
                      "in software (GCC's __float128) and on IBM POWER9 and later. Exact codec only: numpy and "
                      "ml_dtypes have no binary128 type.")),
    _float("float64", "FP64 (double)", 11, 52, 1023,
           summary=N_("IEEE 754 binary64: scientific computing, reference results.")),
    _FLOAT32,
    _float("tfloat32", "TF32", 8, 10, 127, in_ml_dtypes=False, storage_bits=32,
           summary=N_("Matrix-unit input format (NVIDIA from A100, AMD MI300X): FP32's exponent range with FP16's "
                      "10 mantissa bits, held in 32 bits.")),
    _float("float16", "FP16 (half)", 5, 10, 15,
           summary=N_("IEEE 754 binary16: fast, max 65504, but nothing below 2^-24 ≈ 6e-8, so small gradients "
                      "underflow and need loss scaling.")),
    _float("bfloat16", "BF16 (brain float)", 8, 7, 127,
           summary=N_("FP32's exponent with 7 mantissa bits: nearly FP32's range at half the memory.")),
    _float("float8_e4m3fn", "FP8 E4M3 (OCP)", 4, 3, 7, "fn",
           summary=N_("OCP FP8 for weights and activations: no inf, max 448, one NaN per sign.")),
    _float("float8_e5m2", "FP8 E5M2 (OCP)", 5, 2, 15,
           summary=N_("OCP FP8 for gradients: FP16's range with 2 mantissa bits, IEEE-style inf and NaN.")),
    _float("float8_e4m3fnuz", "FP8 E4M3 FNUZ", 4, 3, 8, "fnuz",
           summary=N_("Graphcore/AMD variant: bias 8, no inf, no negative zero, NaN at 0x80.")),
    _float("float8_e5m2fnuz", "FP8 E5M2 FNUZ", 5, 2, 16, "fnuz",
           summary=N_("Graphcore/AMD variant: bias 16, no inf, no negative zero, NaN at 0x80.")),
    _float("float8_e4m3", "FP8 E4M3 (IEEE-style)", 4, 3, 7,
           summary=N_("E4M3 with IEEE-style inf and NaN: max 240.")),
    _float("float8_e3m4", "FP8 E3M4", 3, 4, 3,
           summary=N_("More precision, less range: max 15.5, IEEE-style inf and NaN.")),
    _float("float8_e4m3b11fnuz", "FP8 E4M3 B11 FNUZ", 4, 3, 11, "fnuz",
           summary=N_("Google's E4M3 with bias 11 (as in Sun et al.'s hybrid FP8): max 30, down to 2^-13; "
                      "no inf, no negative zero, NaN at 0x80.")),
    _float("float8_e8m0fnu", "E8M0 (MX scale)", 8, 0, 127, "e8m0", signed=False,
           summary=N_("Unsigned powers of two from 2^-127 to 2^127: the shared scale of MX blocks; no zero.")),
    _float("float6_e2m3fn", "FP6 E2M3", 2, 3, 1, "none",
           summary=N_("OCP MX element format: max 7.5, no inf or NaN.")),
    _float("float6_e3m2fn", "FP6 E3M2", 3, 2, 3, "none",
           summary=N_("OCP MX element format: max 28, no inf or NaN.")),
    _float("float4_e2m1fn", "FP4 E2M1", 2, 1, 1, "none",
           summary=N_("OCP MX and NVFP4 element format: eight magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6.")),
    FormatSpec(id="int8", name="INT8", kind="int", bits=8, ml_dtype="int8",
               summary=N_("Two's complement -128..127: the workhorse of inference quantisation.")),
    FormatSpec(id="uint8", name="UINT8", kind="int", bits=8, signed=False, ml_dtype="uint8",
               summary=N_("Unsigned 0..255: images, and asymmetric quantisation with a zero point.")),
    FormatSpec(id="int4", name="INT4", kind="int", bits=4, ml_dtype="int4",
               summary=N_("Two's complement -8..7: weight-only quantisation of large language models.")),
    FormatSpec(id="uint4", name="UINT4", kind="int", bits=4, signed=False, ml_dtype="uint4",
               summary=N_("Unsigned 0..15: 4-bit quantisation with a zero point.")),
    FormatSpec(id="int2", name="INT2", kind="int", bits=2, ml_dtype="int2",
               summary=N_("Two's complement -2..1: the narrowest signed integer, for 2-bit weight quantisation.")),
    FormatSpec(id="uint2", name="UINT2", kind="int", bits=2, signed=False, ml_dtype="uint2",
               summary=N_("Unsigned 0..3: 2-bit quantisation with a zero point.")),
    # bitsandbytes keeps one FP32 absmax per block of codes (without double quantisation)
    FormatSpec(id="nf4", name="NF4 (NormalFloat)", kind="codebook", bits=4, codebook=NF4_CODEBOOK,
               scale=_FLOAT32, block_size=NF4_BLOCK_SIZE, scale_bits=_FLOAT32.bits,
               summary=N_("QLoRA's 16 quantiles of a normal distribution in [-1, 1], scaled per block by its absmax.")),
)


def _block(
    id: str, name: str, element: str, scale: str, block_size: int, summary: str, element_scale_exp: int = 0
) -> FormatSpec:
    el = next(f for f in SCALAR_FORMATS if f.id == element)
    sc = next(f for f in SCALAR_FORMATS if f.id == scale)
    return FormatSpec(
        id=id, name=name, kind="block", bits=el.bits, exponent_bits=el.exponent_bits,
        mantissa_bits=el.mantissa_bits, bias=el.bias, nan_style=el.nan_style, element=el, scale=sc,
        block_size=block_size, scale_bits=sc.bits, element_scale_exp=element_scale_exp, summary=summary,
    )


BLOCK_FORMATS: tuple[FormatSpec, ...] = (
    _block("mxfp8_e4m3", "MXFP8 (E4M3)", "float8_e4m3fn", "float8_e8m0fnu", 32,
           N_("OCP MX: 32 E4M3 elements share one power-of-two scale.")),
    _block("mxfp8_e5m2", "MXFP8 (E5M2)", "float8_e5m2", "float8_e8m0fnu", 32,
           N_("OCP MX: 32 E5M2 elements share one power-of-two scale.")),
    _block("mxfp6_e2m3", "MXFP6 (E2M3)", "float6_e2m3fn", "float8_e8m0fnu", 32,
           N_("OCP MX: 32 FP6 E2M3 elements share one power-of-two scale.")),
    _block("mxfp6_e3m2", "MXFP6 (E3M2)", "float6_e3m2fn", "float8_e8m0fnu", 32,
           N_("OCP MX: 32 FP6 E3M2 elements share one power-of-two scale.")),
    _block("mxfp4", "MXFP4", "float4_e2m1fn", "float8_e8m0fnu", 32,
           N_("OCP MX: 32 FP4 E2M1 elements share one power-of-two scale.")),
    _block("mxint8", "MXINT8", "int8", "float8_e8m0fnu", 32,
           N_("OCP MX: 32 8-bit integers (implicit scale 2^-6) share one power-of-two scale."), -6),
    _block("nvfp4", "NVFP4", "float4_e2m1fn", "float8_e4m3fn", 16,
           N_("NVIDIA Blackwell: 16 FP4 elements share an E4M3 scale, under one FP32 tensor scale.")),
)

FORMATS: dict[str, FormatSpec] = {f.id: f for f in SCALAR_FORMATS + BLOCK_FORMATS}


def get_format(format_id: str) -> FormatSpec:
    """The format with this id, or UnknownFormatError naming the ids that exist."""
    try:
        return FORMATS[format_id]
    except (KeyError, TypeError):
        raise UnknownFormatError(template=N_("Unknown format %(input)s; known formats are: %(formats)s."),
                                 params={"input": quoted(format_id), "formats": ", ".join(FORMATS)}) from None
