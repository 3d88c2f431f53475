"""Tensor-core models by GPU generation: how each multiplies two vectors and accumulates into FP32, bit by bit.

Every model has the same shape (app/formats/dot_arithmetic.py, FusedAdder): products exact; the FP32 accumulator
c and the next `block` products aligned to the largest exponent among them; each magnitude truncated to `window`
bits from that exponent down (24, FP32's significand, plus the extra alignment bits the source measured); the
truncated terms summed exactly; the sum normalised and rounded once into FP32, toward zero. Each parameter says
where it comes from; where no source we could read gives it, the model says plainly that it is an assumption.

Sources:

- [FHMP21] M. Fasi, N. J. Higham, M. Mikaitis, S. Pranesh, "Numerical behavior of NVIDIA tensor cores", PeerJ
  Computer Science 7:e330 (2021), and its test suite (github.com/north-numerical-computing/
  tensor-cores-numerical-behavior: tc_test_numerics-V100.cu, -T4-A100-binary16.cu, -A100-bf16.cu, -A100-tf32.cu),
  whose expected results tests/unit/formats/test_tensor_cores.py reproduces. V100: products exact, the sum aligned on
  the largest term, no extra bits below FP32's 24 ("Extra bits in the significand alignment": 1 - (1 - 2^-24) gives
  2^-23), truncation ("Round-down for positive values": 2 + 3 * 2^-24 gives 2), carries kept ("Extra bits for carry
  out"), 4 products + c per instruction's row. A100 (FP16, BF16, TF32): the same test expects the exact 2^-24, so at
  least one extra bit; the monotonicity vector of the A100 files is non-monotonic with exactly one, and monotonic
  with two or more.
- [FTTN24] X. Li, A. Li, B. Fang, K. Swirydowicz, I. Laguna, G. Gopalakrishnan, "FTTN: Feature-Targeted Testing
  for Numerical Properties of NVIDIA & AMD Matrix Accelerators", arXiv:2403.00232 (2024). We read only a summary of
  its findings: extra bits V100 0, A100 1, H100 at least 2; fused width V100 4, A100 8, H100 at least 16. We take the
  H100's lower bounds as its values, and say so.
- [DSV3] DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv:2412.19437, section 3.3.2 "Increasing Accumulation
  Precision": FP8 GEMM on H800 tensor cores keeps "around 14 bits" of accumulation precision; partial results are
  promoted to FP32 on CUDA cores every N_C = 128 elements.
- [KM25] F. A. Khattak, M. Mikaitis, "Accurate Models of NVIDIA Tensor Cores", arXiv:2512.07004 (2025) models the
  V100, A100, H100 and B200 bit-accurately; its tables were not available to us, so the B200 model below repeats
  the H100's parameters and says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.formats.dot_arithmetic import FusedAdder
from app.messages import N_

__all__ = ["FP8_WINDOW", "TENSOR_CORES", "TENSOR_CORE_WORDS", "FusedModel", "TensorCore"]

FP32_WINDOW = 24
FP8_WINDOW = 14  # [DSV3] 3.3.2: "around 14 bits"
FP8_BLOCK = 32  # assumption: Hopper's FP8 MMA instructions take k = 32; no source we read measures the adder


@dataclass(frozen=True)
class FusedModel:
    """One generation's adder for one input format, where each of its parameters comes from, and what is assumed."""

    adder: FusedAdder
    source: str  # N_-marked: the papers and sections that give the parameters
    assumed: str | None = None  # N_-marked: the parameters no source we read gives, or None


@dataclass(frozen=True)
class TensorCore:
    """A GPU generation's tensor core: the input formats it takes, each with its model."""

    id: str
    name: str
    models: dict[str, FusedModel]


# Where each model's parameters come from, and what it assumes: the page shows them in its language
TENSOR_CORE_WORDS = {
    "fhmp_v100": N_("Fasi, Higham, Mikaitis and Pranesh, Numerical behavior of NVIDIA tensor cores (PeerJ Computer "
                    "Science, 2021), and their test suite: products exact, no extra alignment bits, truncation, 4 "
                    "products and c per block."),
    "fhmp_a100": N_("The A100 files of the same test suite expect exactly one extra alignment bit, and truncation. 8 "
                    "products per block: FTTN (Li et al., 2024), as a summary of it that we read reports."),
    "a100_tf32": N_("The A100 TF32 file of the same test suite expects one extra alignment bit, and truncation."),
    "a100_tf32_assumed": N_("Assumption: 4 TF32 products per block; no source we read measures it."),
    "h100": N_("FTTN (Li et al., 2024), as a summary of it that we read reports: at least 2 extra alignment bits and "
               "at least 16 products per block."),
    "h100_assumed": N_("Assumptions: exactly 2 extra bits, 16 products per block, and truncation as on the earlier "
                       "generations."),
    "h100_fp8": N_("DeepSeek-V3 technical report, section 3.3.2: FP8 accumulation on Hopper keeps around 14 bits."),
    "h100_fp8_assumed": N_("Assumptions: a 14-bit window, truncation, and 32 products per block."),
    "b200_assumed": N_("Assumed equal to the H100's: Khattak and Mikaitis (2025) model the B200, but we could not read "
                       "its parameters."),
    "b200_source": N_("Khattak and Mikaitis, Accurate Models of NVIDIA Tensor Cores (arXiv:2512.07004, 2025)."),
}


def _h100_like(source: str, fp16_assumed: str, fp8_assumed: str, fp8_source: str) -> dict[str, FusedModel]:
    wide = FusedModel(FusedAdder(block=16, window=FP32_WINDOW + 2), source, fp16_assumed)
    fp8 = FusedModel(FusedAdder(block=FP8_BLOCK, window=FP8_WINDOW), fp8_source, fp8_assumed)
    return {"float16": wide, "bfloat16": wide, "tfloat32": wide, "float8_e4m3fn": fp8, "float8_e5m2": fp8}


_WORDS = TENSOR_CORE_WORDS
_A100 = FusedModel(FusedAdder(block=8, window=FP32_WINDOW + 1), _WORDS["fhmp_a100"])
TENSOR_CORES: dict[str, TensorCore] = {
    "v100": TensorCore("v100", "NVIDIA V100 (Volta)", {
        "float16": FusedModel(FusedAdder(block=4, window=FP32_WINDOW), _WORDS["fhmp_v100"])}),
    "a100": TensorCore("a100", "NVIDIA A100 (Ampere)", {
        "float16": _A100, "bfloat16": _A100,
        "tfloat32": FusedModel(FusedAdder(block=4, window=FP32_WINDOW + 1), _WORDS["a100_tf32"],
                               _WORDS["a100_tf32_assumed"])}),
    "h100": TensorCore("h100", "NVIDIA H100 (Hopper)", _h100_like(
        _WORDS["h100"], _WORDS["h100_assumed"], _WORDS["h100_fp8_assumed"], _WORDS["h100_fp8"])),
    "b200": TensorCore("b200", "NVIDIA B200 (Blackwell)", _h100_like(
        _WORDS["b200_source"], _WORDS["b200_assumed"], _WORDS["b200_assumed"], _WORDS["b200_source"])),
}
