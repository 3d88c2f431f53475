"""Tensor-core models by GPU generation: how each multiplies two vectors and accumulates into FP32, bit by bit.

Every model has the same shape (app/formats/dot_arithmetic.py, FusedAdder), MMA-Sim's: products exact; the FP32
accumulator c and the next `block` products aligned to the largest exponent among them (a product's exponent is its
factors' exponents added); each magnitude truncated to `window` bits from that exponent down; the truncated terms
summed exactly; the sum normalised and truncated once into FP32 (toward zero). A dot product longer than one block
is a K loop of such instructions, each result the next one's c.

Sources:

- [MMA] MMA-Sim, Microsoft (github.com/microsoft/MMA-Sim; its paper arXiv:2511.10909), a bit-accurate model of
  each architecture's MMA instructions checked against the GPUs. mmasim/simulator/nv.py gives the fractional bits
  kept after alignment (`arch_accum_fractional_bits`: Volta 23, Ampere 24, Hopper 25, Blackwell 25; Hopper's FP8
  wgmma 13, with its result truncated to e8m13) and which Ampere instructions are split in two along k; its
  functions.py gives the adder (fused_sum: truncation after alignment to the largest exponent; nv_fused_dot_add:
  the result truncated, RZ); the instruction shapes give the block: Volta mma m8n8k4 (4), Ampere m16n8k16 split
  (8) and TF32 m16n8k8 split (4), Hopper wgmma k16 (FP16, BF16), k8 (TF32), k32 (FP8), Blackwell tcgen05.mma the
  same k per kind (isa/nv_tcgen05mma.py).
- [FHMP21] M. Fasi, N. J. Higham, M. Mikaitis, S. Pranesh, "Numerical behavior of NVIDIA tensor cores", PeerJ
  Computer Science 7:e330 (2021), and its test suite (github.com/north-numerical-computing/
  tensor-cores-numerical-behavior), whose V100 and A100 expectations tests/unit/formats/test_tensor_cores.py
  reproduces: V100 no extra alignment bit ("Extra bits in the significand alignment": 1 - (1 - 2^-24) gives
  2^-23), truncation ("Round-down for positive values": 2 + 3 * 2^-24 gives 2), carries kept; A100 one extra bit
  (the same test gives the exact 2^-24; its monotonicity vector is non-monotonic with exactly one).
- [DSV3] DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv:2412.19437, section 3.3.2 "Increasing Accumulation
  Precision": FP8 GEMM on H800 tensor cores keeps "around 14 bits"; partial results are promoted to FP32 on CUDA
  cores every N_C = 128 elements. MMA-Sim's 13 fractional bits, plus the leading one, are those 14.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.formats.dot_arithmetic import FusedAdder
from app.messages import N_

__all__ = ["FP8_HOPPER", "TENSOR_CORES", "TENSOR_CORE_WORDS", "FusedModel", "TensorCore"]


@dataclass(frozen=True)
class FusedModel:
    """One generation's adder for one input format, and where its parameters come from."""

    adder: FusedAdder
    source: str  # N_-marked: the papers, code and sections that give the parameters
    assumed: str | None = None  # N_-marked: the parameters no source we read gives, or None


@dataclass(frozen=True)
class TensorCore:
    """A GPU generation's tensor core: the input formats it takes, each with its model."""

    id: str
    name: str
    models: dict[str, FusedModel]


# Where each model's parameters come from: the page shows them in its language
TENSOR_CORE_WORDS = {
    "v100": N_("MMA-Sim (Microsoft, arXiv:2511.10909), its Volta model: mma m8n8k4, so 4 products and c per block, "
               "23 fraction bits kept after alignment, truncation. The V100 results that Fasi, Higham, Mikaitis and "
               "Pranesh's test suite (PeerJ Computer Science, 2021) expects are reproduced."),
    "a100": N_("MMA-Sim, its Ampere model: mma m16n8k16 split into two blocks of 8 products, 24 fraction bits (one "
               "extra bit), truncation. The A100 results of Fasi, Higham, Mikaitis and Pranesh's test suite are "
               "reproduced."),
    "a100_tf32": N_("MMA-Sim, its Ampere model: TF32 mma m16n8k8 split into two blocks of 4 products, 24 fraction "
                    "bits, truncation."),
    "h100": N_("MMA-Sim, its Hopper model: wgmma with 16 products per block for FP16 and BF16, 8 for TF32, 25 "
               "fraction bits (two extra bits), truncation."),
    "h100_fp8": N_("MMA-Sim, its Hopper model: FP8 wgmma with 32 products per block, 13 fraction bits, and each "
                   "result truncated to 13 fraction bits (e8m13): the “around 14 bits” of the DeepSeek-V3 technical "
                   "report, section 3.3.2."),
    "b200": N_("MMA-Sim, its Blackwell model: tcgen05.mma with 16 products per block for FP16 and BF16, 8 for TF32, "
               "32 for FP8, 25 fraction bits, truncation into FP32."),
}
_WORDS = TENSOR_CORE_WORDS

FP8_HOPPER = FusedAdder(block=32, window=14, output_bits=14)  # also the promoted method's narrow accumulator
_AMPERE = FusedModel(FusedAdder(block=8, window=25), _WORDS["a100"])
_HOPPER_16, _HOPPER_8 = FusedAdder(block=16, window=26), FusedAdder(block=8, window=26)

TENSOR_CORES: dict[str, TensorCore] = {
    "v100": TensorCore("v100", "NVIDIA V100 (Volta)", {
        "float16": FusedModel(FusedAdder(block=4, window=24), _WORDS["v100"])}),
    "a100": TensorCore("a100", "NVIDIA A100 (Ampere)", {
        "float16": _AMPERE, "bfloat16": _AMPERE,
        "tfloat32": FusedModel(FusedAdder(block=4, window=25), _WORDS["a100_tf32"])}),
    "h100": TensorCore("h100", "NVIDIA H100 (Hopper)", {
        "float16": FusedModel(_HOPPER_16, _WORDS["h100"]), "bfloat16": FusedModel(_HOPPER_16, _WORDS["h100"]),
        "tfloat32": FusedModel(_HOPPER_8, _WORDS["h100"]),
        "float8_e4m3fn": FusedModel(FP8_HOPPER, _WORDS["h100_fp8"]),
        "float8_e5m2": FusedModel(FP8_HOPPER, _WORDS["h100_fp8"])}),
    "b200": TensorCore("b200", "NVIDIA B200 (Blackwell)", {
        "float16": FusedModel(_HOPPER_16, _WORDS["b200"]), "bfloat16": FusedModel(_HOPPER_16, _WORDS["b200"]),
        "tfloat32": FusedModel(_HOPPER_8, _WORDS["b200"]),
        "float8_e4m3fn": FusedModel(FusedAdder(block=32, window=26), _WORDS["b200"]),
        "float8_e5m2": FusedModel(FusedAdder(block=32, window=26), _WORDS["b200"])}),
}
