"""Questions generated from the formats core: answers and explanations are computed, never written.

A generated question's id is `gen:<generator>:<format>:<parameter>`, so it can be rebuilt from the id alone.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from app.formats import Real, encode, next_up
from app.quiz.generator_params import (
    PREFIX,
    Decades,
    allowed_spec,
    generated_id,
    read_pattern,
    read_value,
    sample_pattern,
    sample_value,
)
from app.quiz.questions import (
    BitPattern,
    Choice,
    Numeric,
    Question,
    SingleChoice,
    anatomy,
    approx,
    rounding_story,
    show_bits,
)

_EXACT = "Type it exactly: a decimal, a fraction such as 1025/1024 or a hex float such as 0x1.004p0."

class UnknownQuestion(LookupError):
    """A question id that is neither in the bank nor a generated question's id."""


@dataclass(frozen=True)
class Generator:
    """A family of questions: how to draw its parameters, and how to build a question from them."""

    name: str
    sample: Callable[[random.Random], tuple[str, ...]]
    build: Callable[..., Question]
    drawn: bool = True  # False: it only rebuilds the questions of attempts drawn before


def generate(name: str, rng: random.Random) -> Question:
    """A new question of the named generator, its parameters drawn from rng."""
    return GENERATORS[name].build(*GENERATORS[name].sample(rng))


def generated_question(question_id: str) -> Question:
    """Rebuild a generated question from its id; UnknownQuestion for anything that is not exactly one."""
    prefix, _, rest = question_id.partition(":")
    name, *params = rest.split(":")
    generator = GENERATORS.get(name)
    question = None
    if prefix == PREFIX and generator and len(question_id) <= 100:
        # TypeError: the wrong number of parameters; ValueError: parameters the generator never draws
        with contextlib.suppress(TypeError, ValueError):
            question = generator.build(*params)
    if question is None or question.id != question_id:
        raise UnknownQuestion(f"No question has the id {question_id[:100]!r}.")
    return question


# -- the generators -----------------------------------------------------------------------------

_BITS: dict[str, Decades] = {"bfloat16": (2, -3, 2), "float16": (2, -3, 1), "float8_e4m3fn": (2, -2, -1),
                             "float8_e5m2": (2, -3, 1)}


def _bits(format_id: str, value: str) -> BitPattern:
    spec, x = read_value(_BITS, format_id, value, signed=True)
    stored = encode(spec, x).encoding
    return BitPattern(
        id=generated_id("bits", format_id, value), topic="number_formats", format=format_id, answer=stored.bits,
        prompt=f"{value} is rounded to {spec.name}, to nearest with ties to even. Type the bits that are stored, "
        "in hex (0x…) or binary.",
        explanation=f"{value} in {spec.name} is stored as {rounding_story(x, stored)}. {anatomy(stored)}.",
    )


_DECODE = ("bfloat16", "float16", "float8_e4m3fn", "float8_e5m2", "float6_e3m2fn", "float4_e2m1fn")


def _decode(format_id: str, pattern: str) -> Numeric:
    encoding = read_pattern(_DECODE, format_id, pattern, signed=True)
    return Numeric(
        id=generated_id("decode", format_id, pattern), topic="number_formats", answer=encoding.value.fraction,
        prompt=f"Which value does the {encoding.format.name} pattern {show_bits(format_id, encoding.bits)} "
        f"hold? {_EXACT}",
        explanation=f"{anatomy(encoding)}.",
    )


_MAX = ("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
        "float8_e4m3", "float8_e3m4", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn")
_WHY_TOP = {
    "ieee": "the all-ones exponent field is kept for infinity and NaN",
    "fn": "there is no infinity, and only the all-ones exponent with the all-ones mantissa is NaN",
    "fnuz": "there is no infinity, and the only NaN is the pattern of negative zero",
    "none": "there is no infinity and no NaN, so every pattern is a number",
}


def _max(format_id: str) -> Numeric:
    spec = allowed_spec(format_id, _MAX)
    largest = encode(spec, Real.of(spec.max)).encoding
    rounded = spec.max > 10**6  # nobody types 39 digits: three significant figures will do
    return Numeric(
        id=generated_id("max", format_id), topic="number_formats", answer=spec.max, figures=3 if rounded else None,
        prompt=f"What is the largest finite value of {spec.name}?" + (" Three significant figures will do."
                                                                       if rounded else ""),
        explanation=f"In {spec.name} {_WHY_TOP[spec.nan_style]}. The largest finite pattern is {anatomy(largest)}"
        + (f" {approx(spec.max)}." if rounded else "."),
    )


_NEXT_UP = ("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2")


def _next_up(format_id: str, pattern: str) -> Numeric:
    encoding = read_pattern(_NEXT_UP, format_id, pattern, signed=False)
    after = next_up(encoding)
    assert after is not None  # below max, so a larger finite value exists
    spec, x, e = encoding.format, encoding.value.exact_string(), encoding.exponent or 0
    step = Real.of(after.value.fraction - encoding.value.fraction).exact_string()
    return Numeric(
        id=generated_id("next_up", format_id, pattern), topic="number_formats", answer=after.value.fraction,
        prompt=f"{x} is a value of {spec.name}. What is the next larger value of {spec.name}? {_EXACT}",
        explanation=f"{x} = {encoding.significand_binary} (binary) × 2^{e}. With {spec.mantissa_bits} mantissa bits, "
        f"values from 2^{e} to 2^{e + 1} are 2^{e - spec.mantissa_bits} = {step} apart, so the next one is "
        f"{after.value.exact_string()} ({after.hex}).",
    )


# Three digits each, so that thousands of values are drawn around each format's subnormals: few ever come back.
_UNDERFLOW: dict[str, Decades] = {"float16": (3, -11, -7), "bfloat16": (3, -44, -40)}
_CLASSES = ("zero", "subnormal", "normal")


def _underflow(format_id: str, value: str) -> SingleChoice:
    spec, x = read_value(_UNDERFLOW, format_id, value, signed=False)
    stored = encode(spec, x).encoding
    tiny, normal, result = spec.min_subnormal or Fraction(0), spec.min_normal or Fraction(0), stored.value.magnitude
    shown = "0" if not result else approx(result)
    options = (
        Choice("It becomes 0 (underflow).",
               f"Only values up to half the smallest subnormal, 2^{spec.emin - spec.mantissa_bits - 1} "
               f"{approx(tiny / 2)}, round to 0 (half itself is a tie, which goes to the even 0); {value} is "
               f"{'below' if x.magnitude < tiny / 2 else 'above'} it."),
        Choice("It is stored as a subnormal number, with fewer significant bits.",
               f"Subnormals run from 2^{spec.emin - spec.mantissa_bits} {approx(tiny)} to just below the smallest "
               f"normal; {value} rounds to {shown}, which is {'' if stored.cls == 'subnormal' else 'not '}one."),
        Choice("It is stored as a normal number.",
               f"Normal numbers start at 2^{spec.emin} {approx(normal)}; {value} is "
               f"{'at least' if stored.cls == 'normal' else 'below'} that after rounding."),
    )
    return SingleChoice(
        id=generated_id("underflow", format_id, value), topic="fp16_vs_bf16", options=options,
        answers=frozenset({_CLASSES.index(stored.cls)}),
        prompt=f"The value {value} is rounded to {spec.name}, to nearest with ties to even. What happens?",
        explanation=f"In {spec.name}, {value} is stored as {stored.value.exact_string()} ({stored.hex}).",
    )


_STORED: dict[str, Decades] = {"float8_e4m3fn": (3, -2, -1), "float8_e5m2": (3, -3, 1)}


def _stored(format_id: str, value: str) -> Numeric:
    spec, x = read_value(_STORED, format_id, value, signed=False)
    stored = encode(spec, x).encoding
    return Numeric(
        id=generated_id("stored", format_id, value), topic="fp8", answer=stored.value.fraction,
        prompt=f"{value} is rounded to {spec.name}, to nearest with ties to even. Which value is stored? {_EXACT}",
        explanation=f"With {spec.mantissa_bits} mantissa bits, {value} is stored as {rounding_story(x, stored)}. "
        f"{anatomy(stored)}.",
    )


# Values of three digits from the power of ten above the format's max (all_digits), so every value drawn overflows.
_OVERFLOW: dict[str, Decades] = {"float16": (3, 3, 3), "float8_e4m3fn": (3, 1, 1), "float8_e5m2": (3, 3, 3),
                                 "float6_e3m2fn": (3, 0, 0), "float4_e2m1fn": (3, -1, -1)}
_OUTCOMES = ("inf", "nan", "saturate")


def _overflow(format_id: str, value: str) -> SingleChoice:
    spec, x = read_value(_OVERFLOW, format_id, value, signed=True)
    digits, lowest, _ = _OVERFLOW[format_id]
    if x.magnitude < Fraction(10) ** (lowest + digits - 1):
        raise ValueError(f"{value!r} is below the range this generator draws from")
    stored = encode(spec, x).encoding
    sign, default = ("−" if x.negative else "+"), spec.overflow_default
    extreme = "the most negative finite value" if x.negative else "the largest finite value"
    options = (
        Choice(f"{sign}infinity", f"{spec.name} has an infinity, and overflow rounds to it as in IEEE 754."
               if spec.has_inf else f"{spec.name} has no infinity to overflow to."),
        Choice("NaN", "With no infinity to go to, ml_dtypes' cast gives NaN in this format unless saturation "
               "(±max) is asked for. Other libraries choose differently, as the OCP FP8 specification allows: "
               "PyTorch's .to(torch.float8_e4m3fn) and Transformer Engine saturate to ±max."
               if default == "nan" else f"{spec.name} does not turn overflow into NaN."),
        Choice(f"{sign}{Real.of(spec.max).exact_string()}, {extreme} (saturation)",
               f"{spec.name} has neither infinity nor NaN, so a value beyond max is clamped to ±max."
               if default == "saturate" else "Saturation is an option of a cast, not ml_dtypes' default in this "
               "format."),
    )
    return SingleChoice(
        id=generated_id("overflow", format_id, value), topic="fp8", options=options,
        answers=frozenset({_OUTCOMES.index(default)}),
        prompt=f"The largest finite {spec.name} value is {Real.of(spec.max).exact_string()}. What does a cast "
        f"(as ml_dtypes casts, without asking for saturation) store for {value}?",
        explanation=f"{value} in {spec.name} becomes {stored.value.exact_string()} ({stored.hex}).",
    )


GENERATORS: dict[str, Generator] = {
    g.name: g for g in (
        Generator("bits", lambda rng: sample_value(rng, _BITS, signed=True), _bits),
        Generator("decode", lambda rng: sample_pattern(rng, _DECODE, 3, signed=True), _decode),
        # Eleven questions only, which a bot that memorises the feedback soon knows: no longer drawn.
        Generator("max", lambda rng: (rng.choice(_MAX),), _max, drawn=False),
        Generator("next_up", lambda rng: sample_pattern(rng, _NEXT_UP, 4, signed=False), _next_up),
        Generator("underflow", lambda rng: sample_value(rng, _UNDERFLOW, signed=False), _underflow),
        Generator("stored", lambda rng: sample_value(rng, _STORED, signed=False), _stored),
        Generator("overflow", lambda rng: sample_value(rng, _OVERFLOW, signed=True, all_digits=True), _overflow),
    )
}
