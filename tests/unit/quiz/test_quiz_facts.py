"""Every number the written questions teach, recomputed with the formats core (app.formats)."""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from app.formats import FormatSpec, decode, encode, get_format, next_up, parse_number
from app.formats.blocks import NF4_BLOCK_SIZE
from app.quiz import BitPattern, MultipleSelect, Numeric, SingleChoice, grade, load_bank
from app.training.fp8 import DelayedScaling

BANK = load_bank()


def stored(format_id: str, value: str) -> Fraction:
    """The exact value a format stores for a decimal, rounding to nearest even."""
    return encode(get_format(format_id), parse_number(value)).encoding.value.fraction


def first_inexact_integer(format_id: str) -> int:
    n = 1
    while stored(format_id, str(n)) == n:
        n += 1
    return n


def spec(format_id: str) -> FormatSpec:
    return get_format(format_id)


def zero_bytes_per_parameter(stage: int, gpus: int) -> Fraction:
    """Mixed-precision Adam's model states per GPU under ZeRO (Rajbhandari et al., 2020), stage 0 to 3.

    Stage 1 partitions the optimizer states (FP32 master weights, momentum, variance), stage 2 also the
    FP16 gradients, stage 3 also the FP16 parameters.
    """
    states = 3 * spec("float32").bytes_per_value
    gradients = parameters = spec("float16").bytes_per_value
    parts = ((states, 1), (gradients, 2), (parameters, 3))
    return sum((part / gpus if stage >= partitioned_from else part for part, partitioned_from in parts), Fraction(0))


def stochastic_up_probability(format_id: str, value: str) -> Fraction:
    """The chance that stochastic rounding stores `value` as its upper neighbour: (x − lo)/(hi − lo)."""
    x = parse_number(value).fraction
    lower = encode(spec(format_id), parse_number(value), rounding="toward_zero").encoding
    upper = next_up(lower)
    assert upper is not None
    return (x - lower.value.fraction) / (upper.value.fraction - lower.value.fraction)


GUIDE = Path(__file__).resolve().parents[3] / "templates" / "learn" / "mixed-precision-training.html"


def guide_says(pattern: str) -> int:
    """A number the mixed-precision guide states (the quiz asks what the guide teaches, from the same source)."""
    match = re.search(pattern, " ".join(GUIDE.read_text(encoding="utf-8").split()))
    assert match, pattern
    return int(match.group(1))


def delayed_scale_ignores_this_step() -> bool:
    """Delayed scaling casts with the scale its history gave before this tensor was seen (app/training/fp8.py)."""
    e4m3, scaling = spec("float8_e4m3fn"), DelayedScaling()
    first, _ = scaling.quantize(np.array([1000.0], dtype=np.float32), "x", e4m3)
    scaling.update()
    second, inverse = scaling.quantize(np.array([1000.0], dtype=np.float32), "x", e4m3)
    # the first cast saturates: its scale (1, from an empty history) was fixed before this tensor was seen; the next
    # step's scale, from the history, maps the same tensor's amax onto E4M3's largest value
    return float(first[0]) == e4m3.max and abs(float(second[0]) * float(inverse) - 1000.0) < 1e-3


NUMERIC: dict[str, Callable[[], Fraction | int]] = {
    "fp16-exponent-bias": lambda: spec("float16").bias,
    "fp32-epsilon": lambda: spec("float32").epsilon,
    "fp16-first-inexact-integer": lambda: first_inexact_integer("float16"),
    "bf16-max": lambda: spec("bfloat16").max,
    "fp16-min-normal": lambda: spec("float16").min_normal,
    "bf16-first-inexact-integer": lambda: first_inexact_integer("bfloat16"),
    "e4m3-max": lambda: spec("float8_e4m3fn").max,
    "e5m2-min-subnormal": lambda: spec("float8_e5m2").min_subnormal,
    "tf32-spacing-at-one": lambda: spec("tfloat32").epsilon,
    "tf32-unit-roundoff": lambda: spec("tfloat32").epsilon / 2,
    "fp16-sum-plus-one": lambda: stored("float16", "2049"),
    "fp16-small-update": lambda: stored("float16", "1.0004"),
    "scaler-initial-scale": lambda: 2**16,  # torch.amp.GradScaler's init_scale, not a format constant
    "adam-bytes-per-parameter": lambda: 2 * spec("bfloat16").bytes_per_value + 3 * spec("float32").bytes_per_value,
    "bf16-7b-weights": lambda: 7 * spec("bfloat16").gigabytes_per_billion,
    "int4-7b-weights": lambda: 7 * spec("int4").gigabytes_per_billion,
    "absmax-int8-code": lambda: Fraction("0.5") / (Fraction("2.54") / spec("int8").max),
    "nf4-block-size": lambda: NF4_BLOCK_SIZE,
    "mxfp4-bits-per-value": lambda: spec("mxfp4").bits_per_value,
    "nvfp4-bits-per-value": lambda: spec("nvfp4").bits_per_value,
    "mxint8-bits-per-value": lambda: spec("mxint8").bits_per_value,
    "e4m3-round-460": lambda: stored("float8_e4m3fn", "460"),
    "e5m2fnuz-bias": lambda: spec("float8_e5m2fnuz").bias,
    "zero-stage2-bytes": lambda: zero_bytes_per_parameter(2, 64),
    "zero-stage1-7b-gigabytes": lambda: 7 * zero_bytes_per_parameter(1, 8),  # 10^9 parameters × bytes / 10^9
    "stochastic-rounding-probability": lambda: stochastic_up_probability("bfloat16", "1.001"),
    "optimizer-states-8bit": lambda: 2 * spec("int8").bytes_per_value,
    "optimizer-states-bf16": lambda: 2 * spec("bfloat16").bytes_per_value,
    # cited from the DeepSeek-V3 report (arXiv:2412.19437), not run: the quiz asks what the guide says
    "deepseek-fp32-promotion": lambda: guide_says(r"partial sums to FP32 on the CUDA cores every (\d+) elements"),
}

# The bits questions: (format, value) whose stored pattern is the answer.
BITS: dict[str, tuple[str, str]] = {
    "bits-fp16-one": ("float16", "1"),
    "bits-bf16-minus-two": ("bfloat16", "-2"),
    "bits-e4m3-one": ("float8_e4m3fn", "1"),
    "bits-e4m3-nan": ("float8_e4m3fn", "nan"),
    "bits-e4m3fnuz-nan": ("float8_e4m3fnuz", "nan"),
}

# Single-choice questions that teach a number: the right choice's text, and the fact behind it.
SINGLE: dict[str, tuple[str, Callable[[], bool]]] = {
    "fp16-max": ("65504", lambda: spec("float16").max == 65504),
    "e5m2-max": ("57344", lambda: spec("float8_e5m2").max == 57344),
    "fp16-min-subnormal": ("2^−24 ≈ 5.96e-8", lambda: spec("float16").min_subnormal == Fraction(1, 2**24)),
    "bf16-spacing-at-one": ("2^−7 = 0.0078125", lambda: spec("bfloat16").epsilon == Fraction("0.0078125")),
    "e4m3-min-normal": ("2^−6 = 0.015625", lambda: spec("float8_e4m3fn").min_normal == Fraction("0.015625")),
    "fp16-overflow-70000": ("Infinity", lambda: encode(spec("float16"), parse_number("70000")).encoding.cls == "inf"),
    "e4m3-overflow-1000": ("NaN", lambda: encode(spec("float8_e4m3fn"), parse_number("1000")).encoding.cls == "nan"),
    "bf16-256-plus-1": ("256", lambda: stored("bfloat16", "257") == 256),
    "activations-1e5": ("BF16", lambda: stored("bfloat16", "1e5") == 99840
                        and encode(spec("float16"), parse_number("1e5")).encoding.cls == "inf"),
    "tf32-field-widths": ("1 sign, 8 exponent, 10 mantissa",
                          lambda: (spec("tfloat32").exponent_bits, spec("tfloat32").mantissa_bits) == (8, 10)),
    "fp32-field-widths": ("1 sign bit, 8 exponent bits, 23 mantissa bits",
                          lambda: (spec("float32").exponent_bits, spec("float32").mantissa_bits) == (8, 23)),
    "int8-range": ("−128 to 127", lambda: (spec("int8").lowest, spec("int8").max) == (-128, 127)),
    "int4-range": ("−8 to 7", lambda: (spec("int4").lowest, spec("int4").max) == (-8, 7)),
    "adam-7b-training": ("112 GB", lambda: 7 * 16 == 112),
    "absmax-int8-scale": ("0.02", lambda: Fraction("2.54") / spec("int8").max == Fraction("0.02")),
    "e4m3fn-name": ("Finite: there is no infinity, and NaN is a special pattern (S.1111.111) rather than IEEE's.",
                    lambda: not spec("float8_e4m3fn").has_inf and spec("float8_e4m3").max == 240),
    "fnuz-formats": ("It has no negative zero (0x80 is its only NaN) and its bias is 8 rather than 7, so its "
                     "largest value is 240.",
                     lambda: not spec("float8_e4m3fnuz").has_negative_zero and not spec("float8_e4m3fnuz").has_inf
                     and decode(spec("float8_e4m3fnuz"), 0x80).cls == "nan"
                     and (spec("float8_e4m3fnuz").bias, spec("float8_e4m3fn").bias) == (8, 7)
                     and spec("float8_e4m3fnuz").max == 240
                     and (spec("float8_e4m3fnuz").min_normal, spec("float8_e4m3fnuz").min_subnormal)
                     == (Fraction(1, 2**7), Fraction(1, 2**10))),
    "mxint8-element-range": ("−2 to 1.984375 in steps of 1/64",
                             lambda: (spec("mxint8").lowest, spec("mxint8").max, spec("mxint8").epsilon)
                             == (-2, Fraction("1.984375"), Fraction(1, 64))),
    "nvfp4-two-level-scaling": ("Each block of 16 shares an FP8 E4M3 scale, and one FP32 scale covers the tensor: "
                                "value = element × block scale × tensor scale.",
                                lambda: (spec("nvfp4").element, spec("nvfp4").scale, spec("nvfp4").block_size)
                                == (spec("float4_e2m1fn"), spec("float8_e4m3fn"), 16)
                                and (spec("mxfp4").scale, spec("mxfp4").block_size) == (spec("float8_e8m0fnu"), 32)
                                and spec("nvfp4").max == 6),
    "nvfp4-tensor-scale": ("A block scale, about the block's absmax / 6, may lie outside E4M3's range (up to 448); "
                           "the tensor scale brings the block scales into it.",
                           lambda: spec("float8_e4m3fn").max == 448 and spec("float4_e2m1fn").max == 6),
    "zero-stages": ("Stage 1 the optimizer states; stage 2 also the gradients; stage 3 also the parameters.",
                    lambda: [zero_bytes_per_parameter(stage, 1) for stage in range(4)] == [16] * 4
                    and (zero_bytes_per_parameter(1, 8), zero_bytes_per_parameter(2, 8),
                         zero_bytes_per_parameter(3, 8)) == (4 + Fraction(12, 8), 2 + Fraction(14, 8), 2)),
    "kahan-bf16-weights": ("The rounding error of each update, the part the BF16 weight could not take, added back "
                           "at the next step; 2 + 2 = 4 bytes.",
                           lambda: 2 * spec("bfloat16").bytes_per_value == 4
                           and spec("bfloat16").bytes_per_value + spec("float32").bytes_per_value == 6),
    "fp8-scaling-kinds": ("Delayed per-tensor scaling (DelayedScaling): the scale comes from the amax history of "
                          "earlier steps.", delayed_scale_ignores_this_step),
}

# The questions of the guides' newest sections (issue 22), graded both ways: the right answer counts, a near miss
# does not. Numeric: (right, wrong) as a student types them.
GRADED_BOTH_WAYS: dict[str, tuple[object, object]] = {
    "stochastic-rounding-probability": ("0.128", "0.13"),
    "optimizer-states-8bit": ("2", "4"),
    "optimizer-states-bf16": ("4", "2"),
    "deepseek-fp32-promotion": ("128", "32"),
    "kahan-bf16-weights": (None, None),
    "fp8-scaling-kinds": (None, None),
}


def _number(text: str) -> Fraction:
    return parse_number(text).fraction


# Multiple-select questions: which choices are right, decided from each choice's text by the formats core.
MULTIPLE: dict[str, Callable[[str], bool]] = {
    "fp16-which-underflow": lambda text: stored("float16", text) == 0,
    "bf16-small-updates": lambda text: stored("bfloat16", str(1 + _number(text))) != 1,
    "fp4-values": lambda text: stored("float4_e2m1fn", text) == _number(text),
    "negative-zero-formats": lambda text: spec({"FP16": "float16", "BF16": "bfloat16", "INT8": "int8",
                                                "FP8 E4M3FN (OCP)": "float8_e4m3fn",
                                                "FP8 E4M3FNUZ": "float8_e4m3fnuz"}[text]).has_negative_zero,
    "fp32-exponent-family": lambda text: spec({"TF32": "tfloat32", "BF16": "bfloat16", "FP16": "float16",
                                               "FP8 E5M2": "float8_e5m2"}[text]).exponent_bits == 8,
    "autocast-fp32-ops": lambda text: text in {"softmax", "cross_entropy", "layer_norm"},  # PyTorch's autocast lists
}


@pytest.mark.parametrize("question_id", sorted(NUMERIC))
def test_numeric_answers_match_the_formats_core(question_id: str) -> None:
    question = BANK.questions[question_id]
    assert isinstance(question, Numeric)
    assert question.answer == NUMERIC[question_id]()


@pytest.mark.parametrize("question_id", sorted(BITS))
def test_bit_pattern_answers_match_the_formats_core(question_id: str) -> None:
    question = BANK.questions[question_id]
    assert isinstance(question, BitPattern)
    format_id, value = BITS[question_id]
    assert question.format == format_id
    expected = encode(spec(format_id), parse_number(value)).encoding
    assert question.answer == expected.bits
    assert decode(spec(format_id), question.answer).value.exact_string() == expected.value.exact_string()


@pytest.mark.parametrize("question_id", sorted(SINGLE))
def test_single_choice_facts(question_id: str) -> None:
    question = BANK.questions[question_id]
    assert isinstance(question, SingleChoice)
    text, fact = SINGLE[question_id]
    assert [question.options[i].text for i in question.answers] == [text]
    assert fact()


@pytest.mark.parametrize("question_id", sorted(MULTIPLE))
def test_multiple_select_facts(question_id: str) -> None:
    question = BANK.questions[question_id]
    assert isinstance(question, MultipleSelect)
    right = {i for i, option in enumerate(question.options) if MULTIPLE[question_id](option.text)}
    assert right == question.answers


@pytest.mark.parametrize("question_id", sorted(GRADED_BOTH_WAYS))
def test_the_new_sections_questions_are_graded_both_ways(question_id: str) -> None:
    question = BANK.questions[question_id]
    right, wrong = GRADED_BOTH_WAYS[question_id]
    if isinstance(question, SingleChoice):
        (answer,) = question.answers
        assert grade(question, answer).correct
        assert not any(grade(question, other).correct for other in range(len(question.options)) if other != answer)
    else:
        assert grade(question, right).correct and not grade(question, wrong).correct


def test_every_numeric_and_bits_question_is_checked() -> None:
    """A new numeric or bits question needs a line in NUMERIC or BITS above (see quiz/README.md)."""
    unchecked = [q.id for q in BANK.questions.values() if isinstance(q, Numeric | BitPattern)
                 and q.id not in NUMERIC and q.id not in BITS]
    assert not unchecked
