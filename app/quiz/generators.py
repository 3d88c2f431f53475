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
from app.quiz.arithmetic_questions import ARITHMETIC_GENERATORS
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
from app.quiz.messages import N_, Message
from app.quiz.questions import (
    BitPattern,
    Choice,
    Numeric,
    Question,
    SingleChoice,
    anatomy,
    approx,
    bits_message,
    rounding_story,
    worded,
)

# Every prompt, choice and explanation below is a message (app/quiz/messages.py): str() of it is the English the
# API and stored attempts know, and the web layer words it in the page's language. Numbers, bit patterns, format
# names and exact values are its parameters, the same in every language.
_EXACT = Message(N_("Type it exactly: a decimal, a fraction such as 1025/1024 or a hex float such as 0x1.004p0."))


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
    return worded(
        BitPattern, id=generated_id("bits", format_id, value), topic="number_formats", format=format_id,
        answer=stored.bits,
        prompt=Message(N_("%(value)s is rounded to %(format)s, to nearest with ties to even. Type the bits that are "
                          "stored, in hex (0x…) or binary."), {"value": value, "format": spec.name}),
        explanation=Message(N_("%(value)s in %(format)s is stored as %(story)s. %(anatomy)s."),
                            {"value": value, "format": spec.name, "story": rounding_story(x, stored),
                             "anatomy": anatomy(stored)}),
    )


_DECODE = ("bfloat16", "float16", "float8_e4m3fn", "float8_e5m2", "float6_e3m2fn", "float4_e2m1fn")


def _decode(format_id: str, pattern: str) -> Numeric:
    encoding = read_pattern(_DECODE, format_id, pattern, signed=True)
    return worded(
        Numeric, id=generated_id("decode", format_id, pattern), topic="number_formats",
        answer=encoding.value.fraction,
        prompt=Message(N_("Which value does the %(format)s pattern %(bits)s hold? %(exactly)s"),
                       {"format": encoding.format.name, "bits": bits_message(format_id, encoding.bits),
                        "exactly": _EXACT}),
        explanation=Message(N_("%(anatomy)s."), {"anatomy": anatomy(encoding)}),
    )


_MAX = ("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
        "float8_e4m3", "float8_e3m4", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn")
_WHY_TOP = {
    "ieee": N_("the all-ones exponent field is kept for infinity and NaN"),
    "fn": N_("there is no infinity, and only the all-ones exponent with the all-ones mantissa is NaN"),
    "fnuz": N_("there is no infinity, and the only NaN is the pattern of negative zero"),
    "none": N_("there is no infinity and no NaN, so every pattern is a number"),
}


def _max(format_id: str) -> Numeric:
    spec = allowed_spec(format_id, _MAX)
    largest = encode(spec, Real.of(spec.max)).encoding
    rounded = spec.max > 10**6  # nobody types 39 digits: three significant figures will do
    facts = {"format": spec.name, "why": Message(_WHY_TOP[spec.nan_style]), "anatomy": anatomy(largest),
             "approx": approx(spec.max)}
    return worded(
        Numeric, id=generated_id("max", format_id), topic="number_formats", answer=spec.max,
        figures=3 if rounded else None,
        prompt=Message(N_("What is the largest finite value of %(format)s? Three significant figures will do.")
                       if rounded else N_("What is the largest finite value of %(format)s?"), facts),
        explanation=Message(N_("In %(format)s %(why)s. The largest finite pattern is %(anatomy)s %(approx)s.")
                            if rounded else N_("In %(format)s %(why)s. The largest finite pattern is %(anatomy)s."),
                            facts),
    )


_NEXT_UP = ("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2")


def _next_up(format_id: str, pattern: str) -> Numeric:
    encoding = read_pattern(_NEXT_UP, format_id, pattern, signed=False)
    after = next_up(encoding)
    assert after is not None  # below max, so a larger finite value exists
    spec, x, e = encoding.format, encoding.value.exact_string(), encoding.exponent or 0
    step = Real.of(after.value.fraction - encoding.value.fraction).exact_string()
    return worded(
        Numeric, id=generated_id("next_up", format_id, pattern), topic="number_formats",
        answer=after.value.fraction,
        prompt=Message(N_("%(value)s is a value of %(format)s. What is the next larger value of %(format)s? "
                          "%(exactly)s"), {"value": x, "format": spec.name, "exactly": _EXACT}),
        explanation=Message(
            N_("%(value)s = %(significand)s (binary) × 2^%(exponent)s. With %(bits)s mantissa bits, values from "
               "2^%(exponent)s to 2^%(above)s are 2^%(spacing)s = %(step)s apart, so the next one is %(next)s "
               "(%(hex)s)."),
            {"value": x, "significand": encoding.significand_binary, "exponent": e, "bits": spec.mantissa_bits,
             "above": e + 1, "spacing": e - spec.mantissa_bits, "step": step, "next": after.value.exact_string(),
             "hex": after.hex}),
    )


# Three digits each, so that thousands of values are drawn around each format's subnormals: few ever come back.
_UNDERFLOW: dict[str, Decades] = {"float16": (3, -11, -7), "bfloat16": (3, -44, -40)}
_CLASSES = ("zero", "subnormal", "normal")


def _underflow(format_id: str, value: str) -> SingleChoice:
    spec, x = read_value(_UNDERFLOW, format_id, value, signed=False)
    stored = encode(spec, x).encoding
    tiny, normal, result = spec.min_subnormal or Fraction(0), spec.min_normal or Fraction(0), stored.value.magnitude
    facts = {"value": value, "format": spec.name, "shown": "0" if not result else approx(result),
             "half": spec.emin - spec.mantissa_bits - 1, "approx_half": approx(tiny / 2),
             "tiny": spec.emin - spec.mantissa_bits, "approx_tiny": approx(tiny),
             "normal": spec.emin, "approx_normal": approx(normal),
             "stored": stored.value.exact_string(), "hex": stored.hex}
    options = (
        Choice.of(Message(N_("It becomes 0 (underflow).")), Message(
            N_("Only values up to half the smallest subnormal, 2^%(half)s %(approx_half)s, round to 0 (half itself "
               "is a tie, which goes to the even 0); %(value)s is below it.") if x.magnitude < tiny / 2 else
            N_("Only values up to half the smallest subnormal, 2^%(half)s %(approx_half)s, round to 0 (half itself "
               "is a tie, which goes to the even 0); %(value)s is above it."), facts)),
        Choice.of(Message(N_("It is stored as a subnormal number, with fewer significant bits.")), Message(
            N_("Subnormals run from 2^%(tiny)s %(approx_tiny)s to just below the smallest normal; %(value)s rounds "
               "to %(shown)s, which is one.") if stored.cls == "subnormal" else
            N_("Subnormals run from 2^%(tiny)s %(approx_tiny)s to just below the smallest normal; %(value)s rounds "
               "to %(shown)s, which is not one."), facts)),
        Choice.of(Message(N_("It is stored as a normal number.")), Message(
            N_("Normal numbers start at 2^%(normal)s %(approx_normal)s; %(value)s is at least that after rounding.")
            if stored.cls == "normal" else
            N_("Normal numbers start at 2^%(normal)s %(approx_normal)s; %(value)s is below that after rounding."),
            facts)),
    )
    return worded(
        SingleChoice, id=generated_id("underflow", format_id, value), topic="fp16_vs_bf16", options=options,
        answers=frozenset({_CLASSES.index(stored.cls)}),
        prompt=Message(N_("The value %(value)s is rounded to %(format)s, to nearest with ties to even. What "
                          "happens?"), facts),
        explanation=Message(N_("In %(format)s, %(value)s is stored as %(stored)s (%(hex)s)."), facts),
    )


_STORED: dict[str, Decades] = {"float8_e4m3fn": (3, -2, -1), "float8_e5m2": (3, -3, 1)}


def _stored(format_id: str, value: str) -> Numeric:
    spec, x = read_value(_STORED, format_id, value, signed=False)
    stored = encode(spec, x).encoding
    return worded(
        Numeric, id=generated_id("stored", format_id, value), topic="fp8", answer=stored.value.fraction,
        prompt=Message(N_("%(value)s is rounded to %(format)s, to nearest with ties to even. Which value is "
                          "stored? %(exactly)s"), {"value": value, "format": spec.name, "exactly": _EXACT}),
        explanation=Message(N_("With %(bits)s mantissa bits, %(value)s is stored as %(story)s. %(anatomy)s."),
                            {"bits": spec.mantissa_bits, "value": value, "story": rounding_story(x, stored),
                             "anatomy": anatomy(stored)}),
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
    default = spec.overflow_default
    facts = {"sign": "−" if x.negative else "+", "format": spec.name, "max": Real.of(spec.max).exact_string(),
             "value": value, "stored": stored.value.exact_string(), "hex": stored.hex}
    options = (
        Choice.of(Message(N_("%(sign)sinfinity"), facts), Message(
            N_("%(format)s has an infinity, and overflow rounds to it as in IEEE 754.") if spec.has_inf else
            N_("%(format)s has no infinity to overflow to."), facts)),
        Choice.of("NaN", Message(
            N_("With no infinity to go to, ml_dtypes' cast gives NaN in this format unless saturation (±max) is "
               "asked for. Other libraries choose differently, as the OCP FP8 specification allows: PyTorch's "
               ".to(torch.float8_e4m3fn) saturates to ±max since PyTorch 2.12, and Transformer Engine's casts "
               "saturate too.") if default == "nan" else
            N_("%(format)s does not turn overflow into NaN."), facts)),
        Choice.of(Message(N_("%(sign)s%(max)s, the most negative finite value (saturation)") if x.negative else
                          N_("%(sign)s%(max)s, the largest finite value (saturation)"), facts), Message(
            N_("%(format)s has neither infinity nor NaN, so a value beyond max is clamped to ±max.")
            if default == "saturate" else
            N_("Saturation is an option of a cast, not ml_dtypes' default in this format."), facts)),
    )
    return worded(
        SingleChoice, id=generated_id("overflow", format_id, value), topic="fp8", options=options,
        answers=frozenset({_OUTCOMES.index(default)}),
        prompt=Message(N_("The largest finite %(format)s value is %(max)s. What does a cast (as ml_dtypes casts, "
                          "without asking for saturation) store for %(value)s?"), facts),
        explanation=Message(N_("%(value)s in %(format)s becomes %(stored)s (%(hex)s)."), facts),
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
        *(Generator(name, sample, build) for name, sample, build in ARITHMETIC_GENERATORS),
    )
}
