"""The lab's presets: each a lesson of mixed precision, or an example of the source pages, as the state it opens."""

from __future__ import annotations

from dataclasses import dataclass

from app.web.platform.catalogs import N_


@dataclass(frozen=True)
class Lesson:
    """A preset: its title, what it shows, and the query that opens it."""

    id: str
    title: str  # N_-marked
    shows: str  # N_-marked
    query: dict[str, str | list[str]]


LESSONS = (
    Lesson("fp16_overflow", N_("10k × 10k in FP16"),
           N_("10,000 × 10,000 should be 100,000,000, which FP16 cannot hold: its largest value is 65504."),
           {"format": "float16", "op": "mul", "a": "10000", "b": "10000"}),
    Lesson("fp16_to_fp32", N_("FP16 × FP16 → FP32"),
           N_("The same product kept in FP32: a product of two FP16 values always fits, which is why tensor cores "
              "accumulate in FP32."),
           {"format": "float16", "op": "mul", "a": "10000", "b": "10000", "result_format": "float32"}),
    Lesson("bf16_product", N_("BF16 × BF16 → BF16"),
           N_("BF16 keeps 8 significant bits: the product of two of its values needs up to 16, so storing it back in "
              "BF16 rounds."),
           {"format": "bfloat16", "op": "mul", "a": "1.0078125", "b": "1.0078125"}),
    Lesson("tf32", N_("TF32 inputs, FP32 product"),
           N_("TF32 rounds the inputs to 10 mantissa bits, multiplies exactly and keeps the result in FP32."),
           {"format": "tfloat32", "op": "mul", "a": "0.1", "b": "3", "result_format": "float32"}),
    Lesson("swamping", N_("1 + 2⁻¹¹ in FP16"),
           N_("Half of FP16's step at 1 is a tie, and ties go to even: the small addend vanishes, step after step."),
           {"format": "float16", "op": "add", "a": "1", "b": "0x1p-11", "step": ["add:0x1p-11"] * 3}),
    Lesson("associativity", N_("(2048 + 1) + 1 in FP16"),
           N_("Each 1 added to 2048 is half a step: both round away. Added first, 1 + 1 = 2 survives: see the next "
              "lesson."),
           {"format": "float16", "op": "add", "a": "2048", "b": "1", "step": ["add:1"]}),
    Lesson("associativity_other", N_("(1 + 1) + 2048 in FP16"),
           N_("The same three numbers in another order give 2050, not 2048: floating-point addition is not "
              "associative."),
           {"format": "float16", "op": "add", "a": "1", "b": "1", "step": ["add:2048"]}),
    Lesson("cancellation", N_("(1 + 0.0007) − 1 in FP16"),
           N_("Catastrophic cancellation: the subtraction is exact, but it lays bare the rounding of the sum before "
              "it: the answer is 1.4 times the exact one."),
           {"format": "float16", "op": "add", "a": "1", "b": "0.0007", "step": ["sub:1"]}),
    Lesson("fma", N_("fma: one rounding instead of two"),
           N_("(1 + 2⁻¹⁰)(1 − 2⁻¹⁰) − 1 is −2⁻²⁰. Multiplied and rounded first, the product is 1 and the answer 0."),
           {"format": "float16", "op": "fma", "a": "0x1.004p0", "b": "0x1.ff8p-1", "c": "-1"}),
    Lesson("nan_run", N_("inf − inf, then one NaN spoils the run"),
           N_("An overflow to inf, then inf − inf: NaN, and every step after it is NaN too, as one NaN in a loss "
              "spoils a training run."),
           {"format": "float16", "op": "mul", "a": "300", "b": "300", "step": ["sub:inf", "add:1", "mul:0"]}),
    Lesson("fp8_nan", N_("Overflow in FP8 E4M3"),
           N_("E4M3 has no infinity: ml_dtypes' cast gives NaN beyond 448; choose saturate to keep 448."),
           {"format": "float8_e4m3fn", "op": "mul", "a": "32", "b": "16"}),
    Lesson("underflow", N_("A product too small for FP16"),
           N_("10⁻⁴ × 10⁻⁴ is far below FP16's smallest subnormal, 2⁻²⁴: it flushes to zero (underflow), which is "
              "what loss scaling prevents."),
           {"format": "float16", "op": "mul", "a": "0.0001", "b": "0.0001"}),
)
